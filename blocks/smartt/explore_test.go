package smartt

import (
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/explore"
	"github.com/nicgen/nicgen/hdlgen"
)

// The sweep of each variant through its descriptor: 96 points
// (docs/explore.md), each a word the block builds, one of them the
// default at the block's own budget; unmeasured, none errs. Measured (the
// smallest point and the default only, through Only), each has its step
// error and its two incasts, and the default holds both bounds, as
// golden/smartt and golden/netsim assert at the defaults.
func TestSweepState(t *testing.T) {
	for _, v := range []Variant{Conf, NSCC} {
		d := Descriptor(v)
		p := d.Default().(Params)
		cfg := block.Config{}.Set(v.String(), p)
		r, err := d.Explore(cfg, explore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Points) != 96 || r.Block != v.String() {
			t.Errorf("%s: %d points of block %q, want 96", v, len(r.Points), r.Block)
		}
		m, err := Block(p)
		if err != nil {
			t.Fatal(err)
		}
		var def *explore.Point
		for i, pt := range r.Points {
			if pt.Error != nil {
				t.Errorf("%s: unmeasured point %d errs %+v", v, pt.ID, pt.Error)
			}
			if pt.Default {
				if def != nil {
					t.Errorf("%s: points %d and %d are both the default", v, def.ID, pt.ID)
				}
				def = &r.Points[i]
			}
		}
		if def == nil {
			t.Fatalf("%s: no default point", v)
		}
		if bits := hdlgen.StateBudget(m).PerConnBits(); def.Bits != bits {
			t.Errorf("%s: the default point is %d bits, the block %d", v, def.Bits, bits)
		}
		keep := map[string]int{explore.SettingsKey(r.Points[0].Settings): r.Points[0].ID, explore.SettingsKey(def.Settings): def.ID}
		var progress strings.Builder
		measured, err := d.Explore(cfg, explore.Options{Measure: true, Progress: &progress, Only: func(k string) bool { _, ok := keep[k]; return ok }})
		if err != nil {
			t.Fatal(err)
		}
		if len(measured.Points) != len(keep) || !strings.HasPrefix(progress.String(), "explore "+v.String()+": 2 points") {
			t.Fatalf("%s: Only kept %d points, progress %q", v, len(measured.Points), progress.String())
		}
		for _, pt := range measured.Points {
			e := pt.Error
			if e == nil || len(e.Incast) != 2 || e.StepMax < e.StepP99 || e.StepOK != (e.StepP99 <= 1e-3) {
				t.Errorf("%s: point %d measured as %+v", v, keep[explore.SettingsKey(pt.Settings)], e)
				continue
			}
			if pt.Default && !(e.StepOK && e.IncastOK) {
				t.Errorf("%s: the default breaks a bound asserted at the defaults: %+v", v, e)
			}
		}
	}
}
