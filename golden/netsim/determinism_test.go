package netsim

import (
	"reflect"
	"testing"

	"github.com/nicgen/nicgen/golden/smartt"
)

func runIncast(t *testing.T, v smartt.Variant, size int64, seed uint64) *Result {
	t.Helper()
	p := smartt.DefaultParams(v)
	cfg := ConfigFor(p)
	cfg.MessageBytes = size
	cfg.Seed = seed
	cfg.RecordCwnd = true
	cs, err := GoldenControllers(p, cfg.Senders, false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(cfg, cs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The same configuration and seed give the same numbers, trajectories and
// chart; another seed gives other numbers (the seed is used).
func TestDeterminism(t *testing.T) {
	for _, v := range variants {
		a := runIncast(t, v, 1<<20, 7)
		b := runIncast(t, v, 1<<20, 7)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs with seed 7 differ:\n%+v\n%+v", v, *a, *b)
		}
		if !reflect.DeepEqual(CwndChart(a, "determinism"), CwndChart(b, "determinism")) {
			t.Errorf("%s: two runs with seed 7 give different cwnd charts", v)
		}
		c := runIncast(t, v, 1<<20, 8)
		if c.CompletionNs == a.CompletionNs && c.Trims == a.Trims && c.Marks == a.Marks {
			t.Errorf("%s: seeds 7 and 8 give the same completion, trims and marks: is the seed used?", v)
		}
	}
}
