package stim

// Kinds draws event kinds 0..7 with given weights, with one random number
// and no floating point.
type Kinds [8]uint64

// NewKinds draws kind i with probability weights[i] / sum(weights).
func NewKinds(weights [8]float64) Kinds {
	var k Kinds
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

// Pick draws a kind.
func (k *Kinds) Pick(r *Rand) uint64 {
	x := r.Next() >> 11
	i := 0
	for i < 7 && x >= k[i] {
		i++
	}
	return uint64(i)
}

// ConnMix is how a vector file's events pick connections (Conns).
// Probabilities are per event.
type ConnMix struct {
	ActiveConns int     // in-range connections the sequence uses, each opened before use
	HotConns    int     // the first few opened take most of the traffic
	PSame       float64 // same connection as the previous in-range event: back-to-back hazards
	PHot        float64 // one of the hot connections
	POutOfRange float64 // an id >= NumConn (an error whatever the kind)
	POpenNext   float64 // once the hot ones are open, an event opens the next connection
}

// Conns draws the connection ids of a vector file: every in-range
// connection it returns was opened by an earlier event it returned
// (OpenNext), so the state table never reads a word that was not written.
// A never-opened word is all zero under Verilator but X under Icarus.
// (The equivalence stimulus's Locality draws uniformly over a span,
// without opening first.)
type Conns struct {
	mix      ConnMix
	r        *Rand
	numConn  uint64
	connSpan uint64 // 2^width(s_event_conn)
	active   []uint32
	opened   int // active[:opened] have been opened
	hot      []uint32
	last     uint32
	haveLast bool
	// the mix's chances as thresholds, converted once
	pSame, pHot, pOut, pOpen Threshold
}

// NewConns chooses the active connections of a block with numConn
// connections and connW-bit ids: both ends of the table and random ones,
// in random order; the first HotConns of them are hot.
func NewConns(mix ConnMix, r *Rand, numConn int, connW int) *Conns {
	c := &Conns{mix: mix, r: r, numConn: uint64(numConn), connSpan: uint64(1) << connW,
		pSame: ThresholdOf(mix.PSame), pHot: ThresholdOf(mix.PHot), pOut: ThresholdOf(mix.POutOfRange), pOpen: ThresholdOf(mix.POpenNext)}
	k := min(mix.ActiveConns, numConn)
	seen := map[uint32]bool{}
	add := func(id uint32) {
		if !seen[id] && len(c.active) < k {
			seen[id] = true
			c.active = append(c.active, id)
		}
	}
	add(0)
	add(uint32(numConn - 1))
	for len(c.active) < k {
		add(uint32(r.Below(uint64(numConn))))
	}
	for i := len(c.active) - 1; i > 0; i-- {
		j := r.Below(uint64(i + 1))
		c.active[i], c.active[j] = c.active[j], c.active[i]
	}
	c.hot = c.active[:min(mix.HotConns, len(c.active))]
	return c
}

// OpenNext returns the next connection to open, if this event opens one:
// the hot ones first, then the others interleaved with traffic.
func (c *Conns) OpenNext() (uint32, bool) {
	if c.opened < len(c.hot) || (c.opened < len(c.active) && c.r.Hit(c.pOpen)) {
		id := c.active[c.opened]
		c.opened++
		c.last, c.haveLast = id, true
		return id, true
	}
	return 0, false
}

// Pick returns the connection of an event that opens none: often the
// previous one, often a hot one, otherwise any opened one; now and then an
// id past the table instead.
func (c *Conns) Pick() uint32 {
	r := c.r
	var id uint32
	switch {
	case c.haveLast && r.Hit(c.pSame):
		id = c.last
	case r.Hit(c.pHot):
		id = c.hot[r.Below(uint64(len(c.hot)))]
	default:
		id = c.active[r.Below(uint64(c.opened))]
	}
	c.last, c.haveLast = id, true
	if c.connSpan > c.numConn && r.Hit(c.pOut) {
		switch r.Below(4) {
		case 0:
			id = uint32(c.numConn) // the first id past the table
		case 1:
			id = uint32(c.connSpan - 1) // all ones
		default:
			id = uint32(c.numConn + r.Below(c.connSpan-c.numConn))
		}
	}
	return id
}
