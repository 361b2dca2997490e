package threecpo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The FBS constants and table of §7.10, derived from WM_MIN 100 and
// WM_MAX 2468 (S3:L1757).
func TestFBSTable(t *testing.T) {
	p := DefaultWMParams()
	if a, b := p.Alpha(), p.Beta(); math.Abs(a-12.52023) > 5e-6 || math.Abs(b-0.25202) > 5e-6 {
		t.Errorf("alpha %.6f, beta %.6f; want 12.52023, 0.25202", a, b)
	}
	for _, c := range []struct{ x, want float64 }{
		{100, 0.05}, {200, 0.36671}, {500, 0.69210}, {1000, 0.85610}, {2000, 0.97206}, {2468, 1.0},
	} {
		if got := p.FBS(c.x); math.Abs(got-c.want) > 5e-6 {
			t.Errorf("fbs(%g) = %.5f, want %.5f", c.x, got, c.want)
		}
	}
	// the raw value at WM_MIN is 0, clamped to the floor
	if raw := 1 - (p.Alpha()/math.Sqrt(100) - p.Beta()); math.Abs(raw) > 1e-12 {
		t.Errorf("raw fbs(100) = %g, want 0", raw)
	}
}

// The AIMD baseline of S3:L1579: +50 below 2,000 cycles, halved above
// 5,000, the factor linear from 1 to 0.5 in between, within [100, 2468].
func TestAIMDBaseline(t *testing.T) {
	p := DefaultWMParams()
	for _, c := range []struct{ wm, lat, want float64 }{
		{1000, 1000, 1050},
		{1000, 1999, 1050},
		{1000, 2000, 1000},
		{1000, 3500, 750},
		{1000, 5000, 500},
		{1000, 9000, 500},
		{2450, 100, 2468}, // capped at WM_MAX
		{150, 9000, 100},  // floored at WM_MIN
		{100, 4000, 100},
	} {
		if got := p.AIMD(c.wm, c.lat); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("AIMD(wm %g, latency %g) = %g, want %g", c.wm, c.lat, got, c.want)
		}
	}
}

// The conversion of S3:L1681-1697: X = WM_MAX N / L is the watermark
// whose removal makes N fewer tokens over L cycles.
func TestWatermarkEquivalent(t *testing.T) {
	p := DefaultWMParams()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		l := 100 + rng.Float64()*10000
		wm := p.WMMin + rng.Float64()*(p.WMMax-p.WMMin)
		n := rng.Float64() * l * wm / p.WMMax
		x := p.WatermarkEquivalent(n, l)
		if got := l*wm/p.WMMax - l*(wm-x)/p.WMMax; math.Abs(got-n) > 1e-9*math.Max(1, n) {
			t.Fatalf("L %g, WM %g, N %g: X %g gives %g tokens, want N", l, wm, n, x, got)
		}
	}
}

// Without multicast (no matched tokens, so the watermark equivalent
// stays 0) Algorithm 6 is a unicast delay controller only if line 18 is
// the else of line 12: congested probes then decrease the
// watermark by fbs(wm) md wm, which halves it at WM_MAX past 5,000
// cycles; read as printed, nothing ever decreases it.
func TestAlg6Unicast(t *testing.T) {
	p := DefaultWMParams()
	s := p.Alg6(Alg6State{WM: p.WMMax}, Probe{Lat: 6000, RTTFinished: true})
	if math.Abs(s.WM-p.WMMax/2) > 1e-9 {
		t.Errorf("congested probe at WM_MAX: wm %g, want %g", s.WM, p.WMMax/2)
	}
	s = p.Alg6(Alg6State{WM: 1000}, Probe{Lat: 3500, RTTFinished: true})
	want := 1000 - p.FBS(1000)*0.25*1000
	if math.Abs(s.WM-want) > 1e-9 {
		t.Errorf("probe at 3,500 cycles from 1000: wm %g, want %g", s.WM, want)
	}
	s = p.Alg6(Alg6State{WM: 1000}, Probe{Lat: 1500, RTTFinished: true})
	if s.WM != 1050 {
		t.Errorf("calm probe: wm %g, want 1050", s.WM)
	}
	printed := p
	printed.ElseOfLine12 = false
	s = Alg6State{WM: p.WMMax}
	for range 20 {
		s = printed.Alg6(s, Probe{Lat: 9000, RTTFinished: true})
	}
	if s.WM != p.WMMax {
		t.Errorf("as printed, 20 congested probes moved the watermark to %g", s.WM)
	}
}

// Fig. 6.9's situation: the watermark equivalent shrank (by 6.67)
// while the network is congested: the text decreases the watermark; the
// listing as printed does not.
func TestAlg6ShrinkingEquivalent(t *testing.T) {
	p := DefaultWMParams()
	const lat = 4000.0
	wmEq := 73.33
	s0 := Alg6State{WM: 600, LastWMEq: wmEq + 6.67, GlobalDec: wmEq * lat / p.WMMax}
	s := p.Alg6(s0, Probe{Lat: lat, RTTFinished: true})
	x := 600 - wmEq
	want := 600 - p.FBS(x)*p.MD(lat)*x
	if math.Abs(s.WM-want) > 1e-6 || s.LastWMEq != p.WatermarkEquivalent(s0.GlobalDec, lat) || s.GlobalDec != 0 {
		t.Errorf("else of line 12: %+v, want wm %g", s, want)
	}
	printed := p
	printed.ElseOfLine12 = false
	if s := printed.Alg6(s0, Probe{Lat: lat, RTTFinished: true}); s.WM != 600 {
		t.Errorf("as printed: wm %g, want 600 (unchanged)", s.WM)
	}
	// a growing equivalent raises the watermark by its growth first
	s1 := Alg6State{WM: 600, LastWMEq: 50, GlobalDec: 100 * lat / p.WMMax}
	s = p.Alg6(s1, Probe{Lat: 1000, RTTFinished: true})
	if math.Abs(s.WM-(600+(p.WatermarkEquivalent(s1.GlobalDec, 1000)-50)+p.AI)) > 1e-9 {
		t.Errorf("growing equivalent, calm: wm %g", s.WM)
	}
}

// Over random probes, matched tokens and skew, the watermark stays in
// [WM_MIN, WM_MAX] and GlobalDec is cleared at every RTT's end.
func TestAlg6Bounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	for _, else12 := range []bool{true, false} {
		p := DefaultWMParams()
		p.ElseOfLine12 = else12
		s := Alg6State{WM: p.WMMax}
		for i := range 200_000 {
			s.GlobalDec += rng.Float64() * 50
			pr := Probe{Lat: 500 + rng.Float64()*9000, RTTFinished: rng.IntN(3) > 0}
			if rng.IntN(2) == 0 {
				pr.SentMcastTotal = 1 + float64(rng.IntN(10))
				pr.SentMcastWrites = float64(rng.IntN(int(pr.SentMcastTotal) + 1))
				pr.WriteSize, pr.WriteAck = 9, 1
			}
			s = p.Alg6(s, pr)
			if s.WM < p.WMMin || s.WM > p.WMMax || math.IsNaN(s.WM) {
				t.Fatalf("probe %d: wm %g out of [%g, %g]", i, s.WM, p.WMMin, p.WMMax)
			}
			if pr.RTTFinished && s.GlobalDec != 0 {
				t.Fatalf("probe %d: GlobalDec %g after an RTT's end", i, s.GlobalDec)
			}
		}
	}
}
