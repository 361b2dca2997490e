// Package stim is what a block's package gives the equivalence bench and
// `nicgen vectors` beyond its description: a stimulus that reaches the
// block's rare cases under each named profile, and the coverage that says
// it did. It depends on nothing of nicgen: a block's package writes its
// stimulus with it (block.Desc.Stimulus), and the harness
// (verilator-harness/blockeq) runs it, so no per-block code lives in the
// harness.
package stim

// Rand is xorshift64*: fast, seedable, and independent of any block's
// LFSR. The same seed gives the same stream on every machine.
type Rand struct{ s uint64 }

// New returns the generator of a seed.
func New(seed uint64) *Rand { return &Rand{s: seed*0x9E3779B97F4A7C15 | 1} }

// Next is 64 random bits.
func (r *Rand) Next() uint64 {
	r.s ^= r.s >> 12
	r.s ^= r.s << 25
	r.s ^= r.s >> 27
	return r.s * 2685821657736338717
}

// Below is uniform in [0, n) for n <= 2^32, by multiply and shift
// (Lemire) rather than a division, which costs more than the rest of a
// stimulus cycle.
func (r *Rand) Below(n uint64) uint64 {
	return (r.Next() >> 32 * n) >> 32
}

// Threshold is a probability as a 53-bit integer compared with random
// bits: Hit draws one number, with no floating point.
type Threshold uint64

// ThresholdOf is probability p (clamped to 0..1).
func ThresholdOf(p float64) Threshold {
	switch {
	case p <= 0:
		return 0
	case p >= 1:
		return 1 << 53
	}
	return Threshold(p * (1 << 53))
}

// Hit is true with the threshold's probability.
func (r *Rand) Hit(t Threshold) bool { return Threshold(r.Next()>>11) < t }

// Source is a block's stimulus under one profile.
type Source struct {
	// PValid is the chance that an event is offered on a cycle when none
	// is waiting, PReady that the result stream is ready on a cycle.
	PValid, PReady float64
	// Tick, when set, advances the stimulus by one cycle (a clock the
	// events carry); the bench calls it once per cycle, before the
	// handshake. Vectors (profile "vectors") have no cycles: their Event
	// advances time itself.
	Tick func()
	// Event draws the next event's fields into f, in the order of the
	// golden model's event fields (block.Golden.Fields).
	Event func(f []uint64)
	// Length, when set, learns the number of events of a vector file
	// (profile Vectors) before the first is drawn: a source that spreads
	// its time over the whole file.
	Length func(n int)
}

// Coverage counts the behaviours a run reached, from the golden model's
// results in execution order.
type Coverage interface {
	// Count takes one result: its fields in the order of the golden
	// model's result fields.
	Count(result []uint64)
	// Counts is every behaviour with its count.
	Counts() map[string]int64
	// Missing lists the behaviours the run should reach and did not.
	Missing() []string
}

// Cases counts named behaviours; a block's coverage embeds it and adds
// Count.
type Cases struct {
	names  []string
	counts map[string]int64
	skip   map[string]bool
}

// NewCases counts the named behaviours.
func NewCases(names ...string) Cases {
	return Cases{names: names, counts: map[string]int64{}, skip: map[string]bool{}}
}

// Add counts one occurrence of a behaviour.
func (c *Cases) Add(name string) { c.counts[name]++ }

// Skip leaves a behaviour out of Missing: the parameters cannot reach it
// (it is still counted and reported).
func (c *Cases) Skip(name string, skip bool) { c.skip[name] = skip }

// Counts is every behaviour with its count.
func (c *Cases) Counts() map[string]int64 {
	out := map[string]int64{}
	for _, n := range c.names {
		out[n] = c.counts[n]
	}
	return out
}

// Missing lists the behaviours never reached, but those skipped, in the
// order they were named.
func (c *Cases) Missing() []string {
	var miss []string
	for _, n := range c.names {
		if c.counts[n] == 0 && !c.skip[n] {
			miss = append(miss, n)
		}
	}
	return miss
}

// Locality draws connection ids with locality: the previous one again,
// one of a small hot set, or uniform over a span (which may exceed the
// block's connections, to produce out-of-range errors).
type Locality struct {
	hot         []uint64
	span        uint64
	pSame, pHot Threshold
	last        uint64
	inited      bool
	// Strides, when above 0, gives connections 0..k-1 in turn, so that
	// each connection comes back every k events, with k = 1, 2, ...,
	// Strides in phases of StridePhase events (the hazard profile).
	Strides, n uint64
}

// StridePhase is the events of one phase of Locality.Strides.
const StridePhase = 512

// NewLocality draws hotConns hot connections in [0, span) from r.
func NewLocality(r *Rand, hotConns int, span uint64, pSame, pHot float64) Locality {
	c := Locality{span: span, pSame: ThresholdOf(pSame), pHot: ThresholdOf(pHot)}
	for i := 0; i < hotConns; i++ {
		c.hot = append(c.hot, r.Below(span))
	}
	return c
}

// Pick draws the next connection.
func (c *Locality) Pick(r *Rand) uint64 {
	if c.Strides > 0 {
		k := 1 + (c.n/StridePhase)%c.Strides
		c.last = c.n % k
		c.n++
		return c.last
	}
	switch {
	case c.inited && r.Hit(c.pSame):
	case len(c.hot) > 0 && r.Hit(c.pHot):
		c.last = c.hot[r.Below(uint64(len(c.hot)))]
	default:
		c.last = r.Below(c.span)
	}
	c.inited = true
	return c.last
}

// Force makes id the last connection drawn (an opening prologue).
func (c *Locality) Force(id uint64) { c.last, c.inited = id, true }

// Vectors is the profile of `nicgen vectors`: events with no cycles
// between them (a Source's Event advances time itself), a mix that
// reaches every behaviour in a few thousand events.
const Vectors = "vectors"

// Shape is the part of a block's mix that the shared profiles set the
// same way in every block: the handshake's chances and the locality of
// its connections. A block's mix embeds it.
type Shape struct {
	PValid, PReady float64 // an event offered on a cycle; the result stream ready
	PSame, PHot    float64 // the last connection again; one of the hot set
	Hot            int     // hot connections (0: none)
	Strides        uint64  // Locality.Strides (the hazard profile)
}

// Profile sets what a shared profile says of the shape and reports
// whether profile is one: same-conn (the last connection on every event,
// and a hot set of one where the block has one), idle (an event on one
// cycle in ten), backpressure (the result stream ready one cycle in five)
// and hazard (an event on every cycle, connections in strides 1..strides).
func (s *Shape) Profile(profile string, strides uint64) bool {
	switch profile {
	case "same-conn":
		s.PSame = 1
		if s.Hot > 0 {
			s.Hot, s.PHot = 1, 1
		}
	case "idle":
		s.PValid = 0.1
	case "backpressure":
		s.PReady = 0.2
	case "hazard":
		s.PValid, s.PReady, s.Strides = 1, 0.8, strides
	default:
		return false
	}
	return true
}

// Locality draws the shape's hot set over span from r and returns the
// shape's connection picker.
func (s Shape) Locality(r *Rand, span uint64) Locality {
	c := NewLocality(r, s.Hot, span, s.PSame, s.PHot)
	c.Strides = s.Strides
	return c
}

// Source is the shape's handshake with the block's tick and event.
func (s Shape) Source(tick func(), event func(f []uint64)) Source {
	return Source{PValid: s.PValid, PReady: s.PReady, Tick: tick, Event: event}
}

// Spaced is a vector file's event for a source with a clock (vectors
// have no cycles): ticks of time before each event while k < 1 +
// Below(3), k = 0, 1, ..., the bound drawn again from r on each pass. So
// 1, 2 and 3 ticks come with chances 1/3, 4/9 and 2/9.
func Spaced(r *Rand, tick func(), event func(f []uint64)) func(f []uint64) {
	return func(f []uint64) {
		for k := 0; k < 1+int(r.Below(3)); k++ {
			tick()
		}
		event(f)
	}
}
