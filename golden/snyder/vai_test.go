package snyder

import "testing"

// TestVAIAlgorithms steps Algorithms 1 and 2 by hand with Table 4.1's HPCC
// column (bytes of queue, AI in Mb/s).
func TestVAIAlgorithms(t *testing.T) {
	p := HPCCVAI()
	var v VAI
	if ai := v.Increase(p, true); ai != 50 {
		t.Fatalf("empty bank: AI %g, want the base 50", ai)
	}
	v.Observe(20_000, true)
	v.Observe(80_000, true) // the RTT's largest queue
	v.EndRTT(p)
	if v.Bank != 80 || v.Dampener != 1.6 || v.MeasCong != 0 || v.Congested {
		t.Fatalf("after a queue of 80 KB: %+v, want bank 80, dampener 1.6, reset measurement", v)
	}
	if ai := v.Increase(p, false); ai != 80/(1.6/8+1)*50 {
		t.Fatalf("AI %g, want %g", ai, 80/(1.6/8+1)*50)
	}
	if v.Bank != 80 {
		t.Fatal("an increase that is not a rate adjustment spent tokens")
	}
	for i := 0; i < 20; i++ { // a long incast: the bank caps, the dampener climbs
		v.Observe(500_000, true)
		v.EndRTT(p)
	}
	if v.Bank != p.BankCap || v.Dampener != 1.6+20*10 {
		t.Fatalf("after 20 RTTs at 500 KB: bank %g, dampener %g", v.Bank, v.Dampener)
	}
	if ai := v.Increase(p, true); ai != 100/(v.Dampener/8+1)*50 || v.Bank != 900 {
		t.Fatalf("AI %g (want %g), bank %g (want 900): AI_Cap bounds the spend", ai, 100/(v.Dampener/8+1)*50, v.Bank)
	}
	// the dampener stays while tokens remain; with an empty bank it decays
	// by one per congested RTT below the threshold and resets after an
	// RTT without congestion
	d := v.Dampener
	v.Observe(10_000, true)
	v.EndRTT(p)
	if v.Dampener != d {
		t.Fatalf("dampener %g moved while the bank holds %g", v.Dampener, v.Bank)
	}
	v.Bank = 0
	v.Observe(10_000, true)
	v.EndRTT(p)
	if v.Dampener != d-1 {
		t.Fatalf("congested RTT below the threshold, empty bank: dampener %g, want %g", v.Dampener, d-1)
	}
	v.EndRTT(p) // no congestion at all
	if v.Dampener != 0 {
		t.Fatalf("an RTT without congestion and an empty bank: dampener %g, want 0", v.Dampener)
	}
}

// TestVAIExcessOption: A-25's option counts tokens from the congestion
// above the threshold.
func TestVAIExcessOption(t *testing.T) {
	p := SwiftVAI(9_000) // target 9 us: threshold 13 us
	var printed, excess VAI
	printed.Observe(19_000, true)
	printed.EndRTT(p)
	p.Excess = true
	excess.Observe(19_000, true)
	excess.EndRTT(p)
	if printed.Bank != 19_000.0/30 || excess.Bank != 6_000.0/30 {
		t.Fatalf("banks %g and %g, want %g (Algorithm 1 as printed) and %g (the text)", printed.Bank, excess.Bank, 19_000.0/30, 6_000.0/30)
	}
}

// TestVAIKnownWeakness shows the weakness S3:L1016 reports: a flow that
// was congested for long has a high dampener, so after the same congestion
// event it gets a smaller AI than a flow that just started.
func TestVAIKnownWeakness(t *testing.T) {
	p := HPCCVAI()
	var old, young VAI
	for i := 0; i < 50; i++ {
		old.Observe(200_000, true)
		old.EndRTT(p)
	}
	old.Bank = 0 // spent
	for _, v := range []*VAI{&old, &young} {
		v.Observe(100_000, true)
		v.EndRTT(p)
	}
	aiOld, aiYoung := old.Increase(p, true), young.Increase(p, true)
	if !(aiOld < aiYoung) {
		t.Fatalf("old flow AI %g, new flow AI %g: the weakness does not show", aiOld, aiYoung)
	}
	t.Logf("after the same 100 KB queue: the long-congested flow's AI is %.1f Mb/s (dampener %.0f), the new flow's %.1f Mb/s", aiOld, old.Dampener, aiYoung)
}
