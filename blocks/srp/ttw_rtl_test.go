package srp_test

import (
	"context"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/srp"
	gsrp "github.com/nicgen/nicgen/golden/srp"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

func ttwConfig(p srp.TTWParams) blocks.Config {
	return blocks.DefaultConfig().Clone().Set("srp_ttw", p)
}

// srp_ttw's RTL equals its golden model in each A-20 mode (the default,
// accumulated, also with a narrow clock that wraps every few thousand
// cycles), and every outcome is reached.
func TestTTWEquivalence(t *testing.T) {
	blockeq.NeedVerilator(t)
	t.Parallel()
	narrow := srp.DefaultTTWParams()
	narrow.TimeW, narrow.HdrW, narrow.TTW = 14, 12, 300
	for _, tc := range []struct {
		name    string
		p       srp.TTWParams
		profile string
	}{
		{"accumulated", srp.DefaultTTWParams(), "mixed"},
		{"accumulated-hazard", srp.DefaultTTWParams(), "hazard"},
		{"accumulated-narrow", narrow, "mixed"},
		{"per_hop", func() srp.TTWParams { p := srp.DefaultTTWParams(); p.Mode = gsrp.TTWPerHop; return p }(), "mixed"},
		{"deadline", func() srp.TTWParams {
			p := srp.DefaultTTWParams()
			p.Mode, p.HdrW = gsrp.TTWDeadline, p.TimeW
			return p
		}(), "mixed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := blockeq.NewBenchProfile(ttwConfig(tc.p), "srp_ttw", tc.profile, 11)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: blockeq.Cycles(), Label: "srp_ttw/" + tc.name, WaveDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v\ncoverage:\n%s", rep, b.Coverage)
			if miss := b.Coverage.Missing(); tc.profile == "mixed" && len(miss) > 0 {
				t.Errorf("never reached: %v", miss)
			}
		})
	}
}

// Each mutant fails: a scheduled packet checked as speculative, a check
// one tick late, and a wait taken from the header instead of the stamp.
func TestTTWMutantsFail(t *testing.T) {
	t.Parallel()
	p := srp.DefaultTTWParams()
	cfg := ttwConfig(p)
	for _, tc := range []struct {
		name string
		mut  hdlgen.Mutation
	}{
		{"scheduled packets checked", hdlgen.Mutation{Node: "head_checked", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(get("is_head").And(get("cur_valid")))
		}}},
		{"one tick late", hdlgen.Mutation{Node: "head_expired", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			sum := get("acc_sum")
			return orig.And(sum.Ne(hdlgen.Const(sum.Width(), p.TTW+1)))
		}}},
		{"arrival check off", hdlgen.Mutation{Node: "arrive_drop", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(get("arrive_expired").Not())
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) { blockeq.MutantMustFail(t, cfg, "srp_ttw", tc.mut, 13, 1_000_000) })
	}
}
