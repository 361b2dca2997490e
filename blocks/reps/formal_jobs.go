package reps

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/control"
	"github.com/nicgen/nicgen/hdlgen"
)

// SmallParams is `reps` shrunk so that every rule is a few events away: 2
// connections behind a 2-bit id (ids 2 and 3 are errors), 4 entries with
// 3-bit head and count (so head < 4 and num_valid <= 4 are not implied by
// the widths), 2-bit EVs, 4-bit time that wraps every 16 ticks, a freeze
// of 3 ticks, and explore counters of 1 and 2.
func SmallParams() Params {
	p := DefaultParams()
	p.NumConn, p.ConnW, p.N, p.EVW, p.HeadW, p.CountW = 2, 2, 4, 2, 3, 3
	p.TimeW, p.ExploreW, p.ExploreInit, p.ExploreAfterFreeze, p.FreezeTime = 4, 2, 1, 2, 3
	return p
}

// SmallConfParams is `reps_conf` shrunk: 2 connections, 5 entropies (a
// wrap that is not a power of 2), 2 sends explored after open (a 2-bit
// counter, so explore_left <= 2 is not implied by the width).
func SmallConfParams() ConfParams {
	return ConfParams{NumConn: 2, ConnW: 2, NumEntropies: 5, EVW: 3, ExploreInit: 2, Core: connpipe.Core{Depth: DefaultConfDepth}}
}

func formalJob(name, doc string, p Params, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 26, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return Paper(p)
	}}
	if breaks {
		j.Mutants = connpipe.WithShellMutants(p.Depth, "ev", mutants(p))
	}
	return j
}

// mutants are reps's broken variants, each applied to the built design
// (hdlgen.Mutate) and named after the assertion that must catch it.
func mutants(p Params) map[string][]hdlgen.Mutation {
	isFalse := func(hdlgen.Expr, func(string) hdlgen.Expr) hdlgen.Expr { return hdlgen.False() }
	var takes []hdlgen.Mutation
	for i := 0; i < p.N; i++ {
		takes = append(takes, hdlgen.Mutation{Module: "reps_cbuf", Node: fmt.Sprintf("take_here_%d", i), With: isFalse})
	}
	return map[string][]hdlgen.Mutation{
		// head wraps one entry late
		"head_lt_n": {{Module: "reps_cbuf", Node: "head_inc", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			head := get("cur_head")
			return hdlgen.Mux(head.EqC(uint64(p.N)), hdlgen.Const(p.HeadW, 0), head.Add(hdlgen.Const(p.HeadW, 1)))
		}}},
		// a take leaves its entry valid
		"valid_are_newest": takes,
		// an overwrite counts as a new entry
		"num_valid_le_n": {{Module: "reps_cbuf", Node: "head_was_valid", With: isFalse}},
		// freezes while exploring
		"frozen_not_exploring": {
			{Module: "reps_freeze", Node: "enter_leaving", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr { return get("timeout") }},
			{Module: "reps_freeze", Node: "enter_staying", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return get("timeout").And(get("cur_frozen").Not())
			}},
		},
		// a frozen send with nothing cached explores
		"frozen_send_not_explored": {{Node: "replay", With: isFalse}},
	}
}

func confFormalJob(name, doc string, p ConfParams, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*(p.Depth-1), Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return Conf(p)
	}}
	if breaks {
		j.Mutants = connpipe.WithShellMutants(p.Depth, "ev", map[string][]hdlgen.Mutation{
			// next_entropy wraps at 2^EntW, not at NumEntropies
			"next_below_entropies": {{Node: "next_inc", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return get("cur_next_entropy").Add(hdlgen.Const(p.EntW(), 1))
			}}},
			// explore_left counts below 0
			"explore_left_le_init": {{Node: "exploring", With: func(hdlgen.Expr, func(string) hdlgen.Expr) hdlgen.Expr { return hdlgen.True() }}},
		})
	}
	return j
}

// formalJobs are reps's proofs: the small configuration, on which every
// broken variant is also run, an option variant, and the default widths
// with 4 connections (the state-table abstraction makes the number of
// connections irrelevant to the proof; only the widths matter).
func formalJobs() []block.FormalJob {
	small := SmallParams()
	n3 := SmallParams()
	n3.N, n3.ClearOnFreezeExit = 3, true
	def := DefaultParams()
	def.NumConn = 4
	return []block.FormalJob{
		formalJob("reps", "NumConn 2, N 4, EVW 2, HeadW 3, CountW 3, TimeW 4, ExploreW 2, ExploreInit 1, ExploreAfterFreeze 2, FreezeTime 3", small, true),
		formalJob("reps_n3_clear", "as reps with N 3 and ClearOnFreezeExit", n3, false),
		formalJob("reps_default", "default widths (N 8, EVW 16, HeadW 8, CountW 8, TimeW 32, ExploreW 8), NumConn 4", def, false),
		ctlFormalJob(),
	}
}

// ctlFormalJob proves the control wrapper's own properties around the
// small reps, whose FREEZE_TIME (4 bits, 0..7) can be written out of its
// range.
func ctlFormalJob() block.FormalJob {
	p := SmallParams()
	p.Table = true
	return block.ControlFormalJob("reps_ctl", "reps_ctl around the small reps (as the job reps, with the table port)", 26,
		func() (*hdlgen.Module, error) { return Paper(p) },
		control.Info{NumConn: p.NumConn, Kinds: goldenKinds()}, []string{"FREEZE_TIME"}, nil)
}

// confFormalJobs are reps_conf's proofs.
func confFormalJobs() []block.FormalJob {
	def := DefaultConfParams()
	def.NumConn = 4
	// a deep shell: its hazard unit keeps three registers (stages 1..4,
	// 5..8 and 9..11), as at the deep default depths of smartt and nscc
	deep := SmallConfParams()
	deep.Depth = 12
	deepJob := confFormalJob("reps_conf_depth12", "as reps_conf, pipeline depth 12: three hazard registers; the broken variants of the shell's depth-dependent assertions run", deep, true)
	// the block's own assertions and credit_exact are broken at depth 1,
	// where their counterexamples are 7-11 steps long (30 and more here)
	deepJob.BreakOnly = []string{"hazard_exact", "out_valid_exact", "same_conn_apart", "snoop_exact"}
	return []block.FormalJob{
		confFormalJob("reps_conf", "NumConn 2, NumEntropies 5, EVW 3, ExploreInit 2", SmallConfParams(), true),
		confFormalJob("reps_conf_default", "default widths (NumEntropies 256, EVW 16, ExploreInit 210), NumConn 4", def, false),
		deepJob,
	}
}
