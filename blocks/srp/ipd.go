// Package srp holds the blocks of the Speculative Reservation Protocol
// paper (seed S2): so far ecn_ipd, the InfiniBand-style ECN baseline
// source S2 measures SRP against. Behaviour: docs/blocks/srp.md.
package srp

import (
	"fmt"
	"github.com/nicgen/nicgen/blocks/block"

	"github.com/nicgen/nicgen/blocks/connpipe"
	gsrp "github.com/nicgen/nicgen/golden/srp"
	"github.com/nicgen/nicgen/hdlgen"
)

// IPDParams configures ecn_ipd: one inter-packet delay per send queue.
// Times are ticks of s_event_now (1 ns in the default configuration).
type IPDParams struct {
	connpipe.Core
	NumConn, ConnW int
	TimeW          int
	Inc            uint64 // IPD+ per congestion notification (S2 Table 1: 800 ns)
	Dec            uint64 // IPD- per quiet interval (50 ns)
	Period         uint64 // t-, the quiet interval (2 us)
	Max            uint64 // ceiling of the IPD (A-21: 100 us)
	WaitSlots      int    // waiting slots in front of the datapath (block.WaitSlotsAttr); 0: the plain shell
}

// ecn_ipd's event kinds (golden/srp IPDKind).
const (
	IPDKindW    = 2
	IPDNumKinds = int(gsrp.IPDNumKinds)
)

// IPDKindNames are the names of s_event_kind's values.
var IPDKindNames = []string{gsrp.IPDOpen.String(), gsrp.IPDCN.String(), gsrp.IPDSend.String()}

// DefaultIPDParams is S2 Table 1 with nicgen's default hardware: 4096
// send queues, 32-bit time in 1 ns ticks, a 100 us ceiling.
func DefaultIPDParams() IPDParams {
	p := IPDParams{NumConn: 4096, ConnW: 16, TimeW: 32, Inc: 800, Dec: 50, Period: 2000, Max: 100_000}
	p.Depth = connpipe.MustDepth(NeededIPDDepth(p))
	return p
}

// Golden is the golden model's view of the parameters.
func (p IPDParams) Golden() gsrp.IPDTableParams {
	return gsrp.IPDTableParams{
		IPDParams: gsrp.IPDParams{TimeW: p.TimeW, Inc: p.Inc, Dec: p.Dec, Period: p.Period, Max: p.Max},
		NumConn:   p.NumConn, ConnW: p.ConnW, KindW: IPDKindW,
	}
}

// IPDW is the width of the IPD: enough for the ceiling.
func (p IPDParams) IPDW() int { return hdlgen.BitsFor(p.Max) }

// Validate reports parameters the block cannot build.
func (p IPDParams) Validate() error {
	if err := gsrp.ValidateIPD(p.Golden().IPDParams); err != nil {
		return err
	}
	if _, err := hdlgen.PlanDivConst(p.TimeW, p.Period); err != nil {
		return fmt.Errorf("t- = %d ticks: %v", p.Period, err)
	}
	return nil
}

// IPDWordLayout is the per-queue word of ecn_ipd.
func IPDWordLayout(p IPDParams) *hdlgen.Layout {
	return hdlgen.NewLayout("ecn_ipd_word").
		Field("ipd", p.IPDW(), "inter-packet delay, ticks (0..ceiling)").
		Field("stamp", p.TimeW, "start of the current quiet interval t-, ticks modulo 2^TimeW")
}

// NeededIPDDepth is the number of datapath stages ecn_ipd's cuts reach.
func NeededIPDDepth(p IPDParams) (int, error) {
	return connpipe.NeededDepth(p, connpipe.MaxDepth, IPD)
}

// IPD builds the ecn_ipd top: per send queue, the IPD grows by IPD+ at
// each congestion notification and shrinks by IPD- for each quiet
// interval t-, the intervals counted lazily at the queue's next event
// (docs/blocks/srp.md).
func IPD(p IPDParams) (*hdlgen.Module, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("ecn_ipd: %w", err)
	}
	m := hdlgen.NewModule("ecn_ipd", "ECN baseline source of S2 (InfiniBand-style IPD), per send queue in block RAM,\npipelined shell (docs/pipeline.md). Behaviour: docs/blocks/srp.md.")
	iw, tw := p.IPDW(), p.TimeW
	pl, _ := hdlgen.PlanDivConst(tw, p.Period)
	m.Note("NumConn = %d, ConnW = %d, TimeW = %d, IPDW = %d; IPD+ = %d, IPD- = %d, t- = %d, ceiling = %d ticks",
		p.NumConn, p.ConnW, tw, iw, p.Inc, p.Dec, p.Period, p.Max)
	m.Note("floor(elapsed / %d) = ((elapsed >> %d) * %d) >> %d, exact for every %d-bit elapsed time", p.Period, pl.Shift, pl.Mul, pl.Post, tw)
	word := IPDWordLayout(p)
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: IPDKindW, NumKinds: IPDNumKinds, KindNames: IPDKindNames,
		EventFields: []connpipe.Field{
			{Name: "now", Width: tw, Doc: "time of the event, ticks (wrapping)"},
		},
		ResultFields: []connpipe.Field{
			{Name: "ipd", Width: iw, Doc: "the queue's IPD after the event, ticks: the gap to leave before its next packet"},
		},
		Word: word, Core: p.Core, Merge: block.Waiting(p.WaitSlots),
	}
	if p.Formal.Invariants {
		spec.WordInvariants = []connpipe.Invariant{{Name: "ipd_le_max", Holds: func(f hdlgen.Record) hdlgen.Value {
			return f.F("ipd").Le(hdlgen.Const(iw, p.Max))
		}}}
		spec.ResultInvariants = []connpipe.Invariant{{Name: "result_ipd_le_max", Holds: func(f hdlgen.Record) hdlgen.Value {
			return f.F("ipd").Le(hdlgen.Const(iw, p.Max))
		}}}
	}
	err := connpipe.Build(m, spec, func(st connpipe.Step) connpipe.Outcome {
		isOpen, isCN := st.KindIs(int(gsrp.IPDOpen)), st.KindIs(int(gsrp.IPDCN))
		ipd, stamp, now := st.Cur.F("ipd"), st.Cur.F("stamp"), st.Event.F("now")
		// the quiet intervals since the stamp: k = floor((now - stamp) / t-)
		elapsed := st.Cut("elapsed", now.Sub(stamp).Named("elapsed"))
		k := hdlgen.DivConst(st.Cut, "k", elapsed, p.Period)
		kw := k.Width()
		// k * IPD- and k * t-, exact (k * t- <= elapsed fits the time)
		decW := kw + hdlgen.BitsFor(p.Dec)
		dec := hdlgen.MulPieces(st.Cut, "k_dec", k, hdlgen.Const(hdlgen.BitsFor(p.Dec), p.Dec))
		adv := hdlgen.MulPieces(st.Cut, "k_period", k, hdlgen.Const(hdlgen.BitsFor(p.Period), p.Period))
		// the decrements floor at 0: when they stay below the IPD, they fit
		// its width
		w := max(decW, iw)
		spent := dec.ZExt(w).Ge(ipd.ZExt(w)).Named("ipd_spent")
		decayed := st.Cut("decayed", hdlgen.Mux(spent, hdlgen.Const(iw, 0), ipd.Sub(dec.ZExt(w).Keep(iw-1, 0))).Named("decayed"))
		var advT hdlgen.Expr
		if adv.Width() > tw {
			advT = adv.Keep(tw-1, 0) // k * t- <= elapsed < 2^TimeW: the high bits are 0
		} else {
			advT = adv.ZExt(tw)
		}
		restamp := st.Cut("restamp", stamp.Add(advT).Named("restamp"))
		// a notification adds IPD+ after the decrements, up to the ceiling,
		// in a stage of its own; the sum and the test against the ceiling
		// (on the decayed IPD, against ceiling - IPD+) are side by side
		up := decayed.ZExt(iw + 1).Add(hdlgen.Const(iw+1, p.Inc)).Named("ipd_up")
		over := decayed.Gt(hdlgen.Const(iw, p.Max-p.Inc)).Named("ipd_over")
		// below the ceiling the sum fits the IPD's width
		raised := st.Cut("raised", hdlgen.Mux(over, hdlgen.Const(iw, p.Max), up.Keep(iw-1, 0)).Named("raised"))
		newIPD := hdlgen.Mux(isOpen, hdlgen.Const(iw, 0), hdlgen.Mux(isCN, raised, decayed)).Named("new_ipd")
		newStamp := hdlgen.Mux(isOpen.Or(isCN), now, restamp).Named("new_stamp")
		return connpipe.Outcome{
			Word:   word.Pack(map[string]hdlgen.Value{"ipd": newIPD, "stamp": newStamp}),
			Result: map[string]hdlgen.Value{"ipd": newIPD},
		}
	})
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}
