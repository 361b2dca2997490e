package onerc_test

import (
	"context"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/onerc"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// narrowSPERC draws its fields where Algorithm 4's branches meet: 10-bit
// rates on a 300-unit link, so that random b[j] fall below and above b
// and MaxE, 2-bit weights, 2-bit rounds (the same round, the next one and
// later ones equally often), and 3 hops behind a 2-bit index (hop 3 is an
// error), on 16 links.
func narrowSPERC() onerc.SPERCParams {
	p := onerc.DefaultSPERCParams()
	p.NumConn, p.ConnW = 16, 5
	p.RateW, p.CapRate, p.WeightW, p.InvF, p.NumBW, p.Hops, p.K, p.RoundW = 10, 300, 2, 4, 3, 3, 6, 2
	p.Depth = connpipe.MustDepth(onerc.NeededSPERCDepth(p))
	return p
}

func spercConfig(p onerc.SPERCParams) blocks.Config {
	return blocks.DefaultConfig().Clone().Set("sperc_link", p)
}

// sperc_link's RTL equals its golden model (golden/onerc, written from S3
// Algorithm 4) with the generic stimulus on the default configuration and
// on the narrow one.
func TestSPERCLinkEquivalence(t *testing.T) {
	blockeq.NeedVerilator(t)
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    onerc.SPERCParams
	}{
		{"default", onerc.DefaultSPERCParams()},
		{"narrow", narrowSPERC()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := blockeq.NewBench(spercConfig(tc.p), "sperc_link", 5)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: blockeq.Cycles(), Label: "sperc_link/" + tc.name, WaveDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v\ncoverage:\n%s", rep, b.Coverage)
			if miss := b.Coverage.Missing(); len(miss) > 0 {
				t.Errorf("never reached: %v", miss)
			}
		})
	}
}

// Each mutant fails on the narrow configuration: the next round clears
// MaxE instead of taking MaxE', SumE wraps below 0 instead of stopping there, e counts
// this link's own b[l], and the ignore bit compares with MaxE' instead of
// MaxE.
func TestSPERCLinkMutantsFail(t *testing.T) {
	t.Parallel()
	cfg := spercConfig(narrowSPERC())
	for _, tc := range []struct {
		name string
		mut  hdlgen.Mutation
	}{
		{"next round clears", hdlgen.Mutation{Node: "next_round", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(orig.Not())
		}}},
		{"SumE wraps", hdlgen.Mutation{Node: "sum_e1", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return hdlgen.Mux(get("is_e"), get("sum_e_sub").Trunc(orig.Width()), orig)
		}}},
		{"own hop counted", hdlgen.Mutation{Node: "skip0", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("ign_bits").Bit(0)
		}}},
		{"ignore against MaxE'", hdlgen.Mutation{Node: "ignore_l", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("b").Lt(get("max_e2_r"))
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) { blockeq.MutantMustFail(t, cfg, "sperc_link", tc.mut, 43, 500_000) })
	}
}
