package reps

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/hdlgen"
)

// ConfWordLayout is the per-connection word of `reps_conf`.
func ConfWordLayout(p ConfParams) *hdlgen.Layout {
	return hdlgen.NewLayout("reps_conf_word").
		Field("next_entropy", p.EntW(), "next_entropy: next entropy to explore (S0 Alg. 4 line 2)").
		Field("cached_entropy", p.EntW(), "cached_entropy: entropy reused after exploration (S0 Alg. 4 line 3)").
		Field("explore_left", p.ExploreW(), "sends still to explore: p.seqnum < bdp and not all entropies tried (A-12)")
}

// Conf builds the `reps_conf` top: REPS as in S0 Algorithm 4 (sequential
// exploration of num_entropies entropies during the first BDP of packets,
// then one cached entropy, replaced by the next one on an ECN-marked ACK).
func Conf(p ConfParams) (*hdlgen.Module, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("reps_conf: %w", err)
	}
	m := hdlgen.NewModule("reps_conf", "REPS, conference version (S0 Algorithm 4), per-connection state in block RAM,\npipelined shell (docs/pipeline.md). Behaviour: docs/blocks/reps.md.")
	m.Note("NumConn = %d, ConnW = %d, NumEntropies = %d, EntW = %d, ExploreW = %d, EVW = %d",
		p.NumConn, p.ConnW, p.NumEntropies, p.EntW(), p.ExploreW(), p.EVW)
	part := ConfPart(m, p)
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: part.KindW, NumKinds: NumKinds, KindNames: part.KindNames,
		EventFields: part.EventFields, ResultFields: part.ResultFields, Word: part.Word, Core: p.Core,
	}
	if p.Formal.Invariants {
		spec.WordInvariants = part.Invariants
	}
	err := connpipe.Build(m, spec, part.Step)
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}

// ConfPart is the datapath of reps_conf as it runs in module m
// (connpipe.Part); its parameter EXPLORE_INIT goes into m. p must satisfy
// Validate.
func ConfPart(m *hdlgen.Module, p ConfParams) connpipe.Part {
	entW, expW := p.EntW(), p.ExploreW()
	exploreInit := m.Setting("EXPLORE_INIT", expW, p.ExploreInit, "sends explored after open: min(BDP in packets, NUM_ENTROPIES)", p.Table).
		Limit(0, min(uint64(1)<<uint(expW)-1, uint64(p.NumEntropies)), "at most the entropies there are to explore, and what the explore counter holds")
	word := ConfWordLayout(p)
	return connpipe.Part{
		Name: "reps_conf", KindW: KindW, KindNames: KindNames,
		EventFields: []connpipe.Field{
			{Name: "ecn", Width: 1, Doc: "the ack is ECN-marked"},
			{Name: "ev", Width: entW, Doc: "entropy carried by an ack (an entropy this block chose)"},
		},
		ResultFields: []connpipe.Field{
			{Name: "ev", Width: p.EVW, Doc: "entropy chosen for a send, zero-extended; 0 for other kinds"},
			{Name: "explored", Width: 1, Doc: "the send's entropy is a new one (exploration)"},
		},
		Word: word, Invariants: confWordInvariants(p, exploreInit),
		Step: func(st connpipe.Step) connpipe.Outcome {
			isOpen, isSend, isAck := st.KindIs(KindOpen), st.KindIs(KindSend), st.KindIs(KindAck)
			next, cached, left := st.Cur.F("next_entropy"), st.Cur.F("cached_entropy"), st.Cur.F("explore_left")
			// next_entropy++ % num_entropies, without a divider
			var nextInc hdlgen.Expr
			if uint64(p.NumEntropies) == uint64(1)<<uint(entW) {
				nextInc = next.Add(hdlgen.Const(entW, 1))
			} else {
				nextInc = hdlgen.Mux(next.EqC(uint64(p.NumEntropies-1)), hdlgen.Const(entW, 0), next.Add(hdlgen.Const(entW, 1)))
			}
			nextInc = nextInc.Named("next_inc")
			exploring := left.Any().Named("exploring")
			explore := isSend.And(exploring).Named("explore")
			ecnAck := isAck.And(st.Event.F("ecn")).Named("ecn_ack")
			newNext := hdlgen.Mux(explore.Or(ecnAck), nextInc, next)
			newCached := hdlgen.Mux(isAck, hdlgen.Mux(ecnAck, next, st.Event.F("ev")), cached)
			newLeft := hdlgen.Mux(explore, left.Sub(hdlgen.Const(expW, 1)), left)
			chosen := hdlgen.Mux(explore, next, cached).ZExt(p.EVW)
			return connpipe.Outcome{
				Word: hdlgen.Mux(isOpen,
					word.Pack(map[string]hdlgen.Value{"next_entropy": hdlgen.Const(entW, 0), "cached_entropy": hdlgen.Const(entW, 0), "explore_left": exploreInit}),
					word.Pack(map[string]hdlgen.Value{"next_entropy": newNext, "cached_entropy": newCached, "explore_left": newLeft})),
				Result: map[string]hdlgen.Value{
					"ev":       hdlgen.Mux(isSend, chosen, hdlgen.Const(p.EVW, 0)),
					"explored": explore,
				},
			}
		},
	}
}
