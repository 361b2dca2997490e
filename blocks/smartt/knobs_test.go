package smartt

import "testing"

// TestMIGainFor: the header's integer gain is within 1 of the float
// formula over targets from just above the base RTT to 100 base RTTs, and
// equal to it at the configuration's target, so that writing
// MI_GAIN_FOR(default target) restores the default.
func TestMIGainFor(t *testing.T) {
	for _, v := range []Variant{Conf, NSCC} {
		p := DefaultParams(v)
		b := uint64(p.Net.BrttNs)
		d := p.Derive()
		if got := MIGainFor(p, d.TrttNs); got != d.KMi {
			t.Errorf("%s: MI_GAIN_FOR(%d) = %d, KMi = %d", v, d.TrttNs, got, d.KMi)
		}
		for trtt := b + 1; trtt <= 100*b; trtt += 1 + trtt/500 {
			got, want := MIGainFor(p, trtt), MIGain(p, trtt)
			if got+1 < want || got > want+1 {
				t.Fatalf("%s: MI_GAIN_FOR(%d) = %d, the formula gives %d", v, trtt, got, want)
			}
		}
	}
}
