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

// hpcc's bench: the golden model (golden/snyder HPCCFxModel) in the
// shell's cycle contract; a stimulus that models one bottleneck whose
// stamp advances as a NIC clock does and whose bytes-sent counter follows
// a load that alternates between calm phases (below eta, a short queue)
// and congested ones (above the link, a queue of a few BDPs), with each
// connection's sequence numbers running ahead of its last RTT's end;
// extremes (a stamp repeated or older, an interval past the base RTT, the
// largest queue); coverage of every outcome of an ACK.

var hpccIns = []string{"conn", "kind", "seq", "snd_nxt", "qlen", "tx_bytes", "ts"}
var hpccOuts = []string{"conn", "kind", "cwnd", "u", "congested", "moved", "error"}

func init() {
	RegisterFamily("hpcc", Family{
		Bench: func(cfg blocks.Config, hd harness.Design, profile string, seed uint64) (*Bench, error) {
			p, err := snyder.HPCCOf(cfg)
			if err != nil {
				return nil, err
			}
			pm := newPortMap(hd)
			var names []string
			for _, n := range hpccIns {
				names = append(names, "s_event_"+n)
			}
			for _, n := range hpccOuts {
				names = append(names, "m_result_"+n)
			}
			if err := pm.must(names...); err != nil {
				return nil, err
			}
			if _, err := gsnyder.NewHPCCFxModel(p.Golden()); err != nil {
				return nil, err
			}
			ports := hpccPorts{sValid: pm.inIdx("s_event_valid"), mReady: pm.inIdx("m_result_ready"), sReady: pm.outIdx("s_event_ready"), mValid: pm.outIdx("m_result_valid")}
			for i, n := range hpccIns {
				ports.in[i] = pm.inIdx("s_event_" + n)
			}
			for i, n := range hpccOuts {
				ports.out[i] = pm.outIdx("m_result_" + n)
			}
			ports.members = pm.outIdx("m_result_members") // -1: the plain shell
			if p.MergeSlots > 0 && ports.members < 0 {
				return nil, fmt.Errorf("blockeq: hpcc with merge_slots has no m_result_members")
			}
			newPipe := func() *gsnyder.HPCCFxPipeline {
				m, _ := gsnyder.NewHPCCFxModel(p.Golden())
				return snyder.HPCCGoldenPipeline(p, m)
			}
			cov := newHPCCCoverage(p)
			prof := hpccProfileFor(p, profile)
			ref := &hpccRef{p: ports, pipe: newPipe(), newPipe: newPipe, cov: cov}
			stim := func() harness.Stimulus {
				d := newHPCCDraw(prof, seed)
				return &hpccStim{p: ports, d: d, h: newHandshake(ports.sValid, ports.mReady, ports.sReady, d.r, prof.pValid, prof.pReady)}
			}
			return &Bench{Ref: ref, Stim: stim, Coverage: cov}, nil
		},
		Vectors: hpccVectors,
	})
}

type hpccPorts struct {
	sValid, mReady, sReady, mValid int
	in                             [7]int
	out                            [7]int
	members                        int // m_result_members of a merging shell, or -1
}

type hpccRef struct {
	p       hpccPorts
	pipe    *gsnyder.HPCCFxPipeline
	newPipe func() *gsnyder.HPCCFxPipeline
	cov     *HPCCCoverage
}

func (r *hpccRef) Reset() { r.pipe = r.newPipe() }

func hpccEventOf(v [7]uint64) gsnyder.HPCCFxEvent {
	return gsnyder.HPCCFxEvent{Conn: uint32(v[0]), Kind: gsnyder.HPCCKind(v[1]), Seq: v[2], SndNxt: v[3], QLen: v[4], TxB: v[5], Ts: v[6]}
}

func hpccResultFields(r *gsnyder.HPCCFxResult) [7]uint64 {
	return [7]uint64{uint64(r.Conn), uint64(r.Kind), r.Cwnd, r.U, b2u(r.Congested), b2u(r.Moved), b2u(r.Error)}
}

func (r *hpccRef) Cycle(in, out []uint64) {
	p := r.p
	var v [7]uint64
	for i, j := range p.in {
		v[i] = in[j]
	}
	*r.pipe.Input() = hpccEventOf(v)
	mReady := in[p.mReady] == 1
	sReady, mValid, res := r.pipe.CyclePorts(in[p.sValid] == 1, mReady)
	out[p.sReady], out[p.mValid] = b2u(sReady), b2u(mValid)
	f := hpccResultFields(res)
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

// hpccProfile is the event mix of the hpcc stimulus.
type hpccProfile struct {
	numConn, active       uint64
	timeW, seqW, qW, txW  int
	bpns                  float64 // the bottleneck's bytes per ns
	bdp                   uint64  // bytes
	stepMax               uint64  // the stamp advances by 0..stepMax ns per cycle
	pValid, pReady, pSame float64
	pHot                  float64
	hot                   int
	phase                 uint64
	pExtreme, pErr        float64
	strides               uint64
	startTs               uint64
	onlyCong, onlyCalm    bool
}

func hpccProfileFor(p snyder.HPCCParams, name string) hpccProfile {
	bdp := uint64(p.LinkBpns * float64(p.BaseRTTNs))
	pr := hpccProfile{numConn: uint64(p.NumConn), active: uint64(p.NumConn), timeW: p.TimeW, seqW: p.SeqW, qW: p.QW, txW: p.TxW,
		bpns: p.LinkBpns, bdp: max(bdp, 1), stepMax: max(2, 2*p.BaseRTTNs/100), pValid: 0.9, pReady: 0.8, pSame: 0.1, pHot: 0.7, hot: 16,
		phase: 5_000, pExtreme: 0.01, pErr: 0.005, startTs: 1_000}
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
		pr.startTs = uint64(1)<<uint(p.TimeW) - 1000*p.BaseRTTNs
	case "hazard":
		pr.pValid, pr.pReady, pr.strides = 1, 0.8, hazardStrides
	}
	return pr
}

type hpccDraw struct {
	prof     hpccProfile
	r        *rng
	conns    localityPicker
	opened   uint64
	n        uint64
	ts       uint64
	tx       float64
	q        float64
	seq      []uint64 // each connection's next sequence number
	pExtreme threshold
	pErr     threshold
}

func newHPCCDraw(prof hpccProfile, seed uint64) *hpccDraw {
	r := newRNG(seed)
	d := &hpccDraw{prof: prof, r: r, ts: prof.startTs, pExtreme: thresholdOf(prof.pExtreme), pErr: thresholdOf(prof.pErr),
		seq: make([]uint64, prof.active)}
	d.conns = newLocalityPicker(r, prof.hot, prof.active, prof.pSame, prof.pHot)
	d.conns.Strides = prof.strides
	return d
}

func (d *hpccDraw) congested() bool {
	if d.prof.onlyCong || d.prof.onlyCalm {
		return d.prof.onlyCong
	}
	return (d.n/d.prof.phase)%2 == 0
}

// tick advances the bottleneck by one cycle: the stamp, the bytes it sent
// (at 60-100% of the link when calm, 90-130% when congested, so that U
// passes eta) and its queue.
func (d *hpccDraw) tick() {
	step := d.r.Below(d.prof.stepMax + 1)
	d.ts += step
	load := 0.6 + 0.4*float64(d.r.Below(1001))/1000
	if d.congested() {
		load += 0.3
	}
	d.tx += d.prof.bpns * float64(step) * min(load, 1)
	d.q = max(0, min(d.q+d.prof.bpns*float64(step)*(load-1), float64(4*d.prof.bdp)))
}

// event draws conn, kind, seq, snd_nxt, qlen, tx_bytes, ts.
func (d *hpccDraw) event() [7]uint64 {
	pr := d.prof
	if d.opened < pr.active {
		d.conns.Force(d.opened)
		d.opened++
		c := d.opened - 1
		d.seq[c] = d.r.Below(1 << 10)
		return [7]uint64{c, uint64(gsnyder.HPCCOpen), 0, maskBits(d.seq[c], pr.seqW)}
	}
	d.n++
	conn := d.conns.Pick(d.r)
	seq := d.seq[conn]
	d.seq[conn]++
	sndNxt := seq + 1 + d.r.Below(48)
	q := uint64(math.Round(d.q))
	ts, tx := d.ts, uint64(math.Round(d.tx))
	if d.r.Hit(d.pExtreme) {
		switch d.r.Below(5) {
		case 0:
			ts -= d.r.Below(3) // a stamp repeated or older
		case 1:
			ts += 4 * d.r.Below(d.prof.stepMax*200+1) // past the base RTT
		case 2:
			q = uint64(1)<<uint(pr.qW) - 1
		case 3:
			seq -= d.r.Below(64) // a late ACK
		default:
			tx += uint64(1) << uint(pr.txW-1) // the counter jumps half its circle
		}
	}
	kind := uint64(gsnyder.HPCCAck)
	if d.r.Hit(d.pErr) {
		switch d.r.Below(3) {
		case 0:
			conn = pr.numConn + d.r.Below(4)
		case 1:
			kind = uint64(gsnyder.HPCCNumKinds) + d.r.Below(2)
		default:
			kind = uint64(gsnyder.HPCCOpen) // a connection restarts
		}
	}
	return [7]uint64{conn, kind, maskBits(seq, pr.seqW), maskBits(sndNxt, pr.seqW), maskBits(q, pr.qW), maskBits(tx, pr.txW), maskBits(ts, pr.timeW)}
}

type hpccStim struct {
	p hpccPorts
	d *hpccDraw
	h handshake
	v [7]uint64
}

func (s *hpccStim) Next(prevOut, in []uint64) {
	s.d.tick()
	if s.h.step(prevOut, in) {
		s.v = s.d.event()
	}
	for i, j := range s.p.in {
		in[j] = s.v[i]
	}
}

// HPCCCoverage counts the outcomes of hpcc a run reached.
type HPCCCoverage struct {
	caseCounts
	min, max, satU uint64
}

var hpccCases = []string{"open", "congested, reference moved", "congested, held", "calm, reference moved", "calm, held",
	"U saturated", "window at min", "window at max", "error", "merged ack"}

func newHPCCCoverage(p snyder.HPCCParams) *HPCCCoverage {
	c := &HPCCCoverage{caseCounts: newCaseCounts(hpccCases), min: p.MinCwnd, max: p.MaxCwnd, satU: p.SatU()}
	c.skip["window at min"] = p.AI >= p.MinCwnd // the increase keeps every window above it
	c.skip["merged ack"] = p.MergeSlots == 0
	return c
}

func (c *HPCCCoverage) count(r *gsnyder.HPCCFxResult) {
	if r.Members > 1 {
		c.counts["merged ack"]++
	}
	switch {
	case r.Error:
		c.counts["error"]++
		return
	case r.Kind == gsnyder.HPCCOpen:
		c.counts["open"]++
		return
	case r.Congested && r.Moved:
		c.counts["congested, reference moved"]++
	case r.Congested:
		c.counts["congested, held"]++
	case r.Moved:
		c.counts["calm, reference moved"]++
	default:
		c.counts["calm, held"]++
	}
	if r.U == c.satU {
		c.counts["U saturated"]++
	}
	switch r.Cwnd {
	case c.min:
		c.counts["window at min"]++
	case c.max:
		c.counts["window at max"]++
	}
}

// hpccVectors draws n events of the mixed profile on 64 connections with
// the golden model's answers.
func hpccVectors(cfg blocks.Config, block string, ports map[string]int, n int, seed uint64) (*VectorSet, error) {
	p, err := snyder.HPCCOf(cfg)
	if err != nil {
		return nil, err
	}
	m, err := gsnyder.NewHPCCFxModel(p.Golden())
	if err != nil {
		return nil, err
	}
	for _, f := range hpccIns {
		if _, ok := ports["s_event_"+f]; len(ports) > 0 && !ok {
			return nil, fmt.Errorf("blockeq: hpcc has no port s_event_%s", f)
		}
	}
	flags := map[string]bool{"congested": true, "moved": true, "error": true}
	cov := newHPCCCoverage(p)
	vs := &VectorSet{
		Header: VectorHeader{Block: block, Seed: seed, Events: n, Params: p.Golden(), Depth: p.Depth,
			Latency: pipe.Latency(p.Depth), Credits: pipe.Credits(p.Depth), Ports: ports, Kinds: snyder.HPCCKindNames},
		Events:   make([]VectorLine, 0, n),
		Coverage: cov,
	}
	prof := hpccProfileFor(p, "mixed")
	prof.active, prof.pSame = min(prof.numConn, 64), 0.3
	d := newHPCCDraw(prof, seed)
	for i := 0; i < n; i++ {
		for k := 0; k < 1+int(d.r.Below(3)); k++ {
			d.tick()
		}
		v := d.event()
		e := hpccEventOf(v)
		var r gsnyder.HPCCFxResult
		m.StepTo(&e, &r)
		cov.count(&r)
		line := &FieldVector{}
		for k, name := range hpccIns {
			line.In = append(line.In, NamedValue{Name: name, Value: v[k]})
		}
		for k, x := range hpccResultFields(&r) {
			line.Expect = append(line.Expect, NamedValue{Name: hpccOuts[k], Value: x, Flag: flags[hpccOuts[k]]})
		}
		vs.Events = append(vs.Events, line)
	}
	return vs, nil
}

// RTLHPCC is the Verilated hpcc behind golden/snyder's HPCCFxStepper.
type RTLHPCC struct{ S *RTLStepper }

// NewRTLHPCC maps hpcc's ports.
func NewRTLHPCC(b Built) (RTLHPCC, error) {
	s, err := NewRTLStepper(b.Model, b.Design, hpccIns, hpccOuts)
	return RTLHPCC{s}, err
}

// StepTo runs one event through the hardware.
func (c RTLHPCC) StepTo(e *gsnyder.HPCCFxEvent, r *gsnyder.HPCCFxResult) {
	var f [7]uint64
	in := [7]uint64{uint64(e.Conn), uint64(e.Kind), e.Seq, e.SndNxt, e.QLen, e.TxB, e.Ts}
	c.S.Step(in[:], f[:])
	*r = gsnyder.HPCCFxResult{Conn: uint32(f[0]), Kind: gsnyder.HPCCKind(f[1]), Cwnd: f[2], U: f[3],
		Congested: f[4] == 1, Moved: f[5] == 1, Error: f[6] == 1}
}
