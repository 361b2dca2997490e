package srp

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/stim"
	gsrp "github.com/nicgen/nicgen/golden/srp"
)

// ecn_ipd's stimulus (block.Desc.Stimulus): a time that advances as a NIC
// clock does, and hot send queues that alternate between congestion
// (notifications two events in three, so the IPD climbs to its ceiling)
// and calm (one in fifty, so it decays to 0); its coverage is every rule
// of the IPD.

// ipdMix is the event mix of the ecn_ipd stimulus.
type ipdMix struct {
	numConn, active uint64  // queues, and the queues 0..active-1 the events use
	pConnErr        float64 // an id past the table (an error)
	timeW           int
	stepMax         uint64 // time advances by 0..stepMax ticks per cycle
	stim.Shape
	pCNHigh, pCNLow  float64 // notification probability in congested and calm phases
	phase            uint64  // events per phase
	pKindErr         float64 // an unknown kind
	cnOnly, sendOnly bool
}

// ipdMixFor adapts the mix to a named profile: all-ecn is notifications
// only, all-loss sends only (the IPD only decays); vectors use 64 queues
// with more repeats.
func ipdMixFor(p IPDParams, profile string) (ipdMix, error) {
	// a hot queue sees an event every ~25 cycles; t-/50 ticks per cycle on
	// average puts about half a t- between its events
	m := ipdMix{numConn: uint64(p.NumConn), active: uint64(p.NumConn), pConnErr: 0.01, timeW: p.TimeW,
		stepMax: max(1, p.Period/25), Shape: stim.Shape{PValid: 0.9, PReady: 0.8, PSame: 0.1, PHot: 0.7, Hot: 16},
		pCNHigh: 0.67, pCNLow: 0.02, phase: 20_000, pKindErr: 0.005}
	if m.Profile(profile, connpipe.MaxDepth+1) {
		return m, nil
	}
	switch profile {
	case "mixed":
	case stim.Vectors:
		// 64 queues, opened in the first 64 events, and hazards from the start
		m.active, m.PSame = min(m.numConn, 64), 0.3
	case "all-ecn":
		m.cnOnly = true
	case "all-loss":
		m.sendOnly = true
	case "extremes":
		m.pConnErr, m.pKindErr = 0.3, 0.1
	case "wrap":
		m.stepMax = uint64(1) << uint(max(p.TimeW-10, 4))
	default:
		return m, fmt.Errorf("ecn_ipd: no stimulus profile %q", profile)
	}
	return m, nil
}

// ipdDraw draws ecn_ipd events: queues 0 .. active-1 opened first, then
// events on them with locality, an id past the table or an unknown kind
// now and then.
type ipdDraw struct {
	mix            ipdMix
	r              *stim.Rand
	conns          stim.Locality
	opened, n      uint64
	now            uint64
	pCNHigh, pCNLo stim.Threshold
	pKindErr       stim.Threshold
	pConnErr       stim.Threshold
}

func newIPDDraw(mix ipdMix, r *stim.Rand) *ipdDraw {
	d := &ipdDraw{mix: mix, r: r, pCNHigh: stim.ThresholdOf(mix.pCNHigh), pCNLo: stim.ThresholdOf(mix.pCNLow),
		pKindErr: stim.ThresholdOf(mix.pKindErr), pConnErr: stim.ThresholdOf(mix.pConnErr)}
	d.conns = mix.Locality(r, mix.active)
	d.now = uint64(1)<<uint(mix.timeW) - 50_000 // wrap early
	return d
}

// tick advances the time by one cycle.
func (d *ipdDraw) tick() { d.now += d.r.Below(d.mix.stepMax + 1) }

// event draws the next event into f: conn, kind, now (the golden model's
// order), now masked to its width.
func (d *ipdDraw) event(f []uint64) {
	now := d.now & (uint64(1)<<uint(d.mix.timeW) - 1)
	if d.opened < d.mix.active {
		d.conns.Force(d.opened)
		d.opened++
		f[0], f[1], f[2] = d.opened-1, uint64(gsrp.IPDOpen), now
		return
	}
	d.n++
	conn := d.conns.Pick(d.r)
	if d.r.Hit(d.pConnErr) {
		conn = d.mix.numConn + d.r.Below(4)
	}
	var kind gsrp.IPDKind
	pCN := d.pCNLo
	if (d.n/d.mix.phase)%2 == 0 {
		pCN = d.pCNHigh
	}
	switch {
	case d.r.Hit(d.pKindErr):
		kind = gsrp.IPDNumKinds
	case d.mix.cnOnly:
		kind = gsrp.IPDCN
	case d.mix.sendOnly:
		kind = gsrp.IPDSend
	case d.r.Below(1000) == 0:
		kind = gsrp.IPDOpen // a queue restarts
	case d.r.Hit(pCN):
		kind = gsrp.IPDCN
	default:
		kind = gsrp.IPDSend
	}
	f[0], f[1], f[2] = conn, uint64(kind), now
}

// ipdStimulus is ecn_ipd's block.Desc.Stimulus.
func ipdStimulus(p IPDParams, profile string, r *stim.Rand) (stim.Source, stim.Coverage, error) {
	mix, err := ipdMixFor(p, profile)
	if err != nil {
		return stim.Source{}, nil, err
	}
	d := newIPDDraw(mix, r)
	src := mix.Source(d.tick, d.event)
	if profile == stim.Vectors {
		src.Tick, src.Event = nil, stim.Spaced(d.r, d.tick, d.event)
	}
	return src, newIPDCoverage(p.Max, p.Inc), nil
}

// ipdCoverage counts the rules of ecn_ipd a run reached, from the golden
// results (conn, kind, ipd, error) in execution order; each queue's
// previous IPD is kept.
type ipdCoverage struct {
	stim.Cases
	max, inc uint64
	last     map[uint64]uint64
}

func newIPDCoverage(max, inc uint64) *ipdCoverage {
	return &ipdCoverage{Cases: stim.NewCases("open", "cn raised", "cn at ceiling", "cn after decrements", "send unchanged",
		"send decayed partly", "send decayed to 0", "error"), max: max, inc: inc, last: map[uint64]uint64{}}
}

func (c *ipdCoverage) Count(res []uint64) {
	conn, kind, ipd := res[0], gsrp.IPDKind(res[1]), res[2]
	if res[3] == 1 {
		c.Add("error")
		return
	}
	last := c.last[conn]
	c.last[conn] = ipd
	switch kind {
	case gsrp.IPDOpen:
		c.Add("open")
	case gsrp.IPDCN:
		switch {
		case ipd == c.max:
			c.Add("cn at ceiling")
		case ipd < min(c.max, last+c.inc):
			c.Add("cn after decrements")
		default:
			c.Add("cn raised")
		}
	case gsrp.IPDSend:
		switch {
		case ipd == last:
			c.Add("send unchanged")
		case ipd == 0:
			c.Add("send decayed to 0")
		default:
			c.Add("send decayed partly")
		}
	}
}
