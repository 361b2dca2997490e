package srp_test

import (
	"context"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// srp_rx runs on the generic bench (its description alone): uniform
// times put each reservation behind or ahead of its endpoint's schedule
// at random, and 4 endpoints make back-to-back events of one endpoint,
// the shell's hazards, the common case. The RTL equals the golden model,
// and each mutant fails.
func TestRxEquivalenceAndMutants(t *testing.T) {
	blockeq.NeedVerilator(t)
	t.Parallel()
	cfg := blocks.DefaultConfig()
	for _, profile := range []string{"mixed"} {
		b, err := blockeq.NewBenchProfile(cfg, "srp_rx", profile, 7)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: blockeq.Cycles(), Label: "srp_rx/" + profile, WaveDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v\ncoverage:\n%s", rep, b.Coverage)
		if miss := b.Coverage.Missing(); len(miss) > 0 {
			t.Errorf("%s never reached: %v", profile, miss)
		}
	}
	for _, tc := range []struct {
		name string
		mut  hdlgen.Mutation
	}{
		{"booked bit ignored", hdlgen.Mutation{Node: "behind", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			d := get("now_minus_sched")
			return orig.And(get("cur_booked").Or(d.Bit(d.Width() - 1).Not()))
		}}},
		{"grant rounded down", hdlgen.Mutation{Node: "grant_ts", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Sub(get("start").Bit(0).ZExt(orig.Width()))
		}}},
		{"schedule from the old schedule", hdlgen.Mutation{Node: "start", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return hdlgen.Mux(get("cur_booked"), get("cur_sched"), orig)
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) { blockeq.MutantMustFail(t, cfg, "srp_rx", tc.mut, 9, 1_000_000) })
	}
}
