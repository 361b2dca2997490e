package smartt

import (
	"math"
	"testing"
)

// StampTimings against the closed forms of the stamps as the contract
// defines them (docs/blocks/smartt.md, "Timestamps"): with a unit u, a
// start o ns into its unit, BrttQ = ceil(BrttNs / u) and TrttQ =
// ceil(TrttNs / u), the next decrease is allowed once the stamp has moved
// more than BrttQ units, (BrttQ + 1) u - o ns after the start, and the
// window ends when the stamp reaches the start's plus TrttQ, TrttQ u - o
// ns after it. The reference: BrttNs + 1 and TrttNs.
func TestStampTimings(t *testing.T) {
	for _, v := range []Variant{NSCC, Conf} {
		for _, shift := range []int{4, 6, 8, 9} {
			for _, brtt := range []uint32{6000, 8600, 12000} {
				p := DefaultParams(v)
				p.StampShift, p.StampW, p.Network.BrttNs = shift, 16, brtt
				got, err := StampTimings(p)
				if err != nil {
					t.Fatal(err)
				}
				d := p.Derive()
				u := 1 << shift
				ceil := func(ns uint32) int { return (int(ns) + u - 1) / u }
				want := map[string][2]int{"qa_window": {ceil(d.TrttNs) * u, int(d.TrttNs)}}
				if v == NSCC {
					want["md_holdoff"] = [2]int{(ceil(brtt) + 1) * u, int(brtt) + 1}
				}
				if len(got) != len(want) {
					t.Fatalf("%v: %d intervals, want %d", v, len(got), len(want))
				}
				for _, g := range got {
					w, ok := want[g.Name]
					if !ok {
						t.Fatalf("unexpected interval %q", g.Name)
					}
					// error(o) = w[0] - o - w[1] for o = 0 .. u-1
					hi, lo := float64(w[0]-w[1]), float64(w[0]-(u-1)-w[1])
					if g.MaxNs != hi || g.MinNs != lo || math.Abs(g.MeanNs-(hi+lo)/2) > 1e-9 || g.RefNs != float64(w[1]) || g.UnitNs != float64(u) {
						t.Errorf("%v shift %d brtt %d %s: %+v, want error %g..%g (mean %g), reference %d", v, shift, brtt, g.Name, g, lo, hi, (hi+lo)/2, w[1])
					}
				}
			}
		}
	}
}
