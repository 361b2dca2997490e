package blockeq

import (
	"context"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/reps"
	"github.com/nicgen/nicgen/blocks/smartt"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// The generic bench, which a new block gets from its description alone,
// holds against the real blocks: their descriptions' golden models in
// golden/pipe equal the RTL cycle by cycle under its random events. Small
// tables, so that every connection is opened early.
func TestGenericBenchOnRealBlocks(t *testing.T) {
	t.Parallel()
	cfg := blocks.DefaultConfig()
	rp := reps.MustOf(cfg)
	rp.NumConn, rp.ConnW, rp.FreezeTime, rp.TimeW = 64, 8, 3000, 16
	rc := reps.MustConfOf(cfg)
	rc.NumConn, rc.ConnW = 64, 8
	sm := smartt.MustOf(cfg, smartt.NSCC)
	sm.NumConn, sm.ConnW = 64, 8
	cfg = cfg.Clone().Set("reps", rp).Set("reps_conf", rc).Set("nscc", sm)
	for _, name := range []string{"reps", "reps_conf", "nscc"} {
		t.Run(name, func(t *testing.T) {
			b, err := blocks.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			d, err := b.Elaborate(cfg)
			if err != nil {
				t.Fatal(err)
			}
			hd := DesignOf(d)
			bench, err := genericBench(cfg, b, hd, "mixed", 7)
			if err != nil {
				t.Fatal(err)
			}
			model, err := harness.Build(context.Background(), hd, harness.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			rep, err := harness.Run(context.Background(), model, bench.Ref, bench.Stim, harness.RunOptions{Cycles: 300_000, Label: name + " generic", WaveDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v\n%s", rep, bench.Coverage)
			if miss := bench.Coverage.Missing(); len(miss) > 0 {
				t.Errorf("never reached: %v", miss)
			}
		})
	}
}
