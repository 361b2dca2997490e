package snyder

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/stim"
)

// What hpcc's and swift's stimuli (block.Desc.Stimulus; hpcc_stim.go,
// swift_stim.go) share: connections 0..active-1 opened first, then ACKs on
// them with locality, in phases of congestion and calm; now and then an
// extreme field value, and rarely an error (an id past the table, an
// unknown kind, or a connection that restarts). Time advances as a NIC
// clock does: by 0..stepMax ns per cycle.

// ackMix is the event mix of an ACK stimulus.
type ackMix struct {
	numConn, active uint64 // connections, and the connections 0..active-1 the events use
	stepMax         uint64 // time advances by 0..stepMax ns per cycle
	stim.Shape
	phase              uint64 // events per congested or calm phase
	pExtreme, pErr     float64
	onlyCong, onlyCalm bool
}

// ackMixFor is the mix under a named profile: all-ecn is congested
// throughout, all-loss calm throughout; vectors (no cycles) use 64
// connections with more repeats. The wrap profile is the mixed one: the
// block starts its time near the wrap itself.
func ackMixFor(block string, numConn int, stepMax uint64, profile string) (ackMix, error) {
	m := ackMix{numConn: uint64(numConn), active: uint64(numConn), stepMax: stepMax,
		phase: 5_000, pExtreme: 0.01, pErr: 0.005, Shape: stim.Shape{PValid: 0.9, PReady: 0.8, PSame: 0.1, PHot: 0.7, Hot: 16}}
	if m.Profile(profile, connpipe.MaxDepth+1) {
		return m, nil
	}
	switch profile {
	case "mixed", "wrap":
	case stim.Vectors:
		m.active, m.PSame = min(m.numConn, 64), 0.3
	case "all-ecn":
		m.onlyCong = true
	case "all-loss":
		m.onlyCalm = true
	case "extremes":
		m.pExtreme, m.pErr = 0.3, 0.1
	default:
		return m, fmt.Errorf("%s: no stimulus profile %q", block, profile)
	}
	return m, nil
}

// ackDraw is what both draws keep: the generator, the connections and
// the phase.
type ackDraw struct {
	mix      ackMix
	r        *stim.Rand
	conns    stim.Locality
	opened   uint64
	n        uint64 // ACKs drawn (the phase)
	pExtreme stim.Threshold
	pErr     stim.Threshold
}

func newAckDraw(mix ackMix, r *stim.Rand) ackDraw {
	d := ackDraw{mix: mix, r: r, pExtreme: stim.ThresholdOf(mix.pExtreme), pErr: stim.ThresholdOf(mix.pErr)}
	d.conns = mix.Locality(r, mix.active)
	return d
}

// open returns the next connection to open while some are not yet.
func (d *ackDraw) open() (uint64, bool) {
	if d.opened >= d.mix.active {
		return 0, false
	}
	d.conns.Force(d.opened)
	d.opened++
	return d.opened - 1, true
}

// next counts an ACK and draws its connection.
func (d *ackDraw) next() uint64 {
	d.n++
	return d.conns.Pick(d.r)
}

// congested is whether the current phase is congested.
func (d *ackDraw) congested() bool {
	if d.mix.onlyCong || d.mix.onlyCalm {
		return d.mix.onlyCong
	}
	return (d.n/d.mix.phase)%2 == 0
}

// extreme is which of n extreme values an ACK takes, or -1 for none.
func (d *ackDraw) extreme(n uint64) int {
	if !d.r.Hit(d.pExtreme) {
		return -1
	}
	return int(d.r.Below(n))
}

// fault is an ACK's connection and kind, now and then made an error: an
// id past the table, an unknown kind (numKinds or the next), or an open
// (a connection restarts).
func (d *ackDraw) fault(conn, open, ack, numKinds uint64) (uint64, uint64) {
	kind := ack
	if d.r.Hit(d.pErr) {
		switch d.r.Below(3) {
		case 0:
			conn = d.mix.numConn + d.r.Below(4)
		case 1:
			kind = numKinds + d.r.Below(2)
		default:
			kind = open
		}
	}
	return conn, kind
}

// source is the stimulus of a draw whose clock is tick and whose events
// event writes: under stim.Vectors, with no cycles, each event comes 1..3
// ticks after the last.
func (d *ackDraw) source(profile string, tick func(), event func([]uint64)) stim.Source {
	src := d.mix.Source(tick, event)
	if profile == stim.Vectors {
		src.Tick, src.Event = nil, stim.Spaced(d.r, tick, event)
	}
	return src
}

// maskBits is the low w bits of v.
func maskBits(v uint64, w int) uint64 { return v & (uint64(1)<<uint(w) - 1) }

// members is the member count of a result (the merging shell's last
// field, after the golden model's n), or 0 without one.
func members(res []uint64, n int) uint64 {
	if len(res) > n {
		return res[n]
	}
	return 0
}
