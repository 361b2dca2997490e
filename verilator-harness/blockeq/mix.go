package blockeq

import "github.com/nicgen/nicgen/blocks/stim"

// kindPicker draws event kinds 0..7 with given weights (package stim).
type kindPicker = stim.Kinds

func newKindPicker(weights [8]float64) kindPicker { return stim.NewKinds(weights) }

// localityPicker draws connection ids with locality (package stim).
type localityPicker = stim.Locality

func newLocalityPicker(r *rng, hotConns int, span uint64, pSame, pHot float64) localityPicker {
	return stim.NewLocality(r, hotConns, span, pSame, pHot)
}
