package snyder

import (
	"math"
	"testing"
)

// TestFBSValues reproduces the values ALGORITHMS.md section 7.1 derives
// from Eqs. 3.2 and 3.3 with Table 3.1's parameters.
func TestFBSValues(t *testing.T) {
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.4f, want %.4f", what, got, want)
		}
	}
	p := DefaultFBS()
	a, b := p.AlphaBeta()
	near("alpha (fs_max 50), us", a/1000, 8.27580, 5e-6)
	near("beta (fs_max 50), us", b/1000, -1.17037, 5e-6)
	near("fbs(0.1), us", p.FBS(0.1)/1000, 25.000, 5e-5)
	near("fbs(1), us", p.FBS(1)/1000, 7.1054, 5e-5)
	near("fbs(10), us", p.FBS(10)/1000, 1.4467, 5e-5)
	near("fbs(50), us", p.FBS(50)/1000, 0, 1e-9)
	near("fbs(0.01) clamps to fs_range, us", p.FBS(0.01)/1000, 25, 1e-9)
	near("fbs(500) clamps to 0, us", p.FBS(500)/1000, 0, 1e-9)
	p.MaxWin = 100
	a, b = p.AlphaBeta()
	near("alpha (fs_max 100), us", a/1000, 8.16386, 5e-6)
	near("beta (fs_max 100), us", b/1000, -0.81639, 5e-6)
	near("fbs(1) (fs_max 100), us", p.FBS(1)/1000, 7.3475, 5e-5)
	near("fbs(10) (fs_max 100), us", p.FBS(10)/1000, 1.7653, 5e-5)
}

// TestFBSFixedError measures the fixed point (window in 2^-8 packets, a
// 1024-entry table of 16-bit 1/sqrt(m), alpha in 2^-8 ns) against the
// float64 formula over every window from 2^-8 to 2^16 packets in steps of
// 2^-8 (2^24 windows), requires it within ErrorBound, and checks the monotonicity the target delay relies on: a
// larger window never gets more scaling.
func TestFBSFixedError(t *testing.T) {
	p := DefaultFBS()
	f, err := NewFBSFixed(p, 8, 10, 16, 8)
	if err != nil {
		t.Fatal(err)
	}
	n := uint64(1) << 24
	if testing.Short() {
		n = 1 << 20
	}
	worst, at := 0.0, uint64(0)
	prev := uint64(math.MaxUint64)
	for x := uint64(1); x <= n; x++ {
		got := f.FBS(x)
		if e := math.Abs(float64(got) - p.FBS(math.Ldexp(float64(x), -8))); e > worst {
			worst, at = e, x
		}
		if got > prev {
			t.Fatalf("fbs rises from %d to %d ns at a window of %g packets", prev, got, math.Ldexp(float64(x), -8))
		}
		prev = got
	}
	t.Logf("largest error %.3f ns (bound %.2f) at a window of %g packets (fbs %.1f ns)", worst, f.ErrorBound(), math.Ldexp(float64(at), -8), p.FBS(math.Ldexp(float64(at), -8)))
	if b := f.ErrorBound(); worst > b || b > 30 {
		t.Fatalf("largest error %.3f ns at a window of %g packets; the stated bound is %.2f ns (at most 30)", worst, math.Ldexp(float64(at), -8), b)
	}
	if f.FBS(0) != 25_000 {
		t.Fatalf("fbs(0) = %d, want fs_range", f.FBS(0))
	}
}

// TestNewFBSFixedRejects: parameters the fixed point cannot take are errors.
func TestNewFBSFixedRejects(t *testing.T) {
	for _, c := range []struct {
		p                  FBSParams
		fw, tb, outW, afrc int
	}{
		{DefaultFBS(), 7, 10, 16, 8},
		{DefaultFBS(), 8, 2, 16, 8},
		{DefaultFBS(), 8, 10, 40, 8},
		{FBSParams{RangeNs: 25_000, MinWin: 50, MaxWin: 0.1}, 8, 10, 16, 8},
		{FBSParams{RangeNs: 0, MinWin: 0.1, MaxWin: 50}, 8, 10, 16, 8},
	} {
		if _, err := NewFBSFixed(c.p, c.fw, c.tb, c.outW, c.afrc); err == nil {
			t.Errorf("%+v %d %d %d %d: no error", c.p, c.fw, c.tb, c.outW, c.afrc)
		}
	}
}
