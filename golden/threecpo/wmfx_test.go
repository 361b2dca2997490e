package threecpo

import (
	"math"
	"math/rand/v2"
	"testing"
)

func newWMFx(t *testing.T) *WMFx {
	t.Helper()
	w, err := NewWMFx(DefaultWMFx())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// fbs in fixed point is within its bound of the float64 fbs at every
// watermark difference from 2^-8 to WM_MAX: the table's half bucket
// moves 1/sqrt(m) by at most 2^-RsqrtBits of itself and its rounding by
// 2^-17, on a term alpha/sqrt(x) of at most 1 + beta where fbs is not
// clamped; the truncated quotient and beta's rounding add 2^-16 each.
func TestWMFxFBS(t *testing.T) {
	w := newWMFx(t)
	p, f := w.Params(), w.Params().Float()
	bound := (1+f.Beta())*(math.Ldexp(1, -p.RsqrtBits)+math.Ldexp(1, -17)) + 2*math.Ldexp(1, -16)
	worst, at := 0.0, 0.0
	prev := uint32(0)
	for x := uint32(1); x <= p.WMMax<<p.F; x++ {
		v := w.FBS16(x)
		if v < prev {
			t.Fatalf("fbs falls from %d to %d at x = %d", prev, v, x)
		}
		prev = v
		xf := float64(x) / 256
		if d := math.Abs(float64(v)/65536 - f.FBS(xf)); d > worst {
			worst, at = d, xf
		}
	}
	if worst > bound {
		t.Errorf("fbs error %.3g at x = %g, above the bound %.3g", worst, at, bound)
	}
	t.Logf("fbs: worst error %.3g at x = %g (bound %.3g)", worst, at, bound)
}

// The decrease fraction is the float64 one truncated to 2^-16 at every
// latency, and the watermark equivalent is within the reciprocal
// divider's relative error (1.5 x 2^-K) plus 2^-F of the float64 one.
func TestWMFxMDAndEquivalent(t *testing.T) {
	w := newWMFx(t)
	p, f := w.Params(), w.Params().Float()
	for lat := uint32(0); lat < 1<<p.LatW; lat++ {
		want := math.Max(f.MD(float64(lat)), 0)
		if d := want - float64(w.MD16(lat))/65536; d < 0 || d >= math.Ldexp(1, -16) {
			t.Fatalf("latency %d: md %d/65536, float64 %g", lat, w.MD16(lat), want)
		}
	}
	rng := rand.New(rand.NewPCG(2, 7))
	worst := 0.0
	for range 200_000 {
		lat := 100 + rng.Uint32N(1<<p.LatW-100)
		gd := rng.Uint32N(1 << p.GDW)
		want := math.Min(f.WatermarkEquivalent(float64(gd), float64(lat)), f.WMMax)
		got := float64(w.WMEq(gd, lat)) / 256
		rel := 1.5 * math.Ldexp(1, -p.K)
		if d := math.Abs(got - want); d > want*rel+1.0/256 {
			t.Fatalf("gd %d, latency %d: equivalent %g, float64 %g", gd, lat, got, want)
		} else if want >= 256 {
			worst = math.Max(worst, d/want)
		}
	}
	t.Logf("watermark equivalent of at least 256: worst relative error %.3g (bound %.3g)", worst, 1.5*math.Ldexp(1, -p.K))
}

// One probe in fixed point against Algorithm 6 in float64 from the same
// state and the same watermark equivalent (so that both take the same
// branch, except within a watermark unit of line 15's tie, which is
// skipped): the watermark is within 2 units over random states, matched
// tokens and latencies, for both readings of line 18. The bound: fbs's
// error (TestWMFxFBS, 0.00126) times md (at most 0.5) times x (at most
// 2468) is 1.55, md's truncation 2^-16 x 2468 = 0.04, and two floors of
// 2^-8.
func TestWMFxMatchesFloat(t *testing.T) {
	for _, else12 := range []bool{true, false} {
		p := DefaultWMFx()
		p.ElseOfLine12 = else12
		w, err := NewWMFx(p)
		if err != nil {
			t.Fatal(err)
		}
		f := p.Float()
		rng := rand.New(rand.NewPCG(4, 4))
		worst, n := 0.0, 0
		for range 300_000 {
			s := WMFxState{
				WM:       (p.WMMin << p.F) + rng.Uint32N((p.WMMax-p.WMMin)<<p.F+1),
				LastWMEq: rng.Uint32N(p.WMMax<<p.F + 1),
				GD:       rng.Uint32N(1 << 12),
			}
			lat := 200 + rng.Uint32N(9000)
			fin := rng.IntN(4) > 0
			got := w.Probe(s, lat, fin)
			eq := float64(w.WMEq(s.GD, lat)) / 256
			fs := Alg6State{WM: float64(s.WM) / 256, LastWMEq: float64(s.LastWMEq) / 256, GlobalDec: eq * float64(lat) / f.WMMax}
			if fin && eq > fs.LastWMEq && float64(lat) > f.LatThresh {
				wm1 := math.Min(fs.WM+eq-fs.LastWMEq, f.WMMax)
				if math.Abs((eq-fs.LastWMEq)-wm1*f.MD(float64(lat))) < 1 {
					continue // line 15's tie
				}
			}
			want := f.Alg6(fs, Probe{Lat: float64(lat), RTTFinished: fin})
			n++
			if d := math.Abs(float64(got.WM)/256 - want.WM); d > worst {
				worst = d
				if d > 2 {
					t.Fatalf("else12 %v: state %+v, latency %d, finished %v: wm %g, float64 %g", else12, s, lat, fin, float64(got.WM)/256, want.WM)
				}
			}
			if fin && (got.GD != 0 || got.LastWMEq != w.WMEq(s.GD, lat)) {
				t.Fatalf("RTT end: %+v", got)
			}
		}
		t.Logf("else of line 12 %v: %d probes, worst watermark error %.3f units", else12, n, worst)
	}
}
