package onerc

import (
	"fmt"
	"math/big"

	"github.com/nicgen/nicgen/blocks/connpipe"
	gonerc "github.com/nicgen/nicgen/golden/onerc"
	"github.com/nicgen/nicgen/hdlgen"
)

// HostParams configure onerc_host: the golden model's parameters, the
// pipeline depth and the proofs' properties.
type HostParams struct {
	gonerc.HostParams
	connpipe.Core
}

// onerc_host's event kinds (golden/onerc HostKind).
const (
	HostKindW    = 3
	HostNumKinds = int(gonerc.HostNumKinds)
)

// HostKindNames names the kinds.
var HostKindNames = []string{"open", "send", "ctrl_tx", "ctrl_rx", "close"}

// HostStatusNames names the result's status values.
var HostStatusNames = []string{"idle", "spec", "sched", "stale"}

// DefaultHostParams is golden/onerc's default (4,096 connections, 16-bit
// epochs and sequence numbers, weights up to 255, 28-bit rates) behind a
// 16-bit connection id.
func DefaultHostParams() HostParams {
	g := gonerc.DefaultHostParams()
	g.ConnW = 16
	p := HostParams{HostParams: g}
	p.Depth = connpipe.MustDepth(NeededHostDepth(p))
	return p
}

// HostWordLayout is the per-connection word of onerc_host.
func HostWordLayout(p HostParams) *hdlgen.Layout {
	return hdlgen.NewLayout("onerc_host_word").
		Field("active", 1, "a flow is open on the connection").
		Field("spec", 1, "the flow is in its first RTT: its first control packet has not returned").
		Field("ep", p.EpochW, "the epoch the flow started in (its SSTS's epoch)").
		Field("w_spec", p.WeightW, "the host's connection count at the start of that epoch, at least 1: the first weight").
		Field("w_old", p.WeightW, "new_weight of the flow's last control packet: the next one's old_weight").
		Field("sent", p.SeqW, "speculative packets the flow sent").
		Field("last", p.SeqW, "the shared sequence number of the flow's last speculative packet").
		Field("rate", p.RateW, "the pacing rate from the last returned control packet")
}

// NeededHostDepth is the number of datapath stages onerc_host's cuts reach.
func NeededHostDepth(p HostParams) (int, error) {
	return connpipe.NeededDepth(p, connpipe.MaxDepth, Host)
}

// hostRecip is the table of the exact division by a weight: floor(b / w)
// = floor(b m(w) / 2^s) for every b below 2^RateW, with s = RateW +
// WeightW and m(w) = ceil(2^s / w): m(w) w - 2^s < w, so b times that
// error stays below 2^s. Entry 1 (m = 2^s) and 0 (an error) are not used.
func hostRecip(p HostParams) (table []uint64, width, shift int) {
	shift = p.RateW + p.WeightW
	table = make([]uint64, 1<<uint(p.WeightW))
	one := new(big.Int).Lsh(big.NewInt(1), uint(shift))
	for w := 2; w < len(table); w++ {
		m := new(big.Int).Add(one, big.NewInt(int64(w-1)))
		m.Quo(m, big.NewInt(int64(w)))
		table[w] = m.Uint64()
		width = max(width, m.BitLen())
	}
	return table, max(width, 1), shift
}

// Host builds the onerc_host top: per connection of one host, a flow's
// 1RC state; host-wide, the open-connection count, the count at the
// epoch's start and two shared speculative sequence counters, all read
// and written in the datapath's first stage (docs/blocks/onerc.md).
func Host(p HostParams) (*hdlgen.Module, error) {
	if err := gonerc.ValidateHost(p.HostParams); err != nil {
		return nil, err
	}
	tab, mw, shift := hostRecip(p) // mw <= RateW + WeightW <= 60
	m := hdlgen.NewModule("onerc_host", "1RC host side with flow weights (S3:L1334-1352) per connection in block RAM, host-wide\nconnection count and shared speculative numbers, pipelined shell (docs/pipeline.md).\nBehaviour: docs/blocks/onerc.md.")
	m.Note("NumConn = %d, EpochW = %d, WeightW = %d, SeqW = %d, RateW = %d", p.NumConn, p.EpochW, p.WeightW, p.SeqW, p.RateW)
	word := HostWordLayout(p)
	ew, ww, sw, rw := p.EpochW, p.WeightW, p.SeqW, p.RateW
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: HostKindW, NumKinds: HostNumKinds, KindNames: HostKindNames,
		EventFields: []connpipe.Field{
			{Name: "epoch", Width: ew, Doc: "every kind: the NIC's epoch now (SSTS div epoch_length)"},
			{Name: "b", Width: rw, Doc: "ctrl_rx: the bottleneck rate the control packet brings back, per unit of weight"},
			{Name: "let_through", Width: sw, Doc: "ctrl_rx: let_through, the least threshold of the switches"},
			{Name: "weight", Width: ww, Doc: "ctrl_rx: the new_weight the packet carried; 0 is an error"},
			{Name: "bottleneck", Width: 1, Doc: "ctrl_rx: a switch is the flow's bottleneck: the rate is b / weight"},
		},
		ResultFields: []connpipe.Field{
			{Name: "status", Width: 2, Doc: "0 idle (no flow), 1 speculative, 2 scheduled, 3 stale (a speculative send without number: send nothing)"},
			{Name: "seq", Width: sw, Doc: "send, speculative: the packet's shared sequence number"},
			{Name: "epoch", Width: ew, Doc: "open, send (speculative), ctrl_tx: the flow's start epoch for the header"},
			{Name: "old_weight", Width: ww, Doc: "open, ctrl_tx: the control packet's old_weight"},
			{Name: "new_weight", Width: ww, Doc: "open, ctrl_tx: the control packet's new_weight; send (speculative): the weight the switch divides by"},
			{Name: "ended", Width: 1, Doc: "ctrl_rx: this packet ended the flow's first RTT; resume is valid"},
			{Name: "resume", Width: sw, Doc: "ctrl_rx with ended: the flow's speculative packets that got through (at least); it resumes from the next"},
			{Name: "rate", Width: rw, Doc: "ctrl_rx, send (scheduled): the flow's pacing rate, b or floor(b / weight)"},
			{Name: "conns", Width: ww, Doc: "the host's open connections after the event"},
		},
		Word: word, Core: p.Core,
		Refuse: func(kind hdlgen.Expr, f hdlgen.Record) hdlgen.Expr {
			return kind.EqC(uint64(gonerc.HostCtrlRx)).And(f.F("weight").IsZero())
		},
	}
	if p.Formal.Invariants {
		spec.WordInvariants = []connpipe.Invariant{
			{Name: "spec_is_active", Holds: func(f hdlgen.Record) hdlgen.Value { return f.F("spec").Implies(f.F("active")) }},
			{Name: "weights_nonzero", Holds: func(f hdlgen.Record) hdlgen.Value {
				return f.F("active").Implies(f.F("w_spec").Any().And(f.F("w_old").Any()))
			}},
		}
		spec.ResultInvariants = []connpipe.Invariant{
			{Name: "header_weights_nonzero", Holds: func(f hdlgen.Record) hdlgen.Value {
				k := f.F("kind")
				hdr := k.EqC(uint64(gonerc.HostOpen)).Or(k.EqC(uint64(gonerc.HostCtrlTx)).And(f.F("status").Any())).And(f.F("error").Not())
				return hdr.Implies(f.F("old_weight").Any().And(f.F("new_weight").Any()))
			}},
			{Name: "seq_only_speculative", Holds: func(f hdlgen.Record) hdlgen.Value {
				return f.F("seq").Any().Implies(f.F("status").EqC(uint64(gonerc.StatusSpec)))
			}},
		}
	}
	// the host's registers, read and written in the datapath's first stage
	c := func(w int, v uint64) hdlgen.Expr { return hdlgen.Const(w, v) }
	count := m.Reg("conns", ww, "the host's open connections", hdlgen.ResetTo(0), hdlgen.GlobalState())
	snapValid := m.Reg("snap_valid", 1, "an epoch was seen since reset", hdlgen.ResetTo(0), hdlgen.GlobalState())
	snapEpoch := m.Reg("snap_epoch", ew, "the last epoch seen", hdlgen.ResetTo(0), hdlgen.GlobalState())
	snapCount := m.Reg("snap_count", ww, "the connection count at that epoch's start", hdlgen.ResetTo(0), hdlgen.GlobalState())
	var slotValid, slotTag, slotSeq [2]*hdlgen.Reg
	for i := range slotValid {
		slotValid[i] = m.Reg(fmt.Sprintf("slot%d_valid", i), 1, fmt.Sprintf("shared counter %d (epochs of parity %d) holds an epoch", i, i), hdlgen.ResetTo(0), hdlgen.GlobalState())
		slotTag[i] = m.Reg(fmt.Sprintf("slot%d_epoch", i), ew, fmt.Sprintf("shared counter %d's epoch", i), hdlgen.ResetTo(0), hdlgen.GlobalState())
		slotSeq[i] = m.Reg(fmt.Sprintf("slot%d_seq", i), sw, fmt.Sprintf("shared counter %d: the next speculative number of its epoch", i), hdlgen.ResetTo(0), hdlgen.GlobalState())
	}
	h := &hostState{m: m, p: p, word: word, tab: tab, mw: mw, shift: shift, c: c, count: count,
		snapValid: snapValid, snapEpoch: snapEpoch, snapCount: snapCount, slotValid: slotValid, slotTag: slotTag, slotSeq: slotSeq}
	err := connpipe.Build(m, spec, h.step)
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}

// hostState is what onerc_host's datapath step reads: the module, the
// parameters, the word, the reciprocal table, and the host-wide
// registers (the connection count, the epoch snapshot, the two shared
// speculative counters).
type hostState struct {
	m                           *hdlgen.Module
	p                           HostParams
	word                        *hdlgen.Layout
	tab                         []uint64
	mw, shift                   int
	c                           func(w int, v uint64) hdlgen.Expr
	count, snapValid, snapEpoch *hdlgen.Reg
	snapCount                   *hdlgen.Reg
	slotValid, slotTag, slotSeq [2]*hdlgen.Reg
}

// step is onerc_host's datapath: one event of a connection, with the
// host-wide registers read and written in its first stage.
func (h *hostState) step(st connpipe.Step) connpipe.Outcome {
	m, p, word, tab, mw, shift, c := h.m, h.p, h.word, h.tab, h.mw, h.shift, h.c
	count, snapValid, snapEpoch, snapCount := h.count, h.snapValid, h.snapEpoch, h.snapCount
	slotValid, slotTag, slotSeq := h.slotValid, h.slotTag, h.slotSeq
	ew, ww, sw, rw := p.EpochW, p.WeightW, p.SeqW, p.RateW
	ev, cur := st.Event, st.Cur
	isOpen, isSend := st.KindIs(int(gonerc.HostOpen)), st.KindIs(int(gonerc.HostSend))
	isTx, isRx, isClose := st.KindIs(int(gonerc.HostCtrlTx)), st.KindIs(int(gonerc.HostCtrlRx)), st.KindIs(int(gonerc.HostClose))
	active, specNow := cur.F("active"), cur.F("spec")

	// the rate, from the event alone while the word is read: b, or
	// floor(b / weight) as b times a reciprocal, exactly
	b, wRx := ev.F("b"), ev.F("weight")
	rateNew := b
	if p.WeightW > 1 { // else every weight is 1
		recip := st.Cut("recip_r", st.Cut("recip", hdlgen.ROM(wRx, mw, tab).Named("recip")))
		prod := hdlgen.MulPieces(st.Cut, "rate_prod", b, recip)
		quot := prod.Keep(shift+rw-1, shift).Named("rate_quot")
		divides := ev.F("bottleneck").And(wRx.Ne(c(ww, 1))).Named("rate_divides")
		rateNew = hdlgen.Mux(divides, quot, b).Named("rate_new")
	}

	// first stage: the host's registers (every operand is of this
	// stage, with the word: the epoch is carried to it)
	epoch := st.Pipe.At(ev.F("epoch"), connpipe.FirstStage).Named("epoch_now")
	kind := st.Pipe.At(st.Kind, connpipe.FirstStage)
	isOpen, isClose = kind.EqC(uint64(gonerc.HostOpen)), kind.EqC(uint64(gonerc.HostClose))
	// (the loop through the registers is one cycle: every comparison
	// reads registers and the stage's own values only, the two slots
	// side by side, the selections last)
	newEpoch := snapValid.Expr.Not().Or(snapEpoch.Expr.Ne(epoch)).Named("new_epoch")
	atLeastOne := func(v hdlgen.Expr) hdlgen.Expr { return hdlgen.Mux(v.IsZero(), c(ww, 1), v) }
	weight := hdlgen.Mux(newEpoch, atLeastOne(count.Expr), atLeastOne(snapCount.Expr)).Named("start_weight")
	top := uint64(1)<<uint(ww) - 1
	inc := isOpen.And(count.Expr.EqC(top).Not()).Named("count_inc")
	dec := isClose.And(count.Expr.IsZero().Not()).Named("count_dec")
	countNext := hdlgen.Mux(inc, count.Expr.Add(c(ww, 1)), hdlgen.Mux(dec, count.Expr.Sub(c(ww, 1)), count.Expr)).Named("count_next")
	// the shared counters: an open claims its epoch's, a speculative
	// send numbers from its flow's start epoch's
	ep := cur.F("ep")
	flowSend := isSend.And(active).And(specNow).Named("spec_send")
	seqTop := uint64(1)<<uint(sw) - 1
	var claim, slotNum, hit [2]hdlgen.Expr
	for i := range slotValid {
		v, tag, sq := slotValid[i].Expr, slotTag[i].Expr, slotSeq[i].Expr
		claim[i] = isOpen.And(epoch.Bit(0).EqC(uint64(i))).And(v.And(tag.Eq(epoch)).Not()).Named(fmt.Sprintf("slot%d_claim", i))
		hit[i] = v.And(tag.Eq(ep)).Named(fmt.Sprintf("slot%d_hit", i))
		slotNum[i] = flowSend.And(ep.Bit(0).EqC(uint64(i))).And(hit[i]).Named(fmt.Sprintf("slot%d_numbered", i))
		seqNext := hdlgen.Mux(sq.EqC(seqTop), sq, sq.Add(c(sw, 1))).Named(fmt.Sprintf("slot%d_seq_inc", i))
		m.Comb(fmt.Sprintf("slot%d_update", i), func(pr *hdlgen.Process) {
			pr.If(st.Fire.And(claim[i]), func() {
				pr.Set(slotValid[i], hdlgen.True())
				pr.Set(slotTag[i], epoch)
				pr.Set(slotSeq[i], c(sw, 0))
			})
			pr.If(st.Fire.And(slotNum[i]), func() { pr.Set(slotSeq[i], seqNext) })
		})
	}
	m.Comb("host_update", func(pr *hdlgen.Process) {
		pr.If(st.Fire, func() {
			pr.If(newEpoch, func() {
				pr.Set(snapValid, hdlgen.True())
				pr.Set(snapEpoch, epoch)
				pr.Set(snapCount, count.Expr)
			})
			pr.Set(count, countNext)
		})
	})
	slotHit := hdlgen.Mux(ep.Bit(0), hit[1], hit[0]).Named("slot_hit")
	numbered := slotNum[0].Or(slotNum[1]).Named("numbered")
	sSeq := hdlgen.Mux(ep.Bit(0), slotSeq[1].Expr, slotSeq[0].Expr).Named("slot_seq")
	// everything the registers gave this event ends the first stage
	weight = st.Cut("start_weight", weight)
	conns := st.Cut("conns_after", countNext)
	seq := st.Cut("seq", hdlgen.Mux(numbered, sSeq, c(sw, 0)).Named("seq_out"))
	numbered = st.Cut("numbered", numbered)
	slotHit = st.Cut("slot_hit", slotHit)
	epoch = st.Cut("epoch", epoch)
	txWeight := st.Cut("tx_weight", hdlgen.Mux(specNow, cur.F("w_spec"), hdlgen.Mux(count.Expr.IsZero(), c(ww, 1), count.Expr).Named("count_weight")).Named("tx_weight"))

	// the word and the results
	cur = st.Cur
	active, specNow, ep = cur.F("active"), cur.F("spec"), cur.F("ep")
	sent, last := cur.F("sent"), cur.F("last")
	// ctrl_rx: at most last + 1 - L of the flow's packets were dropped
	lt := ev.F("let_through")
	late := last.ZExt(sw + 1).Add(c(sw+1, 1)).Sub(lt.ZExt(sw + 1)).Named("late_raw")
	lateSat := st.Cut("late", hdlgen.Mux(last.ZExt(sw+1).Add(c(sw+1, 1)).Gt(lt.ZExt(sw+1)), late, c(sw+1, 0)).Named("late"))
	allLate := lateSat.Ge(sent.ZExt(sw + 1)).Named("all_late")
	resume := st.Cut("resume", hdlgen.Mux(allLate, c(sw, 0), sent.Sub(lateSat.Trunc(sw))).Named("resume"))
	ended := isRx.And(active).And(specNow).Named("ended")
	sentNext := hdlgen.Mux(sent.EqC(seqTop), sent, sent.Add(c(sw, 1))).Named("sent_next")

	// the speculation ends with the first return, or with the flow
	specClear := isClose.Or(isRx.And(active).Named("rx_active")).Named("spec_clear")
	specNext := hdlgen.Mux(specClear, hdlgen.False(), specNow).Named("spec_next")
	opened := word.Pack(map[string]hdlgen.Value{"active": hdlgen.True(), "spec": hdlgen.True(), "ep": epoch,
		"w_spec": weight, "w_old": weight, "sent": c(sw, 0), "last": c(sw, 0), "rate": c(rw, 0)})
	with := func(over map[string]hdlgen.Value) hdlgen.Expr {
		all := map[string]hdlgen.Value{"spec": specNext}
		for _, f := range word.Fields() {
			if f.Name != "spec" {
				all[f.Name] = cur.F(f.Name)
			}
		}
		for k, v := range over {
			all[k] = v
		}
		return word.Pack(all)
	}
	sendWord := with(map[string]hdlgen.Value{"sent": hdlgen.Mux(numbered, sentNext, sent), "last": hdlgen.Mux(numbered, seq, last)})
	txWord := with(map[string]hdlgen.Value{"w_old": hdlgen.Mux(active, txWeight, cur.F("w_old"))})
	rxWord := with(map[string]hdlgen.Value{"rate": hdlgen.Mux(active, rateNew, cur.F("rate"))})
	closed := map[string]hdlgen.Value{"spec": specNext}
	for _, f := range word.Fields() {
		if f.Name != "spec" {
			closed[f.Name] = c(f.Width, 0)
		}
	}
	next := hdlgen.Mux(isOpen, opened, hdlgen.Mux(isSend, sendWord, hdlgen.Mux(isTx, txWord,
		hdlgen.Mux(isRx, rxWord, word.Pack(closed)))))

	st2 := func(v uint64) hdlgen.Expr { return c(2, v) }
	sendStatus := hdlgen.Mux(active.Not(), st2(uint64(gonerc.StatusIdle)), hdlgen.Mux(specNow.Not(), st2(uint64(gonerc.StatusSched)),
		hdlgen.Mux(slotHit, st2(uint64(gonerc.StatusSpec)), st2(uint64(gonerc.StatusStale)))))
	activeStatus := hdlgen.Mux(active, hdlgen.Mux(specNow, st2(uint64(gonerc.StatusSpec)), st2(uint64(gonerc.StatusSched))), st2(uint64(gonerc.StatusIdle)))
	status := hdlgen.Mux(isOpen, st2(uint64(gonerc.StatusSpec)), hdlgen.Mux(isSend, sendStatus, hdlgen.Mux(isTx, activeStatus,
		hdlgen.Mux(isRx.And(active), st2(uint64(gonerc.StatusSched)), st2(uint64(gonerc.StatusIdle)))))).Named("status")
	txActive := isTx.And(active)
	zw := c(ww, 0)
	return connpipe.Outcome{
		Word: next,
		Result: map[string]hdlgen.Value{
			"status":     status,
			"seq":        seq,
			"epoch":      hdlgen.Mux(isOpen, epoch, hdlgen.Mux(numbered.Or(txActive), ep, c(ew, 0))),
			"old_weight": hdlgen.Mux(isOpen, weight, hdlgen.Mux(txActive, cur.F("w_old"), zw)),
			"new_weight": hdlgen.Mux(isOpen, weight, hdlgen.Mux(txActive, txWeight, hdlgen.Mux(numbered, cur.F("w_spec"), zw))),
			"ended":      ended,
			"resume":     hdlgen.Mux(ended, resume, c(sw, 0)),
			"rate": hdlgen.Mux(isRx.And(active), rateNew,
				hdlgen.Mux(isSend.And(active).And(specNow.Not()), cur.F("rate"), c(rw, 0))),
			"conns": conns,
		},
	}
}
