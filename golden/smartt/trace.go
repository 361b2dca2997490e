package smartt

import "math"

// rng is a splitmix64 generator: deterministic traces.
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9E3779B97F4A7C15
	z := uint64(*r)
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// float is uniform in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// chance is true with probability num/den.
func (r *rng) chance(num, den uint64) bool { return r.next()%den < num }

// traceConn is the generator's picture of one connection's path: a
// congestion level in [0, 1] that drifts toward a target which changes now
// and then (uncongested, moderate, incast-like), and the bytes in flight.
type traceConn struct {
	level, target float64
	inflight      float64
}

// randomTrace returns n events over conns connections, opens first, for
// parameters p. The trace is open loop (the windows do not drive it) but
// realistic in its parts: sizes mostly one MTU, RTT between the base RTT
// and 3 target RTTs following the congestion level, ECN more likely the
// more congested, rare nacks (in congested phases) and rarer timeouts,
// unacked a drifting window, and now advancing 100..500 ns per event from
// startNow and wrapping at 2^TimeW.
func randomTrace(p Params, conns, n int, seed uint64, startNow uint64) []Event {
	d := p.Derive()
	r := rng(seed)
	mtu := float64(d.MTU)
	brtt, trtt := float64(d.BrttNs), float64(d.TrttNs)
	maxRtt := 3 * trtt
	cs := make([]traceConn, conns)
	evs := make([]Event, 0, n)
	now := startNow
	tick := func() uint64 {
		t := now & mask64(p.TimeW)
		now += 100 + r.next()%401
		return t
	}
	for c := range cs {
		cs[c] = traceConn{inflight: float64(d.InitCwnd) / 2}
		evs = append(evs, Event{Conn: uint32(c), Kind: KindOpen, Now: tick()})
	}
	for len(evs) < n {
		c := int(r.next() % uint64(conns))
		tc := &cs[c]
		if r.chance(1, 1500) { // a new phase for this path
			switch x := r.float(); {
			case x < 0.3:
				tc.target = 0 // idle path: FastIncrease territory
			case x < 0.7:
				tc.target = 0.05 + 0.35*r.float() // moderate, around the target RTT
			default:
				tc.target = 0.5 + 0.5*r.float() // incast-like
			}
		}
		tc.level += (tc.target - tc.level) / 64
		lv := tc.level * (0.7 + 0.6*r.float())

		e := Event{Conn: uint32(c), Kind: KindAck, Now: tick()}
		e.Size = d.MTU
		if r.chance(1, 10) {
			e.Size = 64 + uint32(r.next()%uint64(d.MTU-63))
		}
		// Queueing delay follows the level; 0..300 ns of jitter on top.
		rtt := brtt + lv*(maxRtt-brtt) + 300*r.float()
		e.RTT = uint32(math.Min(maxRtt, rtt))
		// Marking grows with the level; some marks come from transient
		// imbalance at any level above idle (the case FD and the nscc
		// no-op are for).
		pECN := math.Max(0, 1.3*lv-0.1)
		if tc.level > 0.02 {
			pECN += 0.05
		}
		e.ECN = r.float() < pECN
		switch x := r.float(); {
		case x < 0.01*lv*lv:
			e.Kind = KindNack
		case x < 0.01*lv*lv+0.0005*lv:
			e.Kind = KindTimeout
		}
		// The transport's bytes in flight drift with the congestion.
		tc.inflight *= 1 + 0.02*(0.3-lv) + 0.01*(r.float()-0.5)
		tc.inflight = math.Max(mtu, math.Min(float64(d.MaxCwnd), tc.inflight))
		e.Unacked = uint32(tc.inflight)
		evs = append(evs, e)
	}
	return evs
}

// TraceStart is where RandomTrace's clock starts: 10 ms before the 32-bit
// wrap of now, so that every trace crosses it.
const TraceStart = 1<<32 - 10_000_000

// RandomTrace is the seeded open-loop event trace of the accuracy
// measurements (randomTrace from TraceStart): n events over conns
// connections.
func RandomTrace(p Params, conns, n int, seed uint64) []Event {
	return randomTrace(p, conns, n, seed, TraceStart)
}
