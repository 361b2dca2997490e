package blockeq

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
	x := r.next() >> 11
	i := 0
	for i < 7 && x >= k[i] {
		i++
	}
	return uint64(i)
}

// localityPicker draws connection ids with locality: the previous one again,
// one of a small hot set, or uniform over a span (which may exceed the
// block's connections, to produce out-of-range errors).
type localityPicker struct {
	hot         []uint64
	span        uint64
	pSame, pHot threshold
	last        uint64
	inited      bool
	// strides: when nonzero, connections 0..k-1 in turn, so that each
	// connection comes back every k events, with k = 1, 2, ..., strides in
	// phases of stridePhase events (the hazard profile)
	strides, n uint64
}

const stridePhase = 512

func newLocalityPicker(r *rng, hotConns int, span uint64, pSame, pHot float64) localityPicker {
	c := localityPicker{span: span, pSame: thresholdOf(pSame), pHot: thresholdOf(pHot)}
	for i := 0; i < hotConns; i++ {
		c.hot = append(c.hot, r.below(span))
	}
	return c
}

func (c *localityPicker) pick(r *rng) uint64 {
	if c.strides > 0 {
		k := 1 + (c.n/stridePhase)%c.strides
		c.last = c.n % k
		c.n++
		return c.last
	}
	switch {
	case c.inited && r.hit(c.pSame):
	case len(c.hot) > 0 && r.hit(c.pHot):
		c.last = c.hot[r.below(uint64(len(c.hot)))]
	default:
		c.last = r.below(c.span)
	}
	c.inited = true
	return c.last
}

// force makes id the last connection drawn (an opening prologue).
func (c *localityPicker) force(id uint64) { c.last, c.inited = id, true }
