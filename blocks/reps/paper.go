package reps

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/golden/fixed"
	"github.com/nicgen/nicgen/hdlgen"
)

// WordLayout is the per-connection word of `reps`: S4 Table 1 exactly.
func WordLayout(p Params) *hdlgen.Layout {
	l := EntriesLayout(p)
	word := hdlgen.NewLayout("reps_word")
	for _, f := range l.Fields() {
		word.Field(f.Name, f.Width, f.Doc)
	}
	word.Field("head", p.HeadW, "head: next entry to write, also the frozen replay pointer")
	word.Field("num_valid", p.CountW, "numberOfValidEVs")
	word.Field("exit_freeze", p.TimeW, "exitFreezingMode: time to leave freezing mode")
	word.Field("frozen", 1, "isFreezingMode")
	word.Field("explore", p.ExploreW, "exploreCounter: random EVs still to explore")
	return word
}

// Paper builds the `reps` top: S4's REPS for a table of connections, with
// the circular buffer (reps_cbuf) and the freezing controller (reps_freeze)
// as submodules. Behaviour: docs/blocks/reps.md.
func Paper(p Params) (*hdlgen.Module, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("reps: %w", err)
	}
	m := hdlgen.NewModule("reps", "REPS: Recycled Entropy Packet Spraying (S4), per-connection state in block RAM,\npipelined shell (docs/pipeline.md). Behaviour: docs/blocks/reps.md.")
	m.Note("NumConn = %d, ConnW = %d, N = %d, EVW = %d, HeadW = %d, CountW = %d, TimeW = %d, ExploreW = %d",
		p.NumConn, p.ConnW, p.N, p.EVW, p.HeadW, p.CountW, p.TimeW, p.ExploreW)
	m.Note("ClearOnFreezeExit = %v", p.ClearOnFreezeExit)
	part := PaperPart(m, p)
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: part.KindW, NumKinds: NumKinds, KindNames: part.KindNames,
		EventFields: part.EventFields, ResultFields: part.ResultFields, Word: part.Word, Core: p.Core,
	}
	if p.Formal.Invariants {
		spec.WordInvariants, spec.ResultInvariants = part.Invariants, resultInvariants()
	}
	err := connpipe.Build(m, spec, part.Step)
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}

// PaperPart is the datapath of reps as it runs in module m
// (connpipe.Part): its parameters (LFSR_SEED, FREEZE_TIME, EXPLORE_INIT,
// EXPLORE_AFTER_FREEZE), the LFSR and the submodules go into m. The
// block's own shell builds around it, and a composed block (uet_cc) runs it
// beside another part. p must satisfy Validate.
func PaperPart(m *hdlgen.Module, p Params) connpipe.Part {
	seed := m.Param("LFSR_SEED", 32, uint64(p.LFSRSeed), "seed of the random-EV LFSR; must be nonzero").
		Limit(1, 1<<32-1, "an LFSR in state 0 stays 0")
	// with the table port (p.Table) these are run-time settings, driven
	// by the control wrapper's registers (docs/control.md)
	freezeTime := m.Setting("FREEZE_TIME", p.TimeW, p.FreezeTime, "freezing-mode duration in s_event_now ticks; below 2**(TimeW-1)", p.Table).
		Limit(0, uint64(1)<<uint(p.TimeW-1)-1, "below half the timestamp's range, for the wrap-safe comparison")
	exploreInit := m.Setting("EXPLORE_INIT", p.ExploreW, p.ExploreInit, "random EVs explored after open (the BDP in packets)", p.Table)
	exploreAfter := m.Setting("EXPLORE_AFTER_FREEZE", p.ExploreW, p.ExploreAfterFreeze, "random EVs explored after leaving freezing mode", p.Table)

	word := WordLayout(p)
	entries := EntriesLayout(p)
	cbuf := CircularBuffer(p)
	freeze := FreezeController(p)
	lfsr := m.Reg("lfsr", 32, "random-EV generator (Galois LFSR)", hdlgen.ResetToParam(seed), hdlgen.GlobalState())

	return connpipe.Part{
		Name: "reps", KindW: KindW, KindNames: KindNames,
		EventFields: []connpipe.Field{
			{Name: "ecn", Width: 1, Doc: "the ack is ECN-marked"},
			{Name: "ev", Width: p.EVW, Doc: "entropy value carried by an ack or nack"},
			{Name: "now", Width: p.TimeW, Doc: "timestamp of the event (wraps)"},
		},
		ResultFields: []connpipe.Field{
			{Name: "ev", Width: p.EVW, Doc: "EV chosen for a send; 0 for other kinds"},
			{Name: "explored", Width: 1, Doc: "the send's EV is a random exploration, not a recycled one"},
			{Name: "frozen", Width: 1, Doc: "the connection is in freezing mode after the event"},
		},
		Word: word, Invariants: wordInvariants(p),
		Step: func(st connpipe.Step) connpipe.Outcome {
			isOpen, isSend := st.KindIs(KindOpen), st.KindIs(KindSend)
			isAck, isTimeout := st.KindIs(KindAck), st.KindIs(KindTimeout)

			fz := m.Instantiate("u_freeze", freeze)
			fz.In("cur_frozen", st.Cur.F("frozen")).In("cur_exit", st.Cur.F("exit_freeze")).In("cur_explore", st.Cur.F("explore"))
			fz.In("now", st.Event.F("now")).In("timeout", isTimeout)
			fz.In("freeze_time", freezeTime).In("explore_reload", exploreAfter)
			// stage cut 1: the freezing decision (a wide time comparison)
			frozen1, explore1 := st.Cut("frozen1", fz.Out("nxt_frozen")), st.Cut("explore1", fz.Out("nxt_explore"))
			exitNext := st.Cut("exit_next", fz.Out("nxt_exit"))
			var exiting hdlgen.Expr
			if p.ClearOnFreezeExit {
				exiting = st.Cut("exiting", fz.Out("exiting"))
			}

			exploring := explore1.Any().Named("exploring")
			if st.Depth > DefaultDepth {
				// a stage to spare (a deeper pipeline, or a composed block
				// whose other part sets the depth): the exploring bit from
				// a register of its own, so that the buffer's choice of an
				// entry does not follow the counter's zero test (uet_cc's
				// ECP5 critical path)
				exploring = st.Cut("exploring", exploring)
			}
			var curEntries []hdlgen.Value
			for i := len(entries.Fields()) - 1; i >= 0; i-- {
				curEntries = append(curEntries, st.Cur.F(entries.Fields()[i].Name))
			}
			cb := m.Instantiate("u_cbuf", cbuf)
			cb.In("cur_entries", hdlgen.Cat(curEntries...)).In("cur_head", st.Cur.F("head")).In("cur_num_valid", st.Cur.F("num_valid"))
			if p.ClearOnFreezeExit {
				cb.In("clear", exiting)
			}
			cb.In("add", isAck.And(st.Event.F("ecn").Not())).In("add_ev", st.Event.F("ev"))
			replay := frozen1.Named("replay")
			cb.In("take", isSend.And(exploring.Not())).In("replay", replay)
			// stage cut 2: the buffer operation (oldest valid entry, 8:1 choice)
			hit := st.Cut("hit", cb.Out("hit"))
			takeEV := st.Cut("take_ev", cb.Out("take_ev"))
			nxtEntries := st.Cut("nxt_entries", cb.Out("nxt_entries"))
			nxtHead, nxtCount := st.Cut("nxt_head", cb.Out("nxt_head")), st.Cut("nxt_num_valid", cb.Out("nxt_num_valid"))

			// a send explores while the counter runs, or when nothing is cached
			// and the connection is not frozen (S4:L51, L57)
			explored := isSend.And(exploring.Or(hit.Not())).Named("explored")
			draw := lfsrDraw(lfsr.Expr, p.EVW).Named("lfsr_drawn")
			m.Comb("lfsr_update", func(pr *hdlgen.Process) {
				pr.If(st.Fire.And(explored), func() { pr.Set(lfsr, draw) })
			})
			ev := hdlgen.Mux(explored, draw.Trunc(p.EVW), takeEV)
			exploreNext := hdlgen.Mux(isSend.And(exploring), explore1.Sub(hdlgen.Const(p.ExploreW, 1)), explore1)

			nxt := entries.Unpack(nxtEntries, "nxt")
			fields := map[string]hdlgen.Value{
				"head": nxtHead, "num_valid": nxtCount,
				"exit_freeze": exitNext, "frozen": frozen1, "explore": exploreNext,
			}
			openFields := map[string]hdlgen.Value{
				"head": hdlgen.Const(p.HeadW, 0), "num_valid": hdlgen.Const(p.CountW, 0),
				"exit_freeze": hdlgen.Const(p.TimeW, 0), "frozen": hdlgen.False(), "explore": exploreInit,
			}
			for _, f := range entries.Fields() {
				fields[f.Name] = nxt.F(f.Name)
				openFields[f.Name] = hdlgen.Const(f.Width, 0)
			}
			notOpen := isOpen.Not()
			return connpipe.Outcome{
				Word: hdlgen.Mux(isOpen, word.Pack(openFields), word.Pack(fields)),
				Result: map[string]hdlgen.Value{
					"ev":       hdlgen.Mux(isSend, ev, hdlgen.Const(p.EVW, 0)),
					"explored": explored,
					"frozen":   frozen1.And(notOpen),
				},
			}
		},
	}
}

// lfsrDraw advances the Galois LFSR by steps steps: one draw of a random EV
// uses fresh bits, not a shifted copy of the previous EV.
func lfsrDraw(state hdlgen.Expr, steps int) hdlgen.Expr {
	return hdlgen.GaloisSteps(state, fixed.LFSRTaps, steps)
}
