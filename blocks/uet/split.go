package uet

import (
	"fmt"
	"strings"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/reps"
	"github.com/nicgen/nicgen/blocks/smartt"
	guet "github.com/nicgen/nicgen/golden/uet"
	"github.com/nicgen/nicgen/hdlgen"
)

// The split engine (Params.Split; docs/blocks/uet_cc.md, "Split send
// path"; golden model: golden/uet Split) runs the events on two shells:
//
//   - u_send, the send path: the load balancer and the bytes in flight, on
//     every event, with a window table beside its word (connpipe.Side);
//     its result stream is the engine's;
//   - u_window, the window path: the window controller in its own shell
//     (with the nscc section's merge slots), fed with the send path's
//     results of every kind but send, and writing each window it computes
//     into the send path's window table.
//
// A send thus waits only for the send path's short datapath, never for
// the window's update.

// splitResults are the split engine's result fields after conn and kind.
func splitResults(p Params, evW, cwndW int, rule string) []connpipe.Field {
	fs := []connpipe.Field{
		{Name: "ev", Width: evW, Doc: "entropy for a send; 0 for other kinds"},
		{Name: "explored", Width: 1, Doc: "the send's entropy is an exploration, not a recycled one"},
	}
	if !p.UseConf {
		fs = append(fs, connpipe.Field{Name: "frozen", Width: 1, Doc: "the connection's load balancer is in freezing mode after the event"})
	}
	return append(fs,
		connpipe.Field{Name: "cwnd", Width: cwndW, Doc: "the window the event saw, bytes: the window table's entry when the event issued (an open: the initial window)"},
		connpipe.Field{Name: "inflight", Width: p.CC.ByteW, Doc: "bytes in flight after the event"},
		connpipe.Field{Name: "may_send", Width: 1, Doc: "the connection may send after the event: " + rule + ", with the window the event saw"},
	)
}

// forwarded are the event fields the send path hands to the window path
// with each result.
var forwarded = []string{"size", "ecn", "rtt", "now"}

// splitSendPath builds uet_cc_send, the split engine's send path: the
// load balancer and the bytes in flight in a shell of reps's depth, with
// the window table (a side table) that the window path writes. It returns
// the module, its event fields and the engine's public result fields.
func splitSendPath(p Params, rule, lbName string) (snd *hdlgen.Module, evFields, pub []connpipe.Field, err error) {
	init := uint64(p.CC.Derive().InitCwnd)
	cwndW := p.CC.Derive().CwndW
	snd = hdlgen.NewModule("uet_cc_send", fmt.Sprintf("uet_cc's send path: %s and the bytes in flight, with the window table that uet_cc_window writes.", lbName))
	q := p.REPS
	lb := reps.PaperPart(snd, q)
	bw := p.CC.ByteW
	word := hdlgen.NewLayout("uet_cc_send_word")
	connpipe.Embed(word, lb, "lb_")
	word.Field("inflight", bw, "bytes in flight: sends add their size (saturating), acks, nacks and timeouts take it away (floored at 0)")
	evFields = []connpipe.Field{
		{Name: "size", Width: p.CC.SizeW, Doc: "bytes of the sent, acked, trimmed or timed-out packet"},
		{Name: "ecn", Width: 1, Doc: "ECN echo of an ack"},
		{Name: "rtt", Width: p.CC.RttW, Doc: "RTT sample of an ack, ns"},
		{Name: "ev", Width: fieldOf(lb.EventFields, "ev").Width, Doc: "entropy carried by an ack or nack"},
		{Name: "now", Width: p.CC.TimeW, Doc: "timestamp, ns (wraps)"},
	}
	pub = splitResults(p, fieldOf(lb.ResultFields, "ev").Width, cwndW, rule)
	results := append([]connpipe.Field(nil), pub...)
	for _, n := range forwarded {
		f := fieldOf(evFields, n)
		results = append(results, connpipe.Field{Name: n, Width: f.Width, Doc: "the event's " + n + ", for the window path"})
	}
	spec := connpipe.Spec{
		NumConn: p.CC.NumConn, ConnW: p.CC.ConnW, KindW: KindW, NumKinds: len(KindNames), KindNames: KindNames,
		EventFields: evFields, ResultFields: results, Word: word, Core: p.Core,
		Side: &connpipe.Side{Name: "window", Width: cwndW, Doc: "the connection's congestion window, bytes, as the window path computed it"},
	}
	if p.Formal.Invariants {
		spec.WordInvariants = connpipe.EmbedInvariants(lb, "lb_")
	}
	err = connpipe.Build(snd, spec, func(st connpipe.Step) connpipe.Outcome {
		// from a register of its own: may_send's comparison does not chain
		// after the add (the send path's depth stays reps's three stages)
		isOpen, _, inflight := inflightStep(st, p)

		lbEv := hdlgen.NewRecord("the load balancer's event").Set("ecn", st.Event.F("ecn")).Set("ev", st.Event.F("ev")).Set("now", st.Event.F("now"))
		lbM := st.Sub(snd, lb, "lb_", connpipe.View{Kind: st.Kind, Event: lbEv})

		window := hdlgen.Mux(isOpen, hdlgen.Const(cwndW, init), st.Side).Named("window_seen")
		maySend := maySendOf(p, inflight, window, cwndW).Named("may_send")
		fields := map[string]hdlgen.Value{"inflight": inflight}
		lbM.Fields(fields)
		res := map[string]hdlgen.Value{
			"ev": lbM.Result["ev"], "explored": lbM.Result["explored"], "frozen": lbM.Result["frozen"],
			"cwnd": window, "inflight": inflight, "may_send": maySend,
		}
		if p.UseConf {
			delete(res, "frozen")
		}
		for _, n := range forwarded {
			res[n] = st.Event.F(n)
		}
		return connpipe.Outcome{Word: word.Pack(fields), Result: res}
	})
	if err == nil {
		err = p.Formal.Check(snd)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return snd, evFields, pub, nil
}

// splitBlock builds the split engine's top, uet_cc.
func splitBlock(p Params, rule string) (*hdlgen.Module, error) {
	if p.UseConf || p.Table {
		// reps_conf's and the table port's composition are not written for
		// the split engine: refused, not approximated
		return nil, fmt.Errorf("uet_cc: send_path = \"split\" is built with lb = \"reps\" and without the control wrapper's table port")
	}
	ccName, lbName := p.Names()
	init := uint64(p.CC.Derive().InitCwnd)
	cwndW := p.CC.Derive().CwndW

	// the window path: the window controller's own block
	// the window path's table is written from registers: its new word
	// into its block RAMs was the engine's slowest path (7.69 ns)
	wp := p.CC
	wp.WriteBehind = true
	win, err := smartt.BlockNamed(wp, "uet_cc_window", fmt.Sprintf("uet_cc's window path: %s in its own shell, fed by uet_cc_send's results.", ccName))
	if err != nil {
		return nil, fmt.Errorf("uet_cc: window path: %w", err)
	}

	// the send path
	snd, evFields, pub, err := splitSendPath(p, rule, lbName)
	if err != nil {
		return nil, err
	}

	m := hdlgen.NewModule("uet_cc", fmt.Sprintf("UEC transport congestion engine, split: %s (entropy) and the bytes in flight on a short send path,\n"+
		"%s (window) on a window path that writes the send path's window table. Behaviour: docs/blocks/uet_cc.md.", lbName, ccName))
	m.Note("send path u_send (depth %d, latency %d), window path u_window (%s, depth %d, %d merge slots); may_send: %s", p.Depth, guet.SplitLatency(p.Depth), ccName, p.CC.Depth, p.CC.MergeSlots, rule)
	m.Group("Event stream (sink): one event per accepted beat")
	sValid := m.Input("s_event_valid", 1, "event valid")
	sReady := m.Output("s_event_ready", 1, "event ready (a register of the send path)")
	ins := map[string]*hdlgen.Signal{
		"s_event_conn": m.Input("s_event_conn", p.CC.ConnW, fmt.Sprintf("connection id; %d and above is an error", p.CC.NumConn)),
		"s_event_kind": m.Input("s_event_kind", KindW, "event kind: 0 open, 1 send, 2 ack, 3 nack (trim), 4 timeout; 5..7 are errors"),
	}
	inOrder := []string{"s_event_conn", "s_event_kind"}
	for _, f := range evFields {
		ins["s_event_"+f.Name] = m.Input("s_event_"+f.Name, f.Width, f.Doc)
		inOrder = append(inOrder, "s_event_"+f.Name)
	}
	m.Group("Result stream (source): one result per event, in order")
	mValid := m.Output("m_result_valid", 1, "result valid")
	mReady := m.Input("m_result_ready", 1, "result ready")
	outOrder := []string{"m_result_conn", "m_result_kind"}
	outs := map[string]*hdlgen.Signal{
		"m_result_conn": m.Output("m_result_conn", p.CC.ConnW, "connection id of the event"),
		"m_result_kind": m.Output("m_result_kind", KindW, "kind of the event"),
	}
	for _, f := range pub {
		outs["m_result_"+f.Name] = m.Output("m_result_"+f.Name, f.Width, f.Doc)
		outOrder = append(outOrder, "m_result_"+f.Name)
	}
	outs["m_result_error"] = m.Output("m_result_error", 1, "connection id out of range or unknown kind: nothing was changed")
	outOrder = append(outOrder, "m_result_error")
	var qualified []*hdlgen.Signal
	for _, n := range outOrder {
		qualified = append(qualified, outs[n])
	}
	m.Qualify(mValid, qualified...)

	us := m.Instantiate("u_send", snd).PassParams()
	uw := m.Instantiate("u_window", win).PassParams()

	// room: events accepted and not yet passed on are fewer than the
	// window queue holds, so that the queue always takes the send path's
	// results of the window path's kinds (window_room_reg and s_event_ready
	// of the send path, both registers)
	qLen := guet.SplitQueueLen(p.Depth)
	cw := hdlgen.BitsFor(uint64(qLen))
	held := m.Reg("window_held", cw, fmt.Sprintf("events accepted and not yet passed on to the window path or dropped from it (at most %d)", qLen), hdlgen.ResetTo(0))
	room := m.Reg("window_room", 1, "the window queue has room for every event held: the engine takes events", hdlgen.ResetTo(1))
	usReady := us.Out("s_event_ready")
	m.Assign(sReady, usReady.And(room).Named("event_ready"))
	us.In("s_event_valid", sValid.And(room).Named("send_valid"))
	for _, n := range inOrder {
		us.In(n, ins[n])
	}
	accept := sValid.And(room).And(usReady).Named("event_accept")

	// the send path's results are the engine's; those of the window
	// path's kinds (every kind but send, unless an error) also enter the
	// window queue as they are taken
	hv := us.Out("m_result_valid")
	hKind := us.Out("m_result_kind")
	need := us.Out("m_result_error").Not().And(hKind.EqC(uint64(guet.KindSend)).Not()).Named("window_need")
	pop := hv.And(mReady).Named("result_take")
	us.In("m_result_ready", mReady)
	m.Assign(mValid, hv)
	for _, n := range outOrder {
		m.Assign(outs[n], us.Out(n))
	}
	isOpen := hKind.EqC(uint64(guet.KindOpen))
	qFields := []connpipe.Field{
		{Name: "conn", Width: p.CC.ConnW}, {Name: "kind", Width: KindW},
		{Name: "size", Width: p.CC.SizeW}, {Name: "ecn", Width: 1}, {Name: "rtt", Width: p.CC.RttW},
		{Name: "unacked", Width: p.CC.ByteW}, {Name: "now", Width: p.CC.TimeW},
	}
	qIn := map[string]hdlgen.Expr{
		"conn": us.Out("m_result_conn"),
		// the window path's kinds: open 0, ack 1, nack 2, timeout 3
		"kind":    hdlgen.Mux(isOpen, hdlgen.Const(KindW, 0), hKind.Sub(hdlgen.Const(KindW, 1))).Named("window_kind"),
		"size":    us.Out("m_result_size"),
		"ecn":     us.Out("m_result_ecn"),
		"rtt":     us.Out("m_result_rtt"),
		"unacked": us.Out("m_result_inflight"),
		"now":     us.Out("m_result_now"),
	}
	wq := windowQueue(m, qLen, qFields, qIn, pop.And(need).Named("window_push"), uw.Out("s_event_ready"))
	uw.In("s_event_valid", wq.valid)
	for _, f := range qFields {
		uw.In("s_event_"+f.Name, wq.out[f.Name])
	}
	dropped := pop.And(need.Not()).Named("window_dropped")
	m.Comb("window_held", func(pr *hdlgen.Process) {
		w := cw + 1
		// at most qLen held: the count never leaves cw bits
		one1, zero1 := hdlgen.Const(cw, 1), hdlgen.Const(cw, 0)
		next := held.Add(hdlgen.Mux(accept, one1, zero1)).
			Sub(hdlgen.Mux(dropped, one1, zero1)).Sub(hdlgen.Mux(wq.take, one1, zero1)).Named("window_held_update")
		pr.Set(held, next)
		// next < qLen, decided by comparing held itself with qLen - 1 ..
		// qLen + 2 beside the select of the change (+1 .. -2), not after
		// the counter's add
		lt := func(c int) hdlgen.Expr { return held.ZExt(w).Lt(hdlgen.Const(w, uint64(c))) }
		leaving := hdlgen.Mux(dropped, lt(qLen+2), lt(qLen+1)).Named("window_room_leave2")
		stays := hdlgen.Mux(dropped.Or(wq.take), lt(qLen+1), lt(qLen)).Named("window_room_leave1")
		arrive := hdlgen.Mux(dropped.Or(wq.take), hdlgen.Mux(dropped.And(wq.take), lt(qLen+1), lt(qLen)), lt(qLen-1)).Named("window_room_arrive")
		pr.Set(room, hdlgen.Mux(accept, arrive, hdlgen.Mux(wq.take, leaving, stays)))
	})

	// the window table's writes: an open accepted in the last cycle writes
	// the initial window; otherwise the window path's result, which waits
	// while the open writes
	openWr := m.Reg("open_wr", 1, "an open was accepted in the last cycle: its initial window is written now", hdlgen.ResetTo(0))
	aw := hdlgen.BitsFor(uint64(p.CC.NumConn - 1))
	openConn := m.Reg("open_conn", aw, "the connection of that open", hdlgen.NoReset())
	inRange := hdlgen.True()
	if uint64(p.CC.NumConn) < uint64(1)<<uint(p.CC.ConnW) {
		inRange = ins["s_event_conn"].Lt(hdlgen.Const(p.CC.ConnW, uint64(p.CC.NumConn)))
	}
	m.Comb("open_write", func(pr *hdlgen.Process) {
		pr.Set(openWr, accept.And(ins["s_event_kind"].EqC(uint64(guet.KindOpen))).And(inRange))
		pr.Set(openConn, ins["s_event_conn"].Trunc(aw))
	})
	wv := uw.Out("m_result_valid")
	uw.In("m_result_ready", openWr.Not())
	wErr := uw.Out("m_result_error")
	wConn := uw.Out("m_result_conn")
	us.In("s_window_valid", openWr.Or(wv.And(wErr.Not())).Named("window_wr"))
	us.In("s_window_conn", hdlgen.Mux(openWr, openConn, wConn.Keep(aw-1, 0)).Named("window_wr_conn"))
	us.In("s_window_data", hdlgen.Mux(openWr, hdlgen.Const(cwndW, init), uw.Out("m_result_cwnd")).Named("window_wr_data"))

	// the window path's results, as they are taken: a monitor stream
	m.Group("Window updates (source, no ready): one beat per result of the window path, as it writes the window table")
	monValid := m.Output("m_window_valid", 1, "a window update is taken in this cycle")
	m.Assign(monValid, wv.And(openWr.Not()).Named("window_take"))
	var mon []*hdlgen.Signal
	for _, pt := range win.Ports() {
		n, ok := strings.CutPrefix(pt.Name(), "m_result_")
		if !ok || pt.IsInput() || n == "valid" {
			continue
		}
		o := m.Output("m_window_"+n, pt.Width(), "the window path's "+n+" (docs/blocks/smartt.md)")
		m.Assign(o, uw.Out(pt.Name()))
		mon = append(mon, o)
	}
	m.Qualify(monValid, mon...)
	return m, nil
}

// queue is the window queue's outputs: its head, valid, and whether the
// window path takes it in this cycle.
type queue struct {
	valid, take hdlgen.Expr
	out         map[string]hdlgen.Expr
}

// windowQueue is a FIFO of n entries of fields: push writes in at the
// edge, ready takes its head. The entries are a memory read
// synchronously at the address of the head after the edge (the read
// register is the head: no multiplexer over n entries, and push enables
// one write port, not n entries' registers). An entry pushed in the edge
// after which it is the head is shown from a register of its own for one
// cycle, since the memory's read returns the word before the write.
func windowQueue(m *hdlgen.Module, n int, fields []connpipe.Field, in map[string]hdlgen.Expr, push, ready hdlgen.Expr) queue {
	pw := hdlgen.BitsFor(uint64(n - 1))
	cw := hdlgen.BitsFor(uint64(n))
	rd := m.Reg("wq_rd", pw, "window queue: its head's entry", hdlgen.ResetTo(0))
	wr := m.Reg("wq_wr", pw, "window queue: the next free entry", hdlgen.ResetTo(0))
	cnt := m.Reg("wq_count", cw, "window queue: entries held", hdlgen.ResetTo(0))
	valid := m.Reg("wq_valid", 1, "window queue: an entry is held (wq_count != 0)", hdlgen.ResetTo(0))
	layout := hdlgen.NewLayout("window_queue_entry")
	vals := map[string]hdlgen.Value{}
	for _, f := range fields {
		layout.Field(f.Name, f.Width, "the window path's s_event_"+f.Name)
		vals[f.Name] = in[f.Name]
	}
	mem := m.Memory("wq_mem", n, layout, false)
	word := layout.Pack(vals).Named("wq_in")
	m.Write(mem, wr, word, push)
	q := queue{valid: valid.Expr, out: map[string]hdlgen.Expr{}}
	q.take = valid.And(ready).Named("wq_take")
	inc := func(x *hdlgen.Reg) hdlgen.Expr {
		return hdlgen.Mux(x.EqC(uint64(n-1)), hdlgen.Const(pw, 0), x.Add(hdlgen.Const(pw, 1)))
	}
	rdNext := hdlgen.Mux(q.take, inc(rd), rd.Expr).Named("wq_head_addr")
	stored := m.Read(mem, rdNext, hdlgen.True())
	fresh := m.Reg("wq_fresh", layout.Width(), "window queue: the entry pushed in the last edge, when it became the head", hdlgen.NoReset())
	useFresh := m.Reg("wq_use_fresh", 1, "window queue: the head is wq_fresh (the memory's read came before its write)", hdlgen.ResetTo(0))
	head := hdlgen.Mux(useFresh, fresh, stored).Named("wq_head")
	for _, f := range fields {
		q.out[f.Name] = layout.Get(head, f.Name).Named("wq_head_" + f.Name)
	}
	m.Comb("window_queue", func(p *hdlgen.Process) {
		p.If(push, func() {
			p.Set(wr, inc(wr))
			p.Set(fresh, word)
		})
		p.If(q.take, func() { p.Set(rd, inc(rd)) })
		// the pushed entry is the head after the edge: the queue is empty
		// once the take (if any) has left
		emptied := cnt.Eq(hdlgen.Const(cw, 0)).Or(cnt.Eq(hdlgen.Const(cw, 1)).And(q.take))
		p.Set(useFresh, push.And(emptied))
		// at most n held: the count never leaves cw bits
		one, zero := hdlgen.Const(cw, 1), hdlgen.Const(cw, 0)
		p.Set(cnt, cnt.Add(hdlgen.Mux(push, one, zero)).Sub(hdlgen.Mux(q.take, one, zero)).Named("wq_count_update"))
		// next != 0, from the count itself beside the push/take select
		p.Set(valid, hdlgen.Mux(push.And(q.take.Not()), hdlgen.True(),
			hdlgen.Mux(q.take.And(push.Not()), cnt.Ne(hdlgen.Const(cw, 1)), valid.Expr)))
	})
	return q
}

// maySendOf is the send rule: inflight against the window.
func maySendOf(p Params, inflight, window hdlgen.Expr, cw int) hdlgen.Expr {
	bw := p.CC.ByteW
	if p.Rule == guet.RoomForMTU {
		n := max(bw, cw) + 1
		need := inflight.ZExt(n).Add(hdlgen.Const(n, uint64(p.CC.Net.MTU))).Named("inflight_plus_mtu")
		return need.Le(window.ZExt(n))
	}
	return inflight.ZExt(max(bw, cw)).Lt(window.ZExt(max(bw, cw)))
}
