package smartt

import "fmt"

// StampTiming is how long one of the model's stamped intervals lasts in
// time, against the float64 reference's: over every start time within a
// stamp unit (each equally likely: an event's time is not aligned to the
// stamps), the effective length minus the reference's, in ns.
type StampTiming struct {
	Name   string  `json:"name"`
	RefNs  float64 `json:"reference_ns"` // the reference's length
	MeanNs float64 `json:"mean_error_ns"`
	MinNs  float64 `json:"min_error_ns"`
	MaxNs  float64 `json:"max_error_ns"`
	UnitNs float64 `json:"unit_ns"` // the stamp unit, 2^StampShift ns
}

// StampTimings measures the intervals the per-connection stamps time
// (docs/blocks/smartt.md, "Timestamps"), by asking the model's own
// predicates at every ns after a start: nscc's multiplicative decrease's
// hold-off and its adjustment period ("now - last > brtt", S1:L577,
// L853: on a continuous clock the reference's hold-off lasts BrttNs), and
// the QuickAdapt window ("now < end", end = start + trtt: the reference's
// window lasts TrttNs). An error above 0 is a hold-off or window that
// lasts longer than the reference's.
func StampTimings(p Params) ([]StampTiming, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	d := p.Derive()
	unit := uint64(1) << d.StampShift
	// starts well away from stamp 0 (ZeroStampExpired reads it as "never")
	base := unit << 4
	type interval struct {
		name  string
		ref   uint32
		start func(t0 uint64) uint32        // the stamp written at the start
		over  func(nowq, stamp uint32) bool // the interval has ended at nowq
	}
	ivs := []interval{{"qa_window", d.TrttNs, d.WindowEnd, func(nowq, end uint32) bool { return !d.windowOpen(nowq, end) }}}
	if p.Variant == NSCC {
		ivs = append([]interval{{"md_holdoff", d.BrttNs, d.HoldEnd, d.passed}}, ivs...)
	}
	var out []StampTiming
	for _, iv := range ivs {
		st := StampTiming{Name: iv.name, RefNs: float64(iv.ref), UnitNs: float64(unit)}
		limit := uint64(iv.ref) + 4*unit
		sum := 0.0
		for o := uint64(0); o < unit; o++ {
			t0 := base + o
			s := iv.start(t0)
			var n uint64
			for n = 1; n <= limit && !iv.over(d.Stamp(t0+n), s); n++ {
			}
			if n > limit {
				return nil, fmt.Errorf("%s from %d ns: still running after %d ns", iv.name, t0, limit)
			}
			e := float64(n) - float64(iv.ref)
			if o == 0 || e < st.MinNs {
				st.MinNs = e
			}
			if o == 0 || e > st.MaxNs {
				st.MaxNs = e
			}
			sum += e
		}
		st.MeanNs = sum / float64(unit)
		out = append(out, st)
	}
	return out, nil
}
