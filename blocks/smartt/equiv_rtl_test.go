package smartt_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

func smarttVariants() []struct {
	name string
	p    bsmartt.Params
} {
	conf, nscc := bsmartt.DefaultParams(bsmartt.Conf), bsmartt.DefaultParams(bsmartt.NSCC)
	lit := bsmartt.DefaultParams(bsmartt.Conf)
	lit.ClampOnEarlyReturn, lit.TimeoutsReplaceTrims = false, true
	noAdj := bsmartt.DefaultParams(bsmartt.NSCC)
	noAdj.AdjustPeriod, noAdj.DelayQA = false, true
	return []struct {
		name string
		p    bsmartt.Params
	}{{"smartt", conf}, {"nscc", nscc}, {"smartt-literal", lit}, {"nscc-noadjust-delayqa", noAdj},
		{"nscc-merge", mergingParams(bsmartt.NSCC, 8, true)}}
}

// mergingParams is a variant's default in the merging shell at the depth
// its cuts reach: slots waiting slots, ACKs (and NACKs) merged or not (with a 16-bit
// size port for merged ACKs of up to 32 KiB, as the configuration derives
// it).
func mergingParams(v bsmartt.Variant, slots int, acks bool) bsmartt.Params {
	p := bsmartt.DefaultParams(v)
	p.MergeSlots, p.MergeAcks, p.MergeNacks = slots, acks, acks
	if acks {
		p.SizeW = 16
	}
	d, err := bsmartt.DepthFor(p) // the depth a configuration derives: merging needs a busy connection
	if err != nil {
		panic(err)
	}
	p.Depth = d
	return p
}

// TestLineRateProfiles runs the merging shells under the line-rate loads
// (blockeq.LineRateProfiles): one connection on every cycle, incasts of 2,
// 8 and 64 connections, ECN runs and barriers, 150,000 cycles each; nscc
// merges ACKs, smartt only waits in its slots (and runs the mixed profile
// too, whose long run nscc-merge has in TestSmarttEquivalence).
func TestLineRateProfiles(t *testing.T) {
	t.Parallel()
	for _, v := range []struct {
		name string
		p    bsmartt.Params
	}{{"nscc-merge", mergingParams(bsmartt.NSCC, 8, true)}, {"smartt-slots", mergingParams(bsmartt.Conf, 4, false)}} {
		m, err := bsmartt.Block(v.p)
		model, hd := blockeq.Build(t, m, err)
		profs := blockeq.LineRateProfiles()
		if !v.p.MergeAcks {
			profs = append(profs, "mixed")
		}
		for _, prof := range profs {
			t.Run(v.name+"/"+prof, func(t *testing.T) {
				cov := bsmartt.NewCoverage(v.p)
				ref, err := SmarttReference(hd, v.p, cov)
				if err != nil {
					t.Fatal(err)
				}
				sp := applySmartt(DefaultSmarttProfile(v.p.NumConn, uint64(v.p.Net.MTU), uint64(v.p.Net.BrttNs)), prof)
				rep, err := harness.Run(context.Background(), model, ref, NewSmarttStimulus(hd, sp, 6), harness.RunOptions{
					Cycles: 150_000, Label: fmt.Sprintf("%s %s seed 6", v.name, prof), WaveDir: t.TempDir(),
				})
				if err != nil {
					t.Fatal(err)
				}
				if v.p.MergeSlots > 0 && v.p.MergeAcks && cov.Counts()["merged ack"] == 0 {
					t.Errorf("no ACK was merged:\n%s", blockeq.FormatCounts(cov.Counts()))
				}
				t.Logf("%v\ncoverage:\n%s", rep, blockeq.FormatCounts(cov.Counts()))
			})
		}
	}
}

func TestSmarttEquivalence(t *testing.T) {
	t.Parallel()
	for _, v := range smarttVariants() {
		t.Run(v.name, func(t *testing.T) {
			m, err := bsmartt.Block(v.p)
			model, hd := blockeq.Build(t, m, err)
			cov := bsmartt.NewCoverage(v.p)
			ref, err := SmarttReference(hd, v.p, cov)
			if err != nil {
				t.Fatal(err)
			}
			prof := DefaultSmarttProfile(v.p.NumConn, uint64(v.p.Net.MTU), uint64(v.p.Net.BrttNs))
			seed := uint64(4)
			rep, err := harness.Run(context.Background(), model, ref, NewSmarttStimulus(hd, prof, seed), harness.RunOptions{
				Cycles: blockeq.Cycles(), Label: fmt.Sprintf("%s seed %d", v.name, seed), WaveDir: t.TempDir(),
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v\ncoverage:\n%s", rep, blockeq.FormatCounts(cov.Counts()))
			if miss := cov.Missing(); len(miss) > 0 {
				t.Errorf("never reached: %v", miss)
			}
		})
	}
}

// TestSmarttEquivalenceCanFail: RTL built with the literal A-7 reading
// against a golden model without it must mismatch.
func TestSmarttEquivalenceCanFail(t *testing.T) {
	t.Parallel()
	rtl := bsmartt.DefaultParams(bsmartt.NSCC)
	rtl.TrimsCountAsAcked = true
	m, err := bsmartt.Block(rtl)
	model, hd := blockeq.Build(t, m, err)
	ref, err := SmarttReference(hd, bsmartt.DefaultParams(bsmartt.NSCC), nil)
	if err != nil {
		t.Fatal(err)
	}
	prof := DefaultSmarttProfile(rtl.NumConn, uint64(rtl.Net.MTU), uint64(rtl.Net.BrttNs))
	_, err = harness.Run(context.Background(), model, ref, NewSmarttStimulus(hd, prof, 1), harness.RunOptions{Cycles: 1_000_000, Label: "mutant"})
	var mm *harness.Mismatch
	if !errors.As(err, &mm) {
		t.Fatalf("a mutant passed equivalence: %v", err)
	}
	t.Logf("mutant caught at cycle %d", mm.Cycle)
}

// TestBareParams overrides the window's parameters of the bare smartt and
// nscc at instantiation (Verilator -G, as an integrator would): the target
// RTT at two base RTTs, and a gain of its own, three quarters of the one
// that goes with that target. The RTL equals the golden model tuned alike,
// cycle by cycle, under the blocks' own stimulus; a golden model tuned
// with either one alone fails it (checked by hand).
func TestBareParams(t *testing.T) {
	t.Parallel()
	for _, v := range smarttVariants() {
		if v.name != "smartt" && v.name != "nscc-noadjust-delayqa" { // both rule sets, and nscc's threshold from the target
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			m, err := bsmartt.Block(v.p)
			if err != nil {
				t.Fatal(err)
			}
			target := 2 * uint64(v.p.Net.BrttNs)
			tune := []Tuned{{bsmartt.SetTargetRTT, target}, {bsmartt.SetMIGain, bsmartt.MIGainFor(v.p, target) * 3 / 4}}
			var opts harness.BuildOptions
			for _, st := range tune {
				found := false
				for _, prm := range m.Params() {
					if prm.Name() == st.Name {
						opts.ExtraArgs = append(opts.ExtraArgs, "-G"+st.Name+"="+prm.ParamLiteral(st.Value))
						found = true
					}
				}
				if !found {
					t.Fatalf("%s has no parameter %s", v.name, st.Name)
				}
			}
			model, hd := blockeq.Build(t, m, nil, opts)
			cov := bsmartt.NewCoverage(v.p) // smartt and nscc-noadjust-delayqa: no merging shell
			ref, err := SmarttReferenceTuned(hd, v.p, cov, tune)
			if err != nil {
				t.Fatal(err)
			}
			prof := DefaultSmarttProfile(v.p.NumConn, uint64(v.p.Net.MTU), uint64(v.p.Net.BrttNs))
			rep, err := harness.Run(context.Background(), model, ref, NewSmarttStimulus(hd, prof, 9), harness.RunOptions{
				Cycles: 300_000, Label: v.name + " with TARGET_RTT and MI_GAIN overridden", WaveDir: t.TempDir(),
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v: %v\ncoverage:\n%s", opts.ExtraArgs, rep, blockeq.FormatCounts(cov.Counts()))
		})
	}
}

// TestMergeEquivalenceCanFail: the merging nscc against a golden model
// whose shell waits in its slots without merging must mismatch on the
// line-rate load, and against one that merges ACKs but not NACKs on the
// barriers load (NACKs between the ACKs).
func TestMergeEquivalenceCanFail(t *testing.T) {
	t.Parallel()
	rtl := mergingParams(bsmartt.NSCC, 8, true)
	m, err := bsmartt.Block(rtl)
	model, hd := blockeq.Build(t, m, err)
	noMerge, noNacks := rtl, rtl
	noMerge.MergeAcks, noMerge.MergeNacks = false, false
	noNacks.MergeNacks = false
	for _, tc := range []struct {
		name, prof string
		golden     bsmartt.Params
	}{{"no merge", "line-rate", noMerge}, {"acks only", "barriers", noNacks}} {
		ref, err := SmarttReference(hd, tc.golden, nil)
		if err != nil {
			t.Fatal(err)
		}
		sp := applySmartt(DefaultSmarttProfile(rtl.NumConn, uint64(rtl.Net.MTU), uint64(rtl.Net.BrttNs)), tc.prof)
		_, err = harness.Run(context.Background(), model, ref, NewSmarttStimulus(hd, sp, 1), harness.RunOptions{Cycles: 100_000, Label: "mutant " + tc.name})
		var mm *harness.Mismatch
		if !errors.As(err, &mm) {
			t.Fatalf("%s: the merging shell passed against a golden shell that does not merge so: %v", tc.name, err)
		}
		t.Logf("%s: mutant caught at cycle %d", tc.name, mm.Cycle)
	}
}
