package blockeq

import (
	"context"
	"reflect"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/onerc"
	"github.com/nicgen/nicgen/golden/netsim/newflow"
	gonerc "github.com/nicgen/nicgen/golden/onerc"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

func switchConfig(p onerc.SwitchParams) blocks.Config {
	return blocks.DefaultConfig().Clone().Set("onerc_switch", p)
}

// onerc_switch's RTL equals its golden model with misses dropped (the
// default) and passed, with narrow tags that wrap, and under the hazard
// profile; the mixed runs reach every outcome.
func TestSwitchEquivalence(t *testing.T) {
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
			b, err := NewBenchProfile(switchConfig(tc.p), "onerc_switch", tc.profile, 17)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: *cycles, Label: "onerc_switch/" + tc.name, WaveDir: t.TempDir()})
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
		t.Run(tc.name, func(t *testing.T) { mutantMustFail(t, cfg, "onerc_switch", tc.mut, 19, 1_000_000) })
	}
}

// TestNewFlowRTLInTheLoop plays 1RC's new-flow scene (golden/netsim/newflow)
// with the Verilated onerc_switch as the port, at weights 1 and 2, and
// requires the run of the golden model: the same let_through, drops and
// deliveries.
func TestNewFlowRTLInTheLoop(t *testing.T) {
	p := onerc.DefaultSwitchParams()
	m, err := onerc.Switch(p)
	model, hd := build(t, m, err)
	rtl, err := NewRTLSwitch(Built{model, hd})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []uint64{1, 2} {
		c := newflow.Default()
		c.Weight = w
		golden, err := gonerc.NewSwitchModel(p.Golden())
		if err != nil {
			t.Fatal(err)
		}
		want, err := newflow.Run(c, golden)
		if err != nil {
			t.Fatal(err)
		}
		got, err := newflow.Run(c, rtl)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("weight %d: the RTL in the loop gives another scene:\nRTL:    %+v\ngolden: %+v", w, *got, *want)
		}
		t.Logf("weight %d: let_through %d, %d dropped in order, first RTT %.1f Gb/s of a fair %.1f, identical to the golden run", w, got.LetThrough, len(got.Dropped), got.FirstRTTGbps, got.FairGbps)
	}
}
