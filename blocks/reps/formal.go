package reps

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/hdlgen"
)

// Invariants of the REPS blocks (docs/formal.md), built when
// Params.Formal.Invariants is set. Each has a broken variant, selected by
// Params.Formal.Break, whose proof must fail.

// wordInvariants hold of every `reps` state word: the contract's buffer
// invariant (docs/blocks/reps.md) and the freezing rule. Each holds of the
// all-zero word, so a zeroed table starts inside them.
func wordInvariants(p Params) []connpipe.Invariant {
	return []connpipe.Invariant{
		// broken: the head pointer wraps one entry late (cbuf.go)
		{Name: "head_lt_n", Holds: func(w hdlgen.Record) hdlgen.Value {
			return w.F("head").ZExt(p.HeadW + 1).Lt(hdlgen.Const(p.HeadW+1, uint64(p.N)))
		}},
		// broken: overwriting a valid entry counts it again (cbuf.go)
		{Name: "num_valid_le_n", Holds: func(w hdlgen.Record) hdlgen.Value {
			return w.F("num_valid").Le(hdlgen.Const(p.CountW, uint64(p.N)))
		}},
		// the valid entries are exactly the num_valid entries before head;
		// num_valid <= N is not inductive without it (an add at a valid
		// head must not count). Broken: a take leaves its entry valid.
		{Name: "valid_are_newest", Holds: func(w hdlgen.Record) hdlgen.Value { return validAreNewest(p, w) }},
		// freezing is entered only when the explore counter is 0, and
		// leaving it reloads the counter. Broken: freeze while exploring
		// (freeze.go).
		{Name: "frozen_not_exploring", Holds: func(w hdlgen.Record) hdlgen.Value {
			return w.F("frozen").Implies(w.F("explore").IsZero())
		}},
	}
}

// validAreNewest is 1 when entry i is valid exactly when its distance
// behind head, (head - 1 - i) mod N, is below num_valid, for every i.
func validAreNewest(p Params, w hdlgen.Record) hdlgen.Expr {
	width := max(p.HeadW, p.CountW, hdlgen.BitsFor(uint64(2*p.N))) + 1
	head := w.F("head").ZExt(width)
	count := w.F("num_valid").ZExt(width)
	all := hdlgen.True()
	for i := 0; i < p.N; i++ {
		k := hdlgen.Const(width, uint64(i+1))
		dist := hdlgen.Mux(head.Ge(k), head.Sub(k), head.Add(hdlgen.Const(width, uint64(p.N))).Sub(k))
		all = all.And(w.F(fmt.Sprintf("buf%d_valid", i)).Eq(dist.Lt(count)))
	}
	return all
}

// resultInvariants hold of every result beat of `reps`: a send of a
// frozen connection never explores, it takes a cached EV or replays one
// (S4:L57). m_result_frozen is the state after the event, which a send
// does not change. Broken: a frozen send with no valid EV does not replay
// (paper.go).
func resultInvariants() []connpipe.Invariant {
	return []connpipe.Invariant{
		{Name: "frozen_send_not_explored", Holds: func(r hdlgen.Record) hdlgen.Value {
			return r.F("explored").Implies(r.F("frozen").Not())
		}},
	}
}

// confWordInvariants hold of every `reps_conf` state word.
func confWordInvariants(p ConfParams, exploreInit hdlgen.Value) []connpipe.Invariant {
	invs := []connpipe.Invariant{
		// broken: a send decrements the counter below 0 (conf.go)
		{Name: "explore_left_le_init", Holds: func(w hdlgen.Record) hdlgen.Value {
			return w.F("explore_left").Le(exploreInit)
		}},
	}
	if uint64(p.NumEntropies) < uint64(1)<<uint(p.EntW()) {
		// broken: next_entropy does not wrap at NumEntropies (conf.go)
		invs = append(invs, connpipe.Invariant{Name: "next_below_entropies", Holds: func(w hdlgen.Record) hdlgen.Value {
			return w.F("next_entropy").Lt(hdlgen.Const(p.EntW(), uint64(p.NumEntropies)))
		}})
	}
	return invs
}
