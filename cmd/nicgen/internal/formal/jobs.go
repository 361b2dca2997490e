package formal

import (
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/reps"
	"github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/hdlgen"
)

// SmallReps is `reps` shrunk so that every rule is a few events away: 2
// connections behind a 2-bit id (ids 2 and 3 are errors), 4 entries with
// 3-bit head and count (so head < 4 and num_valid <= 4 are not implied by
// the widths), 2-bit EVs, 4-bit time that wraps every 16 ticks, a freeze
// of 3 ticks, and explore counters of 1 and 2.
func SmallReps() reps.Params {
	p := reps.DefaultParams()
	p.NumConn, p.ConnW, p.N, p.EVW, p.HeadW, p.CountW = 2, 2, 4, 2, 3, 3
	p.TimeW, p.ExploreW, p.ExploreInit, p.ExploreAfterFreeze, p.FreezeTime = 4, 2, 1, 2, 3
	return p
}

// SmallRepsConf is `reps_conf` shrunk: 2 connections, 5 entropies (a wrap
// that is not a power of 2), 2 sends explored after open (a 2-bit counter,
// so explore_left <= 2 is not implied by the width).
func SmallRepsConf() reps.ConfParams {
	return reps.ConfParams{NumConn: 2, ConnW: 2, NumEntropies: 5, EVW: 3, ExploreInit: 2, Depth: reps.DefaultConfDepth}
}

// SmallSmartt is a SMaRTT variant shrunk: 2 connections, a 4 Gb/s link
// with a 1024 ns base RTT and a 64 B MTU (BDP 512 B, so 10-bit windows and
// byte counters, 12-bit RTTs), 2 fraction bits, 16-entry reciprocal
// tables, an initial window of 256 B (not the maximum, so that open is
// told apart), and the shortest time stamps the block allows (28 bits).
// Sizes are as wide as the counters, so that two events overflow one.
func SmallSmartt(v smartt.Variant) smartt.Params {
	p := smartt.DefaultParams(v)
	p.Net = smartt.Network{LinkGbps: 4, MTU: 64, BrttNs: 1024}
	p.NumConn, p.ConnW = 2, 2
	p.SizeW, p.RttW, p.ByteW, p.TimeW = 10, 12, 10, 28
	p.F, p.K = 2, 4
	p.InitCwnd = 256
	return p
}

// Job constructors: each sets the requested properties on a copy of p.
func repsJob(name, doc string, p reps.Params, breaks bool) Job {
	return Job{Name: name, Doc: doc, MaxSteps: 26, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return reps.Paper(p)
	}}
}

func repsConfJob(name, doc string, p reps.ConfParams, breaks bool) Job {
	return Job{Name: name, Doc: doc, MaxSteps: 12, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return reps.Conf(p)
	}}
}

func smarttJob(name, doc string, p smartt.Params, breaks bool) Job {
	return Job{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return smartt.Block(p)
	}}
}

// Jobs are the proofs `make formal` runs: the small configurations, on
// which every broken variant is also run (their counterexamples are a few
// events long), option variants, and every block with the default widths
// of the embedded configuration and 4 connections (the state-table
// abstraction makes the number of connections irrelevant to the proof;
// only the widths matter).
func Jobs() []Job {
	small := SmallReps()
	n3 := SmallReps()
	n3.N, n3.ClearOnFreezeExit = 3, true
	repsDefault := reps.DefaultParams()
	repsDefault.NumConn = 4

	conf := SmallRepsConf()
	confDefault := reps.DefaultConfParams()
	confDefault.NumConn = 4

	sm := SmallSmartt(smartt.Conf)
	smOpts := SmallSmartt(smartt.Conf)
	smOpts.TimeoutsReplaceTrims, smOpts.TrimsCountAsAcked, smOpts.ZeroStampExpired = true, true, false
	smDefault := smartt.DefaultParams(smartt.Conf)
	smDefault.NumConn = 4

	ns := SmallSmartt(smartt.NSCC)
	nsOpts := SmallSmartt(smartt.NSCC)
	nsOpts.DelayQA, nsOpts.AdjustPeriod, nsOpts.TrimsCountAsAcked = true, false, true
	nsDefault := smartt.DefaultParams(smartt.NSCC)
	nsDefault.NumConn = 4
	// the pipelined datapath: the first cuts of each block (the RTT and
	// window reciprocals' normalisers and ROMs) at depth 4
	smDeep, nsDeep := SmallSmartt(smartt.Conf), SmallSmartt(smartt.NSCC)
	smDeep.Depth, nsDeep.Depth = 4, 4

	return []Job{
		repsJob("reps", "NumConn 2, N 4, EVW 2, HeadW 3, CountW 3, TimeW 4, ExploreW 2, ExploreInit 1, ExploreAfterFreeze 2, FreezeTime 3", small, true),
		repsJob("reps_n3_clear", "as reps with N 3 and ClearOnFreezeExit", n3, false),
		repsJob("reps_default", "default widths (N 8, EVW 16, HeadW 8, CountW 8, TimeW 32, ExploreW 8), NumConn 4", repsDefault, false),
		repsConfJob("reps_conf", "NumConn 2, NumEntropies 5, EVW 3, ExploreInit 2", conf, true),
		repsConfJob("reps_conf_default", "default widths (NumEntropies 256, EVW 16, ExploreInit 210), NumConn 4", confDefault, false),
		smarttJob("smartt", "NumConn 2, 4 Gb/s, MTU 64 B, base RTT 1024 ns, SizeW 10, RttW 12, ByteW 10, TimeW 28, F 2, K 4, InitCwnd 256 B", sm, true),
		smarttJob("smartt_options", "as smartt with TimeoutsReplaceTrims, TrimsCountAsAcked, without ZeroStampExpired", smOpts, false),
		smarttJob("smartt_default", "default widths (SizeW 14, RttW 20, ByteW 21, TimeW 32, F 6, K 10), 800 Gb/s, NumConn 4", smDefault, false),
		smarttJob("nscc", "as smartt", ns, true),
		smarttJob("nscc_options", "as nscc with DelayQA, TrimsCountAsAcked, without AdjustPeriod", nsOpts, false),
		smarttJob("nscc_default", "default widths, 800 Gb/s, NumConn 4", nsDefault, false),
		smarttJob("smartt_depth4", "as smartt, pipeline depth 4", smDeep, false),
		smarttJob("nscc_depth4", "as nscc, pipeline depth 4", nsDeep, false),
	}
}
