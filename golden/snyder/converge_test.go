package snyder

import "testing"

// TestSwiftConvergence is the thesis's claim for Swift (S3 Section 4.3):
// Variable AI and Sampling Frequency each bring the 16-1 staggered incast
// to a fair share (Jain >= 0.95 for good) sooner than plain Swift, at the
// same utilisation. The margin: each at most 3/4 of plain Swift's time,
// all at least 99% utilisation.
func TestSwiftConvergence(t *testing.T) {
	rs, err := SwiftConvergence(DefaultBottleneck(), DefaultSwift())
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
