package blockeq

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/srp"
	"github.com/nicgen/nicgen/golden/pipe"
	gsrp "github.com/nicgen/nicgen/golden/srp"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// srp_ttw's bench: the golden model (golden/srp) in the shell's cycle
// contract, a stimulus whose time advances so that a packet reaches the
// head of its slot around its TTW and whose headers lie around the TTW
// (or, for deadlines, around now), and coverage of every outcome.

func init() {
	RegisterFamily("srp_ttw", Family{
		Bench: func(cfg blocks.Config, hd harness.Design, profile string, seed uint64) (*Bench, error) {
			p, err := srp.TTWOf(cfg)
			if err != nil {
				return nil, err
			}
			pm := newPortMap(hd)
			if err := pm.must("s_event_now", "s_event_hdr", "s_event_spec", "m_result_drop", "m_result_hdr", "m_result_empty"); err != nil {
				return nil, err
			}
			if _, err := gsrp.NewTTWModel(p.Golden()); err != nil {
				return nil, err
			}
			ports := ttwPorts{
				sValid: pm.inIdx("s_event_valid"), sConn: pm.inIdx("s_event_conn"), sKind: pm.inIdx("s_event_kind"),
				sNow: pm.inIdx("s_event_now"), sHdr: pm.inIdx("s_event_hdr"), sSpec: pm.inIdx("s_event_spec"), mReady: pm.inIdx("m_result_ready"),
				sReady: pm.outIdx("s_event_ready"), mValid: pm.outIdx("m_result_valid"), mConn: pm.outIdx("m_result_conn"),
				mKind: pm.outIdx("m_result_kind"), mDrop: pm.outIdx("m_result_drop"), mSpec: pm.outIdx("m_result_spec"),
				mHdr: pm.outIdx("m_result_hdr"), mEmpty: pm.outIdx("m_result_empty"), mErr: pm.outIdx("m_result_error"),
			}
			newPipe := func() *gsrp.TTWPipeline {
				m, _ := gsrp.NewTTWModel(p.Golden())
				return gsrp.NewTTWPipeline(m, p.Depth)
			}
			cov := newTTWCoverage(p.Mode)
			prof := ttwProfileFor(p, profile)
			ref := &ttwRef{p: ports, pipe: newPipe(), newPipe: newPipe, cov: cov}
			stim := func() harness.Stimulus {
				d := newTTWDraw(prof, seed)
				return &ttwStim{p: ports, d: d, h: newHandshake(ports.sValid, ports.mReady, ports.sReady, d.r, prof.pValid, prof.pReady)}
			}
			return &Bench{Ref: ref, Stim: stim, Coverage: cov}, nil
		},
		Vectors: ttwVectors,
	})
}

type ttwPorts struct {
	sValid, sConn, sKind, sNow, sHdr, sSpec, mReady          int
	sReady, mValid, mConn, mKind, mDrop, mSpec, mHdr, mEmpty int
	mErr                                                     int
}

type ttwRef struct {
	p       ttwPorts
	pipe    *gsrp.TTWPipeline
	newPipe func() *gsrp.TTWPipeline
	cov     *TTWCoverage
}

func (r *ttwRef) Reset() { r.pipe = r.newPipe() }

func (r *ttwRef) Cycle(in, out []uint64) {
	p := r.p
	e := r.pipe.Input()
	e.Conn, e.Kind, e.Now, e.Hdr, e.Spec = uint32(in[p.sConn]), gsrp.TTWKind(in[p.sKind]), in[p.sNow], in[p.sHdr], in[p.sSpec] == 1
	mReady := in[p.mReady] == 1
	sReady, mValid, res := r.pipe.CyclePorts(in[p.sValid] == 1, mReady)
	out[p.sReady], out[p.mValid] = b2u(sReady), b2u(mValid)
	out[p.mConn], out[p.mKind], out[p.mDrop], out[p.mSpec] = uint64(res.Conn), uint64(res.Kind), b2u(res.Drop), b2u(res.Spec)
	out[p.mHdr], out[p.mEmpty], out[p.mErr] = res.Hdr, b2u(res.Empty), b2u(res.Error)
	if mValid && mReady {
		r.cov.count(res)
	}
}

// ttwProfile is the event mix of the srp_ttw stimulus.
type ttwProfile struct {
	slots          uint64
	timeW, hdrW    int
	mode           gsrp.TTWMode
	ttw            uint64
	stepMax        uint64
	pValid, pReady float64
	pArrive, pSpec float64
	pSame          float64
	strides        uint64
}

func ttwProfileFor(p srp.TTWParams, name string) ttwProfile {
	// a slot comes back every ~2 x slots events; TTW / slots ticks per
	// cycle on average puts about a TTW between a packet's arrival and its
	// head
	pr := ttwProfile{slots: uint64(p.NumConn), timeW: p.TimeW, hdrW: p.HdrW, mode: p.Mode, ttw: p.TTW,
		stepMax: max(1, 2*p.TTW/uint64(p.NumConn)), pValid: 0.9, pReady: 0.8, pArrive: 0.5, pSpec: 0.7, pSame: 0.1}
	switch name {
	case "same-conn":
		pr.pSame = 1
	case "idle":
		pr.pValid = 0.1
	case "backpressure":
		pr.pReady = 0.2
	case "wrap":
		pr.stepMax = uint64(1) << uint(max(p.TimeW-10, 4))
	case "hazard":
		pr.pValid, pr.pReady, pr.strides = 1, 0.8, hazardStrides
	}
	return pr
}

type ttwDraw struct {
	prof   ttwProfile
	r      *rng
	conns  localityPicker
	opened uint64
	now    uint64
	pArr   threshold
	pSpec  threshold
}

func newTTWDraw(prof ttwProfile, seed uint64) *ttwDraw {
	r := newRNG(seed)
	d := &ttwDraw{prof: prof, r: r, pArr: thresholdOf(prof.pArrive), pSpec: thresholdOf(prof.pSpec)}
	d.conns = newLocalityPicker(r, 0, prof.slots, prof.pSame, 0)
	d.conns.Strides = prof.strides
	d.now = uint64(1)<<uint(prof.timeW) - 20*prof.ttw // wrap early
	return d
}

func (d *ttwDraw) tick() { d.now += d.r.Below(d.prof.stepMax + 1) }

// event draws conn, kind, now, hdr, spec.
func (d *ttwDraw) event() (conn, kind, now, hdr, spec uint64) {
	tmask := uint64(1)<<uint(d.prof.timeW) - 1
	now = d.now & tmask
	if d.opened < d.prof.slots {
		d.conns.Force(d.opened)
		d.opened++
		return d.opened - 1, uint64(gsrp.TTWOpen), now, 0, 0
	}
	conn = d.conns.Pick(d.r)
	switch d.r.Below(200) {
	case 0:
		return d.prof.slots + d.r.Below(4), uint64(gsrp.TTWHead), now, 0, 0 // an error
	case 1:
		return conn, uint64(gsrp.TTWNumKinds), now, 0, 0 // an unknown kind
	case 2:
		return conn, uint64(gsrp.TTWOpen), now, 0, 0
	}
	if !d.r.Hit(d.pArr) {
		return conn, uint64(gsrp.TTWHead), now, 0, 0
	}
	spec = b2u(d.r.Hit(d.pSpec))
	t := d.prof.ttw
	switch d.prof.mode {
	case gsrp.TTWDeadline:
		hdr = (now + t - t/4 + d.r.Below(t/2+1)) & tmask // a deadline about a TTW ahead, a few already past
		if d.r.Below(16) == 0 {
			hdr = (now - 1 - d.r.Below(t)) & tmask
		}
	default:
		hdr = d.r.Below(t + t/8 + 1) // an accumulated wait around the TTW
		if d.r.Below(64) == 0 {
			hdr = d.r.Next() & (uint64(1)<<uint(d.prof.hdrW) - 1)
		}
	}
	return conn, uint64(gsrp.TTWArrive), now, hdr, spec
}

type ttwStim struct {
	p                          ttwPorts
	d                          *ttwDraw
	h                          handshake
	conn, kind, now, hdr, spec uint64
}

func (s *ttwStim) Next(prevOut, in []uint64) {
	s.d.tick()
	if s.h.step(prevOut, in) {
		s.conn, s.kind, s.now, s.hdr, s.spec = s.d.event()
	}
	in[s.p.sConn], in[s.p.sKind], in[s.p.sNow], in[s.p.sHdr], in[s.p.sSpec] = s.conn, s.kind, s.now, s.hdr, s.spec
}

// TTWCoverage counts the outcomes of srp_ttw a run reached.
type TTWCoverage struct{ caseCounts }

// newTTWCoverage expects every case but drops at arrival in the per_hop
// mode, which never drops there.
func newTTWCoverage(mode gsrp.TTWMode) *TTWCoverage {
	c := &TTWCoverage{newCaseCounts(ttwCases)}
	c.skip["arrive dropped"] = mode == gsrp.TTWPerHop
	return c
}

var ttwCases = []string{"open", "arrive kept", "arrive dropped", "head forwarded (speculative)", "head dropped (NACK)",
	"head scheduled", "head empty", "error"}

func (c *TTWCoverage) count(r *gsrp.TTWResult) {
	switch {
	case r.Error:
		c.counts["error"]++
	case r.Kind == gsrp.TTWOpen:
		c.counts["open"]++
	case r.Kind == gsrp.TTWArrive && r.Drop:
		c.counts["arrive dropped"]++
	case r.Kind == gsrp.TTWArrive:
		c.counts["arrive kept"]++
	case r.Empty:
		c.counts["head empty"]++
	case r.Drop:
		c.counts["head dropped (NACK)"]++
	case r.Spec:
		c.counts["head forwarded (speculative)"]++
	default:
		c.counts["head scheduled"]++
	}
}

// ttwVectors draws n events of the mixed profile, 1-3 cycles of time
// apart, with the golden model's answers.
func ttwVectors(cfg blocks.Config, block string, ports map[string]int, n int, seed uint64) (*VectorSet, error) {
	p, err := srp.TTWOf(cfg)
	if err != nil {
		return nil, err
	}
	m, err := gsrp.NewTTWModel(p.Golden())
	if err != nil {
		return nil, err
	}
	for _, f := range []string{"s_event_now", "s_event_hdr", "s_event_spec", "m_result_drop", "m_result_spec", "m_result_hdr", "m_result_empty"} {
		if _, ok := ports[f]; len(ports) > 0 && !ok {
			return nil, fmt.Errorf("blockeq: srp_ttw has no port %s", f)
		}
	}
	cov := newTTWCoverage(p.Mode)
	vs := &VectorSet{
		Header: VectorHeader{Block: block, Seed: seed, Events: n, Params: p.Golden(), Depth: p.Depth,
			Latency: pipe.Latency(p.Depth), Credits: pipe.Credits(p.Depth), Ports: ports, Kinds: srp.TTWKindNames},
		Events:   make([]VectorLine, 0, n),
		Coverage: cov,
	}
	d := newTTWDraw(ttwProfileFor(p, "mixed"), seed)
	for i := 0; i < n; i++ {
		for k := 0; k < 1+int(d.r.Below(3)); k++ {
			d.tick()
		}
		conn, kind, now, hdr, spec := d.event()
		e := gsrp.TTWEvent{Conn: uint32(conn), Kind: gsrp.TTWKind(kind), Now: now, Hdr: hdr, Spec: spec == 1}
		var r gsrp.TTWResult
		m.StepTo(&e, &r)
		cov.count(&r)
		line := &FieldVector{In: []NamedValue{{Name: "conn", Value: conn}, {Name: "kind", Value: kind}, {Name: "now", Value: now},
			{Name: "hdr", Value: hdr}, {Name: "spec", Value: spec}}}
		line.Expect = []NamedValue{{Name: "conn", Value: uint64(r.Conn)}, {Name: "kind", Value: uint64(r.Kind)},
			{Name: "drop", Value: b2u(r.Drop), Flag: true}, {Name: "spec", Value: b2u(r.Spec), Flag: true},
			{Name: "hdr", Value: r.Hdr}, {Name: "empty", Value: b2u(r.Empty), Flag: true}, {Name: "error", Value: b2u(r.Error), Flag: true}}
		vs.Events = append(vs.Events, line)
	}
	return vs, nil
}
