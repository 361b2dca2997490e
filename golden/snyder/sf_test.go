package snyder

import (
	"math"
	"testing"
)

// TestRefRateExample is the thesis's example of the reference rate
// (S3:L1022-1024).
func TestRefRateExample(t *testing.T) {
	r := NewRefRate(100)
	r.AckSF(0.5, 2)
	if r.Rate != 50 || r.Ref != 100 {
		t.Fatalf("after one congested ACK: rate %g, reference %g; want 50 and 100", r.Rate, r.Ref)
	}
	r.AckSF(0.5, 2) // the period ends: the reference follows
	if r.Rate != 50 || r.Ref != 50 {
		t.Fatalf("after two: rate %g, reference %g; want 50 and 50", r.Rate, r.Ref)
	}
	r.AckSF(0.5, 2)
	if r.Rate != 25 {
		t.Fatalf("after the reference moved: rate %g, want 25", r.Rate)
	}
	q := NewRefRate(100)
	q.AckRTT(0.5, 10, 30) // within the first RTT: the reference stays
	q.AckRTT(0.5, 20, 30)
	if q.Rate != 50 || q.Ref != 100 {
		t.Fatalf("per RTT, within the RTT: rate %g, reference %g", q.Rate, q.Ref)
	}
	q.AckRTT(0.5, 30, 30)
	q.AckRTT(0.5, 40, 30)
	if q.Rate != 25 {
		t.Fatalf("per RTT, after it: rate %g, want 25", q.Rate)
	}
}

// flow runs the discrete model under steady congestion: an ACK per MTU
// bytes sent at the current rate, each asking for 1-delta of the
// reference, until tEnd. It returns the rate at tEnd.
func flow(c, delta float64, sf bool, s int, mtu, rtt, tEnd float64) float64 {
	r := NewRefRate(c)
	for now := 0.0; ; {
		next := now + mtu/r.Rate
		if next > tEnd {
			return r.Rate
		}
		now = next
		if sf {
			r.AckSF(1-delta, s)
		} else {
			r.AckRTT(1-delta, now, rtt)
		}
	}
}

// TestFluidClosedForms: the discrete reference-rate model follows the
// fluid model's closed forms, with beta = -ln(1 - delta) the continuous
// rate of a factor 1-delta per period: S(t) = C/(1 + beta C t/(s MTU)) for
// Sampling Frequency and R(t) = C e^(-beta t/r) per RTT. Units: bytes and
// ns, C = 12.5 B/ns (100 Gb/s), MTU 1000 B, s = 30, r = 30 us (Fig. 4.2).
func TestFluidClosedForms(t *testing.T) {
	const c, mtu, s, r, delta = 12.5, 1000.0, 30, 30_000.0, 0.02
	beta := -math.Log(1 - delta)
	for _, k := range []float64{0.5, 1, 2, 4} {
		tEnd := k * s * mtu / (beta * c) // S falls to C/(1+k)
		got, want := flow(c, delta, true, s, mtu, r, tEnd), FluidSF(c, beta, s, mtu, tEnd)
		if math.Abs(got/want-1) > 0.02 {
			t.Errorf("SF at t = %.0f ns: discrete %.4f B/ns, fluid %.4f", tEnd, got, want)
		}
	}
	for _, k := range []float64{10, 50, 100} {
		tEnd := k*r + r/2
		got, want := flow(c, delta, false, s, mtu, r, tEnd), FluidRTT(c, beta, r, tEnd)
		if math.Abs(got/want-1) > delta+0.01 { // steps of 1-delta once per RTT
			t.Errorf("per RTT at t = %.0f ns: discrete %.4f B/ns, fluid %.4f", tEnd, got, want)
		}
	}
}

// TestFairnessCondition is Eq. 4.1 and its condition: with Fig. 4.2's
// parameters (r = 30 us, MTU 1000 B, s = 30, beta 0.5, 100 and 50 Gb/s)
// 1/r < (C1+C0)/(s MTU) holds and the gap is positive from the start; with
// r = 100 ns it does not hold and the gap starts negative. The discrete
// model agrees: after one RTT of steady congestion, Sampling Frequency
// leaves the two flows closer than per-RTT decreases when the condition
// holds.
func TestFairnessCondition(t *testing.T) {
	const c1, c0, s, mtu, beta = 12.5, 6.25, 30.0, 1000.0, 0.5
	if !SFFairer(c1, c0, s, mtu, 30_000) {
		t.Fatal("the condition fails with Fig. 4.2's parameters")
	}
	for _, tt := range []float64{100, 1000, 10_000, 30_000, 100_000} {
		if g := FairnessGap(c1, c0, beta, s, mtu, 30_000, tt); g <= 0 {
			t.Errorf("Fig. 4.2: gap %.4f at t = %.0f ns, want > 0", g, tt)
		}
	}
	if SFFairer(c1, c0, s, mtu, 100) {
		t.Fatal("the condition holds with r = 100 ns")
	}
	if g := FairnessGap(c1, c0, beta, s, mtu, 100, 10); g >= 0 {
		t.Errorf("r = 100 ns: gap %.4f at t = 10 ns, want < 0", g)
	}
	const delta, r = 0.05, 30_000.0
	sfGap := flow(c1, delta, true, 30, mtu, r, r) - flow(c0, delta, true, 30, mtu, r, r)
	rttGap := flow(c1, delta, false, 30, mtu, r, r) - flow(c0, delta, false, 30, mtu, r, r)
	if !(sfGap < rttGap) {
		t.Fatalf("after one RTT: SF leaves %.3f B/ns between the flows, per RTT %.3f", sfGap, rttGap)
	}
	t.Logf("after one RTT of congestion: SF %.3f B/ns apart, per RTT %.3f (from 6.25)", sfGap, rttGap)
}
