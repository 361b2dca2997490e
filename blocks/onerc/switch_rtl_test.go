package onerc_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/onerc"
	"github.com/nicgen/nicgen/golden/netsim/newflow"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

func switchConfig(p onerc.SwitchParams) blocks.Config {
	return blocks.DefaultConfig().Clone().Set("onerc_switch", p)
}

// onerc_switch's RTL equals its golden model with misses dropped (the
// default) and passed, with narrow tags that wrap, and under the hazard
// profile; the mixed runs reach every outcome.
func TestSwitchEquivalence(t *testing.T) {
	blockeq.NeedVerilator(t)
	t.Parallel()
	pass := onerc.DefaultSwitchParams()
	pass.MissPass = true
	narrow := onerc.DefaultSwitchParams()
	narrow.TagW, narrow.WinW, narrow.WeightW, narrow.SeqW = 3, 6, 3, 5
	narrow.Depth = connpipe.MustDepth(onerc.NeededSwitchDepth(narrow))
	for _, tc := range []struct {
		name    string
		p       onerc.SwitchParams
		profile string
	}{
		{"default", onerc.DefaultSwitchParams(), "mixed"},
		{"default-hazard", onerc.DefaultSwitchParams(), "hazard"},
		{"default-wrap", onerc.DefaultSwitchParams(), "wrap"},
		{"miss-pass", pass, "mixed"},
		{"narrow", narrow, "mixed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := blockeq.NewBenchProfile(switchConfig(tc.p), "onerc_switch", tc.profile, 17)
			if err != nil {
				t.Fatal(err)
			}
			// the adversarial profiles a fifth of the mixed runs' cycles
			cyc := blockeq.Cycles()
			if tc.profile != "mixed" {
				cyc /= 5
			}
			rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: cyc, Label: "onerc_switch/" + tc.name, WaveDir: t.TempDir()})
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

// Each mutant fails: the floor of one forgotten, a control packet of an
// older epoch replacing the newer entry, and a remainder step that skips
// the subtraction.
func TestSwitchMutantsFail(t *testing.T) {
	t.Parallel()
	cfg := switchConfig(onerc.DefaultSwitchParams())
	for _, tc := range []struct {
		name string
		mut  hdlgen.Mutation
	}{
		{"no floor of one", hdlgen.Mutation{Node: "thresh", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("quot")
		}}},
		{"older epoch replaces", hdlgen.Mutation{Node: "newer", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("same_tag").Not()
		}}},
		{"division step skipped", hdlgen.Mutation{Node: "quot_rem9", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("cur_win").Trunc(orig.Width())
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) { blockeq.MutantMustFail(t, cfg, "onerc_switch", tc.mut, 19, 1_000_000) })
	}
}

// TestNewFlowRTLInTheLoop plays 1RC's new-flow scene (golden/netsim/newflow)
// with the three Verilated 1RC blocks, sperc_link at the link,
// onerc_switch at the port and onerc_host at the new flow's host, at
// weights 1 and 2, and requires the run of the golden models: the same b,
// window, let_through, resume, rate, drops and deliveries.
func TestNewFlowRTLInTheLoop(t *testing.T) {
	t.Parallel()
	c := newflow.Default()
	lp := onerc.SPERCParams{SPERCParams: newflow.LinkParams(c)}
	lp.ConnW = 16
	lp.Depth = connpipe.MustDepth(onerc.NeededSPERCDepth(lp))
	pp := onerc.DefaultSwitchParams()
	if got := pp.Golden(); got != newflow.PortParams(c) {
		t.Fatalf("the scene's port %+v is not the default block's %+v", newflow.PortParams(c), got)
	}
	hp := onerc.HostParams{HostParams: newflow.HostParams(c)}
	hp.Depth = connpipe.MustDepth(onerc.NeededHostDepth(hp))
	for _, w := range []uint64{1, 2} {
		// fresh hardware for each run (the Verilator builds are cached)
		lm, err := onerc.SPERCLink(lp)
		lModel, lhd := blockeq.Build(t, lm, err)
		link, err := NewRTLSPERC(blockeq.Built{Model: lModel, Design: lhd}, lp.Hops)
		if err != nil {
			t.Fatal(err)
		}
		pm, err := onerc.Switch(pp)
		pModel, phd := blockeq.Build(t, pm, err)
		port, err := NewRTLSwitch(blockeq.Built{Model: pModel, Design: phd})
		if err != nil {
			t.Fatal(err)
		}
		hm, err := onerc.Host(hp)
		hModel, hhd := blockeq.Build(t, hm, err)
		host, err := NewRTLHost(blockeq.Built{Model: hModel, Design: hhd})
		if err != nil {
			t.Fatal(err)
		}
		c.Weight = w
		golden, err := newflow.GoldenBlocks(c)
		if err != nil {
			t.Fatal(err)
		}
		want, err := newflow.Run(c, golden)
		if err != nil {
			t.Fatal(err)
		}
		got, err := newflow.Run(c, newflow.Blocks{Link: link, Port: port, Host: host})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("weight %d: the RTL in the loop gives another scene:\nRTL:    %+v\ngolden: %+v", w, *got, *want)
		}
		t.Logf("weight %d: b %d, let_through %d, resume %d, %d dropped in order, first RTT %.1f Gb/s at a rate of %.2f, identical to the golden run",
			w, got.B, got.LetThrough, got.Resume, len(got.Dropped), got.FirstRTTGbps, got.FairGbps)
	}
}
