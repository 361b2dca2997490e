package threecpo

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/stim"
	gthreecpo "github.com/nicgen/nicgen/golden/threecpo"
)

// irl_tokens's stimulus (block.Desc.Stimulus): GPU port cycles with the
// thesis's packets (a write takes 9 request and 1 response tokens, a read
// 1 and 9, a multicast write its flits plus matched remote flits, now and
// then beyond max_cost), watermark loads from WM_MAX down to 0 and past
// WM_MAX, each port's first event an open with its own seed (the table's
// power-on contents are random under cocotb); its coverage is every
// outcome.

// irlMix is the event mix of the irl_tokens stimulus.
type irlMix struct {
	ports, numConn uint64 // ports the stimulus uses; the table's
	wmMax, maxCost uint64
	costW, wmW     int
	stim.Shape
}

func irlMixFor(p IRLTokensParams, profile string) (irlMix, error) {
	m := irlMix{ports: uint64(min(p.NumConn, 64)), numConn: uint64(p.NumConn), wmMax: uint64(p.WMMax), maxCost: uint64(p.MaxCost),
		costW: p.CostW(), wmW: p.WMW(), Shape: stim.Shape{PValid: 0.9, PReady: 0.8, PSame: 0.5}}
	if m.Profile(profile, connpipe.MaxDepth+1) {
		return m, nil
	}
	switch profile {
	case "mixed", stim.Vectors:
	case "all-ecn", "all-loss", "extremes", "wrap":
		// irl_tokens has no ECN, losses or clock: these are the mix
	default:
		return m, fmt.Errorf("irl_tokens: no stimulus profile %q", profile)
	}
	return m, nil
}

type irlDraw struct {
	mix     irlMix
	r       *stim.Rand
	conns   stim.Locality
	touched []bool
}

func newIRLDraw(mix irlMix, r *stim.Rand) *irlDraw {
	d := &irlDraw{mix: mix, r: r, touched: make([]bool, mix.ports)}
	d.conns = mix.Locality(r, mix.ports)
	return d
}

// event draws the fields in IRLEventFields's order: conn, kind, seed,
// send, req_cost, rsp_cost, req_wm, rsp_wm.
func (d *irlDraw) event(v []uint64) {
	m := d.mix
	conn := d.conns.Pick(d.r)
	seed := d.r.Next() & 0xffffffff
	if seed == 0 {
		seed = 1
	}
	kind := gthreecpo.IRLTick
	switch x := d.r.Below(128); {
	case conn < uint64(len(d.touched)) && !d.touched[conn]:
		kind = gthreecpo.IRLOpen
	case x < 12:
		kind = gthreecpo.IRLSetWM
	case x == 12:
		kind = gthreecpo.IRLOpen
	}
	// a write (9 request flits, 1 response), a read (1 and 9), a
	// multicast write with matched remote flits, or costs out of range
	reqCost, rspCost := uint64(9), uint64(1)
	switch d.r.Below(8) {
	case 0, 1, 2:
		reqCost, rspCost = 1, 9
	case 3:
		reqCost += 9 * d.r.Below(m.maxCost/9)
	case 4:
		reqCost, rspCost = d.r.Below(m.maxCost+1), d.r.Below(10)
	}
	if d.r.Below(64) == 0 {
		reqCost = d.r.Next() & (uint64(1)<<uint(m.costW) - 1)
	}
	wm := func() uint64 {
		switch d.r.Below(8) {
		case 0:
			return m.wmMax
		case 1:
			return d.r.Next() & (uint64(1)<<uint(m.wmW) - 1) // past WM_MAX now and then
		case 2:
			return d.r.Below(m.wmMax / 16)
		}
		return d.r.Below(m.wmMax + 1)
	}
	v[0], v[1], v[2], v[3], v[4], v[5] = conn, uint64(kind), seed, block.Bit(d.r.Below(4) != 0), reqCost, rspCost
	v[6] = wm()
	v[7] = wm()
	switch d.r.Below(256) {
	case 0:
		v[0] = m.numConn + d.r.Below(4) // past the table (masked to the id's width)
	case 1:
		v[1] = uint64(gthreecpo.IRLNumKinds) // an unknown kind
	case 2:
		if kind == gthreecpo.IRLOpen {
			v[2] = 0 // an open without seed: an error
		}
	}
	if v[0] < m.ports && v[1] == uint64(gthreecpo.IRLOpen) && v[2] != 0 {
		d.touched[v[0]] = true
	}
}

// irlStimulus is irl_tokens's block.Desc.Stimulus.
func irlStimulus(p IRLTokensParams, profile string, r *stim.Rand) (stim.Source, stim.Coverage, error) {
	mix, err := irlMixFor(p, profile)
	if err != nil {
		return stim.Source{}, nil, err
	}
	d := newIRLDraw(mix, r)
	return mix.Source(nil, d.event), newIRLCoverage(p), nil
}

// irlCoverage counts the outcomes of irl_tokens a run reached, from the
// results in IRLResultFields's order (the counters in two's complement of
// the token width).
type irlCoverage struct {
	stim.Cases
	cap  int64
	tokW int
}

func newIRLCoverage(p IRLTokensParams) *irlCoverage {
	c := &irlCoverage{Cases: stim.NewCases("open", "cycle, sent", "cycle, refused without tokens", "cycle, refused over max_cost",
		"cycle, no request", "request token", "no request token", "response token", "no response token", "counter negative",
		"counter at cap", "set_wm", "error"), cap: int64(p.Cap), tokW: p.TokW()}
	// a send needs one token and takes at most max_cost: with max_cost 1
	// a counter never falls below 0
	c.Skip("counter negative", p.MaxCost <= 1)
	return c
}

// signed is a counter's value from its tokW bits.
func (c *irlCoverage) signed(v uint64) int64 {
	sh := uint(64 - c.tokW)
	return int64(v<<sh) >> sh
}

func (c *irlCoverage) Count(res []uint64) {
	kind, sent, refused, newReq, newRsp, maySend := gthreecpo.IRLKind(res[1]), res[2] == 1, res[3] == 1, res[4] == 1, res[5] == 1, res[8] == 1
	if res[9] == 1 {
		c.Add("error")
		return
	}
	req, rsp := c.signed(res[6]), c.signed(res[7])
	if req < 0 || rsp < 0 {
		c.Add("counter negative")
	}
	if req == c.cap || rsp == c.cap {
		c.Add("counter at cap")
	}
	switch kind {
	case gthreecpo.IRLOpen:
		c.Add("open")
	case gthreecpo.IRLSetWM:
		c.Add("set_wm")
	case gthreecpo.IRLTick:
		switch {
		case sent:
			c.Add("cycle, sent")
		case refused && maySend:
			c.Add("cycle, refused over max_cost")
		case refused:
			c.Add("cycle, refused without tokens")
		default:
			c.Add("cycle, no request")
		}
		c.Add(map[bool]string{true: "request token", false: "no request token"}[newReq])
		c.Add(map[bool]string{true: "response token", false: "no response token"}[newRsp])
	}
}
