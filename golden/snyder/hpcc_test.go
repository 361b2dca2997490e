package snyder

import (
	"math"
	"testing"
)

// TestHPCCRandomFeedback: with the random feedback variant a decrease that
// would move the reference is used with probability W / MaxWindow
// (S3:L659-669): at half the maximum about half of them, at the maximum
// all, and increases are never dropped.
func TestHPCCRandomFeedback(t *testing.T) {
	b := DefaultBottleneck()
	p := DefaultHPCC(b)
	p.MaxCwnd, p.RandomFeedback, p.Seed = 100, true, 7
	for _, c := range []struct {
		w, want, tol float64
		u            float64
	}{{50, 0.5, 0.03, 0}, {100, 1, 0, 0}, {25, 0.25, 0.03, 0}, {50, 1, 0, 0.5}} {
		h := NewHPCC(p, c.w, 0)
		used := 0
		const n = 4000
		for i := 0; i < n; i++ {
			h.W, h.Wc, h.U, h.havePrev = c.w, c.w, 2, false // a decrease (U >= eta)...
			if c.u != 0 {
				h.U = c.u // ...or an increase
			}
			h.Ack(p, Ack{Seq: h.lastUpdateSeq + 1, SndNxt: h.lastUpdateSeq + 2}) // ...that moves the reference
			if h.Wc != c.w {
				used++
			}
		}
		if got := float64(used) / n; math.Abs(got-c.want) > c.tol {
			t.Errorf("window %g of 100, U %g: feedback used %.3f of the time, want %.2f", c.w, h.U, got, c.want)
		}
	}
}
