package threecpo_test

import (
	"context"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/threecpo"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// narrowWMCtrl draws its fields where Algorithm 6 lives: 13-bit
// latencies are calm (below 2,000 cycles) a quarter of the time, on the
// ramp to 5,000 a third and beyond it the rest, and 8-bit matched tokens
// make watermark equivalents that grow and shrink from one RTT to the
// next, on 64 instances.
func narrowWMCtrl() threecpo.WMCtrlParams {
	p := threecpo.DefaultWMCtrlParams()
	p.NumConn, p.ConnW, p.LatW, p.GDW = 64, 7, 13, 8
	p.Depth = connpipe.MustDepth(threecpo.NeededWMCtrlDepth(p))
	return p
}

func wmConfig(p threecpo.WMCtrlParams) blocks.Config {
	return blocks.DefaultConfig().Clone().Set("wm_ctrl", p)
}

// wm_ctrl's RTL equals its golden model (golden/threecpo, written from
// S3 Algorithm 6) with the generic stimulus on the default configuration
// and on the narrow one, with line 18 as chosen and as printed.
func TestWMCtrlEquivalence(t *testing.T) {
	blockeq.NeedVerilator(t) // the bench's Run builds a Verilated model
	t.Parallel()
	printed := narrowWMCtrl()
	printed.ElseOfLine12 = false
	for _, tc := range []struct {
		name string
		p    threecpo.WMCtrlParams
	}{
		{"default", threecpo.DefaultWMCtrlParams()},
		{"narrow", narrowWMCtrl()},
		{"narrow-printed", printed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := blockeq.NewBench(wmConfig(tc.p), "wm_ctrl", 5)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: blockeq.Cycles(), Label: "wm_ctrl/" + tc.name, WaveDir: t.TempDir()})
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

// Each mutant fails on the narrow configuration: line 15's comparison
// ignored, fbs forgotten (a decrease of md x), the equivalent wrapping
// instead of stopping at WM_MAX, and AI on congested probes too. (fbs's
// floor of 0.05, below a difference of about 105, is not among them: the
// generic stimulus reaches it only where WM_MIN's clamp hides it.)
func TestWMCtrlMutantsFail(t *testing.T) {
	t.Parallel()
	cfg := wmConfig(narrowWMCtrl())
	for _, tc := range []struct {
		name string
		mut  hdlgen.Mutation
	}{
		{"line 15 always true", hdlgen.Mutation{Node: "delta_small", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(orig.Not())
		}}},
		{"fbs forgotten", hdlgen.Mutation{Node: "fbs", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(hdlgen.Const(orig.Width(), 1<<16)).And(hdlgen.Const(orig.Width(), 1<<16))
		}}},
		{"equivalent wraps", hdlgen.Mutation{Node: "eq_capped", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(orig.Not())
		}}},
		{"AI when congested", hdlgen.Mutation{Node: "lat_below", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(get("lat_ge_max"))
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) { blockeq.MutantMustFail(t, cfg, "wm_ctrl", tc.mut, 41, 500_000) })
	}
}
