package srp

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/stim"
	gsrp "github.com/nicgen/nicgen/golden/srp"
)

// srp_ttw's stimulus (block.Desc.Stimulus): a time that advances so that
// a packet reaches the head of its slot around its TTW, and headers that
// lie around the TTW (or, for deadlines, around now); its coverage is
// every outcome.

// ttwMix is the event mix of the srp_ttw stimulus.
type ttwMix struct {
	slots       uint64
	timeW, hdrW int
	mode        gsrp.TTWMode
	ttw         uint64
	stepMax     uint64 // time advances by 0..stepMax ticks per cycle
	stim.Shape
	pArrive, pSpec float64
}

// ttwMixFor adapts the mix to a named profile. srp_ttw has no ECN marks
// and no losses, and its extremes (ids past the table, unknown kinds,
// headers over the whole width) are in every mix: all-ecn, all-loss and
// extremes are the mixed profile, and so are the vectors.
func ttwMixFor(p TTWParams, profile string) (ttwMix, error) {
	// a slot comes back every ~2 x slots events; TTW / slots ticks per
	// cycle on average puts about a TTW between a packet's arrival and its
	// head
	m := ttwMix{slots: uint64(p.NumConn), timeW: p.TimeW, hdrW: p.HdrW, mode: p.Mode, ttw: p.TTW,
		stepMax: max(1, 2*p.TTW/uint64(p.NumConn)), pArrive: 0.5, pSpec: 0.7, Shape: stim.Shape{PValid: 0.9, PReady: 0.8, PSame: 0.1}}
	if m.Profile(profile, connpipe.MaxDepth+1) {
		return m, nil
	}
	switch profile {
	case "mixed", stim.Vectors, "all-ecn", "all-loss", "extremes":
	case "wrap":
		m.stepMax = uint64(1) << uint(max(p.TimeW-10, 4))
	default:
		return m, fmt.Errorf("srp_ttw: no stimulus profile %q", profile)
	}
	return m, nil
}

// ttwDraw draws srp_ttw events: every slot opened first, then heads and
// arrivals on them with locality, an id past the table, an unknown kind or
// a reopened slot now and then.
type ttwDraw struct {
	mix    ttwMix
	r      *stim.Rand
	conns  stim.Locality
	opened uint64
	now    uint64
	pArr   stim.Threshold
	pSpec  stim.Threshold
}

func newTTWDraw(mix ttwMix, r *stim.Rand) *ttwDraw {
	d := &ttwDraw{mix: mix, r: r, pArr: stim.ThresholdOf(mix.pArrive), pSpec: stim.ThresholdOf(mix.pSpec)}
	d.conns = mix.Locality(r, mix.slots)
	d.now = uint64(1)<<uint(mix.timeW) - 20*mix.ttw // wrap early
	return d
}

// tick advances the time by one cycle.
func (d *ttwDraw) tick() { d.now += d.r.Below(d.mix.stepMax + 1) }

// event draws the next event into f: conn, kind, now, hdr, spec (the
// golden model's order), now masked to its width.
func (d *ttwDraw) event(f []uint64) {
	tmask := uint64(1)<<uint(d.mix.timeW) - 1
	now := d.now & tmask
	f[2], f[3], f[4] = now, 0, 0
	if d.opened < d.mix.slots {
		d.conns.Force(d.opened)
		d.opened++
		f[0], f[1] = d.opened-1, uint64(gsrp.TTWOpen)
		return
	}
	conn := d.conns.Pick(d.r)
	switch d.r.Below(200) {
	case 0:
		f[0], f[1] = d.mix.slots+d.r.Below(4), uint64(gsrp.TTWHead) // an error
		return
	case 1:
		f[0], f[1] = conn, uint64(gsrp.TTWNumKinds) // an unknown kind
		return
	case 2:
		f[0], f[1] = conn, uint64(gsrp.TTWOpen)
		return
	}
	if !d.r.Hit(d.pArr) {
		f[0], f[1] = conn, uint64(gsrp.TTWHead)
		return
	}
	spec := block.Bit(d.r.Hit(d.pSpec))
	var hdr uint64
	t := d.mix.ttw
	switch d.mix.mode {
	case gsrp.TTWDeadline:
		hdr = (now + t - t/4 + d.r.Below(t/2+1)) & tmask // a deadline about a TTW ahead, a few already past
		if d.r.Below(16) == 0 {
			hdr = (now - 1 - d.r.Below(t)) & tmask
		}
	default:
		hdr = d.r.Below(t + t/8 + 1) // an accumulated wait around the TTW
		if d.r.Below(64) == 0 {
			hdr = d.r.Next() & (uint64(1)<<uint(d.mix.hdrW) - 1)
		}
	}
	f[0], f[1], f[3], f[4] = conn, uint64(gsrp.TTWArrive), hdr, spec
}

// ttwStimulus is srp_ttw's block.Desc.Stimulus.
func ttwStimulus(p TTWParams, profile string, r *stim.Rand) (stim.Source, stim.Coverage, error) {
	mix, err := ttwMixFor(p, profile)
	if err != nil {
		return stim.Source{}, nil, err
	}
	d := newTTWDraw(mix, r)
	src := mix.Source(d.tick, d.event)
	if profile == stim.Vectors {
		src.Tick, src.Event = nil, stim.Spaced(d.r, d.tick, d.event)
	}
	return src, newTTWCoverage(p.Mode), nil
}

// ttwCoverage counts the outcomes of srp_ttw a run reached, from the
// golden results (conn, kind, drop, spec, hdr, empty, error).
type ttwCoverage struct{ stim.Cases }

// newTTWCoverage expects every case but drops at arrival in the per_hop
// mode, which never drops there.
func newTTWCoverage(mode gsrp.TTWMode) *ttwCoverage {
	c := &ttwCoverage{stim.NewCases("open", "arrive kept", "arrive dropped", "head forwarded (speculative)",
		"head dropped (NACK)", "head scheduled", "head empty", "error")}
	c.Skip("arrive dropped", mode == gsrp.TTWPerHop)
	return c
}

func (c *ttwCoverage) Count(res []uint64) {
	kind, drop, spec, empty := gsrp.TTWKind(res[1]), res[2] == 1, res[3] == 1, res[5] == 1
	switch {
	case res[6] == 1:
		c.Add("error")
	case kind == gsrp.TTWOpen:
		c.Add("open")
	case kind == gsrp.TTWArrive && drop:
		c.Add("arrive dropped")
	case kind == gsrp.TTWArrive:
		c.Add("arrive kept")
	case empty:
		c.Add("head empty")
	case drop:
		c.Add("head dropped (NACK)")
	case spec:
		c.Add("head forwarded (speculative)")
	default:
		c.Add("head scheduled")
	}
}
