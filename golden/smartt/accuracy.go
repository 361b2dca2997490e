package smartt

import "math"

// Accuracy runs the fixed-point Model and the FloatModel of p on the same
// events and compares the windows they report after each event. Only
// events after which the float window is above 8 MTU count (near the MTU
// floor the relative error of whole bytes says little), and error events
// never do. It returns the largest and the mean relative difference
// |fixed - float| / float over the n counted events; NaN and n = 0 if p is
// invalid or nothing counted. The events must be in time order (see
// FloatModel).
func Accuracy(p Params, events []Event) (maxRel, meanRel float64, n int) {
	fixed, err := NewModel(p)
	if err != nil {
		return math.NaN(), math.NaN(), 0
	}
	ref, err := NewFloatModel(p)
	if err != nil {
		return math.NaN(), math.NaN(), 0
	}
	floor := 8 * float64(p.Network.MTU)
	sum := 0.0
	for _, e := range events {
		r := fixed.Step(e)
		want := ref.Step(e)
		if r.Error || !(want > floor) {
			continue
		}
		rel := math.Abs(float64(r.Cwnd)-want) / want
		maxRel = max(maxRel, rel)
		sum += rel
		n++
	}
	if n == 0 {
		return math.NaN(), math.NaN(), 0
	}
	return maxRel, sum / float64(n), n
}
