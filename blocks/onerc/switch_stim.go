package onerc

import (
	"fmt"
	"math/bits"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/stim"
	gonerc "github.com/nicgen/nicgen/golden/onerc"
)

// onerc_switch's stimulus (block.Desc.Stimulus): epochs that advance
// slowly, so that control packets fill slots and the data packets of the
// last few epochs find them, with now and then an epoch a ring older (a
// miss, or a control packet that must not replace the newer entry), and
// windows and weights that put the threshold in the range of the sequence
// numbers; its coverage is every outcome.

// switchMix is the event mix of the onerc_switch stimulus.
type switchMix struct {
	slots               uint64
	tagW, winW, weightW int
	seqW                int
	stim.Shape
	pCtrl, pSpec float64
	advance      uint64 // one epoch every this many events on average
	startEpoch   uint64
}

// switchMixFor adapts the mix to a named profile: wrap advances the
// epochs fast from just below the tags' wrap; all-ecn, all-loss and
// extremes (which name fields the switch does not have) are the mixed
// profile; vectors are the mixed profile's events.
func switchMixFor(p SwitchParams, profile string) (switchMix, error) {
	m := switchMix{slots: uint64(p.NumConn), tagW: p.TagW, winW: p.WinW, weightW: p.WeightW, seqW: p.SeqW,
		pCtrl: 0.3, pSpec: 0.7, advance: 24, startEpoch: 5, Shape: stim.Shape{PValid: 0.9, PReady: 0.8, PSame: 0.3}}
	if m.Profile(profile, connpipe.MaxDepth+1) {
		return m, nil
	}
	switch profile {
	case "mixed", stim.Vectors, "all-ecn", "all-loss", "extremes":
	case "wrap":
		m.advance, m.startEpoch = 2, uint64(1)<<uint(p.TagW+bits.TrailingZeros(uint(p.NumConn)))-40 // tags wrap early
	default:
		return m, fmt.Errorf("onerc_switch: no stimulus profile %q", profile)
	}
	return m, nil
}

// switchDraw draws onerc_switch events: every slot opened first, then
// control and data packets on the slots with locality.
type switchDraw struct {
	mix    switchMix
	r      *stim.Rand
	conns  stim.Locality
	opened uint64
	epoch  uint64 // the newest epoch
	pCtrl  stim.Threshold
	pSpec  stim.Threshold
}

func newSwitchDraw(mix switchMix, r *stim.Rand) *switchDraw {
	d := &switchDraw{mix: mix, r: r, epoch: mix.startEpoch, pCtrl: stim.ThresholdOf(mix.pCtrl), pSpec: stim.ThresholdOf(mix.pSpec)}
	d.conns = mix.Locality(r, mix.slots)
	return d
}

// event draws the next event into f in the golden model's order: conn,
// kind, tag, window, weight, let_through, seq, spec (an open's fields
// past its kind are 0).
func (d *switchDraw) event(f []uint64) {
	m := d.mix
	clear(f)
	if d.opened < m.slots {
		d.conns.Force(d.opened)
		d.opened++
		f[0], f[1] = d.opened-1, uint64(gonerc.SwOpen)
		return
	}
	if d.r.Below(m.advance) == 0 {
		d.epoch++
	}
	conn := d.conns.Pick(d.r)
	// the newest epoch of this slot, or the one before (a recent flow), or
	// a ring older (a stale packet), or the next (a flow ahead of the rest)
	ep := d.epoch - (d.epoch-conn)%m.slots
	switch d.r.Below(16) {
	case 0:
		ep -= m.slots * (1 + d.r.Below(2))
	case 1:
		ep += m.slots
	case 2, 3, 4:
		ep -= m.slots
	}
	tag := (ep / m.slots) & (uint64(1)<<uint(m.tagW) - 1)
	wmask, smask := uint64(1)<<uint(m.winW)-1, uint64(1)<<uint(m.seqW)-1
	win, weight := d.r.Below(48)&wmask, 1+d.r.Below(6)
	let, seq := d.r.Below(40)&wmask, d.r.Below(24)&smask
	switch d.r.Below(64) {
	case 0:
		win, let = d.r.Next()&wmask, d.r.Next()&wmask // extremes
	case 1:
		weight = d.r.Next() & (uint64(1)<<uint(m.weightW) - 1)
	case 2:
		weight = 0 // an error
	case 3:
		seq = d.r.Next() & smask
	}
	kind := uint64(gonerc.SwData)
	switch d.r.Below(200) {
	case 0:
		copy(f, []uint64{m.slots + d.r.Below(4), uint64(gonerc.SwData), tag, win, weight, let, seq, 1}) // a slot past the table
		return
	case 1:
		copy(f, []uint64{conn, uint64(gonerc.SwNumKinds), tag, win, weight, let, seq, 1}) // an unknown kind
		return
	case 2:
		f[0], f[1] = conn, uint64(gonerc.SwOpen)
		return
	}
	if d.r.Hit(d.pCtrl) {
		kind = uint64(gonerc.SwCtrl)
	}
	copy(f, []uint64{conn, kind, tag, win, weight, let, seq, block.Bit(d.r.Hit(d.pSpec))})
}

// switchStimulus is onerc_switch's block.Desc.Stimulus. Its events carry
// no clock: the epochs advance with the events (no Tick).
func switchStimulus(p SwitchParams, profile string, r *stim.Rand) (stim.Source, stim.Coverage, error) {
	mix, err := switchMixFor(p, profile)
	if err != nil {
		return stim.Source{}, nil, err
	}
	d := newSwitchDraw(mix, r)
	return mix.Source(nil, d.event), newSwitchCoverage(p.MissPass), nil
}

// switchCoverage counts the outcomes of onerc_switch a run reached, from
// the golden results (conn, kind, hit, filled, thresh, let_through, drop,
// spec, error).
type switchCoverage struct{ stim.Cases }

// newSwitchCoverage expects the misses of the configured rule only.
func newSwitchCoverage(missPass bool) *switchCoverage {
	c := &switchCoverage{stim.NewCases("open", "ctrl fill", "ctrl hit", "ctrl older epoch", "ctrl floor of one",
		"data passed", "data dropped", "data scheduled", "data miss, dropped", "data miss, passed", "error")}
	c.Skip("data miss, dropped", missPass)
	c.Skip("data miss, passed", !missPass)
	return c
}

func (c *switchCoverage) Count(res []uint64) {
	kind, hit, filled, let, drop, spec, isErr := gonerc.SwitchKind(res[1]), res[2] == 1, res[3] == 1, res[5], res[6] == 1, res[7] == 1, res[8] == 1
	switch {
	case isErr:
		c.Add("error")
	case kind == gonerc.SwOpen:
		c.Add("open")
	case kind == gonerc.SwCtrl:
		switch {
		case filled:
			c.Add("ctrl fill")
		case hit:
			c.Add("ctrl hit")
		default:
			c.Add("ctrl older epoch")
		}
		if let == 1 {
			c.Add("ctrl floor of one")
		}
	case !spec:
		c.Add("data scheduled")
	case !hit && drop:
		c.Add("data miss, dropped")
	case !hit:
		c.Add("data miss, passed")
	case drop:
		c.Add("data dropped")
	default:
		c.Add("data passed")
	}
}
