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

func hostConfig(p onerc.HostParams) blocks.Config {
	return blocks.DefaultConfig().Clone().Set("onerc_host", p)
}

// narrowHost: 3-bit epochs (the parity slots are claimed again within 8
// epochs, and epochs wrap), 3-bit weights (the count reaches its top of
// 7), 5-bit sequence numbers (the shared counter stops at 31) and 12-bit
// rates, on 48 connections behind a 6-bit id (ids past the table are
// errors).
func narrowHost() onerc.HostParams {
	p := onerc.DefaultHostParams()
	p.NumConn, p.ConnW, p.EpochW, p.WeightW, p.SeqW, p.RateW = 48, 6, 3, 3, 5, 12
	p.Depth = connpipe.MustDepth(onerc.NeededHostDepth(p))
	return p
}

// onerc_host's RTL equals its golden model (golden/onerc, written from
// S3:L1334-1352) on the default configuration and on the narrow one, and
// under the hazard profile; the mixed runs reach every outcome.
func TestHostEquivalence(t *testing.T) {
	blockeq.NeedVerilator(t)
	t.Parallel()
	for _, tc := range []struct {
		name    string
		p       onerc.HostParams
		profile string
	}{
		{"default", onerc.DefaultHostParams(), "mixed"},
		{"narrow", narrowHost(), "mixed"},
		{"narrow-hazard", narrowHost(), "hazard"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := blockeq.NewBenchProfile(hostConfig(tc.p), "onerc_host", tc.profile, 29)
			if err != nil {
				t.Fatal(err)
			}
			cyc := blockeq.Cycles()
			if tc.profile != "mixed" {
				cyc /= 5
			}
			rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: cyc, Label: "onerc_host/" + tc.name, WaveDir: t.TempDir()})
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

// Each mutant fails on the narrow configuration: the weight the larger of
// the count at the epoch's start and the count of the moment, a shared
// counter that a new epoch does not restart, the resume point off by one,
// and the bottleneck bit read the wrong way round.
func TestHostMutantsFail(t *testing.T) {
	t.Parallel()
	cfg := hostConfig(narrowHost())
	for _, tc := range []struct {
		name string
		mut  hdlgen.Mutation
	}{
		{"weight of the moment", hdlgen.Mutation{Node: "start_weight", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return hdlgen.MaxU(orig, get("conns_reg"))
		}}},
		{"counter never restarts", hdlgen.Mutation{Node: "slot0_claim", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(get("slot0_valid_reg").Not())
		}}},
		{"resume off by one", hdlgen.Mutation{Node: "late", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Add(hdlgen.Const(orig.Width(), 1))
		}}},
		{"bottleneck ignored", hdlgen.Mutation{Node: "rate_divides", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			w := get("s_event_weight")
			return orig.Not().And(w.Ne(hdlgen.Const(w.Width(), 1)))
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) { blockeq.MutantMustFail(t, cfg, "onerc_host", tc.mut, 31, 500_000) })
	}
}
