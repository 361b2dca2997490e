package blockeq

import (
	"context"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// The generic bench, which a new block gets from its description alone,
// holds against the real blocks: their descriptions' golden models in
// golden/pipe equal the RTL cycle by cycle under its random events. Small
// tables, so that every connection is opened early.
func TestGenericBenchOnRealBlocks(t *testing.T) {
	t.Parallel()
	cfg := configWith(t, map[string]uint64{"connections": 64, "conn_width": 8}, map[string]string{
		"reps": "  freeze_time = 3000\n  time_width = 16", "reps_conf": "", "nscc": "",
	})
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
