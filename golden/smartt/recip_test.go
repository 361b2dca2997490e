package smartt

import (
	"testing"

	"github.com/nicgen/nicgen/golden/fixed"
)

// TestRomDivIsDiv: the model's ROM read gives Div's value for every
// index and exponent, at the smallest, default and largest K.
func TestRomDivIsDiv(t *testing.T) {
	r := rng(31)
	for _, k := range []int{1, 10, 20} {
		p := DefaultParams(NSCC)
		p.K = k
		d := p.Derive()
		for i := 0; i < 200_000; i++ {
			n := r.next() >> (r.next() % 64)
			x := r.next() >> (r.next() % 64)
			if got, want := d.div(n, x), fixed.Div(n, x, k); got != want {
				t.Fatalf("K=%d: div(%d, %d) = %d, Div = %d", k, n, x, got, want)
			}
		}
	}
}
