package blockeq

import "github.com/nicgen/nicgen/blocks/stim"

// kindPicker draws event kinds 0..7 with given weights.
type kindPicker [8]uint64

func newKindPicker(weights [8]float64) kindPicker {
	var k kindPicker
	total := 0.0
	for _, w := range weights {
		total += w
	}
	acc := 0.0
	for i, w := range weights {
		acc += w
		k[i] = uint64(acc / total * (1 << 53))
	}
	k[7] = 1 << 53
	return k
}

func (k *kindPicker) pick(r *rng) uint64 {
	x := r.Next() >> 11
	i := 0
	for i < 7 && x >= k[i] {
		i++
	}
	return uint64(i)
}

// localityPicker draws connection ids with locality (package stim).
type localityPicker = stim.Locality

func newLocalityPicker(r *rng, hotConns int, span uint64, pSame, pHot float64) localityPicker {
	return stim.NewLocality(r, hotConns, span, pSame, pHot)
}
