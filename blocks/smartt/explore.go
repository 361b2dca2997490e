package smartt

import (
	"math"
	"slices"

	"github.com/nicgen/nicgen/blocks/explore"
	"github.com/nicgen/nicgen/golden/netsim"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
)

// exploreBounds are the fidelity bounds asserted at the default point of
// every SMaRTT variant (golden/smartt TestLockedAccuracy, golden/netsim
// TestIncast8to1): the explorer shows where each breaks. One closed-loop
// run moves by about 1 % when a decision comes one stamp unit earlier or
// later, so the bound of one run keeps that margin (golden/netsim
// TestIncastFidelity bounds the mean over 20 runs at 1 %).
var exploreBounds = explore.Bounds{
	StepP99: 1e-3,  // one-step cwnd error against float64, p99, cwnd > 8 MTU
	Incast:  0.015, // 8:1 incast completion against float64
}

// exploreReference is the reference the points err from.
const exploreReference = "float64 reference of docs/blocks/smartt.md Section 7 (golden/smartt FloatModel)"

// sweepState sweeps the fraction bits of the window (f), the stored
// timestamps (stamp_shift, stamp_width) and the unit of the byte counters
// (byte_shift) of smartt or nscc (Desc.Explore), measuring each point
// against the float64 reference: one step from the same word on three
// seeded random traces, and the closed-loop 8:1 incast at 1 MiB and 8 MiB.
func sweepState(base Params, o explore.Options) (*explore.Result, error) {
	block := base.Variant.String()
	fs := []int{2, 3, 4, 6}
	stamps := [][2]int{{4, 24}, {6, 16}, {7, 14}, {8, 12}, {8, 11}, {9, 10}}
	units := []int{0, 4, 6, 8}
	if !slices.Contains(fs, base.F) {
		fs = append(fs, base.F)
	}
	if !slices.ContainsFunc(stamps, func(s [2]int) bool { return s == [2]int{base.StampShift, base.StampW} }) {
		stamps = append(stamps, [2]int{base.StampShift, base.StampW})
	}
	if !slices.Contains(units, base.ByteShift) {
		units = append(units, base.ByteShift)
	}
	var cands []Params
	for _, f := range fs {
		for _, st := range stamps {
			for _, u := range units {
				q := base
				q.F, q.StampShift, q.StampW, q.ByteShift = f, st[0], st[1], u
				if q.IncW > 0 {
					q.IncW = DefaultIncW(q) // what the period can accumulate depends on f and the unit
				}
				q.Depth = 1 // the word does not depend on the depth
				if q.Validate() != nil {
					continue
				}
				if _, err := gsmartt.NewModel(q.Golden()); err != nil {
					continue
				}
				if o.Keeps(exploreSettings(q)) {
					cands = append(cands, q)
				}
			}
		}
	}
	res := &explore.Result{Block: block, Connections: base.NumConn, Reference: exploreReference, Bounds: &exploreBounds}
	if !o.Measure {
		res.Points = make([]explore.Point, len(cands))
		for i, q := range cands {
			var err error
			if res.Points[i], err = exploreCost(base, q); err != nil {
				return nil, err
			}
		}
		return explore.Finish(res), nil
	}
	// the float64 reference does not depend on the widths: one run per size
	sizes := []int64{1 << 20, 8 << 20}
	floats := make([]*netsim.Result, len(sizes))
	for i, size := range sizes {
		r, err := incast(base.Golden(), size, true)
		if err != nil {
			return nil, err
		}
		floats[i] = r
	}
	traces := make([][]gsmartt.Event, 3)
	for i := range traces {
		traces[i] = gsmartt.RandomTrace(base.Golden(), 3, 120_000, uint64(i+1))
	}
	points, err := o.MeasureAll(block, "a closed-loop incast and three random traces", len(cands), func(i int) (explore.Point, error) {
		return explorePoint(base, cands[i], sizes, floats, traces)
	})
	if err != nil {
		return nil, err
	}
	res.Points = points
	return explore.Finish(res), nil
}

func incast(p gsmartt.Params, size int64, float bool) (*netsim.Result, error) {
	cfg := netsim.ConfigFor(p)
	cfg.MessageBytes = size
	cs, err := netsim.GoldenControllers(p, cfg.Senders, float)
	if err != nil {
		return nil, err
	}
	return netsim.Run(cfg, cs)
}

// exploreSettings are the explored settings of a point.
func exploreSettings(q Params) []explore.Setting {
	return []explore.Setting{{Attr: "f", Value: q.F}, {Attr: "stamp_shift", Value: q.StampShift}, {Attr: "stamp_width", Value: q.StampW}, {Attr: "byte_shift", Value: q.ByteShift}}
}

// exploreCost is a point's settings and cost, unmeasured.
func exploreCost(base, q Params) (explore.Point, error) {
	bits, err := explore.Bits(Block(q))
	if err != nil {
		return explore.Point{}, err
	}
	return explore.Point{
		Settings: exploreSettings(q),
		Bits:     bits,
		Default:  q.F == base.F && q.StampShift == base.StampShift && q.StampW == base.StampW && q.ByteShift == base.ByteShift,
	}, nil
}

// explorePoint is a point's cost and its error against the float64
// reference: floats are the reference's incasts of sizes.
func explorePoint(base, q Params, sizes []int64, floats []*netsim.Result, traces [][]gsmartt.Event) (explore.Point, error) {
	pt, err := exploreCost(base, q)
	if err != nil {
		return explore.Point{}, err
	}
	gp := q.Golden()
	var rels []float64
	for _, tr := range traces {
		_, _, _, _, _, _, r := gsmartt.LockedErrors(gp, tr)
		rels = append(rels, r...)
	}
	e := &explore.Fidelity{}
	if len(rels) > 0 {
		slices.Sort(rels)
		e.StepP99, e.StepMax = rels[len(rels)*99/100], rels[len(rels)-1]
	}
	timings, err := gsmartt.StampTimings(gp)
	if err != nil {
		return explore.Point{}, err
	}
	for _, x := range timings {
		e.Timing = append(e.Timing, explore.TimingError{Name: x.Name, MeanNs: x.MeanNs, MinNs: x.MinNs, MaxNs: x.MaxNs})
	}
	for i, size := range sizes {
		r, err := incast(gp, size, false)
		if err != nil {
			return explore.Point{}, err
		}
		d := explore.IncastDelta{Size: netsim.FormatBytes(size), CompletionChange: r.CompletionNs/floats[i].CompletionNs - 1, JainChange: r.Jain - floats[i].Jain}
		e.Incast = append(e.Incast, d)
		e.WorstIncast = max(e.WorstIncast, math.Abs(d.CompletionChange))
	}
	e.StepOK, e.IncastOK = e.StepP99 <= exploreBounds.StepP99, e.WorstIncast <= exploreBounds.Incast
	pt.Error = e
	return pt, nil
}
