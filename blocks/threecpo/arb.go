package threecpo

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/connpipe"
	gthreecpo "github.com/nicgen/nicgen/golden/threecpo"
	"github.com/nicgen/nicgen/hdlgen"
)

// LRUArbParams configure lru_arb: the golden model's parameters (the
// arbiter's and the table's), the pipeline's depth and the proofs'
// properties.
type LRUArbParams struct {
	gthreecpo.ArbTableParams
	connpipe.Core
}

// lru_arb's event kinds (golden/threecpo ArbKind).
const (
	ArbKindW    = 1
	ArbNumKinds = int(gthreecpo.ArbNumKinds)
)

// ArbKindNames names the kinds.
var ArbKindNames = []string{"open", "cycle"}

// DefaultLRUArbParams is the thesis's injection arbiter (S3:L1570-1577,
// L1761-1769): three VCs (responses, read requests, write requests),
// least recently used, on 64 GPU ports behind a 16-bit id.
func DefaultLRUArbParams() LRUArbParams {
	p := LRUArbParams{ArbTableParams: gthreecpo.ArbTableParams{ArbParams: gthreecpo.ArbParams{VCs: 3, Policy: gthreecpo.ArbLRU},
		NumConn: 64, ConnW: 16, KindW: ArbKindW}}
	p.Depth = connpipe.MustDepth(NeededArbDepth(p))
	return p
}

// ArbWordLayout is the per-port word: the age matrix (LRU) or the
// pointer (round robin).
func ArbWordLayout(p LRUArbParams) *hdlgen.Layout {
	l := hdlgen.NewLayout("lru_arb_word")
	if p.Policy == gthreecpo.ArbRoundRobin {
		return l.Field("ptr", p.StateW(), fmt.Sprintf("round robin's pointer: the first VC it offers the grant to (0..%d)", p.VCs-1))
	}
	return l.Field("older", p.StateW(), "the age matrix: bit (i, j), i < j, pairs row by row, is 1 when VC i was granted longer ago than VC j")
}

// NeededArbDepth is the number of datapath stages lru_arb's cuts reach.
func NeededArbDepth(p LRUArbParams) (int, error) {
	return connpipe.NeededDepth(p, connpipe.MaxDepth, LRUArb)
}

// lowestOne keeps the lowest set bit of v: v & -v.
func lowestOne(v hdlgen.Expr) hdlgen.Expr {
	return v.And(v.Not().Add(hdlgen.Const(v.Width(), 1)))
}

// encode is the index of a one-hot (0 when none is set), w bits; bit 0
// of the one-hot adds nothing to it.
func encode(oh hdlgen.Expr, w int) hdlgen.Expr {
	upper := oh.Keep(oh.Width()-1, 1) // bits 1.. of oh
	bits := make([]hdlgen.Value, w)
	for b := 0; b < w; b++ {
		var terms []hdlgen.Value
		for i := 1; i < oh.Width(); i++ {
			if i>>uint(b)&1 == 1 {
				terms = append(terms, upper.Bit(i-1))
			}
		}
		bits[w-1-b] = hdlgen.False()
		if len(terms) > 0 {
			bits[w-1-b] = hdlgen.Cat(terms...).Any()
		}
	}
	return hdlgen.Cat(bits...)
}

// LRUArb builds the lru_arb top: per GPU port, one arbitration among the
// injection VCs whose head packet may go, least recently granted first
// (or, as an option, round robin, the arbiter the thesis replaced)
// (S3:L1761-1769; docs/blocks/3cpo.md).
func LRUArb(p LRUArbParams) (*hdlgen.Module, error) {
	if err := p.ValidateTable(); err != nil {
		return nil, err
	}
	m := hdlgen.NewModule("lru_arb", "3CPO injection VC arbitration (S3 Section 6.2.5) per GPU port in block RAM, each event one\narbitration of a port, pipelined shell (docs/pipeline.md). Behaviour: docs/blocks/3cpo.md.")
	m.Note("NumConn = %d ports, VCs = %d, policy %v", p.NumConn, p.VCs, p.Policy)
	word := ArbWordLayout(p)
	v, iw := p.VCs, p.IndexW()
	rr := p.Policy == gthreecpo.ArbRoundRobin
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: ArbKindW, NumKinds: ArbNumKinds, KindNames: ArbKindNames,
		EventFields: []connpipe.Field{
			{Name: "req", Width: v, Doc: "cycle: bit i, VC i has a packet at its head"},
			{Name: "ok", Width: v, Doc: "cycle: bit i, VC i's head packet may go (its IRL tokens suffice: irl_tokens's may_send; 1 for a VC without tokens)"},
		},
		ResultFields: []connpipe.Field{
			{Name: "granted", Width: 1, Doc: "cycle: a VC was granted (some VC both requested and may go)"},
			{Name: "grant", Width: iw, Doc: "the granted VC (0 when none)"},
		},
		Word: word, Core: p.Core,
	}
	if p.Formal.Invariants {
		// (an index of iw bits is in range by its width when v = 2^iw)
		inRange := v < 1<<uint(iw)
		if rr && inRange {
			spec.WordInvariants = []connpipe.Invariant{
				{Name: "ptr_in_range", Holds: func(f hdlgen.Record) hdlgen.Value { return f.F("ptr").Lt(hdlgen.Const(iw, uint64(v))) }},
			}
		}
		if !rr {
			// an order: no three VCs form a cycle (i older than j, j
			// older than k, k older than i)
			spec.WordInvariants = []connpipe.Invariant{
				{Name: "age_is_order", Holds: func(f hdlgen.Record) hdlgen.Value { return ageIsOrder(p, f.F("older")) }},
			}
		}
		spec.ResultInvariants = []connpipe.Invariant{
			{Name: "grant_means_granted", Holds: func(f hdlgen.Record) hdlgen.Value {
				return f.F("granted").Or(f.F("grant").IsZero())
			}},
		}
		if inRange {
			spec.ResultInvariants = append(spec.ResultInvariants, connpipe.Invariant{Name: "grant_in_range", Holds: func(f hdlgen.Record) hdlgen.Value {
				return f.F("grant").Lt(hdlgen.Const(iw, uint64(v)))
			}})
		}
	}
	err := connpipe.Build(m, spec, func(st connpipe.Step) connpipe.Outcome {
		ev, cur := st.Event, st.Cur
		isCycle := st.KindIs(int(gthreecpo.ArbCycleKind))
		// event-only, computed while the word is read: the eligible VCs
		// and the lowest of them
		elig := hdlgen.Mux(isCycle, ev.F("req").And(ev.F("ok")), hdlgen.Const(v, 0)).Named("eligible")
		low := lowestOne(elig).Named("eligible_lowest")
		var oh, next hdlgen.Expr
		if rr {
			ptr := cur.F("ptr")
			ge := make([]hdlgen.Value, v)
			for i := 0; i < v; i++ {
				ge[v-1-i] = hdlgen.True() // every pointer is at or before 2^iw - 1
				if i < 1<<uint(iw)-1 {
					ge[v-1-i] = ptr.Le(hdlgen.Const(iw, uint64(i)))
				}
			}
			at := elig.And(hdlgen.Cat(ge...)).Named("eligible_at_ptr")
			oh = hdlgen.Mux(at.Any(), lowestOne(at), low).Named("grant_onehot")
			rot := hdlgen.Cat(oh.Slice(v-2, 0), oh.Bit(v-1)) // VC i's grant points at i+1
			next = hdlgen.Mux(elig.Any(), encode(rot, iw), ptr).Named("ptr_next")
		} else {
			m := cur.F("older")
			older := func(i, j int) hdlgen.Expr { return ageOlder(p, m, i, j) }
			// VC i wins when eligible and older than every other eligible
			// VC; at most one can (of a pair, one is the older). A word
			// that is no order may leave none: the lowest eligible wins.
			beats := make([]hdlgen.Value, v)
			for i := 0; i < v; i++ {
				t := elig.Bit(i)
				for j := 0; j < v; j++ {
					if j != i {
						t = t.And(elig.Bit(j).Not().Or(older(i, j)))
					}
				}
				beats[v-1-i] = t
			}
			cand := hdlgen.Cat(beats...).Named("oldest_eligible")
			oh = hdlgen.Mux(cand.Any(), cand, low).Named("grant_onehot")
			// the grant becomes the most recent: bit (i, j) clears when i
			// is granted and sets when j is; no grant keeps the word
			nb := make([]hdlgen.Value, p.Pairs())
			for i := 0; i < v; i++ {
				for j := i + 1; j < v; j++ {
					nb[p.Pairs()-1-p.PairBit(i, j)] = m.Bit(p.PairBit(i, j)).And(oh.Bit(i).Not()).Or(oh.Bit(j))
				}
			}
			next = hdlgen.Cat(nb...).Named("older_next")
		}
		// one stage: a port may arbitrate every clock (docs/blocks/3cpo.md)
		opened := hdlgen.Const(p.StateW(), p.ArbOpen())
		nextWord := hdlgen.Mux(st.KindIs(int(gthreecpo.ArbOpenKind)), opened, next)
		return connpipe.Outcome{
			Word: nextWord,
			Result: map[string]hdlgen.Value{
				"granted": oh.Any().Named("granted"),
				"grant":   encode(oh, iw).Named("grant"),
			},
		}
	})
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}

// ageIsOrder is 1 when the age matrix m has no cycle of three VCs, which
// for a tournament (one bit per pair) makes it a total order.
func ageIsOrder(p LRUArbParams, m hdlgen.Expr) hdlgen.Expr {
	older := func(i, j int) hdlgen.Expr { return ageOlder(p, m, i, j) }
	ok := hdlgen.True()
	for i := 0; i < p.VCs; i++ {
		for j := 0; j < p.VCs; j++ {
			for k := 0; k < p.VCs; k++ {
				if i < j && i < k && j != k {
					ok = ok.And(older(i, j).And(older(j, k)).And(older(k, i)).Not())
				}
			}
		}
	}
	return ok
}

// ageOlder is 1 when the age matrix m says VC i was granted longer ago
// than VC j (i != j): pair (i, j)'s bit, or its complement for i > j.
func ageOlder(p LRUArbParams, m hdlgen.Expr, i, j int) hdlgen.Expr {
	if i < j {
		return m.Bit(p.PairBit(i, j))
	}
	return m.Bit(p.PairBit(j, i)).Not()
}
