package blockeq

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/srp"
	"github.com/nicgen/nicgen/golden/pipe"
	gsrp "github.com/nicgen/nicgen/golden/srp"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// ecn_ipd's bench: the golden model (golden/srp) in the shell's cycle
// contract, a stimulus whose time advances as a NIC clock does and whose
// hot send queues alternate between congestion (notifications two events
// in three, so the IPD climbs to its ceiling) and calm (one in fifty, so
// it decays to 0), and coverage of every rule of the IPD.

func init() {
	RegisterFamily("ecn_ipd", Family{
		Bench: func(cfg blocks.Config, hd harness.Design, profile string, seed uint64) (*Bench, error) {
			p, err := srp.IPDOf(cfg)
			if err != nil {
				return nil, err
			}
			pm := newPortMap(hd)
			if err := pm.must("s_event_now", "m_result_ipd"); err != nil {
				return nil, err
			}
			if _, err := gsrp.NewIPDModel(p.Golden()); err != nil {
				return nil, err
			}
			cov := newIPDCoverage(p.Max, p.Inc)
			ports := ipdPorts{
				sValid: pm.inIdx("s_event_valid"), sConn: pm.inIdx("s_event_conn"), sKind: pm.inIdx("s_event_kind"),
				sNow: pm.inIdx("s_event_now"), mReady: pm.inIdx("m_result_ready"),
				sReady: pm.outIdx("s_event_ready"), mValid: pm.outIdx("m_result_valid"), mConn: pm.outIdx("m_result_conn"),
				mKind: pm.outIdx("m_result_kind"), mIPD: pm.outIdx("m_result_ipd"), mErr: pm.outIdx("m_result_error"),
				mMembers: pm.outIdx("m_result_members"),
			}
			newPipe := func() *gsrp.IPDPipeline {
				m, _ := gsrp.NewIPDModel(p.Golden())
				return pipe.NewShell[gsrp.IPDEvent, gsrp.IPDResult](m, p.Depth, p.WaitSlots, nil)
			}
			prof := ipdProfileFor(p, profile)
			ref := &ipdRef{p: ports, pipe: newPipe(), newPipe: newPipe, cov: cov}
			stim := func() harness.Stimulus {
				d := newIPDDraw(prof, seed)
				return &ipdStim{p: ports, d: d, h: newHandshake(ports.sValid, ports.mReady, ports.sReady, d.r, prof.pValid, prof.pReady)}
			}
			return &Bench{Ref: ref, Stim: stim, Coverage: cov}, nil
		},
		Vectors: ipdVectors,
	})
}

type ipdPorts struct {
	sValid, sConn, sKind, sNow, mReady       int
	sReady, mValid, mConn, mKind, mIPD, mErr int
	mMembers                                 int // -1 without wait slots
}

// ipdRef drives the golden ecn_ipd pipeline from port vectors.
type ipdRef struct {
	p       ipdPorts
	pipe    *gsrp.IPDPipeline
	newPipe func() *gsrp.IPDPipeline
	cov     *IPDCoverage
}

func (r *ipdRef) Reset() { r.pipe = r.newPipe() }

func (r *ipdRef) Cycle(in, out []uint64) {
	p := r.p
	e := r.pipe.Input()
	e.Conn, e.Kind, e.Now = uint32(in[p.sConn]), gsrp.IPDKind(in[p.sKind]), in[p.sNow]
	mReady := in[p.mReady] == 1
	sReady, mValid, res := r.pipe.CyclePorts(in[p.sValid] == 1, mReady)
	out[p.sReady], out[p.mValid] = b2u(sReady), b2u(mValid)
	out[p.mConn], out[p.mKind], out[p.mIPD], out[p.mErr] = uint64(res.Conn), uint64(res.Kind), res.IPD, b2u(res.Error)
	setMembers(out, p.mMembers, res.Error)
	if mValid && mReady {
		r.cov.count(res)
	}
}

// ipdProfile is the event mix of the ecn_ipd stimulus.
type ipdProfile struct {
	numConn, active  uint64  // queues, and the queues 0..active-1 the events use
	pConnErr         float64 // an id past the table (an error)
	timeW            int
	stepMax          uint64 // time advances by 0..stepMax ticks per cycle
	pValid, pReady   float64
	pSame, pHot      float64
	hot              int
	pCNHigh, pCNLow  float64 // notification probability in congested and calm phases
	phase            uint64  // events per phase
	pKindErr         float64 // an unknown kind
	strides          uint64
	cnOnly, sendOnly bool
}

// ipdProfileFor adapts the mix to a named profile (profiles.go): all-ecn
// is notifications only, all-loss sends only (the IPD only decays).
func ipdProfileFor(p srp.IPDParams, name string) ipdProfile {
	// a hot queue sees an event every ~25 cycles; t-/50 ticks per cycle on
	// average puts about half a t- between its events
	pr := ipdProfile{numConn: uint64(p.NumConn), active: uint64(p.NumConn), pConnErr: 0.01, timeW: p.TimeW,
		stepMax: max(1, p.Period/25), pValid: 0.9, pReady: 0.8, pSame: 0.1, pHot: 0.7, hot: 16,
		pCNHigh: 0.67, pCNLow: 0.02, phase: 20_000, pKindErr: 0.005}
	switch name {
	case "same-conn":
		pr.pSame, pr.hot, pr.pHot = 1, 1, 1
	case "all-ecn":
		pr.cnOnly = true
	case "all-loss":
		pr.sendOnly = true
	case "idle":
		pr.pValid = 0.1
	case "backpressure":
		pr.pReady = 0.2
	case "extremes":
		pr.pConnErr, pr.pKindErr = 0.3, 0.1
	case "wrap":
		pr.stepMax = uint64(1) << uint(max(p.TimeW-10, 4))
	case "hazard":
		pr.pValid, pr.pReady, pr.strides = 1, 0.8, hazardStrides
	}
	return pr
}

// ipdDraw draws ecn_ipd events: queues 0 .. active-1 opened first, then
// events on them with locality, an id past the table or an unknown kind
// now and then.
type ipdDraw struct {
	prof           ipdProfile
	r              *rng
	conns          localityPicker
	opened, n      uint64
	now            uint64
	pCNHigh, pCNLo threshold
	pKindErr       threshold
	pConnErr       threshold
}

func newIPDDraw(prof ipdProfile, seed uint64) *ipdDraw {
	r := newRNG(seed)
	d := &ipdDraw{prof: prof, r: r, pCNHigh: thresholdOf(prof.pCNHigh), pCNLo: thresholdOf(prof.pCNLow), pKindErr: thresholdOf(prof.pKindErr), pConnErr: thresholdOf(prof.pConnErr)}
	d.conns = newLocalityPicker(r, prof.hot, prof.active, prof.pSame, prof.pHot)
	d.conns.strides = prof.strides
	d.now = uint64(1)<<uint(prof.timeW) - 50_000 // wrap early
	return d
}

// tick advances the time by one cycle.
func (d *ipdDraw) tick() { d.now += d.r.below(d.prof.stepMax + 1) }

// event draws the next event: conn, kind, now (masked to the width).
func (d *ipdDraw) event() (conn, kind, now uint64) {
	now = d.now & (uint64(1)<<uint(d.prof.timeW) - 1)
	if d.opened < d.prof.active {
		d.conns.force(d.opened)
		d.opened++
		return d.opened - 1, uint64(gsrp.IPDOpen), now
	}
	d.n++
	conn = d.conns.pick(d.r)
	if d.r.hit(d.pConnErr) {
		conn = d.prof.numConn + d.r.below(4)
	}
	switch {
	case d.r.hit(d.pKindErr):
		return conn, uint64(gsrp.IPDNumKinds), now
	case d.prof.cnOnly:
		return conn, uint64(gsrp.IPDCN), now
	case d.prof.sendOnly:
		return conn, uint64(gsrp.IPDSend), now
	}
	pCN := d.pCNLo
	if (d.n/d.prof.phase)%2 == 0 {
		pCN = d.pCNHigh
	}
	switch {
	case d.r.below(1000) == 0:
		kind = uint64(gsrp.IPDOpen) // a queue restarts
	case d.r.hit(pCN):
		kind = uint64(gsrp.IPDCN)
	default:
		kind = uint64(gsrp.IPDSend)
	}
	return conn, kind, now
}

// ipdStim is the harness stimulus of ecn_ipd.
type ipdStim struct {
	p               ipdPorts
	d               *ipdDraw
	h               handshake
	conn, kind, now uint64
}

func (s *ipdStim) Next(prevOut, in []uint64) {
	s.d.tick()
	if s.h.step(prevOut, in) {
		s.conn, s.kind, s.now = s.d.event()
	}
	in[s.p.sConn], in[s.p.sKind], in[s.p.sNow] = s.conn, s.kind, s.now
}

// IPDCoverage counts the rules of ecn_ipd a run reached, from the golden
// results in execution order (each queue's previous IPD is kept).
type IPDCoverage struct {
	caseCounts
	max, inc uint64
	last     map[uint32]uint64
}

func newIPDCoverage(max, inc uint64) *IPDCoverage {
	return &IPDCoverage{caseCounts: newCaseCounts(ipdCases), max: max, inc: inc, last: map[uint32]uint64{}}
}

var ipdCases = []string{"open", "cn raised", "cn at ceiling", "cn after decrements", "send unchanged",
	"send decayed partly", "send decayed to 0", "error"}

func (c *IPDCoverage) count(r *gsrp.IPDResult) {
	if r.Error {
		c.counts["error"]++
		return
	}
	last := c.last[r.Conn]
	c.last[r.Conn] = r.IPD
	switch r.Kind {
	case gsrp.IPDOpen:
		c.counts["open"]++
	case gsrp.IPDCN:
		switch {
		case r.IPD == c.max:
			c.counts["cn at ceiling"]++
		case r.IPD < min(c.max, last+c.inc):
			c.counts["cn after decrements"]++
		default:
			c.counts["cn raised"]++
		}
	case gsrp.IPDSend:
		switch {
		case r.IPD == last:
			c.counts["send unchanged"]++
		case r.IPD == 0:
			c.counts["send decayed to 0"]++
		default:
			c.counts["send decayed partly"]++
		}
	}
}

// ipdVectors draws n events of the mixed profile on 64 queues, 1-3
// cycles of time apart, with the golden model's answers.
func ipdVectors(cfg blocks.Config, block string, ports map[string]int, n int, seed uint64) (*VectorSet, error) {
	p, err := srp.IPDOf(cfg)
	if err != nil {
		return nil, err
	}
	if err := vectorsTakeNoSlots(block, p.WaitSlots); err != nil {
		return nil, err
	}
	m, err := gsrp.NewIPDModel(p.Golden())
	if err != nil {
		return nil, err
	}
	cov := newIPDCoverage(p.Max, p.Inc)
	vs := &VectorSet{
		Header: VectorHeader{Block: block, Seed: seed, Events: n, Params: p.Golden(), Depth: p.Depth,
			Latency: pipe.Latency(p.Depth), Credits: pipe.Credits(p.Depth), Ports: ports, Kinds: srp.IPDKindNames},
		Events:   make([]VectorLine, 0, n),
		Coverage: cov,
	}
	// 64 queues, opened in the first 64 events, and hazards from the start
	prof := ipdProfileFor(p, "mixed")
	prof.active, prof.pSame = min(prof.numConn, 64), 0.3
	d := newIPDDraw(prof, seed)
	for i := 0; i < n; i++ {
		for k := 0; k < 1+int(d.r.below(3)); k++ {
			d.tick()
		}
		conn, kind, now := d.event()
		e := gsrp.IPDEvent{Conn: uint32(conn), Kind: gsrp.IPDKind(kind), Now: now}
		var r gsrp.IPDResult
		m.StepTo(&e, &r)
		cov.count(&r)
		line := &FieldVector{In: []NamedValue{{Name: "conn", Value: conn}, {Name: "kind", Value: kind}, {Name: "now", Value: now}}}
		line.Expect = []NamedValue{{Name: "conn", Value: uint64(r.Conn)}, {Name: "kind", Value: uint64(r.Kind)},
			{Name: "ipd", Value: r.IPD}, {Name: "error", Value: b2u(r.Error), Flag: true}}
		vs.Events = append(vs.Events, line)
	}
	if len(ports) > 0 {
		for _, f := range []string{"s_event_conn", "s_event_kind", "s_event_now", "m_result_ipd", "m_result_error"} {
			if _, ok := ports[f]; !ok {
				return nil, fmt.Errorf("blockeq: ecn_ipd has no port %s", f)
			}
		}
	}
	return vs, nil
}
