package reps

import (
	"github.com/nicgen/nicgen/blocks/explore"
	"github.com/nicgen/nicgen/hdlgen"
)

// sweepState sweeps the buffer entries and the EV width of reps
// (Desc.Explore), with the counters either as wide as S4 Table 1 (8 bits)
// or as narrow as the values need. REPS is discrete: there is no float64
// reference to err from, so the points carry their cost only, measured or
// not.
func sweepState(base Params, o explore.Options) (*explore.Result, error) {
	var points []explore.Point
	for _, n := range []int{4, 8, 16} {
		for _, evw := range []int{8, 12, 16} {
			for _, minimal := range []bool{false, true} {
				q := base
				q.N, q.EVW = n, evw
				q.HeadW, q.CountW, q.ExploreW = max(8, hdlgen.BitsFor(uint64(n-1))), max(8, hdlgen.BitsFor(uint64(n))), max(8, hdlgen.BitsFor(q.ExploreInit))
				if minimal {
					q.HeadW, q.CountW = hdlgen.BitsFor(uint64(n-1)), hdlgen.BitsFor(uint64(n))
					q.ExploreW = hdlgen.BitsFor(max(q.ExploreInit, q.ExploreAfterFreeze))
				}
				settings := []explore.Setting{{Attr: "entries", Value: n}, {Attr: "ev_width", Value: evw}, {Attr: "head_width", Value: q.HeadW}, {Attr: "count_width", Value: q.CountW}, {Attr: "explore_width", Value: q.ExploreW}}
				if !o.Keeps(settings) {
					continue
				}
				bits, err := explore.Bits(Paper(q))
				if err != nil {
					continue // a combination the block rejects
				}
				points = append(points, explore.Point{
					Settings: settings,
					Bits:     bits,
					Default:  n == base.N && evw == base.EVW && q.HeadW == base.HeadW && q.CountW == base.CountW && q.ExploreW == base.ExploreW,
				})
			}
		}
	}
	return explore.Finish(&explore.Result{Block: "reps", Connections: base.NumConn,
		Reference: "none: REPS is discrete, with no float64 reference to err from", Points: explore.Dedup(points)}), nil
}
