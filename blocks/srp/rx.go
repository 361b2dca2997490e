package srp

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/connpipe"
	gsrp "github.com/nicgen/nicgen/golden/srp"
	"github.com/nicgen/nicgen/hdlgen"
)

// RxParams configures srp_rx: one reservation schedule per receiving
// endpoint (S2:L245 gives a NIC one register; a NIC with several ports or
// functions keeps one per endpoint). Times are ticks of s_event_now.
type RxParams struct {
	connpipe.Core
	NumConn, ConnW int     // endpoints and the width of their id
	TimeW          int     // bits of now, of t_s and of the delay
	FracW          int     // bits of the schedule below one tick
	NW             int     // bits of n, the packets of a reservation
	NMax           uint64  // largest n (S2 Table 1: n_max = 16); above it an error
	PacketNs       float64 // tau_p: one packet on the ejection link, ticks
	Epsilon        float64 // the slot's margin (S2 Table 1: 0.05)
}

// srp_rx's event kinds (golden/srp RxKind).
const (
	RxKindW    = 2
	RxNumKinds = int(gsrp.RxNumKinds)
)

// RxKindNames are the names of s_event_kind's values.
var RxKindNames = []string{gsrp.RxOpen.String(), gsrp.RxReserve.String(), gsrp.RxSpec.String()}

// DefaultRxParams is S2's scheduler at nicgen's default network: 4 KiB
// packets at 800 Gb/s (tau_p = 40.96 ns), eps = 0.05, 16 fraction bits,
// reservations of up to 16 packets (n_max, S2 Table 1) behind a 5-bit n,
// 4 endpoints, 32-bit time in 1 ns ticks.
func DefaultRxParams() RxParams {
	p := RxParams{NumConn: 4, ConnW: 16, TimeW: 32, FracW: 16, NW: 5, NMax: 16, PacketNs: 40.96, Epsilon: 0.05}
	p.Depth = connpipe.MustDepth(NeededRxDepth(p))
	return p
}

// SlotFx is (1+eps) tau_p in 2^-FracW ticks, rounded up (golden/srp).
func (p RxParams) SlotFx() uint64 { return gsrp.SlotFixed(p.PacketNs, p.Epsilon, p.FracW) }

// Golden is the golden model's view of the parameters.
func (p RxParams) Golden() gsrp.RxTableParams {
	return gsrp.RxTableParams{
		RxParams: gsrp.RxParams{TimeW: p.TimeW, FracW: p.FracW, SlotFx: p.SlotFx()},
		NumConn:  p.NumConn, ConnW: p.ConnW, KindW: RxKindW, NW: p.NW, NMax: p.NMax,
	}
}

// Validate reports parameters the block cannot build (the golden model's
// checks).
func (p RxParams) Validate() error {
	_, err := gsrp.NewRxModel(p.Golden())
	return err
}

// RxWordLayout is the per-endpoint word of srp_rx.
func RxWordLayout(p RxParams) *hdlgen.Layout {
	return hdlgen.NewLayout("srp_rx_word").
		Field("sched", p.TimeW+p.FracW, fmt.Sprintf("reservation schedule: earliest start of the next grant, 2^-%d ticks modulo 2^%d ticks", p.FracW, p.TimeW)).
		Field("booked", 1, "a grant was issued since the endpoint opened: sched holds a time")
}

// NeededRxDepth is the number of datapath stages srp_rx's cuts reach.
func NeededRxDepth(p RxParams) (int, error) {
	return connpipe.NeededDepth(p, connpipe.MaxDepth, Rx)
}

// Rx builds the srp_rx top: each reservation R(n) of an endpoint is
// granted t_s = max(now, schedule), and the schedule moves to
// t_s + n (1+eps) tau_p; a speculative packet is ACKed
// (docs/blocks/srp.md).
func Rx(p RxParams) (*hdlgen.Module, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	m := hdlgen.NewModule("srp_rx", "SRP reservation scheduler (S2), one schedule per receiving endpoint in block RAM,\npipelined shell (docs/pipeline.md). Behaviour: docs/blocks/srp.md.")
	tw, fw := p.TimeW, p.FracW
	w := tw + fw
	slot := p.SlotFx()
	m.Note("NumConn = %d, ConnW = %d, TimeW = %d, FracW = %d, NW = %d", p.NumConn, p.ConnW, tw, fw, p.NW)
	m.Note("slot (1+eps) tau_p = (1 + %g) x %g ticks = %d x 2^-%d ticks, rounded up", p.Epsilon, p.PacketNs, slot, fw)
	word := RxWordLayout(p)
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: RxKindW, NumKinds: RxNumKinds, KindNames: RxKindNames,
		EventFields: []connpipe.Field{
			{Name: "n", Width: p.NW, Doc: fmt.Sprintf("packets reserved (reserve): 0..%d, above is an error", p.NMax)},
			{Name: "now", Width: tw, Doc: "time of the event, ticks (wrapping)"},
		},
		ResultFields: []connpipe.Field{
			{Name: "ts", Width: tw, Doc: "grant start time t_s, ticks, rounded up (reserve; else 0)"},
			{Name: "delay", Width: tw, Doc: "t_s - now, ticks (reserve; else 0)"},
			{Name: "ack", Width: 1, Doc: "the speculative packet is ACKed (spec)"},
		},
		Word: word, Core: p.Core,
		// a reservation of more than n_max packets is refused
		Refuse: func(kind hdlgen.Expr, f hdlgen.Record) hdlgen.Expr {
			return kind.EqC(uint64(gsrp.RxReserve)).And(f.F("n").Gt(hdlgen.Const(p.NW, p.NMax)))
		},
	}
	half := uint64(1) << uint(tw-1)
	if p.Formal.Invariants {
		spec.ResultInvariants = []connpipe.Invariant{{Name: "delay_within_half_range", Holds: func(f hdlgen.Record) hdlgen.Value {
			return f.F("delay").Le(hdlgen.Const(tw, half))
		}}}
	}
	err := connpipe.Build(m, spec, func(st connpipe.Step) connpipe.Outcome {
		isOpen, isRes, isSpec := st.KindIs(int(gsrp.RxOpen)), st.KindIs(int(gsrp.RxReserve)), st.KindIs(int(gsrp.RxSpec))
		sched, booked, now := st.Cur.F("sched"), st.Cur.F("booked"), st.Event.F("now")
		// n x slot depends on the event only: computed while the word is read
		slotW := hdlgen.BitsFor(slot)
		prod := hdlgen.MulPieces(st.Cut, "n_slot", st.Event.F("n"), hdlgen.Const(slotW, slot))
		nowF := now
		if fw > 0 {
			nowF = hdlgen.Cat(now, hdlgen.Const(fw, 0))
		}
		nowF = nowF.Named("now_fixed")
		// the schedule is behind now when now - sched is in the lower half
		// of the circle and not 0 (serial numbers), or when nothing is booked
		d := nowF.Sub(sched).Named("now_minus_sched")
		// (a stage of its own: the subtraction leaves no room for the
		// start's mux, measured 6.69 ns on ECP5; d != 0 is tested as
		// now != sched beside the subtraction, not after its carry chain)
		differ := nowF.Ne(sched).Named("now_ne_sched")
		ahead := d.Keep(w-1, w-1).Named("sched_ahead") // the sign of now - sched: the rest is not needed
		behind := st.Cut("behind", booked.Not().Or(differ.And(ahead.Not())).Named("behind"))
		start := st.Cut("start", hdlgen.Mux(behind, nowF, sched).Named("start"))
		next := st.Cut("sched_next", start.Add(prod.ZExt(w)).Named("sched_next"))
		// t_s in whole ticks, rounded up, wrapping
		var ts hdlgen.Expr = start
		if fw > 0 {
			ts = start.Add(hdlgen.Const(w, uint64(1)<<uint(fw)-1)).Keep(w-1, fw)
		}
		ts = st.Cut("grant_ts", ts.Named("grant_ts"))
		delay := ts.Sub(now).Named("grant_delay")
		zero := hdlgen.Const(tw, 0)
		return connpipe.Outcome{
			Word: hdlgen.Mux(isOpen, word.Pack(map[string]hdlgen.Value{"sched": hdlgen.Const(w, 0), "booked": hdlgen.False()}),
				hdlgen.Mux(isRes, word.Pack(map[string]hdlgen.Value{"sched": next, "booked": hdlgen.True()}),
					word.Pack(map[string]hdlgen.Value{"sched": sched, "booked": booked}))),
			Result: map[string]hdlgen.Value{
				"ts":    hdlgen.Mux(isRes, ts, zero),
				"delay": hdlgen.Mux(isRes, delay, zero),
				"ack":   isSpec,
			},
		}
	})
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}
