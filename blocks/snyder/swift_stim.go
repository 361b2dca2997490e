package snyder

import (
	"math"

	"github.com/nicgen/nicgen/blocks/stim"
	gsnyder "github.com/nicgen/nicgen/golden/snyder"
)

// swift's stimulus (block.Desc.Stimulus): a time that advances as a NIC
// clock does, so that a busy connection sees a few ACKs per delay
// (per-RTT decreases and VAI's RTTs end now and then), with delays around
// the target that alternate between congested and calm phases, and
// extremes (delay 0 and the largest, acked 0 and the largest); its
// coverage is every outcome of an ACK.

// swiftDraw draws swift's events.
type swiftDraw struct {
	ackDraw
	timeW, delayW, hopW, ackW int
	base, perHop, rng         uint64 // the target's parts, ns
	hasNow                    bool   // the event has the time (UsesNow)
	now                       uint64
}

// swiftStimulus is swift's block.Desc.Stimulus.
func swiftStimulus(p SwiftParams, profile string, r *stim.Rand) (stim.Source, stim.Coverage, error) {
	base := p.BaseNs + p.PerHopNs
	// a hot connection sees an event every ~25 cycles: a few per delay
	mix, err := ackMixFor("swift", p.NumConn, max(2, 2*base/100), profile)
	if err != nil {
		return stim.Source{}, nil, err
	}
	start := uint64(1_000)
	if profile == "wrap" {
		start = uint64(1)<<uint(p.TimeW) - 100*base
	}
	d := &swiftDraw{ackDraw: newAckDraw(mix, r), timeW: p.TimeW, delayW: p.DelayW, hopW: p.HopW, ackW: p.AckW,
		base: p.BaseNs, perHop: p.PerHopNs, rng: uint64(p.FBS.RangeNs), hasNow: p.UsesNow(), now: start}
	return d.source(profile, d.tick, d.event), newSwiftCoverage(p), nil
}

func (d *swiftDraw) tick() { d.now += d.r.Below(d.mix.stepMax + 1) }

// event draws conn, kind, now, delay, hops, acked into f, without now
// when the block has no time (swiftGolden's event fields).
func (d *swiftDraw) event(f []uint64) {
	now := maskBits(d.now, d.timeW)
	if c, ok := d.open(); ok {
		d.put(f, c, uint64(gsnyder.SwiftOpen), now, 0, 0, 0)
		return
	}
	conn := d.next()
	hops := d.r.Below(min(uint64(1)<<uint(d.hopW), 4))
	// calm: below the target without fbs; congested: up to fs_range past it
	floor := d.base + hops*d.perHop
	congested := d.congested()
	var delay uint64
	switch {
	case congested && d.r.Below(4) == 0: // far past any target: the largest decreases
		delay = 2*(floor+d.rng) + d.r.Below(2*(floor+d.rng))
	case congested:
		delay = floor/2 + d.r.Below(floor+d.rng+1)
	default:
		delay = floor/2 + d.r.Below(floor/2+1)
	}
	acked := 1 + d.r.Below(3)
	switch d.extreme(4) {
	case 0:
		delay = 0
	case 1:
		delay = uint64(1)<<uint(d.delayW) - 1
	case 2:
		acked = 0
	case 3:
		acked = uint64(1)<<uint(d.ackW) - 1
	}
	delay, acked = maskBits(delay, d.delayW), maskBits(acked, d.ackW)
	conn, kind := d.fault(conn, uint64(gsnyder.SwiftOpen), uint64(gsnyder.SwiftAck), uint64(gsnyder.SwiftNumKinds))
	d.put(f, conn, kind, now, delay, hops, acked)
}

// put writes an event's fields, now only when the block has it.
func (d *swiftDraw) put(f []uint64, conn, kind, now, delay, hops, acked uint64) {
	f[0], f[1] = conn, kind
	g := f[2:]
	if d.hasNow {
		g[0], g = now, g[1:]
	}
	g[0], g[1], g[2] = delay, hops, acked
}

// swiftCoverage counts the outcomes of swift a run reached, from the
// golden results in execution order: conn, kind, cwnd, target, congested,
// decreased, error (swiftGolden's result fields), and the member count of
// the merging shell; each connection's last window is kept.
type swiftCoverage struct {
	stim.Cases
	one, min, max uint64
	last          map[uint64]uint64
}

func newSwiftCoverage(p SwiftParams) *swiftCoverage {
	c := &swiftCoverage{Cases: stim.NewCases("open", "increase", "increase below one packet", "decrease", "congested, held",
		"window at min", "window at max", "error", "merged ack"), one: uint64(1) << uint(p.FracW), min: p.MinCwnd, max: p.MaxCwnd, last: map[uint64]uint64{}}
	c.Skip("congested, held", p.SF > 0) // SF decreases on every congested ACK
	c.Skip("merged ack", p.MergeSlots == 0)
	// The bounds are expected only where a run reaches them: the maximum
	// when at most 5000 of the largest increases (AI x acked / cwnd) climb
	// to it from the initial window, (max^2 - init^2) / (2 AI acked) in
	// packets (Table 3.1's 1000 packets at 0.03125 per RTT take a million);
	// the minimum when one increase below one packet, at least the AI,
	// cannot step over it (else only a run of decreases that outpaces every
	// increase reaches it, and flow-based scaling raises the target of a
	// small window past most delays).
	f := func(v uint64) float64 { return math.Ldexp(float64(v), -p.FracW) }
	ackMax := float64(uint64(1)<<uint(p.AckW) - 1)
	c.Skip("window at max", (f(p.MaxCwnd)*f(p.MaxCwnd)-f(p.InitCwnd)*f(p.InitCwnd))/(2*f(p.AIMax())*ackMax) > 5000)
	c.Skip("window at min", p.AI > p.MinCwnd)
	return c
}

func (c *swiftCoverage) Count(res []uint64) {
	conn, kind, cwnd, congested, decreased, failed := res[0], res[1], res[2], res[4] == 1, res[5] == 1, res[6] == 1
	if failed {
		c.Add("error")
		return
	}
	if members(res, 7) > 1 {
		c.Add("merged ack")
	}
	last := c.last[conn]
	c.last[conn] = cwnd
	switch {
	case kind == uint64(gsnyder.SwiftOpen):
		c.Add("open")
		return
	case decreased:
		c.Add("decrease")
	case congested:
		c.Add("congested, held")
	case last < c.one:
		c.Add("increase below one packet")
	default:
		c.Add("increase")
	}
	switch cwnd {
	case c.min:
		c.Add("window at min")
	case c.max:
		c.Add("window at max")
	}
}
