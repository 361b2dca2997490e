package onerc

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/stim"
	gonerc "github.com/nicgen/nicgen/golden/onerc"
)

// onerc_host's stimulus (block.Desc.Stimulus): flows run through their
// lives (open, speculative sends, control packets out and back, scheduled
// sends, close), each connection's first event an open or a close (the
// two kinds that never read the word: the table's power-on contents are
// random under cocotb), with an epoch that advances slowly, so that flows
// of one epoch share their numbers, now and then jumps (a flow's counter
// is claimed by a later epoch: stale sends), and now and then reopens or
// closes a closed connection; its coverage is every outcome.

// hostMix is the event mix of the onerc_host stimulus.
type hostMix struct {
	conns, numConn  uint64 // connections the flows use; the table's
	epochW, weightW int
	seqW, rateW     int
	stim.Shape
	advance                 uint64 // one epoch every this many events on average
	letSpan, weightSpan     uint64 // let_through and weights mostly below these
	pSend, pTx, pRx, pClose uint64 // per 64 events of an open flow
}

// hostMixFor adapts the mix to a named profile: all-ecn, all-loss,
// extremes and wrap (which name fields the host does not have; its epochs
// wrap in the mixed profile's jumps) are the mixed profile; vectors are
// the mixed profile's events.
func hostMixFor(p HostParams, profile string) (hostMix, error) {
	m := hostMix{conns: uint64(min(p.NumConn, 64)), numConn: uint64(p.NumConn), epochW: p.EpochW, weightW: p.WeightW, seqW: p.SeqW, rateW: p.RateW,
		advance: 48, letSpan: 24, weightSpan: 9,
		pSend: 30, pTx: 6, pRx: 10, pClose: 16, Shape: stim.Shape{PValid: 0.9, PReady: 0.8, PSame: 0.3}}
	if m.Profile(profile, connpipe.MaxDepth+1) {
		return m, nil
	}
	switch profile {
	case "mixed", stim.Vectors, "all-ecn", "all-loss", "extremes", "wrap":
	default:
		return m, fmt.Errorf("onerc_host: no stimulus profile %q", profile)
	}
	return m, nil
}

// hostDraw draws onerc_host events, keeping its own view of which of its
// connections are open.
type hostDraw struct {
	mix     hostMix
	r       *stim.Rand
	conns   stim.Locality
	open    []bool // the stimulus's view: opened and not closed
	touched []bool // opened or closed once: the word no longer depends on the table's power-on contents
	epoch   uint64
}

func newHostDraw(mix hostMix, r *stim.Rand) *hostDraw {
	d := &hostDraw{mix: mix, r: r, open: make([]bool, mix.conns), touched: make([]bool, mix.conns), epoch: 3}
	d.conns = mix.Locality(r, mix.conns)
	return d
}

// mask is the low w bits of v.
func (d *hostDraw) mask(v uint64, w int) uint64 {
	if w >= 64 {
		return v
	}
	return v & (uint64(1)<<uint(w) - 1)
}

// event draws the next event into f in the golden model's order
// (HostEventFields): conn, kind, epoch, b, let_through, weight,
// bottleneck.
func (d *hostDraw) event(f []uint64) {
	m := d.mix
	switch d.r.Below(m.advance) {
	case 0:
		d.epoch++
	case 1:
		if d.r.Below(16) == 0 {
			d.epoch += 2 + d.r.Below(1<<min(m.epochW, 20)) // a jump: counters go stale, the epoch wraps
		}
	}
	conn := d.conns.Pick(d.r)
	kind := gonerc.HostOpen
	switch x := d.r.Below(64); {
	case conn < m.conns && !d.touched[conn] && x < 16:
		kind = gonerc.HostClose // a connection's first event opens or closes it
	case conn < m.conns && !d.touched[conn]:
		kind = gonerc.HostOpen
	case !d.open[conn] && x < 16:
		kind = gonerc.HostOpen
	case !d.open[conn] && x == 16:
		kind = gonerc.HostClose // closing a closed connection (as often as reopening an open one)
	case !d.open[conn]:
		kind = gonerc.HostKind(1 + d.r.Below(uint64(gonerc.HostCtrlRx))) // send, ctrl_tx or ctrl_rx on a closed connection
	case x < m.pSend:
		kind = gonerc.HostSend
	case x < m.pSend+m.pTx:
		kind = gonerc.HostCtrlTx
	case x < m.pSend+m.pTx+m.pRx:
		kind = gonerc.HostCtrlRx
	case x < m.pSend+m.pTx+m.pRx+m.pClose:
		kind = gonerc.HostClose
	case x == 63:
		kind = gonerc.HostOpen // reopen
	default:
		kind = gonerc.HostSend
	}
	b := d.r.Next()
	if d.r.Below(4) == 0 {
		b %= 1 << 12
	}
	weight := 1 + d.r.Below(m.weightSpan)
	let := d.r.Below(m.letSpan)
	switch d.r.Below(64) {
	case 0:
		weight = 0 // an error on ctrl_rx
	case 1:
		weight = d.r.Next()
	case 2:
		let = d.r.Next()
	}
	f[0], f[1], f[2], f[3] = conn, uint64(kind), d.mask(d.epoch, m.epochW), d.mask(b, m.rateW)
	f[4], f[5], f[6] = d.mask(let, m.seqW), d.mask(weight, m.weightW), d.r.Below(2)
	switch d.r.Below(256) {
	case 0:
		f[0] = m.numConn + d.r.Below(4) // past the table (masked to the id's width in the block and the model)
	case 1:
		f[1] = uint64(gonerc.HostNumKinds) + d.r.Below(8-uint64(gonerc.HostNumKinds)) // an unknown kind
	}
	if f[0] < m.conns && (f[1] == uint64(gonerc.HostOpen) || f[1] == uint64(gonerc.HostClose)) {
		d.open[f[0]] = f[1] == uint64(gonerc.HostOpen)
		d.touched[f[0]] = true
	}
}

// hostStimulus is onerc_host's block.Desc.Stimulus. Its events carry no
// clock: the epochs advance with the events (no Tick).
func hostStimulus(p HostParams, profile string, r *stim.Rand) (stim.Source, stim.Coverage, error) {
	mix, err := hostMixFor(p, profile)
	if err != nil {
		return stim.Source{}, nil, err
	}
	d := newHostDraw(mix, r)
	return mix.Source(nil, d.event), newHostCoverage(p), nil
}

// hostCoverage counts the outcomes of onerc_host a run reached, from the
// golden results in HostResultFields's order.
type hostCoverage struct {
	stim.Cases
	top uint64 // the connection count's top
}

func newHostCoverage(p HostParams) *hostCoverage {
	c := &hostCoverage{stim.NewCases("open", "open, weight above 1", "send speculative", "send stale", "send scheduled", "send idle",
		"ctrl_tx speculative", "ctrl_tx scheduled", "ctrl_rx ended, resume above 0", "ctrl_rx ended, resume 0", "ctrl_rx scheduled",
		"ctrl_rx idle", "close", "count at its top", "error"), uint64(1)<<uint(p.WeightW) - 1}
	c.Skip("count at its top", c.top > 31) // the stimulus keeps about 32 of its 64 connections open
	return c
}

func (c *hostCoverage) Count(res []uint64) {
	kind, status, newWeight, ended, resume, conns := gonerc.HostKind(res[1]), gonerc.HostStatus(res[2]), res[6], res[7] == 1, res[8], res[10]
	if res[11] == 1 {
		c.Add("error")
		return
	}
	if conns == c.top {
		c.Add("count at its top")
	}
	switch kind {
	case gonerc.HostOpen:
		c.Add("open")
		if newWeight > 1 {
			c.Add("open, weight above 1")
		}
	case gonerc.HostSend:
		switch status {
		case gonerc.StatusIdle:
			c.Add("send idle")
		case gonerc.StatusSpec:
			c.Add("send speculative")
		case gonerc.StatusSched:
			c.Add("send scheduled")
		case gonerc.StatusStale:
			c.Add("send stale")
		}
	case gonerc.HostCtrlTx:
		switch status {
		case gonerc.StatusSpec:
			c.Add("ctrl_tx speculative")
		case gonerc.StatusSched:
			c.Add("ctrl_tx scheduled")
		}
	case gonerc.HostCtrlRx:
		switch {
		case status == gonerc.StatusIdle:
			c.Add("ctrl_rx idle")
		case !ended:
			c.Add("ctrl_rx scheduled")
		case resume > 0:
			c.Add("ctrl_rx ended, resume above 0")
		default:
			c.Add("ctrl_rx ended, resume 0")
		}
	case gonerc.HostClose:
		c.Add("close")
	}
}
