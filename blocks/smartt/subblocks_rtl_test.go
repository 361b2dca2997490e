package smartt_test

import (
	"context"
	"fmt"
	"testing"

	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// TestSmarttSubBlockEquivalence proves QuickAdapt, FastIncrease,
// Wait-to-Decrease and the reciprocal modules equal to their golden
// functions on their own, over random and corner inputs.
func TestSmarttSubBlockEquivalence(t *testing.T) {
	blockeq.NeedVerilator(t) // builds with harness.Build
	t.Parallel()
	seen := map[string]bool{}
	for _, v := range []bsmartt.Variant{bsmartt.Conf, bsmartt.NSCC} {
		for _, sb := range SmarttSubBlocks(bsmartt.DefaultParams(v)) {
			if seen[sb.Module.Name()] {
				continue // the reciprocal modules are shared by both variants
			}
			seen[sb.Module.Name()] = true
			t.Run(sb.Module.Name(), func(t *testing.T) {
				d, err := hdlgen.Elaborate(CombWrapper(sb.Module))
				if err != nil {
					t.Fatal(err)
				}
				hd := blockeq.DesignOf(d)
				model, err := harness.Build(context.Background(), hd, harness.BuildOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer model.Close()
				rep, err := harness.Run(context.Background(), model, sb.Ref(hd), SubBlockStimulus(hd, 9), harness.RunOptions{
					Cycles: 1_000_000, Label: fmt.Sprintf("%s seed 9", sb.Module.Name()), WaveDir: t.TempDir(),
				})
				if err != nil {
					t.Fatal(err)
				}
				t.Log(rep)
			})
		}
	}
}
