package smartt

import (
	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/hdlgen"
)

// SmallParams is a SMaRTT variant shrunk: 2 connections, a 4 Gb/s link
// with a 1024 ns base RTT and a 64 B MTU (BDP 512 B, so 10-bit windows and
// byte counters, 12-bit RTTs), 2 fraction bits, 16-entry reciprocal
// tables, an initial window of 256 B (not the maximum, so that open is
// told apart), and the shortest time stamps the block allows (28 bits).
// Sizes are as wide as the counters, so that two events overflow one.
func SmallParams(v Variant) Params {
	p := DefaultParams(v)
	p.Net = Network{LinkGbps: 4, MTU: 64, BrttNs: 1024}
	p.NumConn, p.ConnW = 2, 2
	p.SizeW, p.RttW, p.ByteW, p.TimeW = 10, 12, 10, 28
	p.F, p.K = 2, 4
	p.InitCwnd = 256
	return p
}

func formalJob(name, doc string, p Params, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return Block(p)
	}}
	if breaks {
		j.Mutants = connpipe.ShellMutants(p.Depth)
	}
	return j
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
	}
}
