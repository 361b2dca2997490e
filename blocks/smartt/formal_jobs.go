package smartt

import (
	"slices"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/control"
	"github.com/nicgen/nicgen/hdlgen"
)

// SmallParams is a SMaRTT variant shrunk: 2 connections, a 4 Gb/s link
// with a 1024 ns base RTT and a 64 B MTU (BDP 512 B, so 10-bit windows and
// byte counters, 12-bit RTTs), 2 fraction bits, 16-entry reciprocal
// tables, byte counters in 4 B units, an initial window of 256 B (not the
// maximum, so that open is told apart), and 28-bit time.
// Sizes are as wide as the counters, so that two events overflow one.
func SmallParams(v Variant) Params {
	p := DefaultParams(v)
	p.Net = Network{LinkGbps: 4, MTU: 64, BrttNs: 1024}
	p.NumConn, p.ConnW = 2, 2
	p.SizeW, p.RttW, p.ByteW, p.TimeW = 10, 12, 10, 28
	p.F, p.K = 2, 4
	p.ByteShift = 2 // 4-byte counter units, so that the proofs cover the rounding
	p.InitCwnd = 256
	return p
}

func formalJob(name, doc string, p Params, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return Block(p)
	}}
	if breaks {
		j.Mutants = connpipe.WithShellMutants(p.Depth, "cwnd", mutants(p))
		j.OwnOnly = true
	}
	return j
}

// mutants are the broken variants of smartt and nscc, applied to the built
// design (hdlgen.Mutate) and named after the assertion that must catch it.
// They read values of the datapath's one stage: the jobs that break are of
// depth 1.
func mutants(p Params) map[string][]hdlgen.Mutation {
	d, cw := p.Derive(), p.cw()
	// the window is clamped only after the core cases, not after the early
	// returns of QuickAdapt and FastIncrease
	unclamped := []hdlgen.Mutation{{Node: "c_ack_window", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
		return hdlgen.Mux(get("early"), satTo(get("c_early"), cw), clampWindow(p, d, window(p, get("core_c"))).Raw())
	}}}
	// a counter that wraps instead of saturating
	wraps := func(module, node, prop string) []hdlgen.Mutation {
		return []hdlgen.Mutation{{Module: module, Node: node, With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get(prop+"_sum").Keep(orig.Width()-1, 0)
		}}}
	}
	ms := map[string][]hdlgen.Mutation{
		"window_in_range": unclamped,
		"window_valid":    unclamped,
		// open ignores InitCwnd
		"window_open_init": {{Node: "c_open", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return cst(orig.Width(), d.MaxCwnd<<uint(p.F))
		}}},
		// the result reports the window before the event
		"result_cwnd_in_range": {{Node: "cwnd_result", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("cur_c").Keep(cw-1, p.F)
		}}},
		// QuickAdapt fires inside its window
		"qa_window_ended": {{Node: "qa_fire", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("qa_asked")
		}}},
		"acked_no_wrap": wraps("", "acked1", "acked_no_wrap"),
		// the bytes to ignore wrap below 0 instead of stopping there
		"ignore_counts_down": {{Node: "ignore_left1", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("ignore_diff").Keep(orig.Width()-1, 0)
		}}},
		"count_no_wrap": wraps("", "fi_count_sum", "fi_count_no_wrap"),
	}
	if p.Variant == NSCC {
		ms["recv_no_wrap"] = wraps("", "recv_sum", "recv_no_wrap")
	}
	return ms
}

// formalJobs are the proofs of smartt or nscc: the small configuration, on
// which every broken variant is also run, an option variant, the default
// widths with 4 connections, and the pipelined datapath at depth 4 (the
// first cuts: the RTT and window reciprocals' normalisers and ROMs).
func formalJobs(v Variant) []block.FormalJob {
	small, opts, deep := SmallParams(v), SmallParams(v), SmallParams(v)
	deep.Depth = 4
	def := DefaultParams(v)
	def.NumConn = 4
	if v == Conf {
		opts.TimeoutsReplaceTrims, opts.TrimsCountAsAcked, opts.ZeroStampExpired = true, true, false
		return []block.FormalJob{
			formalJob("smartt", "NumConn 2, 4 Gb/s, MTU 64 B, base RTT 1024 ns, SizeW 10, RttW 12, ByteW 10, TimeW 28, F 2, K 4, InitCwnd 256 B", small, true),
			formalJob("smartt_options", "as smartt with TimeoutsReplaceTrims, TrimsCountAsAcked, without ZeroStampExpired", opts, false),
			formalJob("smartt_default", "default widths (SizeW 14, RttW 20, ByteW 21, TimeW 32, F 6, K 10), 800 Gb/s, NumConn 4", def, false),
			formalJob("smartt_depth4", "as smartt, pipeline depth 4", deep, false),
		}
	}
	opts.DelayQA, opts.AdjustPeriod, opts.TrimsCountAsAcked, opts.IgnorePhaseTimeouts = true, false, true, false
	return []block.FormalJob{
		formalJob("nscc", "as smartt", small, true),
		formalJob("nscc_options", "as nscc with DelayQA, TrimsCountAsAcked, without AdjustPeriod and IgnorePhaseTimeouts", opts, false),
		formalJob("nscc_default", "default widths, 800 Gb/s, NumConn 4", def, false),
		formalJob("nscc_depth4", "as nscc, pipeline depth 4", deep, false),
		mergeFormalJob(),
		ctlFormalJob(),
	}
}

// mergeFormalJob proves the merging shell (docs/pipeline.md, "Merge
// stage") around the small nscc at depth 4 with 3 slots and merged ACKs
// (the sum capped at its 10-bit size port, 1023 bytes), its table written
// behind (uet_cc's split window path): the shell's and nscc's properties
// with the slots in front, and the merge stage's own. The broken variants
// here are those that need a merge rule (a fold miscounted, a fold against
// the rule, the sum's cap): the slots' own run on ecn_ipd_wait, the
// smallest shell with slots, where each fails in seconds.
func mergeFormalJob() block.FormalJob {
	p := SmallParams(NSCC)
	p.Depth, p.MergeSlots, p.MergeAcks, p.MergeNacks, p.WriteBehind = 4, 3, true, true, true
	mutants := connpipe.MergeMutants()
	for _, ms := range []map[string][]hdlgen.Mutation{connpipe.FoldMutants(), connpipe.SumMutants(MergeRule(p))} {
		for k, v := range ms {
			mutants[k] = v
		}
	}
	j := block.FormalJob{Name: "nscc_merge", Doc: "as nscc, pipeline depth 4, with 3 merge slots, merged ACKs and the table written behind", MaxSteps: 12 + 2*p.Depth + 8,
		Breaks: true, BreakOnly: slices.Concat(connpipe.FoldCountAssertions, connpipe.FoldAssertions, connpipe.SumAssertions), Mutants: mutants,
		Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
			p.Formal = f
			return Block(p)
		}}
	return j
}

// ctlFormalJob proves the control wrapper's own properties around the
// small nscc, where the wrapper derives MI_GAIN from each TARGET_RTT write
// by division: MI_GAIN, derived or written, stays in its range.
func ctlFormalJob() block.FormalJob {
	p := SmallParams(NSCC)
	p.Table = true
	j := block.ControlFormalJob("nscc_ctl", "nscc_ctl around the small nscc (as the job nscc, with the table port)", 40,
		func() (*hdlgen.Module, error) { return Block(p) },
		control.Info{NumConn: p.NumConn, Kinds: kindNames(), Macros: Macros(p)},
		[]string{SetTargetRTT, SetMIGain, SetQAScaling}, []string{SetMIGain})
	// the bus's broken variants run on reps_ctl: here only the settings'
	for name := range j.Mutants {
		if !slices.Contains(control.BusAssertions, name) {
			j.BreakOnly = append(j.BreakOnly, name)
		}
	}
	slices.Sort(j.BreakOnly)
	return j
}
