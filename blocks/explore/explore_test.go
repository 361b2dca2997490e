package explore

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// RAMB36 against the counts worked by hand from the aspect ratios: 24
// bits x 4096 is three 4096 x 9 (the 512 x 72 would take 8), 150 bits
// nscc's default 17 of them, 73 bits x 512 two 512 x 72.
func TestRAMB36(t *testing.T) {
	for _, c := range []struct{ width, depth, want int }{
		{24, 4096, 3}, {150, 4096, 17}, {138, 4096, 16}, {72, 512, 1}, {73, 512, 2}, {1, 32768, 1}, {1, 32769, 2},
	} {
		if got := RAMB36(c.width, c.depth); got != c.want {
			t.Errorf("RAMB36(%d, %d) = %d, want %d", c.width, c.depth, got, c.want)
		}
	}
}

func pt(x, bits int, worst float64) Point {
	return Point{Settings: []Setting{{Attr: "x", Value: x}}, Bits: bits, Error: &Fidelity{WorstIncast: worst}}
}

// Dedup keeps one point per settings, the default when a copy is; Finish
// numbers by bits then settings and keeps on the Pareto front only the
// points no other point beats in both bits and error (a tie goes to the
// point numbered first).
func TestDedupAndFinish(t *testing.T) {
	copyOfA := pt(1, 100, 0.02)
	copyOfA.Default = true
	r := Finish(&Result{Block: "toy", Connections: 4096, Points: Dedup([]Point{
		pt(4, 130, 0.001), // the least error: on the front
		pt(1, 100, 0.02),  // a: the same bits and error as x=0, numbered after it
		pt(3, 120, 0.01),  // beaten by x=2 in bits and in error
		copyOfA,           // a again, as the default
		pt(2, 110, 0.005), // on the front
		pt(0, 100, 0.02),  // the fewest bits, numbered first
	})})
	type want struct {
		x, id  int
		pareto bool
		def    bool
	}
	wants := []want{{0, 1, true, false}, {1, 2, false, true}, {2, 3, true, false}, {3, 4, false, false}, {4, 5, true, false}}
	if len(r.Points) != len(wants) {
		t.Fatalf("%d points, want %d (one per settings): %+v", len(r.Points), len(wants), r.Points)
	}
	for i, w := range wants {
		p := r.Points[i]
		if p.Settings[0].Value != w.x || p.ID != w.id || p.Pareto != w.pareto || p.Default != w.def {
			t.Errorf("point %d: x=%d id %d pareto %v default %v, want x=%d id %d pareto %v default %v",
				i, p.Settings[0].Value, p.ID, p.Pareto, p.Default, w.x, w.id, w.pareto, w.def)
		}
	}
	// 100 bits x 4096 connections = 50 KiB in twelve 4096 x 9 block RAMs
	if p := r.Points[0]; p.TableKiB != 50 || p.RAMB36 != 12 || p.HCL != "block \"toy\" {\n  x = 0\n}\n" {
		t.Errorf("point 1: %v KiB, %d RAMB36, HCL %q", p.TableKiB, p.RAMB36, p.HCL)
	}
	// without a reference the front is the smallest word alone
	r = Finish(&Result{Block: "toy", Connections: 1, Points: []Point{{Bits: 20}, {Bits: 10}}})
	if !r.Points[0].Pareto || r.Points[0].Bits != 10 || r.Points[1].Pareto {
		t.Errorf("without a reference: %+v", r.Points)
	}
}

// MeasureAll gives point i at index i whatever the order the workers take
// them in, a progress line per quarter, and the error of any point.
func TestMeasureAll(t *testing.T) {
	var progress strings.Builder
	o := Options{Measure: true, Progress: &progress}
	ps, err := o.MeasureAll("toy", "a lookup", 10, func(i int) (Point, error) { return Point{Bits: i}, nil })
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		if p.Bits != i {
			t.Errorf("point %d has bits %d", i, p.Bits)
		}
	}
	want := "explore toy: 10 points, each a lookup\n"
	for _, done := range []int{3, 5, 8, 10} { // the first count at or past each quarter
		want += fmt.Sprintf("explore toy: %d of 10 points\n", done)
	}
	if progress.String() != want {
		t.Errorf("progress:\n%s\nwant:\n%s", progress.String(), want)
	}
	bad := errors.New("no such width")
	if _, err := (Options{}).MeasureAll("toy", "a lookup", 10, func(i int) (Point, error) {
		if i == 7 {
			return Point{}, bad
		}
		return Point{}, nil
	}); !errors.Is(err, bad) {
		t.Errorf("a failed point: error %v", err)
	}
}

// Keeps asks Only by SettingsKey, and keeps every point without it.
func TestKeeps(t *testing.T) {
	s := []Setting{{Attr: "f", Value: 3}, {Attr: "byte_shift", Value: 6}}
	if k := SettingsKey(s); k != "f=3;byte_shift=6;" {
		t.Errorf("SettingsKey = %q", k)
	}
	if !(Options{}).Keeps(s) || (Options{Only: func(k string) bool { return k == "f=2;byte_shift=6;" }}).Keeps(s) {
		t.Error("Keeps")
	}
}

// The table: the error columns only with a reference, one per incast
// size, and the marks.
func TestWriteText(t *testing.T) {
	r := &Result{Block: "toy", Connections: 2, Reference: "a float", Bounds: &Bounds{StepP99: 1e-3, Incast: 0.01}, Points: []Point{{
		ID: 1, Settings: []Setting{{Attr: "f", Value: 2}}, Bits: 64, TableKiB: 0.015625, RAMB36: 1, Default: true, Pareto: true,
		Error: &Fidelity{StepP99: 2e-5, StepMax: 0.5, StepOK: true, Incast: []IncastDelta{{Size: "1 MiB", CompletionChange: 0.015}, {Size: "8 MiB", CompletionChange: -0.002}}},
	}}}
	var b strings.Builder
	WriteText(&b, r)
	want := "toy: 1 points, 2 connections; reference: a float\n" +
		"bounds: one-step error p99 <= 0.001; 8:1 incast completion within 1% of float64\n" +
		"  id  settings  bits      KiB RAMB36   step p99  step max    1 MiB    8 MiB   p99<=  incast  marks\n" +
		"   1  f=2         64      0.0      1      2e-05       0.5   +1.50%   -0.20%   holds  BREAKS  default,pareto\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	r.Bounds, r.Points[0].Error, r.Points[0].Default = nil, nil, false
	b.Reset()
	WriteText(&b, r)
	want = "toy: 1 points, 2 connections; reference: a float\n" +
		"  id  settings  bits      KiB RAMB36  marks\n" +
		"   1  f=2         64      0.0      1  pareto\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
