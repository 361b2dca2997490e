package blockeq

import (
	"context"
	"errors"
	"fmt"
	"testing"

	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	harness "github.com/nicgen/nicgen/verilator-harness"
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
	}{{"smartt", conf}, {"nscc", nscc}, {"smartt-literal", lit}, {"nscc-noadjust-delayqa", noAdj}}
}

func TestSmarttEquivalence(t *testing.T) {
	for _, v := range smarttVariants() {
		t.Run(v.name, func(t *testing.T) {
			m, err := bsmartt.Block(v.p)
			model, hd := build(t, m, err)
			cov := NewSmarttCoverage(v.p.Variant)
			ref, err := SmarttReference(hd, v.p, cov)
			if err != nil {
				t.Fatal(err)
			}
			prof := DefaultSmarttProfile(v.p.NumConn, uint64(v.p.Net.MTU), uint64(v.p.Net.BrttNs))
			seed := uint64(4)
			rep, err := harness.Run(context.Background(), model, ref, NewSmarttStimulus(hd, prof, seed), harness.RunOptions{
				Cycles: *cycles, Label: fmt.Sprintf("%s seed %d", v.name, seed), WaveDir: t.TempDir(),
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v\ncoverage:\n%s", rep, cov)
			if miss := cov.Missing(); len(miss) > 0 {
				t.Errorf("never reached: %v", miss)
			}
		})
	}
}

// TestSmarttEquivalenceCanFail: RTL built with the literal A-7 reading
// against a golden model without it must mismatch.
func TestSmarttEquivalenceCanFail(t *testing.T) {
	rtl := bsmartt.DefaultParams(bsmartt.NSCC)
	rtl.TrimsCountAsAcked = true
	m, err := bsmartt.Block(rtl)
	model, hd := build(t, m, err)
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
