package reps

import (
	"reflect"
	"testing"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/explore"
)

// The sweep of reps through its descriptor: the 18 points of
// docs/explore.md, each as many bits as S4 Table 1 counts (an EV and its
// validity bit per entry, then the head, the count, the exit time, the
// explore counter and the frozen bit), the default at the table's 193;
// no float64 reference, so measuring changes nothing, and the front is the
// smallest word alone; Only keeps the points it names.
func TestSweepState(t *testing.T) {
	d := Descriptor()
	p := d.Default().(Params)
	cfg := block.Config{}.Set("reps", p)
	r, err := d.Explore(cfg, explore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Points) != 18 {
		t.Errorf("%d points, want 18", len(r.Points))
	}
	defaults := 0
	for _, pt := range r.Points {
		w := map[string]int{}
		for _, s := range pt.Settings {
			w[s.Attr] = s.Value
		}
		want := w["entries"]*(w["ev_width"]+1) + w["head_width"] + w["count_width"] + p.TimeW + w["explore_width"] + 1
		if pt.Bits != want {
			t.Errorf("point %d %v: %d bits, S4 Table 1 counts %d", pt.ID, pt.Settings, pt.Bits, want)
		}
		if pt.Error != nil || pt.Pareto != (pt.ID == 1) {
			t.Errorf("point %d: error %v, pareto %v (no reference: the smallest word alone)", pt.ID, pt.Error, pt.Pareto)
		}
		if pt.Default {
			defaults++
			if pt.Bits != 17*8+57 {
				t.Errorf("default point %d bits, S4 Table 1: 193", pt.Bits)
			}
		}
	}
	if defaults != 1 {
		t.Errorf("%d default points", defaults)
	}
	measured, err := d.Explore(cfg, explore.Options{Measure: true})
	if err != nil || !reflect.DeepEqual(measured, r) {
		t.Errorf("measured: %v, the points differ from the unmeasured sweep's", err)
	}
	key := explore.SettingsKey(r.Points[4].Settings)
	one, err := d.Explore(cfg, explore.Options{Only: func(k string) bool { return k == key }})
	if err != nil || len(one.Points) != 1 || explore.SettingsKey(one.Points[0].Settings) != key {
		t.Errorf("Only %s: %v, %+v", key, err, one)
	}
	if _, err := ConfDescriptor().Explore(block.Config{}.Set("reps_conf", DefaultConfParams()), explore.Options{}); err == nil {
		t.Error("reps_conf explores, without a sweep of its own")
	}
}
