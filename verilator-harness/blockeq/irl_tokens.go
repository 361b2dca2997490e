package blockeq

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/threecpo"
	"github.com/nicgen/nicgen/golden/pipe"
	gthreecpo "github.com/nicgen/nicgen/golden/threecpo"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// irl_tokens's bench: the golden model (golden/threecpo IRLTable) in the
// shell's cycle contract; a stimulus of GPU port cycles with the thesis's
// packets (a write takes 9 request and 1 response tokens, a read 1 and 9,
// a multicast write its flits plus matched remote flits, now and then
// beyond max_cost), watermark loads from WM_MAX down to 0 and past WM_MAX,
// each port's first event an open with its own seed (the table's power-on
// contents are random under cocotb), and coverage of every outcome.

func init() {
	RegisterFamily("irl_tokens", Family{
		Bench: func(cfg blocks.Config, hd harness.Design, profile string, seed uint64) (*Bench, error) {
			p, err := threecpo.IRLTokensOf(cfg)
			if err != nil {
				return nil, err
			}
			ports, err := newFieldPorts(hd, threecpo.IRLEventFields, threecpo.IRLResultFields)
			if err != nil {
				return nil, err
			}
			if _, err := gthreecpo.NewIRLTable(p.IRLTableParams); err != nil {
				return nil, err
			}
			newPipe := func() *gthreecpo.IRLPipeline {
				t, _ := gthreecpo.NewIRLTable(p.IRLTableParams)
				return pipe.NewShell[gthreecpo.IRLEvent, gthreecpo.IRLEventResult](t, p.Depth, p.WaitSlots, nil)
			}
			cov := newIRLCoverage(p)
			prof := irlProfileFor(p, profile)
			tokW := p.TokW()
			ref := &fieldRef[gthreecpo.IRLEvent, gthreecpo.IRLEventResult]{p: ports, pipe: newPipe(), newPipe: newPipe,
				eventOf: threecpo.IRLEventOf, values: func(r *gthreecpo.IRLEventResult, out []uint64) { threecpo.IRLResultValues(r, tokW, out) },
				count: cov.count}
			stim := func() harness.Stimulus {
				d := newIRLDraw(prof, seed)
				return &fieldStim{p: ports, draw: d.event, h: newHandshake(ports.sValid, ports.mReady, ports.sReady, d.r, prof.pValid, prof.pReady)}
			}
			return &Bench{Ref: ref, Stim: stim, Coverage: cov}, nil
		},
		Vectors: irlVectors,
	})
}

// irlProfile is the event mix of the irl_tokens stimulus.
type irlProfile struct {
	ports, numConn        uint64 // ports the stimulus uses; the table's
	wmMax, maxCost        uint64
	costW, wmW            int
	pValid, pReady, pSame float64
	strides               uint64
}

func irlProfileFor(p threecpo.IRLTokensParams, name string) irlProfile {
	pr := irlProfile{ports: uint64(min(p.NumConn, 64)), numConn: uint64(p.NumConn), wmMax: uint64(p.WMMax), maxCost: uint64(p.MaxCost),
		costW: p.CostW(), wmW: p.WMW(), pValid: 0.9, pReady: 0.8, pSame: 0.5}
	switch name {
	case "same-conn":
		pr.pSame = 1
	case "idle":
		pr.pValid = 0.1
	case "backpressure":
		pr.pReady = 0.2
	case "hazard":
		pr.pValid, pr.pReady, pr.strides = 1, 0.8, hazardStrides
	}
	return pr
}

type irlDraw struct {
	prof    irlProfile
	r       *rng
	conns   localityPicker
	touched []bool
}

func newIRLDraw(prof irlProfile, seed uint64) *irlDraw {
	r := newRNG(seed)
	d := &irlDraw{prof: prof, r: r, touched: make([]bool, prof.ports)}
	d.conns = newLocalityPicker(r, 0, prof.ports, prof.pSame, 0)
	d.conns.Strides = prof.strides
	return d
}

// event draws the fields in threecpo.IRLEventFields's order: conn, kind,
// seed, send, req_cost, rsp_cost, req_wm, rsp_wm.
func (d *irlDraw) event() []uint64 {
	pr := d.prof
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
		reqCost += 9 * d.r.Below(pr.maxCost/9)
	case 4:
		reqCost, rspCost = d.r.Below(pr.maxCost+1), d.r.Below(10)
	}
	if d.r.Below(64) == 0 {
		reqCost = d.r.Next() & (uint64(1)<<uint(pr.costW) - 1)
	}
	wm := func() uint64 {
		switch d.r.Below(8) {
		case 0:
			return pr.wmMax
		case 1:
			return d.r.Next() & (uint64(1)<<uint(pr.wmW) - 1) // past WM_MAX now and then
		case 2:
			return d.r.Below(pr.wmMax / 16)
		}
		return d.r.Below(pr.wmMax + 1)
	}
	v := []uint64{conn, uint64(kind), seed, b2u(d.r.Below(4) != 0), reqCost, rspCost, wm(), wm()}
	switch d.r.Below(256) {
	case 0:
		v[0] = pr.numConn + d.r.Below(4) // past the table (masked to the id's width)
	case 1:
		v[1] = uint64(gthreecpo.IRLNumKinds) // an unknown kind
	case 2:
		if kind == gthreecpo.IRLOpen {
			v[2] = 0 // an open without seed: an error
		}
	}
	if v[0] < pr.ports && v[1] == uint64(gthreecpo.IRLOpen) && v[2] != 0 {
		d.touched[v[0]] = true
	}
	return v
}

// IRLCoverage counts the outcomes of irl_tokens a run reached.
type IRLCoverage struct {
	caseCounts
	cap int32
}

var irlCases = []string{"open", "cycle, sent", "cycle, refused without tokens", "cycle, refused over max_cost", "cycle, no request",
	"request token", "no request token", "response token", "no response token", "counter negative", "counter at cap",
	"set_wm", "error"}

func newIRLCoverage(p threecpo.IRLTokensParams) *IRLCoverage {
	c := &IRLCoverage{newCaseCounts(irlCases), p.Cap}
	// a send needs one token and takes at most max_cost: with max_cost 1
	// a counter never falls below 0
	c.skip["counter negative"] = p.MaxCost <= 1
	return c
}

func (c *IRLCoverage) count(r *gthreecpo.IRLEventResult) {
	if r.Error {
		c.counts["error"]++
		return
	}
	if r.Req < 0 || r.Rsp < 0 {
		c.counts["counter negative"]++
	}
	if r.Req == c.cap || r.Rsp == c.cap {
		c.counts["counter at cap"]++
	}
	switch r.Kind {
	case gthreecpo.IRLOpen:
		c.counts["open"]++
	case gthreecpo.IRLSetWM:
		c.counts["set_wm"]++
	case gthreecpo.IRLTick:
		switch {
		case r.Sent:
			c.counts["cycle, sent"]++
		case r.Refused && r.MaySend:
			c.counts["cycle, refused over max_cost"]++
		case r.Refused:
			c.counts["cycle, refused without tokens"]++
		default:
			c.counts["cycle, no request"]++
		}
		c.counts[map[bool]string{true: "request token", false: "no request token"}[r.NewReq]]++
		c.counts[map[bool]string{true: "response token", false: "no response token"}[r.NewRsp]]++
	}
}

// irlVectors draws n events of the mixed profile with the golden model's
// answers.
func irlVectors(cfg blocks.Config, block string, ports map[string]int, n int, seed uint64) (*VectorSet, error) {
	p, err := threecpo.IRLTokensOf(cfg)
	if err != nil {
		return nil, err
	}
	if err := vectorsTakeNoSlots(block, p.WaitSlots); err != nil {
		return nil, err
	}
	t, err := gthreecpo.NewIRLTable(p.IRLTableParams)
	if err != nil {
		return nil, err
	}
	for _, f := range threecpo.IRLEventFields {
		if _, ok := ports["s_event_"+f]; len(ports) > 0 && !ok {
			return nil, fmt.Errorf("blockeq: irl_tokens has no port s_event_%s", f)
		}
	}
	flags := map[string]bool{"sent": true, "refused": true, "new_req": true, "new_rsp": true, "may_send": true, "error": true}
	cov := newIRLCoverage(p)
	vs := &VectorSet{
		Header: VectorHeader{Block: block, Seed: seed, Events: n, Params: p.IRLTableParams, Depth: p.Depth,
			Latency: pipe.Latency(p.Depth), Credits: pipe.Credits(p.Depth), Ports: ports, Kinds: threecpo.IRLKindNames},
		Events:   make([]VectorLine, 0, n),
		Coverage: cov,
	}
	d := newIRLDraw(irlProfileFor(p, "mixed"), seed)
	res := make([]uint64, len(threecpo.IRLResultFields))
	for i := 0; i < n; i++ {
		v := d.event()
		e := threecpo.IRLEventOf(v)
		var r gthreecpo.IRLEventResult
		t.StepTo(&e, &r)
		cov.count(&r)
		threecpo.IRLResultValues(&r, p.TokW(), res)
		line := &FieldVector{}
		for k, name := range threecpo.IRLEventFields {
			line.In = append(line.In, NamedValue{Name: name, Value: v[k]})
		}
		for k, x := range res {
			name := threecpo.IRLResultFields[k]
			line.Expect = append(line.Expect, NamedValue{Name: name, Value: x, Flag: flags[name]})
		}
		vs.Events = append(vs.Events, line)
	}
	return vs, nil
}
