package srp_test

import (
	"context"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/srp"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// smallIPD wraps its 12-bit clock every few thousand cycles, divides by
// an odd t- of 37 ticks and reaches its ceiling of 60 in 12 notifications.
func smallIPD() srp.IPDParams {
	p := srp.IPDParams{NumConn: 32, ConnW: 6, TimeW: 12, Inc: 5, Dec: 3, Period: 37, Max: 60}
	d, err := srp.NeededIPDDepth(p)
	if err != nil {
		panic(err)
	}
	p.Depth = d
	return p
}

func ipdConfig(p srp.IPDParams) blocks.Config {
	return blocks.DefaultConfig().Clone().Set("ecn_ipd", p)
}

// ecn_ipd's RTL equals its golden model (golden/srp, written from S2)
// under the mixed profile, which must reach every rule, and under the
// hazard and wrap profiles, on the default and a small configuration.
func TestIPDEquivalence(t *testing.T) {
	blockeq.NeedVerilator(t)
	t.Parallel()
	for _, tc := range []struct {
		name    string
		p       srp.IPDParams
		profile string
		cover   bool
	}{
		{"default", srp.DefaultIPDParams(), "mixed", true},
		{"default-hazard", srp.DefaultIPDParams(), "hazard", false},
		{"small", smallIPD(), "mixed", true},
		{"small-wrap", smallIPD(), "wrap", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := blockeq.NewBenchProfile(ipdConfig(tc.p), "ecn_ipd", tc.profile, 3)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: blockeq.Cycles(), Label: "ecn_ipd/" + tc.name, WaveDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v\ncoverage:\n%s", rep, b.Coverage)
			if miss := b.Coverage.Missing(); tc.cover && len(miss) > 0 {
				t.Errorf("never reached: %v", miss)
			}
		})
	}
}

// Each mutant of the RTL fails against the golden model: the bench can
// tell a ceiling ignored, a floor ignored and an interval start one tick
// late.
func TestIPDMutantsFail(t *testing.T) {
	t.Parallel()
	p := smallIPD()
	cfg := ipdConfig(p)
	for _, tc := range []struct {
		name string
		mut  hdlgen.Mutation
	}{
		// the mutations keep every value read, so that the design still
		// passes hdlgen's checks
		{"no ceiling", hdlgen.Mutation{Node: "raised", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			up := get("ipd_up")
			return hdlgen.Mux(up.Bit(p.IPDW()), orig, up.Trunc(p.IPDW()))
		}}},
		{"no floor at 0", hdlgen.Mutation{Node: "ipd_spent", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(get("cur_ipd").Any())
		}}},
		{"stamp one tick late", hdlgen.Mutation{Node: "restamp", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Add(hdlgen.Const(orig.Width(), 1))
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) { blockeq.MutantMustFail(t, cfg, "ecn_ipd", tc.mut, 5, 2_000_000) })
	}
}
