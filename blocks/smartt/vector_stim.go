package smartt

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/stim"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
)

// vectorMix is the event mix of a vector file (profile stim.Vectors): a
// sender's view of a loaded fabric, per event, not per cycle (the
// testbench chooses the valid and ready timing). Each connection sits at
// a queueing level that persists for a while (so the RTT averages and the
// Wait-to-Decrease EWMA move), and the ECN mark follows the level.
//
// Mostly MTU-sized ACKs, about a third of them ECN-marked, 4% trims and
// 1.5% timeouts, 1.2% invalid kinds. At 60 ns between events (800 Gb/s of
// 4 KiB packets is 41 ns each) a hot connection sees a few dozen ACKs per
// target RTT, so QuickAdapt windows close with a count that lets
// FastIncrease fire afterwards; the rare long gaps expire every
// per-connection stamp.
var vectorMix = struct {
	conns       stim.ConnMix
	kindWeights [8]float64 // open (a re-open), ack, nack, timeout, invalid 4..7
	pSmall      float64    // a packet shorter than the MTU
	// levels: the RTT of an ACK is drawn from its connection's level, near
	// the base RTT (FastIncrease territory, up to FiRttMax), between the
	// base and the target RTT, or above the target up to targetsMax target
	// RTTs; pLevel are the weights of a new level and ecnLevel the
	// probability of an ECN mark at each.
	pLevel       [3]float64
	ecnLevel     [3]float64
	targetsMax   uint64
	pLevelChange float64 // an event redraws its connection's level
	pBoundaryRTT float64 // an ACK's RTT is one of the comparison boundaries
	unackedMax   uint32  // bytes in flight, uniform 0..unackedMax
	meanStepNs   uint64  // mean time between events
	pIdle        float64 // a long quiet gap before an event...
	idleMaxNs    uint64  // ...of up to this long
	wrapAfter    uint64  // events before now crosses the 2^TimeW wrap
}{
	conns:        stim.ConnMix{ActiveConns: 48, HotConns: 4, PSame: 0.35, PHot: 0.6, POutOfRange: 0.01, POpenNext: 0.25},
	kindWeights:  [8]float64{0.0005, 0.93, 0.04, 0.015, 0.003, 0.003, 0.003, 0.003},
	pSmall:       0.15,
	pLevel:       [3]float64{0.3, 0.35, 0.35},
	ecnLevel:     [3]float64{0.05, 0.3, 0.6},
	targetsMax:   3,
	pLevelChange: 0.02,
	pBoundaryRTT: 0.02,
	unackedMax:   64 << 10,
	meanStepNs:   60,
	pIdle:        0.003,
	idleMaxNs:    1_000_000,
	wrapAfter:    100,
}

// vectorDraw draws the events of a vector file.
type vectorDraw struct {
	r      *stim.Rand
	kinds  stim.Kinds
	conns  *stim.Conns
	d      gsmartt.Derived
	level  map[uint64]int // queueing level per connection
	levels stim.Kinds     // draws a level (first three weights)

	now, nowMask uint64
	wrapped      bool
}

func newVectorDraw(p Params, r *stim.Rand) (*vectorDraw, error) {
	mix := &vectorMix
	d := p.Golden().Derive()
	for _, f := range []struct {
		name  string
		width int
		need  uint64
	}{
		{"s_event_conn", p.ConnW, uint64(p.NumConn - 1)},
		{"s_event_size", p.SizeW, uint64(d.MTU)},
		{"s_event_rtt", p.RttW, mix.targetsMax * uint64(d.TrttNs)},
		{"s_event_unacked", p.ByteW, uint64(mix.unackedMax)},
		{"s_event_now", p.TimeW, 0},
	} {
		if f.width > 32 || f.need >= uint64(1)<<f.width {
			return nil, fmt.Errorf("port %s is %d bits: the vectors need values up to %d (and at most 32 bits)", f.name, f.width, f.need)
		}
	}
	v := &vectorDraw{r: r, kinds: stim.NewKinds(mix.kindWeights),
		conns: stim.NewConns(mix.conns, r, p.NumConn, p.ConnW),
		d:     d, level: map[uint64]int{},
		levels:  stim.NewKinds([8]float64{mix.pLevel[0], mix.pLevel[1], mix.pLevel[2]}),
		nowMask: uint64(1)<<p.TimeW - 1,
	}
	v.now = (v.nowMask + 1 - mix.wrapAfter*mix.meanStepNs) & v.nowMask
	return v, nil
}

func (v *vectorDraw) chance(p float64) bool { return v.r.Hit(stim.ThresholdOf(p)) }

// between is uniform in [lo, hi].
func (v *vectorDraw) between(lo, hi uint64) uint64 { return lo + v.r.Below(hi-lo+1) }

// advance moves time on. The first step past the wrap lands on exactly 0,
// whose 16 ns stamp 0 is the one that reads as "never" (ZeroStampExpired).
func (v *vectorDraw) advance() uint64 {
	step := v.r.Below(2*vectorMix.meanStepNs + 1)
	if v.chance(vectorMix.pIdle) {
		step += v.r.Below(vectorMix.idleMaxNs)
	}
	next := v.now + step
	if next > v.nowMask {
		if v.wrapped {
			next &= v.nowMask
		} else {
			next, v.wrapped = 0, true
		}
	}
	v.now = next
	return next
}

// rtt draws an ACK's RTT at the connection's level.
func (v *vectorDraw) rtt(conn uint64) uint64 {
	d, mix := &v.d, &vectorMix
	brtt, trtt, fiMax := uint64(d.BrttNs), uint64(d.TrttNs), uint64(d.FiRttMax)
	if v.chance(mix.pBoundaryRTT) {
		// The comparisons of the contract, on both sides: rtt <= FiRttMax
		// (FastIncrease), rtt <= Trtt, the base RTT itself.
		b := [...]uint64{brtt, fiMax, fiMax + 1, trtt, trtt + 1}
		return b[v.r.Below(uint64(len(b)))]
	}
	switch v.level[conn] {
	case 0:
		return v.between(brtt, fiMax)
	case 1:
		return v.between(brtt, trtt)
	default:
		return v.between(trtt+1, mix.targetsMax*trtt)
	}
}

// event draws the next event: conn, kind, size, ecn, rtt, unacked, now.
// Fields the kind does not use (everything but conn on an open, ecn and
// rtt on a nack or timeout) carry values drawn as for an ACK: the block
// must ignore them.
func (v *vectorDraw) event(f []uint64) {
	mix := &vectorMix
	now := v.advance()
	var conn, kind uint64
	if c, ok := v.conns.OpenNext(); ok {
		conn, kind = uint64(c), KindOpen
		v.level[conn] = int(v.levels.Pick(v.r))
	} else {
		conn = uint64(v.conns.Pick())
		kind = v.kinds.Pick(v.r)
		if v.chance(mix.pLevelChange) {
			v.level[conn] = int(v.levels.Pick(v.r))
		}
	}
	size := uint64(v.d.MTU)
	if v.chance(mix.pSmall) {
		size = v.between(64, uint64(v.d.MTU)-1)
	}
	lvl := min(v.level[conn], 2)
	ecn := v.chance(mix.ecnLevel[lvl])
	rtt := v.rtt(conn)
	unacked := v.r.Below(uint64(mix.unackedMax) + 1)
	f[0], f[1], f[2], f[3], f[4], f[5], f[6] = conn, kind, size, block.Bit(ecn), rtt, unacked, now
}
