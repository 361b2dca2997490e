package blockeq

import (
	"fmt"
	"math"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/snyder"
	"github.com/nicgen/nicgen/golden/pipe"
	gsnyder "github.com/nicgen/nicgen/golden/snyder"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// swift's bench: the golden model (golden/snyder SwiftFxModel) in the
// shell's cycle contract; a stimulus whose time advances as a NIC clock
// does, so that a busy connection sees a few ACKs per delay (per-RTT
// decreases and VAI's RTTs end now and then), with delays around the
// target that alternate between congested and calm phases, and extremes
// (delay 0 and the largest, acked 0 and the largest); coverage of every
// outcome of an ACK.

var swiftIns = []string{"conn", "kind", "now", "delay", "hops", "acked"}

// swiftInsOf is the event fields the block has (SwiftFxParams.UsesNow).
func swiftInsOf(p gsnyder.SwiftFxParams) []string {
	if p.UsesNow() {
		return swiftIns
	}
	return append(swiftIns[:2:2], swiftIns[3:]...)
}

var swiftOuts = []string{"conn", "kind", "cwnd", "target", "congested", "decreased", "error"}

func init() {
	RegisterFamily("swift", Family{
		Bench: func(cfg blocks.Config, hd harness.Design, profile string, seed uint64) (*Bench, error) {
			p, err := snyder.SwiftOf(cfg)
			if err != nil {
				return nil, err
			}
			pm := newPortMap(hd)
			var names []string
			for _, n := range swiftInsOf(p.SwiftFxParams) {
				names = append(names, "s_event_"+n)
			}
			for _, n := range swiftOuts {
				names = append(names, "m_result_"+n)
			}
			if err := pm.must(names...); err != nil {
				return nil, err
			}
			if _, err := gsnyder.NewSwiftFxModel(p.Golden()); err != nil {
				return nil, err
			}
			ports := swiftPorts{sValid: pm.inIdx("s_event_valid"), mReady: pm.inIdx("m_result_ready"), sReady: pm.outIdx("s_event_ready"), mValid: pm.outIdx("m_result_valid")}
			for i, n := range swiftIns {
				ports.in[i] = pm.inIdx("s_event_" + n) // -1: the block has no time
			}
			for i, n := range swiftOuts {
				ports.out[i] = pm.outIdx("m_result_" + n)
			}
			ports.members = pm.outIdx("m_result_members") // -1: the plain shell
			if p.MergeSlots > 0 && ports.members < 0 {
				return nil, fmt.Errorf("blockeq: swift with merge_slots has no m_result_members")
			}
			newPipe := func() *gsnyder.SwiftFxPipeline {
				m, _ := gsnyder.NewSwiftFxModel(p.Golden())
				return snyder.SwiftGoldenPipeline(p, m)
			}
			cov := newSwiftCoverage(p)
			prof := swiftProfileFor(p, profile)
			ref := &swiftRef{p: ports, pipe: newPipe(), newPipe: newPipe, cov: cov}
			stim := func() harness.Stimulus {
				d := newSwiftDraw(prof, seed)
				return &swiftStim{p: ports, d: d, h: newHandshake(ports.sValid, ports.mReady, ports.sReady, d.r, prof.pValid, prof.pReady)}
			}
			return &Bench{Ref: ref, Stim: stim, Coverage: cov}, nil
		},
		Vectors: swiftVectors,
	})
}

type swiftPorts struct {
	sValid, mReady, sReady, mValid int
	in                             [6]int
	out                            [7]int
	members                        int // m_result_members of a merging shell, or -1
}

type swiftRef struct {
	p       swiftPorts
	pipe    *gsnyder.SwiftFxPipeline
	newPipe func() *gsnyder.SwiftFxPipeline
	cov     *SwiftCoverage
}

func (r *swiftRef) Reset() { r.pipe = r.newPipe() }

func swiftEventOf(v [6]uint64) gsnyder.SwiftFxEvent {
	return gsnyder.SwiftFxEvent{Conn: uint32(v[0]), Kind: gsnyder.SwiftKind(v[1]), Now: v[2], Delay: v[3], Hops: v[4], Acked: v[5]}
}

func swiftResultFields(r *gsnyder.SwiftFxResult) [7]uint64 {
	return [7]uint64{uint64(r.Conn), uint64(r.Kind), r.Cwnd, r.Target, b2u(r.Congested), b2u(r.Decreased), b2u(r.Error)}
}

func (r *swiftRef) Cycle(in, out []uint64) {
	p := r.p
	var v [6]uint64
	for i, j := range p.in {
		if j >= 0 {
			v[i] = in[j]
		}
	}
	*r.pipe.Input() = swiftEventOf(v)
	mReady := in[p.mReady] == 1
	sReady, mValid, res := r.pipe.CyclePorts(in[p.sValid] == 1, mReady)
	out[p.sReady], out[p.mValid] = b2u(sReady), b2u(mValid)
	f := swiftResultFields(res)
	for i, j := range p.out {
		out[j] = f[i]
	}
	if p.members >= 0 {
		out[p.members] = uint64(res.Members)
	}
	if mValid && mReady {
		r.cov.count(res)
	}
}

// swiftProfile is the event mix of the swift stimulus.
type swiftProfile struct {
	numConn, active    uint64
	timeW, delayW      int
	hopW, ackW         int
	base, perHop, rng  uint64 // the target's parts, ns
	stepMax            uint64 // time advances by 0..stepMax ns per cycle
	pValid, pReady     float64
	pSame, pHot        float64
	hot                int
	phase              uint64 // events per congested or calm phase
	pExtreme, pErr     float64
	strides            uint64
	startNow           uint64
	onlyCong, onlyCalm bool
}

func swiftProfileFor(p snyder.SwiftParams, name string) swiftProfile {
	base := p.BaseNs + p.PerHopNs
	pr := swiftProfile{numConn: uint64(p.NumConn), active: uint64(p.NumConn), timeW: p.TimeW, delayW: p.DelayW, hopW: p.HopW, ackW: p.AckW,
		base: p.BaseNs, perHop: p.PerHopNs, rng: uint64(p.FBS.RangeNs),
		// a hot connection sees an event every ~25 cycles: a few per delay
		stepMax: max(2, 2*base/100), pValid: 0.9, pReady: 0.8, pSame: 0.1, pHot: 0.7, hot: 16,
		phase: 5_000, pExtreme: 0.01, pErr: 0.005, startNow: 1_000}
	switch name {
	case "same-conn":
		pr.pSame, pr.hot, pr.pHot = 1, 1, 1
	case "all-ecn":
		pr.onlyCong = true
	case "all-loss":
		pr.onlyCalm = true
	case "idle":
		pr.pValid = 0.1
	case "backpressure":
		pr.pReady = 0.2
	case "extremes":
		pr.pExtreme, pr.pErr = 0.3, 0.1
	case "wrap":
		pr.startNow = uint64(1)<<uint(p.TimeW) - 100*base
	case "hazard":
		pr.pValid, pr.pReady, pr.strides = 1, 0.8, hazardStrides
	}
	return pr
}

type swiftDraw struct {
	prof     swiftProfile
	r        *rng
	conns    localityPicker
	opened   uint64
	n        uint64
	now      uint64
	pExtreme threshold
	pErr     threshold
}

func newSwiftDraw(prof swiftProfile, seed uint64) *swiftDraw {
	r := newRNG(seed)
	d := &swiftDraw{prof: prof, r: r, now: prof.startNow, pExtreme: thresholdOf(prof.pExtreme), pErr: thresholdOf(prof.pErr)}
	d.conns = newLocalityPicker(r, prof.hot, prof.active, prof.pSame, prof.pHot)
	d.conns.Strides = prof.strides
	return d
}

func (d *swiftDraw) tick() { d.now += d.r.Below(d.prof.stepMax + 1) }

// maskBits is the low w bits of v.
func maskBits(v uint64, w int) uint64 { return v & (uint64(1)<<uint(w) - 1) }

// event draws conn, kind, now, delay, hops, acked.
func (d *swiftDraw) event() [6]uint64 {
	pr := d.prof
	now := maskBits(d.now, pr.timeW)
	if d.opened < pr.active {
		d.conns.Force(d.opened)
		d.opened++
		return [6]uint64{d.opened - 1, uint64(gsnyder.SwiftOpen), now}
	}
	d.n++
	conn := d.conns.Pick(d.r)
	hops := d.r.Below(min(uint64(1)<<uint(pr.hopW), 4))
	// calm: below the target without fbs; congested: up to fs_range past it
	floor := pr.base + hops*pr.perHop
	congested := (d.n/pr.phase)%2 == 0
	if pr.onlyCong || pr.onlyCalm {
		congested = pr.onlyCong
	}
	var delay uint64
	switch {
	case congested && d.r.Below(4) == 0: // far past any target: the largest decreases
		delay = 2*(floor+pr.rng) + d.r.Below(2*(floor+pr.rng))
	case congested:
		delay = floor/2 + d.r.Below(floor+pr.rng+1)
	default:
		delay = floor/2 + d.r.Below(floor/2+1)
	}
	acked := 1 + d.r.Below(3)
	if d.r.Hit(d.pExtreme) {
		switch d.r.Below(4) {
		case 0:
			delay = 0
		case 1:
			delay = uint64(1)<<uint(pr.delayW) - 1
		case 2:
			acked = 0
		default:
			acked = uint64(1)<<uint(pr.ackW) - 1
		}
	}
	delay, acked = maskBits(delay, pr.delayW), maskBits(acked, pr.ackW)
	kind := uint64(gsnyder.SwiftAck)
	if d.r.Hit(d.pErr) {
		switch d.r.Below(3) {
		case 0:
			conn = pr.numConn + d.r.Below(4)
		case 1:
			kind = uint64(gsnyder.SwiftNumKinds) + d.r.Below(2)
		default:
			kind = uint64(gsnyder.SwiftOpen) // a connection restarts
		}
	}
	return [6]uint64{conn, kind, now, delay, hops, acked}
}

type swiftStim struct {
	p swiftPorts
	d *swiftDraw
	h handshake
	v [6]uint64
}

func (s *swiftStim) Next(prevOut, in []uint64) {
	s.d.tick()
	if s.h.step(prevOut, in) {
		s.v = s.d.event()
	}
	for i, j := range s.p.in {
		if j >= 0 {
			in[j] = s.v[i]
		}
	}
}

// SwiftCoverage counts the outcomes of swift a run reached, from the
// golden results in execution order (each connection's last window kept).
type SwiftCoverage struct {
	caseCounts
	one, min, max uint64
	last          map[uint32]uint64
}

var swiftCases = []string{"open", "increase", "increase below one packet", "decrease", "congested, held",
	"window at min", "window at max", "error", "merged ack"}

func newSwiftCoverage(p snyder.SwiftParams) *SwiftCoverage {
	c := &SwiftCoverage{caseCounts: newCaseCounts(swiftCases), one: uint64(1) << uint(p.FracW), min: p.MinCwnd, max: p.MaxCwnd, last: map[uint32]uint64{}}
	c.skip["congested, held"] = p.SF > 0 // SF decreases on every congested ACK
	c.skip["merged ack"] = p.MergeSlots == 0
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
	c.skip["window at max"] = (f(p.MaxCwnd)*f(p.MaxCwnd)-f(p.InitCwnd)*f(p.InitCwnd))/(2*f(p.AIMax())*ackMax) > 5000
	c.skip["window at min"] = p.AI > p.MinCwnd
	return c
}

func (c *SwiftCoverage) count(r *gsnyder.SwiftFxResult) {
	if r.Error {
		c.counts["error"]++
		return
	}
	if r.Members > 1 {
		c.counts["merged ack"]++
	}
	last := c.last[r.Conn]
	c.last[r.Conn] = r.Cwnd
	switch {
	case r.Kind == gsnyder.SwiftOpen:
		c.counts["open"]++
		return
	case r.Decreased:
		c.counts["decrease"]++
	case r.Congested:
		c.counts["congested, held"]++
	case last < c.one:
		c.counts["increase below one packet"]++
	default:
		c.counts["increase"]++
	}
	switch r.Cwnd {
	case c.min:
		c.counts["window at min"]++
	case c.max:
		c.counts["window at max"]++
	}
}

// swiftVectors draws n events of the mixed profile on 64 connections with
// the golden model's answers.
func swiftVectors(cfg blocks.Config, block string, ports map[string]int, n int, seed uint64) (*VectorSet, error) {
	p, err := snyder.SwiftOf(cfg)
	if err != nil {
		return nil, err
	}
	m, err := gsnyder.NewSwiftFxModel(p.Golden())
	if err != nil {
		return nil, err
	}
	ins := swiftInsOf(p.SwiftFxParams)
	for _, f := range ins {
		if _, ok := ports["s_event_"+f]; len(ports) > 0 && !ok {
			return nil, fmt.Errorf("blockeq: swift has no port s_event_%s", f)
		}
	}
	flags := map[string]bool{"congested": true, "decreased": true, "error": true}
	cov := newSwiftCoverage(p)
	vs := &VectorSet{
		Header: VectorHeader{Block: block, Seed: seed, Events: n, Params: p.Golden(), Depth: p.Depth,
			Latency: pipe.Latency(p.Depth), Credits: pipe.Credits(p.Depth), Ports: ports, Kinds: snyder.SwiftKindNames},
		Events:   make([]VectorLine, 0, n),
		Coverage: cov,
	}
	prof := swiftProfileFor(p, "mixed")
	prof.active, prof.pSame = min(prof.numConn, 64), 0.3
	d := newSwiftDraw(prof, seed)
	for i := 0; i < n; i++ {
		for k := 0; k < 1+int(d.r.Below(3)); k++ {
			d.tick()
		}
		v := d.event()
		e := swiftEventOf(v)
		var r gsnyder.SwiftFxResult
		m.StepTo(&e, &r)
		cov.count(&r)
		line := &FieldVector{}
		for k, name := range swiftIns {
			if p.UsesNow() || name != "now" {
				line.In = append(line.In, NamedValue{Name: name, Value: v[k]})
			}
		}
		for k, x := range swiftResultFields(&r) {
			line.Expect = append(line.Expect, NamedValue{Name: swiftOuts[k], Value: x, Flag: flags[swiftOuts[k]]})
		}
		vs.Events = append(vs.Events, line)
	}
	return vs, nil
}

// RTLSwift is the Verilated swift behind golden/snyder's SwiftFxStepper
// (the convergence simulator's block).
type RTLSwift struct {
	S   *RTLStepper
	now bool
}

// NewRTLSwift maps swift's ports for parameters p.
func NewRTLSwift(b Built, p gsnyder.SwiftFxParams) (RTLSwift, error) {
	s, err := NewRTLStepper(b.Model, b.Design, swiftInsOf(p), swiftOuts)
	return RTLSwift{s, p.UsesNow()}, err
}

// StepTo runs one event through the hardware.
func (c RTLSwift) StepTo(e *gsnyder.SwiftFxEvent, r *gsnyder.SwiftFxResult) {
	var f [7]uint64
	in := []uint64{uint64(e.Conn), uint64(e.Kind), e.Now, e.Delay, e.Hops, e.Acked}
	if !c.now {
		in = append(in[:2], in[3:]...)
	}
	c.S.Step(in, f[:])
	*r = gsnyder.SwiftFxResult{Conn: uint32(f[0]), Kind: gsnyder.SwiftKind(f[1]), Cwnd: f[2], Target: f[3],
		Congested: f[4] == 1, Decreased: f[5] == 1, Error: f[6] == 1}
}
