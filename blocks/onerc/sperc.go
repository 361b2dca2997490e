package onerc

import (
	"fmt"
	"github.com/nicgen/nicgen/blocks/block"

	"github.com/nicgen/nicgen/blocks/connpipe"
	gonerc "github.com/nicgen/nicgen/golden/onerc"
	"github.com/nicgen/nicgen/hdlgen"
)

// SPERCParams configure sperc_link: the golden model's parameters (which
// hold the link count and the id's width), the pipeline depth and the
// proofs' properties.
type SPERCParams struct {
	gonerc.SPERCParams
	connpipe.Core
	// WaitSlots is the waiting slots in front of the datapath
	// (block.WaitSlotsAttr); 0: the plain shell.
	WaitSlots int
}

// sperc_link's event kinds (golden/onerc SPERCKind).
const (
	SPERCKindW    = 1
	SPERCNumKinds = int(gonerc.SpNumKinds)
)

// SPERCKindNames names the kinds.
var SPERCKindNames = []string{"open", "ctrl"}

// DefaultSPERCParams is golden/onerc's default (64 links of 800 Gb/s in
// units of 1 Mb/s, 28-bit rates, weights up to 255, 4 hops) behind a
// 16-bit link id.
func DefaultSPERCParams() SPERCParams {
	g := gonerc.DefaultSPERCParams()
	g.ConnW, g.KindW = 16, SPERCKindW
	p := SPERCParams{SPERCParams: g}
	p.Depth = connpipe.MustDepth(NeededSPERCDepth(p))
	return p
}

// SPERCWordLayout is the per-link word of sperc_link.
func SPERCWordLayout(p SPERCParams) *hdlgen.Layout {
	return hdlgen.NewLayout("sperc_link_word").
		Field("sum_e", p.SumEW(), fmt.Sprintf("SumE: the limit rates of the flows bottlenecked elsewhere, each over its weight, in 2^-%d rate units", p.InvF)).
		Field("num_b", p.NumBFullW(), fmt.Sprintf("NumB: the flows bottlenecked here, each counted 1/weight, in 2^-%d", p.InvF)).
		Field("max_e", p.RateW, "MaxE: the largest rate given to an E flow in the last round and this one").
		Field("max_e2", p.RateW, "MaxE': the largest rate given to an E flow in this round").
		Field("round", p.RoundW, "the round of the last packet")
}

// NeededSPERCDepth is the number of datapath stages sperc_link's cuts reach.
func NeededSPERCDepth(p SPERCParams) (int, error) {
	return connpipe.NeededDepth(p, connpipe.MaxDepth, SPERCLink)
}

// SPERCLink builds the sperc_link top: per link, a control packet runs
// s-PERC with 1RC's weights (S3 Algorithm 4 lines 8-14 and 20-33): the
// flow joins B, b = (c - SumE) / NumB, e is the least bottleneck of the
// other hops not ignored, x = min(b, e), and a flow bottlenecked
// elsewhere moves to E (docs/blocks/onerc.md).
func SPERCLink(p SPERCParams) (*hdlgen.Module, error) {
	if err := gonerc.ValidateSPERC(p.SPERCParams); err != nil {
		return nil, err
	}
	m := hdlgen.NewModule("sperc_link", "s-PERC link state with 1RC weights (S3 Algorithm 4) per link in block RAM,\npipelined shell (docs/pipeline.md). Behaviour: docs/blocks/onerc.md.")
	m.Note("NumConn = %d links, c = %d rate units, RateW = %d, WeightW = %d, InvF = %d, NumBW = %d, Hops = %d, K = %d, RoundW = %d",
		p.NumConn, p.CapRate, p.RateW, p.WeightW, p.InvF, p.NumBW, p.Hops, p.K, p.RoundW)
	word := SPERCWordLayout(p)
	rw, hw := p.RateW, p.HopW()
	evFields := []connpipe.Field{
		{Name: "round", Width: p.RoundW, Doc: "ctrl, open: the link clock's round number"},
		{Name: "state", Width: 2, Doc: "ctrl: s[l], the flow's state here: 0 E, 1 B, 2 NEW_FLOW; 3 is an error"},
		{Name: "xl", Width: rw, Doc: "ctrl: x[l], the rate this link gave the flow last time"},
		{Name: "old_weight", Width: p.WeightW, Doc: "ctrl: the flow's weight in the previous RTT; 0 is an error unless state is NEW_FLOW"},
		{Name: "new_weight", Width: p.WeightW, Doc: "ctrl: the flow's weight in this RTT (its host's connection count); 0 is an error"},
		{Name: "leaving", Width: 1, Doc: "ctrl: the flow ends"},
		{Name: "hop", Width: hw, Doc: fmt.Sprintf("ctrl: l, this link's index in the packet's vectors (below %d)", p.Hops)},
	}
	for j := 0; j < p.Hops; j++ {
		evFields = append(evFields, connpipe.Field{Name: fmt.Sprintf("b%d", j), Width: rw, Doc: fmt.Sprintf("ctrl: b[%d], hop %d's bottleneck rate; all-ones is infinity", j, j)})
	}
	evFields = append(evFields, connpipe.Field{Name: "ignore", Width: p.Hops, Doc: "ctrl: i[], bit j set: hop j's rate is ignored"})
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: SPERCKindW, NumKinds: SPERCNumKinds, KindNames: SPERCKindNames,
		EventFields: evFields,
		ResultFields: []connpipe.Field{
			{Name: "b", Width: rw, Doc: "ctrl: b[l] = (c - SumE) / NumB, per unit of weight"},
			{Name: "x", Width: rw, Doc: "ctrl: x[l] = min(b, e)"},
			{Name: "ignore", Width: 1, Doc: "ctrl: i[l] = b < MaxE"},
			{Name: "state", Width: 2, Doc: "ctrl: s[l] after the packet: 0 E, 1 B"},
		},
		Word: word, Core: p.Core, Merge: block.Waiting(p.WaitSlots),
		Refuse: func(kind hdlgen.Expr, f hdlgen.Record) hdlgen.Expr {
			st := f.F("state")
			bad := f.F("new_weight").IsZero().
				Or(f.F("old_weight").IsZero().And(st.EqC(uint64(gonerc.StateNew)).Not())).
				Or(st.EqC(3))
			if p.Hops < 1<<uint(hw) {
				bad = bad.Or(f.F("hop").Ge(hdlgen.Const(hw, uint64(p.Hops))))
			}
			return kind.EqC(uint64(gonerc.SpCtrl)).And(bad)
		},
	}
	if p.Formal.Invariants {
		spec.WordInvariants = []connpipe.Invariant{
			{Name: "max_e2_le_max_e", Holds: func(f hdlgen.Record) hdlgen.Value { return f.F("max_e2").Le(f.F("max_e")) }},
		}
		spec.ResultInvariants = []connpipe.Invariant{
			{Name: "x_le_b", Holds: func(f hdlgen.Record) hdlgen.Value {
				return f.F("x").Le(f.F("b"))
			}},
			{Name: "ctrl_settles", Holds: func(f hdlgen.Record) hdlgen.Value {
				ctrl := f.F("kind").EqC(uint64(gonerc.SpCtrl)).And(f.F("error").Not())
				return ctrl.Implies(f.F("state").Bit(1).Not())
			}},
		}
	}
	err := connpipe.Build(m, spec, func(st connpipe.Step) connpipe.Outcome {
		ev, cur := st.Event, st.Cur
		isOpen := st.KindIs(int(gonerc.SpOpen))
		inf := hdlgen.Const(rw, p.Inf())
		c := func(w int, v uint64) hdlgen.Expr { return hdlgen.Const(w, v) }
		state, oldW, newW := ev.F("state"), ev.F("old_weight"), ev.F("new_weight")
		isE := state.EqC(uint64(gonerc.StateE)).Named("is_e")
		isB, isNew := state.EqC(uint64(gonerc.StateB)), state.EqC(uint64(gonerc.StateNew))
		leaving := ev.F("leaving")

		// the event's own part, beside the word's read: 1/weight from a
		// table, x[l] / old_weight, NumB's change and e
		invW := p.InvF + 1
		tab := p.InvTable()
		// (registered twice: a block RAM with its output register)
		invNew := st.Cut("inv_new_r", st.Cut("inv_new", hdlgen.ROM(newW, invW, tab).Named("inv_new")))
		invOld := st.Cut("inv_old_r", st.Cut("inv_old", hdlgen.ROM(oldW, invW, tab).Named("inv_old")))
		sw, nbw := p.SumEW(), p.NumBFullW()
		xlInv := hdlgen.MulPieces(st.Cut, "xl_inv", ev.F("xl"), invOld).Keep(sw-1, 0) // < 2^RateW x 2^InvF
		// lines 11 and 13: NumB + 1/new_weight (- 1/old_weight when a B
		// flow's weight changed), as one signed step
		changed := isB.And(oldW.Ne(newW)).Named("weight_changed")
		joins := isE.Or(isNew).Named("joins_b")
		nbStep := st.Cut("num_b_step", hdlgen.Mux(joins.Or(changed),
			invNew.ZExt(invW+1).Sub(hdlgen.Mux(changed, invOld, c(invW, 0)).ZExt(invW+1)), c(invW+1, 0)).Named("num_b_step"))
		// e: the least b[j] of the other hops not ignored, a tree of
		// minimums with a stage per level
		hop, ign := ev.F("hop"), ev.F("ignore").Named("ign_bits")
		var level []hdlgen.Expr
		for j := 0; j < p.Hops; j++ {
			skip := ign.Bit(j).Or(hop.EqC(uint64(j))).Named(fmt.Sprintf("skip%d", j))
			level = append(level, st.Cut(fmt.Sprintf("p%d", j), hdlgen.Mux(skip, inf, ev.F(fmt.Sprintf("b%d", j))).Named(fmt.Sprintf("p%d", j))))
		}
		for n := 0; len(level) > 1; n++ {
			var next []hdlgen.Expr
			for i := 0; i < len(level); i += 2 {
				if i+1 == len(level) {
					next = append(next, level[i])
					continue
				}
				next = append(next, st.Cut(fmt.Sprintf("e_l%d_%d", n, i/2), hdlgen.MinU(level[i], level[i+1]).Named(fmt.Sprintf("e_l%d_%d", n, i/2))))
			}
			level = next
		}
		e := level[0].Named("e_min")

		// the round: MaxE' becomes MaxE after one round, both clear after more
		// (round - cur = 0 or 1, as comparisons of the round with the
		// word's and of the round before it, from a register, with the
		// word's: no subtraction before the selects, sperc_link_ctl's
		// slowest path at 6.62 ns)
		prev := st.Cut("round_prev", ev.F("round").Sub(c(ev.F("round").Width(), 1)).Named("round_prev"))
		same, next := ev.F("round").Eq(cur.F("round")).Named("same_round"), prev.Eq(cur.F("round")).Named("next_round")
		maxE := st.Cut("max_e_r", hdlgen.Mux(same, cur.F("max_e"), hdlgen.Mux(next, cur.F("max_e2"), c(rw, 0))).Named("max_e_r"))
		maxE2 := st.Cut("max_e2_r", hdlgen.Mux(same, cur.F("max_e2"), c(rw, 0)).Named("max_e2_r"))

		// lines 8-13: SumE - x[l]/old_weight for an E flow, stopping at 0;
		// NumB plus its step, within [0, top]
		sumE := cur.F("sum_e")
		sub := sumE.ZExt(sw + 1).Sub(xlInv.ZExt(sw + 1)).Named("sum_e_sub")
		sumE1 := st.Cut("sum_e1", hdlgen.Mux(isE, hdlgen.Mux(sub.Bit(sw), c(sw, 0), sub.Trunc(sw)), sumE).Named("sum_e1"))
		t := cur.F("num_b").ZExt(nbw + 2).Add(nbStep.AsSigned().SExt(nbw + 2).AsUnsigned()).Named("num_b_sum") // two's complement, in range
		numB1 := st.Cut("num_b1", hdlgen.Mux(t.Bit(nbw+1), c(nbw, 0),
			hdlgen.Mux(t.Bit(nbw), c(nbw, uint64(1)<<uint(nbw)-1), t.Trunc(nbw))).Named("num_b1"))

		// line 14: b = (c - SumE) / NumB, 0 when SumE >= c, at most infinity
		capF := p.CapRate << uint(p.InvF)
		left := c(sw+1, capF).Sub(sumE1.ZExt(sw + 1)).Named("cap_left")
		num := st.Cut("b_num", hdlgen.Mux(left.Bit(sw), c(sw, 0), left.Trunc(sw)).Named("b_num"))
		div := hdlgen.NewRecipDivider(st.Cut, "recip_num_b", numB1, p.K)
		q := div.Div(num, "b_q")
		b := st.Cut("b", hdlgen.Mux(q.Gt(c(q.Width(), p.Inf())), inf, q.Trunc(rw)).Named("b"))

		// lines 24-26 and 29: x, the ignore bit, whether the flow is
		// bottlenecked elsewhere
		// (the comparisons in a stage of their own, the selections after)
		bLtE := st.Cut("b_lt_e", b.Lt(e).Named("b_lt_e"))
		x := st.Cut("x", hdlgen.Mux(bLtE, b, e).Named("x"))
		ignore := st.Cut("ignore_l", b.Lt(maxE).Named("ignore_l"))
		toE := st.Cut("to_e", leaving.Not().And(e.Lt(b)).Named("to_e"))

		// lines 27-33
		numB2 := st.Cut("num_b2", hdlgen.Mux(leaving.Or(toE),
			hdlgen.Mux(numB1.Lt(invNew.ZExt(nbw)), c(nbw, 0), numB1.Sub(invNew.ZExt(nbw))), numB1).Named("num_b2"))
		xInv := hdlgen.MulPieces(st.Cut, "x_inv", x, invNew).Keep(sw-1, 0)
		sumAdd := sumE1.ZExt(sw + 1).Add(xInv.ZExt(sw + 1)).Named("sum_e_add")
		sumE2 := st.Cut("sum_e2", hdlgen.Mux(toE, hdlgen.Mux(sumAdd.Bit(sw), c(sw, uint64(1)<<uint(sw)-1), sumAdd.Trunc(sw)), sumE1).Named("sum_e2"))
		maxE3 := hdlgen.Mux(toE, hdlgen.MaxU(x, maxE), maxE).Named("max_e_next")
		maxE23 := hdlgen.Mux(toE, hdlgen.MaxU(x, maxE2), maxE2).Named("max_e2_next")
		stOut := hdlgen.Mux(toE, c(2, uint64(gonerc.StateE)), hdlgen.Mux(joins, c(2, uint64(gonerc.StateB)), state)).Named("state_next")

		round := ev.F("round")
		zero := func(w int) hdlgen.Value { return c(w, 0) }
		opened := word.Pack(map[string]hdlgen.Value{"sum_e": zero(sw), "num_b": zero(nbw), "max_e": zero(rw), "max_e2": zero(rw), "round": round})
		updated := word.Pack(map[string]hdlgen.Value{"sum_e": sumE2, "num_b": numB2, "max_e": maxE3, "max_e2": maxE23, "round": round})
		ctrl := isOpen.Not()
		return connpipe.Outcome{
			Word: hdlgen.Mux(isOpen, opened, updated),
			Result: map[string]hdlgen.Value{
				"b":      hdlgen.Mux(ctrl, b, c(rw, 0)),
				"x":      hdlgen.Mux(ctrl, x, c(rw, 0)),
				"ignore": ctrl.And(ignore),
				"state":  hdlgen.Mux(ctrl, stOut, c(2, 0)),
			},
		}
	})
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}
