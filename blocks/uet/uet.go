// Package uet builds uet_cc, the congestion engine of a UEC transport in
// one block: a window controller (nscc, or smartt) and a load balancer
// (reps, or reps_conf) composed in the DSL from those blocks' own
// datapaths (connpipe.Part), in one pipelined shell, on one event stream
// and one word per connection, plus the bytes in flight of each
// connection. Behaviour: docs/blocks/uet_cc.md; golden model: golden/uet.
package uet

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/reps"
	"github.com/nicgen/nicgen/blocks/smartt"
	guet "github.com/nicgen/nicgen/golden/uet"
	"github.com/nicgen/nicgen/hdlgen"
)

// KindW is the width of s_event_kind; the kinds are reps's.
const KindW = 3

// KindNames documents the kinds.
var KindNames = []string{"open", "send", "ack", "nack (trim)", "timeout"}

// Params are uet_cc's: its parts' parameters and the composition's own.
// With Split, Depth is the send path's (the window path takes CC's).
type Params struct {
	connpipe.Core
	CC      smartt.Params   // the window controller: nscc or smartt
	REPS    reps.Params     // the load balancer when UseConf is false
	Conf    reps.ConfParams // the load balancer when UseConf is true
	UseConf bool            // reps_conf instead of reps
	Rule    guet.SendRule   // when a connection may send
	// Split runs the window controller on a window path of its own, with
	// CC's depth and merge slots, beside a short send path (split.go).
	Split bool
}

// NumConn is the connections of the table (the parts agree on it).
func (p Params) NumConn() int { return p.CC.NumConn }

// ConnW is the width of the connection id.
func (p Params) ConnW() int { return p.CC.ConnW }

// Names is the parts' block names: window controller, load balancer.
func (p Params) Names() (cc, lb string) {
	lb = "reps"
	if p.UseConf {
		lb = "reps_conf"
	}
	return p.CC.Variant.String(), lb
}

// Validate checks the parts (with their blocks' own rules) and that they
// agree (golden/uet's rule).
func (p Params) Validate() error {
	if err := p.CC.Validate(); err != nil {
		return fmt.Errorf("%s: %w", p.CC.Variant, err)
	}
	if p.UseConf {
		if err := p.Conf.Validate(); err != nil {
			return fmt.Errorf("reps_conf: %w", err)
		}
	} else if err := p.REPS.Validate(); err != nil {
		return fmt.Errorf("reps: %w", err)
	}
	// the depth is the shell's to check (connpipe.Build)
	return p.Golden().Agree()
}

// Golden is the golden model's parameters.
func (p Params) Golden() guet.Params {
	g := guet.Params{CC: p.CC.Golden(), REPS: p.REPS.Golden(), Conf: p.Conf.Golden(), UseConf: p.UseConf, Rule: p.Rule, Depth: p.Depth}
	if p.Split {
		g.Window = guet.WindowPath{Depth: p.CC.Depth, Slots: p.CC.MergeSlots, MergeAcks: p.CC.MergeSlots > 0 && p.CC.MergeAcks, MergeNacks: p.CC.MergeSlots > 0 && p.CC.MergeAcks && p.CC.MergeNacks}
	}
	return g
}

// NeededDepth is the number of datapath stages the composed datapath
// reaches when it may use all of them.
// The split engine's send path is reps's datapath, which takes a stage
// to spare when it has one (reps.DefaultDepth and more): it is built at
// reps's own depth, so that one connection takes an event every third
// cycle.
func NeededDepth(p Params) (int, error) {
	if p.Split {
		return connpipe.NeededDepth(p, reps.DefaultDepth, Block)
	}
	return connpipe.NeededDepth(p, connpipe.MaxDepth, Block)
}

// Block builds the uet_cc top.
func Block(p Params) (*hdlgen.Module, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("uet_cc: %w", err)
	}
	rule := "bytes in flight < cwnd"
	if p.Rule == guet.RoomForMTU {
		rule = "bytes in flight + MTU <= cwnd"
	}
	if p.Split {
		return splitBlock(p, rule)
	}
	ccName, lbName := p.Names()
	m := hdlgen.NewModule("uet_cc", fmt.Sprintf("UEC transport congestion engine: %s (window) and %s (entropy) composed on one event stream,\n"+
		"one word per connection, and the bytes in flight. Pipelined shell (docs/pipeline.md). Behaviour: docs/blocks/uet_cc.md.", ccName, lbName))
	m.Note("parts: %s as cc_*, %s as lb_*; may_send: %s", ccName, lbName, rule)
	cq := p.CC
	cq.Table = p.Table // its settings as the block's: run-time with the table port
	cc := smartt.Part(m, cq)
	var lb connpipe.Part
	if p.UseConf {
		q := p.Conf
		q.Table = p.Table // its settings as the block's: run-time with the table port
		lb = reps.ConfPart(m, q)
	} else {
		q := p.REPS
		q.Table = p.Table
		lb = reps.PaperPart(m, q)
	}
	bw := p.CC.ByteW
	word := hdlgen.NewLayout("uet_cc_word")
	connpipe.Embed(word, cc, "cc_")
	connpipe.Embed(word, lb, "lb_")
	word.Field("inflight", bw, "bytes in flight: sends add their size (saturating), acks, nacks and timeouts take it away (floored at 0)")

	lbEV := fieldOf(lb.EventFields, "ev")
	lbRes := fieldOf(lb.ResultFields, "ev")
	cwnd := fieldOf(cc.ResultFields, "cwnd")
	results := []connpipe.Field{
		{Name: "ev", Width: lbRes.Width, Doc: "entropy for a send; 0 for other kinds"},
		{Name: "explored", Width: 1, Doc: "the send's entropy is an exploration, not a recycled one"},
	}
	if !p.UseConf {
		results = append(results, connpipe.Field{Name: "frozen", Width: 1, Doc: "the connection's load balancer is in freezing mode after the event"})
	}
	results = append(results,
		connpipe.Field{Name: "cwnd", Width: cwnd.Width, Doc: "congestion window after the event, bytes (a send leaves it alone)"},
		connpipe.Field{Name: "case", Width: 3, Doc: "window rule applied: 0 none (and every send), 1 FD, 2 MD, 3 FI, 4 MI/PI, 5 QuickAdapt, 6 FastIncrease, 7 loss"},
		connpipe.Field{Name: "qa", Width: 1, Doc: "QuickAdapt fired"},
		connpipe.Field{Name: "fast", Width: 1, Doc: "FastIncrease active after the event (0 for a send)"},
		connpipe.Field{Name: "inflight", Width: bw, Doc: "bytes in flight after the event"},
		connpipe.Field{Name: "may_send", Width: 1, Doc: "the connection may send after the event: " + rule},
	)
	spec := connpipe.Spec{
		NumConn: p.CC.NumConn, ConnW: p.CC.ConnW, KindW: KindW, NumKinds: len(KindNames), KindNames: KindNames,
		EventFields: []connpipe.Field{
			{Name: "size", Width: p.CC.SizeW, Doc: "bytes of the sent, acked, trimmed or timed-out packet"},
			{Name: "ecn", Width: 1, Doc: "ECN echo of an ack"},
			{Name: "rtt", Width: p.CC.RttW, Doc: "RTT sample of an ack, ns"},
			{Name: "ev", Width: lbEV.Width, Doc: "entropy carried by an ack or nack"},
			{Name: "now", Width: p.CC.TimeW, Doc: "timestamp, ns (wraps)"},
		},
		ResultFields: results,
		Word:         word, Core: p.Core,
	}
	if p.Formal.Invariants {
		spec.WordInvariants = append(connpipe.EmbedInvariants(cc, "cc_"), connpipe.EmbedInvariants(lb, "lb_")...)
		spec.ResultInvariants = resultInvariants(p)
	}
	err := connpipe.Build(m, spec, func(st connpipe.Step) connpipe.Outcome {
		kind := st.Kind
		// from a register of its own: the window controller's uses of it
		// (the QuickAdapt bytes to ignore) do not chain after the add
		isOpen, isSend, inflight := inflightStep(st, p)
		size := st.Event.F("size")

		// the window controller: open 0, ack 1, nack 2, timeout 3 (a send
		// has none: the part is idle), the bytes in flight as unacked
		ccKind := hdlgen.Mux(isOpen, hdlgen.Const(KindW, 0), kind.Sub(hdlgen.Const(KindW, 1))).Named("cc_kind")
		ccEv := hdlgen.NewRecord("the window controller's event").
			Set("size", size).Set("ecn", st.Event.F("ecn")).Set("rtt", st.Event.F("rtt")).
			Set("unacked", inflight.Named("cc_unacked")).Set("now", st.Event.F("now"))
		ccActive := isSend.Not().Named("cc_active")
		ccM := st.Sub(m, cc, "cc_", connpipe.View{Kind: ccKind, Active: ccActive, Event: ccEv})

		// the load balancer, on every kind
		lbEv := hdlgen.NewRecord("the load balancer's event").Set("ecn", st.Event.F("ecn")).Set("ev", st.Event.F("ev"))
		if !p.UseConf {
			lbEv.Set("now", st.Event.F("now"))
		}
		lbM := st.Sub(m, lb, "lb_", connpipe.View{Kind: kind, Event: lbEv})

		// the window from a register: the comparison of may_send does not
		// share the window controller's last stage (its ECP5 critical path)
		window := st.Cut("window", hdlgen.Mux(isSend, smartt.Window(p.CC, ccM.Cur), ccM.Result["cwnd"]).Named("window"))
		var maySend hdlgen.Expr
		cw := cwnd.Width
		if p.Rule == guet.RoomForMTU {
			// in flight + MTU <= cwnd: the sum comes from the bytes in
			// flight, early; the late window only meets the comparison
			n := max(bw, cw) + 1
			need := inflight.ZExt(n).Add(hdlgen.Const(n, uint64(p.CC.Net.MTU))).Named("inflight_plus_mtu")
			maySend = need.Le(window.ZExt(n))
		} else {
			maySend = inflight.ZExt(max(bw, cw)).Lt(window.ZExt(max(bw, cw)))
		}
		fields := map[string]hdlgen.Value{"inflight": inflight}
		ccM.Fields(fields)
		lbM.Fields(fields)
		res := map[string]hdlgen.Value{
			"ev":       lbM.Result["ev"],
			"explored": lbM.Result["explored"],
			"cwnd":     window,
			"case":     hdlgen.Mux(ccActive, ccM.Result["case"], hdlgen.Const(3, 0)).Named("case_result"),
			"qa":       ccActive.And(ccM.Result["qa"]),
			"fast":     ccActive.And(ccM.Result["fast"]),
			"inflight": inflight,
			"may_send": maySend.Named("may_send"),
		}
		if !p.UseConf {
			res["frozen"] = lbM.Result["frozen"]
		}
		return connpipe.Outcome{Word: word.Pack(fields), Result: res}
	})
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}

// inflightStep is the bytes in flight after the event, from a register of
// its own (its first stage's end): an open clears them, a send adds its
// size (saturating), every other kind takes it away (floored at 0). It
// returns the open and send tests beside it.
func inflightStep(st connpipe.Step, p Params) (isOpen, isSend, inflight hdlgen.Expr) {
	bw := p.CC.ByteW
	isOpen = st.KindIs(int(guet.KindOpen)).Named("inflight_is_open")
	isSend = st.KindIs(int(guet.KindSend)).Named("inflight_is_send")
	size := st.Event.F("size")
	cur := st.Cur.F("inflight")
	w := max(bw, p.CC.SizeW) + 1
	sum := cur.ZExt(w).Add(size.ZExt(w)).Named("inflight_sum")
	top := hdlgen.Const(w, uint64(1)<<uint(bw)-1)
	added := hdlgen.Mux(sum.Gt(top), hdlgen.Const(bw, uint64(1)<<uint(bw)-1), sum.Trunc(bw)).Named("inflight_added")
	diff := cur.ZExt(w).Sub(size.ZExt(w)).Named("inflight_diff")
	removed := hdlgen.Mux(diff.Bit(w-1), hdlgen.Const(bw, 0), diff.Trunc(bw)).Named("inflight_removed")
	inflight = st.Cut("inflight_next", hdlgen.Mux(isOpen, hdlgen.Const(bw, 0), hdlgen.Mux(isSend, added, removed)).Named("inflight_next"))
	return isOpen, isSend, inflight
}

func fieldOf(fs []connpipe.Field, name string) connpipe.Field {
	for _, f := range fs {
		if f.Name == name {
			return f
		}
	}
	panic("uet: no field " + name)
}
