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

func swiftConfig(p snyder.SwiftParams) blocks.Config {
	return blocks.DefaultConfig().Clone().Set("swift", p)
}

func withDepth(p snyder.SwiftParams) snyder.SwiftParams {
	p.Depth = connpipe.MustDepth(snyder.NeededSwiftDepth(p))
	return p
}

// swiftBusy is the default arithmetic with VAI, SF 30 and the increase on
// every ACK, on 256 connections whose windows reach both bounds within a
// phase of the stimulus: a largest window of 24 packets and an AI of one
// packet per RTT.
func swiftBusy() snyder.SwiftParams {
	p := snyder.DefaultSwiftParams()
	p.NumConn, p.ConnW = 256, 9
	p.MaxCwnd, p.AI = 24<<p.FracW, 1<<p.FracW
	p.SF, p.AlwaysAI = 30, true
	p.VAI = gsnyder.DefaultSwiftVAIFx(p.BaseNs + p.PerHopNs)
	return withDepth(p)
}

// swiftMergeSmall is swiftSmall in the merging shell of 3 slots.
func swiftMergeSmall() snyder.SwiftParams {
	p := swiftSmall()
	p.MergeSlots = 3
	return withDepth(p)
}

// swiftSmall is the proofs' configuration on 8 connections.
func swiftSmall() snyder.SwiftParams {
	p := snyder.SmallSwiftParams(3, true)
	p.NumConn, p.ConnW = 8, 4
	return withDepth(p)
}

// swift's RTL equals its golden model (golden/snyder, written from S3)
// per RTT and with SF, with and without VAI, on the default and a small
// configuration, under the hazard and wrap profiles; the busy and small
// configurations reach every outcome.
func TestSwiftEquivalence(t *testing.T) {
	blockeq.NeedVerilator(t)
	t.Parallel()
	rttVAI := snyder.DefaultSwiftParams()
	rttVAI.VAI, rttVAI.AlwaysAI = gsnyder.DefaultSwiftVAIFx(rttVAI.BaseNs+rttVAI.PerHopNs), true
	rttVAI = withDepth(rttVAI)
	small := swiftSmall()
	// the merging shell (Falcon's contract): 8 slots on the busy
	// configuration, 3 on the small one, whose 2-bit acked counts close a
	// group at 3 packets
	busyMerge := swiftBusy()
	busyMerge.MergeSlots = 8
	for _, tc := range []struct {
		name    string
		p       snyder.SwiftParams
		profile string
		cover   bool
		skip    []string // outcomes the configuration cannot reach
	}{
		{"default", snyder.DefaultSwiftParams(), "mixed", false, nil},
		{"default-hazard", snyder.DefaultSwiftParams(), "hazard", false, nil},
		{"default-wrap", snyder.DefaultSwiftParams(), "wrap", false, nil},
		{"per-rtt-vai", rttVAI, "mixed", false, nil},
		// an AI of one packet on every ACK keeps the window above one packet
		{"busy", swiftBusy(), "mixed", true, []string{"increase below one packet"}},
		{"busy-extremes", swiftBusy(), "extremes", false, nil},
		{"small", small, "mixed", true, []string{"merged ack"}},
		{"busy-merge", withDepth(busyMerge), "mixed", true, []string{"increase below one packet"}},
		{"busy-merge-hazard", withDepth(busyMerge), "hazard", false, nil},
		{"small-merge", swiftMergeSmall(), "mixed", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := blockeq.NewBenchProfile(swiftConfig(tc.p), "swift", tc.profile, 23)
			if err != nil {
				t.Fatal(err)
			}
			// the adversarial profiles a fifth of the mixed runs' cycles
			cyc := blockeq.Cycles()
			if tc.profile != "mixed" {
				cyc /= 5
			}
			rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: cyc, Label: "swift/" + tc.name, WaveDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v\ncoverage:\n%s", rep, b.Coverage)
			if miss := blockeq.MissingExcept(b.Coverage, tc.skip); tc.cover && len(miss) > 0 {
				t.Errorf("never reached: %v", miss)
			}
			// the small configuration's floor is reached though not expected
			// everywhere (blocks/snyder swiftCoverage)
			if n := b.Coverage.Counts()["window at min"]; tc.name == "small" && n == 0 {
				t.Error("the small configuration never reached its minimum window")
			}
		})
	}
}

// Each mutant fails: the decrease without its max_mdf cap, a decrease on
// every congested ACK without SF, the increase divided by a window below
// one packet, and VAI's tokens never spent.
func TestSwiftMutantsFail(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    snyder.SwiftParams
		mut  hdlgen.Mutation
	}{
		{"no max_mdf cap", snyder.DefaultSwiftParams(), hdlgen.Mutation{Node: "mdf_capped", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(orig.Not())
		}}},
		{"decrease on every congested ACK", snyder.DefaultSwiftParams(), hdlgen.Mutation{Node: "do_dec", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(get("congested"))
		}}},
		{"divide below one packet", swiftSmall(), hdlgen.Mutation{Node: "cwnd_ge_one", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(orig.Not())
		}}},
		{"tokens never spent", swiftBusy(), hdlgen.Mutation{Node: "vai_spend", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(orig.Not())
		}}},
		{"slot 0 never folds", swiftMergeSmall(), hdlgen.Mutation{Node: "slot0_fold", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(orig.Not())
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) { blockeq.MutantMustFail(t, swiftConfig(tc.p), "swift", tc.mut, 29, 500_000) })
	}
}

// TestSwiftConvergenceRTLInTheLoop runs the 16-1 staggered incast of
// golden/snyder with the Verilated swift as every flow's block, plain and
// with VAI and SF (the four modes were run once, identical too; each is a
// Verilator build of its own), and requires the golden model's run: the
// same convergence time, Jain indices, utilisation and queue.
func TestSwiftConvergenceRTLInTheLoop(t *testing.T) {
	blockeq.NeedVerilator(t)
	t.Parallel()
	// plain and both mechanisms: each mode is a Verilator build of its own
	b := convergence.DefaultBottleneck()
	b.Only = []string{"plain", "vai+sf"}
	want, err := convergence.SwiftFxConvergence(b, gsnyder.DefaultSwiftFx(), convergence.GoldenSwiftFx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := convergence.SwiftFxConvergence(b, gsnyder.DefaultSwiftFx(), func(g gsnyder.SwiftFxParams) (convergence.SwiftFxStepper, error) {
		p := withDepth(snyder.SwiftParams{SwiftFxParams: g})
		m, err := snyder.Swift(p)
		model, hd := blockeq.Build(t, m, err)
		return NewRTLSwift(blockeq.Built{Model: model, Design: hd}, g)
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
