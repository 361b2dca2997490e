package snyder_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/snyder"
	"github.com/nicgen/nicgen/golden/netsim/convergence"
	gsnyder "github.com/nicgen/nicgen/golden/snyder"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

func hpccConfig(p snyder.HPCCParams) blocks.Config {
	return blocks.DefaultConfig().Clone().Set("hpcc", p)
}

func hpccWithDepth(p snyder.HPCCParams) snyder.HPCCParams {
	p.Depth = connpipe.MustDepth(snyder.NeededHPCCDepth(p))
	return p
}

// hpccBusy is the default arithmetic with SF 30, random feedback and VAI
// on 256 connections, windows from 2 to 24 packets (so that both bounds
// are reached: the additive increase stays below the floor).
func hpccBusy() snyder.HPCCParams {
	p := snyder.DefaultHPCCParams()
	p.NumConn, p.ConnW = 256, 9
	p.MinCwnd, p.MaxCwnd, p.InitCwnd = 2<<p.FracW, 24<<p.FracW, 8<<p.FracW
	p.SF, p.RandomFeedback, p.VAI = 30, true, gsnyder.DefaultHPCCVAIFx()
	return hpccWithDepth(p)
}

// hpccKeep is p with sf_keeps_rtt_update: the per-RTT reference move
// kept beside SF's period (A-38's second reading).
func hpccKeep(p snyder.HPCCParams) snyder.HPCCParams {
	p.SFKeepsRTT = true
	return hpccWithDepth(p)
}

func hpccSmall() snyder.HPCCParams {
	p := snyder.SmallHPCCParams(3, true, true)
	p.NumConn, p.ConnW = 8, 4
	return hpccWithDepth(p)
}

// hpccMerge is p in the merging shell of slots slots.
func hpccMerge(p snyder.HPCCParams, slots int) snyder.HPCCParams {
	p.MergeSlots = slots
	return hpccWithDepth(p)
}

// hpcc's RTL equals its golden model (golden/snyder, written from S3)
// plain, with SF, random feedback and VAI, and on a small configuration,
// under the mixed, hazard, wrap and extremes profiles; the runs reach
// every outcome.
func TestHPCCEquivalence(t *testing.T) {
	blockeq.NeedVerilator(t)
	t.Parallel()
	for _, tc := range []struct {
		name    string
		p       snyder.HPCCParams
		profile string
		cover   bool
		skip    []string
	}{
		{"default", snyder.DefaultHPCCParams(), "mixed", true, []string{"window at max", "U saturated"}},
		{"default-hazard", snyder.DefaultHPCCParams(), "hazard", false, nil},
		{"default-wrap", snyder.DefaultHPCCParams(), "wrap", false, nil},
		{"busy", hpccBusy(), "mixed", true, []string{"U saturated"}},
		{"busy-extremes", hpccBusy(), "extremes", false, nil},
		// the EWMA's truncation keeps U below the saturated u of 6 bits
		{"small", hpccSmall(), "mixed", true, []string{"U saturated", "merged ack"}},
		// the merging shell (the latest telemetry sample)
		{"busy-merge", hpccMerge(hpccBusy(), 8), "mixed", true, []string{"U saturated"}},
		{"busy-merge-hazard", hpccMerge(hpccBusy(), 8), "hazard", false, nil},
		{"small-merge", hpccMerge(hpccSmall(), 3), "mixed", true, []string{"U saturated"}},
		// sf_keeps_rtt_update: the RTT's move kept while congested, and
		// with SF 3 an RTT's end often on an SF period's end
		{"busy-keep", hpccKeep(hpccBusy()), "mixed", true, []string{"U saturated"}},
		{"busy-keep-extremes", hpccKeep(hpccBusy()), "extremes", false, nil},
		{"small-keep", hpccKeep(hpccSmall()), "mixed", true, []string{"U saturated", "merged ack"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := blockeq.NewBenchProfile(hpccConfig(tc.p), "hpcc", tc.profile, 31)
			if err != nil {
				t.Fatal(err)
			}
			// the adversarial profiles a fifth of the mixed runs' cycles
			cyc := blockeq.Cycles()
			if tc.profile != "mixed" {
				cyc /= 5
			}
			rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: cyc, Label: "hpcc/" + tc.name, WaveDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v\ncoverage:\n%s", rep, b.Coverage)
			if miss := blockeq.MissingExcept(b.Coverage, tc.skip); tc.cover && len(miss) > 0 {
				t.Errorf("never reached: %v", miss)
			}
		})
	}
}

// Each mutant fails: a stale or repeated stamp taken as fresh, the
// reference never moved at an RTT's end, random feedback that never
// ignores, the increment stage forgotten, and with sf_keeps_rtt_update
// the RTT's move dropped while congested (A-38's other reading) or SF's
// move made where an RTT ends on an SF period's end.
func TestHPCCMutantsFail(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    snyder.HPCCParams
		mut  hdlgen.Mutation
	}{
		{"every stamp fresh", snyder.DefaultHPCCParams(), hdlgen.Mutation{Node: "fresh", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(orig.Not())
		}}},
		{"no move at the RTT's end", snyder.DefaultHPCCParams(), hdlgen.Mutation{Node: "rtt_end", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(orig.Not())
		}}},
		{"feedback never ignored", hpccBusy(), hdlgen.Mutation{Node: "below_rnd", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(orig.Not())
		}}},
		{"increment stage forgotten", snyder.DefaultHPCCParams(), hdlgen.Mutation{Node: "mimd", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(get("congested"))
		}}},
		{"slot 0 never folds", hpccMerge(hpccSmall(), 3), hdlgen.Mutation{Node: "slot0_fold", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(orig.Not())
		}}},
		{"kept RTT move dropped while congested", hpccKeep(hpccBusy()), hdlgen.Mutation{Node: "per_rtt", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(get("congested").Not())
		}}},
		{"SF's move on an RTT's end", hpccKeep(hpccSmall()), hdlgen.Mutation{Node: "sf_move", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(get("sf_end").And(get("moved"))) // the RTT's end no longer masks it
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) { blockeq.MutantMustFail(t, hpccConfig(tc.p), "hpcc", tc.mut, 37, 500_000) })
	}
}

// TestHPCCConvergenceRTLInTheLoop runs the 16-1 staggered incast with the
// Verilated hpcc as every flow's block, plain and with VAI and SF, and
// requires the golden model's run.
func TestHPCCConvergenceRTLInTheLoop(t *testing.T) {
	blockeq.NeedVerilator(t)
	t.Parallel()
	// plain and both mechanisms: each mode is a Verilator build of its own
	b := convergence.DefaultBottleneck()
	b.Only = []string{"plain", "vai+sf"}
	want, err := convergence.HPCCFxConvergence(b, gsnyder.DefaultHPCCFx(), convergence.GoldenHPCCFx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := convergence.HPCCFxConvergence(b, gsnyder.DefaultHPCCFx(), func(g gsnyder.HPCCFxParams) (convergence.HPCCFxStepper, error) {
		p := hpccWithDepth(snyder.HPCCParams{HPCCFxParams: g})
		m, err := snyder.HPCC(p)
		model, hd := blockeq.Build(t, m, err)
		return NewRTLHPCC(blockeq.Built{Model: model, Design: hd})
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s: the RTL in the loop gives another run:\nRTL:    %+v\ngolden: %+v", want[i].Mode, *got[i], *want[i])
		}
		t.Logf("%-7s converges %4.0f us after the last join, utilisation %.3f, queue max %d: identical to the golden run", got[i].Mode, got[i].ConvergeNs/1000, got[i].Utilisation, got[i].MaxQueue)
	}
}
