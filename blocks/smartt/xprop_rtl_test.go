package smartt_test

import (
	"context"
	"testing"

	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// TestSmarttRandomPowerOn is the same for smartt and nscc: with random
// power-on registers and table words, every connection opened first, the
// RTL still equals the golden model, so `open` initialises every field the
// datapath reads.
func TestSmarttRandomPowerOn(t *testing.T) {
	blockeq.NeedVerilator(t) // builds with harness.Build
	t.Parallel()
	for _, v := range []bsmartt.Variant{bsmartt.Conf, bsmartt.NSCC} {
		p := bsmartt.DefaultParams(v)
		p.NumConn, p.ConnW = 64, 8
		t.Run(v.String(), func(t *testing.T) {
			m, err := bsmartt.Block(p)
			if err != nil {
				t.Fatal(err)
			}
			d, err := hdlgen.Elaborate(m)
			if err != nil {
				t.Fatal(err)
			}
			hd := blockeq.DesignOf(d)
			model, err := harness.Build(context.Background(), hd, harness.BuildOptions{XInitialUnique: true, RandSeed: 21})
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			ref, err := SmarttReference(hd, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			prof := DefaultSmarttProfile(p.NumConn, uint64(p.Net.MTU), uint64(p.Net.BrttNs))
			prof.ConnSpan, prof.OpenFirst = uint64(p.NumConn), uint64(p.NumConn)
			prof.KindWeights[4], prof.KindWeights[5], prof.KindWeights[6], prof.KindWeights[7] = 0, 0, 0, 0
			rep, err := harness.Run(context.Background(), model, ref, NewSmarttStimulus(hd, prof, 21), harness.RunOptions{
				Cycles: 500_000, Label: v.String() + " x-initial unique seed 21", WaveDir: t.TempDir(),
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Log(rep)
		})
	}
}
