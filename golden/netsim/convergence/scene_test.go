package convergence

import (
	"math"
	"reflect"
	"testing"

	"github.com/nicgen/nicgen/golden/snyder"
)

// TestSwiftConvergence is the thesis's claim for Swift (S3 Section 4.3):
// Variable AI and Sampling Frequency each bring the 16-1 staggered incast
// to a fair share (Jain >= 0.95 for good) sooner than plain Swift, at the
// same utilisation. The margin: each at most 3/4 of plain Swift's time,
// all at least 99% utilisation.
func TestSwiftConvergence(t *testing.T) {
	rs, err := SwiftConvergence(DefaultBottleneck(), snyder.DefaultSwift())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		t.Logf("%-7s converges %4.0f us after the last join; Jain at the end %.3f, utilisation %.3f, queue mean %.1f max %d packets",
			r.Mode, r.ConvergeNs/1000, r.JainLast, r.Utilisation, r.MeanQueue, r.MaxQueue)
		if r.ConvergeNs < 0 || r.Utilisation < 0.99 {
			t.Errorf("%s: converged at %.0f ns, utilisation %.3f", r.Mode, r.ConvergeNs, r.Utilisation)
		}
	}
	plain := rs[0].ConvergeNs
	for _, r := range rs[1:] {
		if r.ConvergeNs > 0.75*plain {
			t.Errorf("%s converges in %.0f us, not within 3/4 of plain Swift's %.0f us", r.Mode, r.ConvergeNs/1000, plain/1000)
		}
	}
}

// TestBottleneckRejects: a run that cannot be made is an error.
func TestBottleneckRejects(t *testing.T) {
	b := DefaultBottleneck()
	b.StaggerNs = b.DurationNs
	if _, err := b.Run(make([]Window, b.Flows)); err == nil {
		t.Fatal("flows joining after the end: no error")
	}
	if _, err := DefaultBottleneck().Run(nil); err == nil {
		t.Fatal("no windows: no error")
	}
}

// TestHPCCConvergence is the thesis's claim for HPCC on the same incast:
// Variable AI reaches a fair share for good in at most 3/4 of plain
// HPCC's time, and Sampling Frequency is fairer over the first 500 us
// after the last join (mean Jain), all near eta of the link. Here SF's
// condition 1/r < (C1+C0)/(s MTU) fails once the 16 flows share the link
// (r = 4.16 us against 30 ACKs of 1000 B at 0.78 B/ns each), and plain
// HPCC settles for good sooner than with SF: the test records both.
// Keeping the per-RTT reference move beside SF (A-38's second reading)
// loses SF's early fairness: within 0.1 of plain HPCC's mean index over
// the first 500 us, below the replaced move's.
func TestHPCCConvergence(t *testing.T) {
	b := DefaultBottleneck()
	rs, err := HPCCConvergence(b, snyder.DefaultHPCC(b.LinkGbps, b.MTU, b.BaseRTT()))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		t.Logf("%-7s converges %4.0f us after the last join; Jain first 500 us %.3f, at the end %.3f; utilisation %.3f, queue mean %.1f max %d packets",
			r.Mode, r.ConvergeNs/1000, r.JainEarly, r.JainLast, r.Utilisation, r.MeanQueue, r.MaxQueue)
		if r.ConvergeNs < 0 || r.Utilisation < 0.92 || r.Utilisation > 0.97 {
			t.Errorf("%s: converged at %.0f ns, utilisation %.3f (eta 0.95)", r.Mode, r.ConvergeNs, r.Utilisation)
		}
	}
	plain, vai, sf := rs[0], rs[1], rs[2]
	if vai.ConvergeNs > 0.75*plain.ConvergeNs {
		t.Errorf("vai converges in %.0f us, not within 3/4 of plain HPCC's %.0f us", vai.ConvergeNs/1000, plain.ConvergeNs/1000)
	}
	if sf.JainEarly <= plain.JainEarly {
		t.Errorf("sf: Jain %.3f over the first 500 us, plain %.3f", sf.JainEarly, plain.JainEarly)
	}
	for i, m := range HPCCModes {
		if m.Name == "sf+rtt" {
			if r := rs[i]; math.Abs(r.JainEarly-plain.JainEarly) > 0.1 || r.JainEarly >= sf.JainEarly {
				t.Errorf("%s: Jain %.3f over the first 500 us, plain %.3f, sf %.3f", r.Mode, r.JainEarly, plain.JainEarly, sf.JainEarly)
			}
		}
	}
}

// TestHPCCFxConvergence runs the bottleneck of TestHPCCConvergence with
// the hpcc block's arithmetic (the golden model): the thesis's claims
// hold there (VAI at least 0.2 fairer than plain HPCC over the first
// 500 us, SF fairer than plain over the first 500 us,
// utilisation near eta), and each mode stays near the float64
// reference: within a factor of 2 of its time without SF, within 0.1 of
// its mean index over the first 500 us and at 0.94 or more at the end
// with SF. The one exception is a VAI mode whose queue never passes
// Token_Thresh in the block's run (vai+sf+rtt: 49 packets of 1000 B
// against 50 KB; the float64 run's reaches 53): VAI makes no token, and
// the run must be the one without VAI, to the last bin. With the RTT's
// move kept (A-38's second reading) SF is as unfair as plain HPCC over
// the first 500 us (within 0.1) where the replaced move is fairer.
func TestHPCCFxConvergence(t *testing.T) {
	b := DefaultBottleneck()
	rs, err := HPCCFxConvergence(b, snyder.DefaultHPCCFx(), GoldenHPCCFx)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := HPCCConvergence(b, snyder.DefaultHPCC(b.LinkGbps, b.MTU, b.BaseRTT()))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		t.Logf("%-7s fixed point converges %4.0f us after the last join (float64 %4.0f); Jain first 500 us %.3f (float64 %.3f), at the end %.3f; utilisation %.3f, queue mean %.1f max %d",
			r.Mode, r.ConvergeNs/1000, ref[i].ConvergeNs/1000, r.JainEarly, ref[i].JainEarly, r.JainLast, r.Utilisation, r.MeanQueue, r.MaxQueue)
		if r.ConvergeNs < 0 || r.Utilisation < 0.92 || r.Utilisation > 0.97 {
			t.Errorf("%s: converged at %.0f ns, utilisation %.3f (eta 0.95)", r.Mode, r.ConvergeNs, r.Utilisation)
		}
		// with SF the index hovers just above 0.95 for milliseconds, so the
		// moment it stays there for good moves a lot with small changes
		// (1100 against 3350 us): those modes are compared by their mean
		// index over the first 500 us and their last one instead
		if m := HPCCModes[i]; m.VAI && m.SF && float64(r.MaxQueue*b.MTU) <= float64(snyder.DefaultHPCCVAIFx().TokenThresh) {
			without := modeRun(t, rs, Mode{Name: m.Name, SF: true, SFKeepsRTT: m.SFKeepsRTT})
			if got, want := *r, *without; got.Mode != m.Name || !reflect.DeepEqual(got.Jain, want.Jain) || got.ConvergeNs != want.ConvergeNs {
				t.Errorf("%s: no token (queue max %d packets), but the run differs from %s's", r.Mode, r.MaxQueue, without.Mode)
			}
			continue
		}
		if sfMode := HPCCModes[i].SF; !sfMode && (r.ConvergeNs > 2*ref[i].ConvergeNs || r.ConvergeNs < ref[i].ConvergeNs/2) {
			t.Errorf("%s: %.0f us, float64 reference %.0f us", r.Mode, r.ConvergeNs/1000, ref[i].ConvergeNs/1000)
		} else if sfMode && (math.Abs(r.JainEarly-ref[i].JainEarly) > 0.1 || r.JainLast < 0.94) {
			t.Errorf("%s: Jain %.3f over the first 500 us (float64 %.3f), %.3f at the end", r.Mode, r.JainEarly, ref[i].JainEarly, r.JainLast)
		}
	}
	plain, vai, sf := rs[0], rs[1], rs[2]
	// VAI converges faster (S3 chapter 4): its mean index over the first
	// 500 us is at least 0.2 above plain HPCC's (float64: 0.788 against
	// 0.515). The time to a fair share of one run is too erratic to carry
	// the claim: over 8, 16 and 32 flows joining 10, 20 and 40 us apart,
	// the float64 reference's own VAI is slower than plain in one of
	// the nine (4,300 against 1,200 us), and a rounding change of one
	// unit of U in the EWMA moved this run's VAI from 600 to 1,100 us
	if vai.JainEarly < plain.JainEarly+0.2 {
		t.Errorf("vai: Jain %.3f over the first 500 us, plain %.3f: not 0.2 above", vai.JainEarly, plain.JainEarly)
	}
	if sf.JainEarly <= plain.JainEarly {
		t.Errorf("sf: Jain %.3f over the first 500 us, plain %.3f", sf.JainEarly, plain.JainEarly)
	}
	sfRTT := modeRun(t, rs, Mode{Name: "sf", SF: true, SFKeepsRTT: true})
	if math.Abs(sfRTT.JainEarly-plain.JainEarly) > 0.1 || sfRTT.JainEarly >= sf.JainEarly {
		t.Errorf("%s: Jain %.3f over the first 500 us, plain %.3f, sf %.3f", sfRTT.Mode, sfRTT.JainEarly, plain.JainEarly, sf.JainEarly)
	}
}

// modeRun is the run of rs (one per HPCCModes) with m's mechanisms.
func modeRun(t *testing.T, rs []*ConvergeResult, m Mode) *ConvergeResult {
	t.Helper()
	for i, hm := range HPCCModes {
		if hm.VAI == m.VAI && hm.SF == m.SF && hm.SFKeepsRTT == m.SFKeepsRTT {
			return rs[i]
		}
	}
	t.Fatalf("no run with %+v", m)
	return nil
}

// TestSwiftFxConvergence runs the bottleneck of TestSwiftConvergence with
// the block's arithmetic (the golden model) in place of float64: the
// thesis's claim holds there too, with the same margins (VAI and SF each
// within 3/4 of plain Swift's time to a fair share, utilisation at least
// 99%), and each mode's time stays within a factor of 2 of the float64
// reference's.
func TestSwiftFxConvergence(t *testing.T) {
	b := DefaultBottleneck()
	rs, err := SwiftFxConvergence(b, snyder.DefaultSwiftFx(), GoldenSwiftFx)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := SwiftConvergence(b, snyder.DefaultSwift())
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		t.Logf("%-7s fixed point converges %4.0f us after the last join (float64 %4.0f); Jain at the end %.3f, utilisation %.3f, queue mean %.1f max %d",
			r.Mode, r.ConvergeNs/1000, ref[i].ConvergeNs/1000, r.JainLast, r.Utilisation, r.MeanQueue, r.MaxQueue)
		if r.ConvergeNs < 0 || r.Utilisation < 0.99 {
			t.Errorf("%s: converged at %.0f ns, utilisation %.3f", r.Mode, r.ConvergeNs, r.Utilisation)
		}
		if r.ConvergeNs > 2*ref[i].ConvergeNs || r.ConvergeNs < ref[i].ConvergeNs/2 {
			t.Errorf("%s: %.0f us, float64 reference %.0f us", r.Mode, r.ConvergeNs/1000, ref[i].ConvergeNs/1000)
		}
	}
	for _, r := range rs[1:] {
		if r.ConvergeNs > 0.75*rs[0].ConvergeNs {
			t.Errorf("%s converges in %.0f us, not within 3/4 of plain Swift's %.0f us", r.Mode, r.ConvergeNs/1000, rs[0].ConvergeNs/1000)
		}
	}
}
