package smartt

import (
	"math"
	"testing"
)

// StampTimings against the closed forms of the deadlines (Section 3):
// with a unit u and a start o ns into its unit, an interval of dur ns ends
// at the boundary u floor((o + dur + u/2) / u), so it lasts that minus o
// ns; the reference's hold-off lasts BrttNs, its window TrttNs. And the
// goal they meet: over the starts within a unit the mean error is within
// 0.1 unit of 0 and none is more than half a unit.
func TestStampTimings(t *testing.T) {
	for _, v := range []Variant{NSCC, Conf} {
		for _, shift := range []int{0, 4, 6, 8, 9} {
			for _, brtt := range []uint32{6000, 8600, 12000} {
				p := DefaultParams(v)
				p.StampShift, p.StampW, p.Network.BrttNs = shift, 16, brtt
				got, err := StampTimings(p)
				if err != nil {
					t.Fatal(err)
				}
				d := p.Derive()
				u := 1 << shift
				// lo, hi, mean of u floor((o + dur + u/2) / u) - o - ref
				closed := func(dur, ref int) [3]float64 {
					r := [3]float64{math.Inf(1), math.Inf(-1), 0}
					for o := 0; o < u; o++ {
						e := float64(u*((o+dur+u/2)/u) - o - ref)
						r[0], r[1], r[2] = min(r[0], e), max(r[1], e), r[2]+e/float64(u)
					}
					return r
				}
				want := map[string][3]float64{"qa_window": closed(int(d.TrttNs), int(d.TrttNs))}
				refs := map[string]float64{"qa_window": float64(d.TrttNs)}
				if v == NSCC {
					want["md_holdoff"], refs["md_holdoff"] = closed(int(brtt), int(brtt)), float64(brtt)
				}
				if len(got) != len(want) {
					t.Fatalf("%v: %d intervals, want %d", v, len(got), len(want))
				}
				for _, g := range got {
					w, ok := want[g.Name]
					if !ok {
						t.Fatalf("unexpected interval %q", g.Name)
					}
					if g.MinNs != w[0] || g.MaxNs != w[1] || math.Abs(g.MeanNs-w[2]) > 1e-9 || g.RefNs != refs[g.Name] || g.UnitNs != float64(u) {
						t.Errorf("%v shift %d brtt %d %s: %+v, want error %g..%g (mean %g)", v, shift, brtt, g.Name, g, w[0], w[1], w[2])
					}
					// the goal: unbiased, at most half a unit either way
					if math.Abs(g.MeanNs) > 0.1*float64(u)+0.5 || max(-g.MinNs, g.MaxNs) > float64(u)/2 {
						t.Errorf("%v shift %d brtt %d %s: mean %g, range %g..%g ns: biased, or more than half a unit of %d ns", v, shift, brtt, g.Name, g.MeanNs, g.MinNs, g.MaxNs, u)
					}
				}
			}
		}
	}
}

// An MD 8,701 ns after the last one is due in the float64 reference
// ("now - last > 8600"); with the hold-off's end rounded to the nearest
// 256 ns unit (8,496 ns after an MD at 2,000: 10,496 = 41 x 256) the
// block decreases too. With the stamp of the MD compared against 34 units
// rounded up, it waited until 10,752 ns.
func TestHoldOffNotLate(t *testing.T) {
	p := DefaultParams(NSCC)
	m, err := NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFloatModel(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []Event{openEv(0, 0), ackEv(0, mtu, 76_000, true, 0, 2000), ackEv(0, mtu, 20_000, true, 0, 10_701)} {
		r := m.Step(e)
		f.Step(e)
		if r.Case != f.LastCase() {
			t.Errorf("%+v: case %d, the float reference's %d", e, r.Case, f.LastCase())
		}
	}
	if f.LastCase() != CaseMD {
		t.Errorf("the float reference does not decrease 8,701 ns after the last MD: case %d", f.LastCase())
	}
}
