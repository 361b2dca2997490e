package blockeq

import (
	"fmt"
	"slices"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/srp"
	"github.com/nicgen/nicgen/golden/pipe"
	gsrp "github.com/nicgen/nicgen/golden/srp"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// srp_tx's bench. The stimulus plays the host and the network: it keeps
// a model of its own (a second golden model, stepped as it draws each
// event, which is the order the block executes them in) to learn which
// reservations and speculative packets went out, and answers them later
// with grants, ACKs and NACKs, besides stale answers, busy messages and
// errors. The reference is an independent golden model in the shell's
// cycle contract.

func init() {
	RegisterFamily("srp_tx", Family{
		Bench: func(cfg blocks.Config, hd harness.Design, profile string, seed uint64) (*Bench, error) {
			p, err := srp.TxOf(cfg)
			if err != nil {
				return nil, err
			}
			pm := newPortMap(hd)
			if err := pm.must("s_event_m", "s_event_seq", "s_event_ts", "s_event_now", "m_result_pkt", "m_result_res_n", "m_result_msg_done"); err != nil {
				return nil, err
			}
			if _, err := gsrp.NewTxModel(p.Golden()); err != nil {
				return nil, err
			}
			in := func(n string) int { return pm.inIdx("s_event_" + n) }
			out := func(n string) int { return pm.outIdx("m_result_" + n) }
			ports := txPorts{sValid: in("valid"), sConn: in("conn"), sKind: in("kind"), sM: in("m"), sSeq: in("seq"), sTs: in("ts"), sNow: in("now"),
				mReady: pm.inIdx("m_result_ready"), sReady: pm.outIdx("s_event_ready"), mValid: out("valid"),
				res:      [11]int{out("conn"), out("kind"), out("pkt"), out("seq"), out("spec"), out("res"), out("res_n"), out("stale"), out("busy"), out("msg_done"), out("error")},
				mMembers: out("members")}
			newPipe := func() *gsrp.TxPipeline {
				m, _ := gsrp.NewTxModel(p.Golden())
				return pipe.NewShell[gsrp.TxEvent, gsrp.TxResult](m, p.Depth, p.WaitSlots, nil)
			}
			cov := newTxCoverage(p)
			prof := txProfileFor(p, profile)
			ref := &txRef{p: ports, pipe: newPipe(), newPipe: newPipe, cov: cov}
			stim := func() harness.Stimulus {
				d := newTxDraw(p, prof, seed)
				return &txStim{p: ports, d: d, h: newHandshake(ports.sValid, ports.mReady, ports.sReady, d.r, prof.pValid, prof.pReady)}
			}
			return &Bench{Ref: ref, Stim: stim, Coverage: cov}, nil
		},
		Vectors: txVectors,
	})
}

type txPorts struct {
	sValid, sConn, sKind, sM, sSeq, sTs, sNow, mReady, sReady, mValid int
	res                                                               [11]int
	mMembers                                                          int // -1 without wait slots
}

type txRef struct {
	p       txPorts
	pipe    *gsrp.TxPipeline
	newPipe func() *gsrp.TxPipeline
	cov     *TxCoverage
}

func (r *txRef) Reset() { r.pipe = r.newPipe() }

func (r *txRef) Cycle(in, out []uint64) {
	p := r.p
	e := r.pipe.Input()
	e.Conn, e.Kind, e.M, e.Seq, e.Ts, e.Now = uint32(in[p.sConn]), gsrp.TxKind(in[p.sKind]), in[p.sM], in[p.sSeq], in[p.sTs], in[p.sNow]
	mReady := in[p.mReady] == 1
	sReady, mValid, res := r.pipe.CyclePorts(in[p.sValid] == 1, mReady)
	out[p.sReady], out[p.mValid] = b2u(sReady), b2u(mValid)
	for i, v := range txResultFields(res) {
		out[p.res[i]] = v
	}
	setMembers(out, p.mMembers, res.Error)
	if mValid && mReady {
		r.cov.count(res)
	}
}

func txResultFields(r *gsrp.TxResult) [11]uint64 {
	return [11]uint64{uint64(r.Conn), uint64(r.Kind), b2u(r.Pkt), r.Seq, b2u(r.Spec), b2u(r.Res), r.ResN, b2u(r.Stale), b2u(r.Busy), b2u(r.MsgDone), b2u(r.Error)}
}

type txProfile struct {
	active         uint64 // queues 0..active-1 are used (all opened first)
	hot            int
	pValid, pReady float64
	pSame, pHot    float64
	stepMax        uint64
	strides        uint64
}

func txProfileFor(p srp.TxParams, name string) txProfile {
	pr := txProfile{active: uint64(p.NumConn), hot: 8, pValid: 0.9, pReady: 0.8, pSame: 0.2, pHot: 0.8, stepMax: 8}
	switch name {
	case "same-conn":
		pr.pSame, pr.hot, pr.pHot = 1, 1, 1
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

// txAnswer is a network answer the stimulus will give later.
type txAnswer struct {
	conn      uint64
	kind      gsrp.TxKind
	seq       uint64
	dueEvents uint64 // drawn events after which it is due
}

type txDraw struct {
	p       srp.TxParams
	prof    txProfile
	r       *rng
	conns   localityPicker
	shadow  *gsrp.TxModel
	opened  uint64
	n       uint64
	now     uint64
	pending []txAnswer
}

func newTxDraw(p srp.TxParams, prof txProfile, seed uint64) *txDraw {
	r := newRNG(seed)
	sh, _ := gsrp.NewTxModel(p.Golden()) // accepted by the bench
	d := &txDraw{p: p, prof: prof, r: r, shadow: sh}
	d.conns = newLocalityPicker(r, prof.hot, prof.active, prof.pSame, prof.pHot)
	d.conns.Strides = prof.strides
	d.now = uint64(1)<<uint(p.TimeW) - 5000 // wrap early
	return d
}

// due reports whether one of the first pending answers is due.
func (d *txDraw) due() bool {
	for i := 0; i < min(8, len(d.pending)); i++ {
		if d.pending[i].dueEvents <= d.n {
			return true
		}
	}
	return false
}

func (d *txDraw) tick() { d.now += d.r.Below(d.prof.stepMax + 1) }

// event draws the next event and steps the shadow model with it.
func (d *txDraw) event() gsrp.TxEvent {
	tmask := uint64(1)<<uint(d.p.TimeW) - 1
	smask := uint64(1)<<uint(d.p.SeqW) - 1
	e := gsrp.TxEvent{Now: d.now & tmask}
	d.n++
	switch {
	case d.opened < d.prof.active:
		e.Conn, e.Kind = uint32(d.opened), gsrp.TxOpen
		d.conns.Force(d.opened)
		d.opened++
	case d.due() && d.r.Below(3) > 0:
		// any of the first answers that are due, not the oldest: a grant
		// may come after some of its chunk's ACKs and NACKs
		var due []int
		for i := 0; i < min(8, len(d.pending)); i++ {
			if d.pending[i].dueEvents <= d.n {
				due = append(due, i)
			}
		}
		j := due[d.r.Below(uint64(len(due)))]
		a := d.pending[j]
		d.pending = slices.Delete(d.pending, j, j+1)
		e.Conn, e.Kind, e.Seq = uint32(a.conn), a.kind, a.seq
		if a.kind == gsrp.TxGrant {
			e.Ts = (e.Now + d.r.Below(200)) & tmask // t_s a little ahead, as a busy receiver grants
			if d.r.Below(8) == 0 {
				e.Ts = (e.Now - d.r.Below(100)) & tmask // or already past
			}
		}
	default:
		c := d.conns.Pick(d.r)
		e.Conn = uint32(c)
		switch k := d.r.Below(100); {
		case k < 8:
			e.Kind, e.M = gsrp.TxMsg, 1+d.r.Below(40) // bypassing (below n_min) and chunked
			if d.r.Below(50) == 0 {
				e.M = 0 // an error
			}
		case k < 90:
			e.Kind = gsrp.TxSend
		case k < 93: // a stale answer
			e.Kind, e.Seq = gsrp.TxKind(3+d.r.Below(3)), d.r.Next()&smask
		case k < 95:
			e.Conn = uint32(d.p.NumConn) + uint32(d.r.Below(4)) // an error
			e.Kind = gsrp.TxSend
		case k < 96:
			e.Kind = gsrp.TxNumKinds + gsrp.TxKind(d.r.Below(2)) // an unknown kind
		default:
			e.Kind = gsrp.TxSend
		}
	}
	var r gsrp.TxResult
	d.shadow.StepTo(&e, &r)
	if r.Res {
		d.pending = append(d.pending, txAnswer{conn: uint64(e.Conn), kind: gsrp.TxGrant, seq: r.Seq, dueEvents: d.n + 5 + d.r.Below(60)})
	}
	if r.Pkt && r.Spec {
		kind := gsrp.TxAck
		if d.r.Below(8) == 0 {
			kind = gsrp.TxNack
		}
		d.pending = append(d.pending, txAnswer{conn: uint64(e.Conn), kind: kind, seq: r.Seq, dueEvents: d.n + 3 + d.r.Below(80)})
	}
	if len(d.pending) > 4096 { // answers the queues will never need
		d.pending = d.pending[len(d.pending)-4096:]
	}
	return e
}

type txStim struct {
	p txPorts
	d *txDraw
	h handshake
	e gsrp.TxEvent
}

func (s *txStim) Next(prevOut, in []uint64) {
	s.d.tick()
	if s.h.step(prevOut, in) {
		s.e = s.d.event()
	}
	in[s.p.sConn], in[s.p.sKind] = uint64(s.e.Conn), uint64(s.e.Kind)
	in[s.p.sM], in[s.p.sSeq], in[s.p.sTs], in[s.p.sNow] = s.e.M, s.e.Seq, s.e.Ts, s.e.Now
}

// TxCoverage counts the outcomes of srp_tx a run reached.
type TxCoverage struct{ caseCounts }

var txCases = []string{"open", "message accepted", "message while busy", "reservation with the first speculative packet",
	"speculative send", "non-speculative send", "send with nothing to send", "grant", "stale grant", "ack", "nack",
	"stale ack or nack", "message delivered", "error"}

// newTxCoverage expects every case of p: with n_max 1 a chunk is one
// packet, sent with its reservation, so no later speculative send exists.
func newTxCoverage(p srp.TxParams) *TxCoverage {
	c := &TxCoverage{newCaseCounts(txCases)}
	c.skip["speculative send"] = p.NMax == 1
	return c
}

func (c *TxCoverage) count(r *gsrp.TxResult) {
	k := ""
	switch {
	case r.Error:
		k = "error"
	case r.Kind == gsrp.TxOpen:
		k = "open"
	case r.Kind == gsrp.TxMsg && r.Busy:
		k = "message while busy"
	case r.Kind == gsrp.TxMsg:
		k = "message accepted"
	case r.Kind == gsrp.TxSend && r.Res:
		k = "reservation with the first speculative packet"
	case r.Kind == gsrp.TxSend && r.Pkt && r.Spec:
		k = "speculative send"
	case r.Kind == gsrp.TxSend && r.Pkt:
		k = "non-speculative send"
	case r.Kind == gsrp.TxSend:
		k = "send with nothing to send"
	case r.Kind == gsrp.TxGrant && r.Stale:
		k = "stale grant"
	case r.Kind == gsrp.TxGrant:
		k = "grant"
	case r.Stale:
		k = "stale ack or nack"
	case r.Kind == gsrp.TxAck:
		k = "ack"
	default:
		k = "nack"
	}
	c.counts[k]++
	if r.MsgDone {
		c.counts["message delivered"]++
	}
}

var txEventNames = []string{"conn", "kind", "m", "seq", "ts", "now"}
var txResultNames = []string{"conn", "kind", "pkt", "seq", "spec", "res", "res_n", "stale", "busy", "msg_done", "error"}

// txVectors draws n events on 64 queues, with the golden model's answers.
func txVectors(cfg blocks.Config, block string, ports map[string]int, n int, seed uint64) (*VectorSet, error) {
	p, err := srp.TxOf(cfg)
	if err != nil {
		return nil, err
	}
	if err := vectorsTakeNoSlots(block, p.WaitSlots); err != nil {
		return nil, err
	}
	m, err := gsrp.NewTxModel(p.Golden())
	if err != nil {
		return nil, err
	}
	for _, f := range txEventNames {
		if _, ok := ports["s_event_"+f]; len(ports) > 0 && !ok {
			return nil, fmt.Errorf("blockeq: srp_tx has no port s_event_%s", f)
		}
	}
	cov := newTxCoverage(p)
	vs := &VectorSet{
		Header: VectorHeader{Block: block, Seed: seed, Events: n, Params: p.Golden(), Depth: p.Depth,
			Latency: pipe.Latency(p.Depth), Credits: pipe.Credits(p.Depth), Ports: ports, Kinds: srp.TxKindNames},
		Events:   make([]VectorLine, 0, n),
		Coverage: cov,
	}
	prof := txProfileFor(p, "mixed")
	prof.active = min(prof.active, 64)
	d := newTxDraw(p, prof, seed)
	for i := 0; i < n; i++ {
		for k := 0; k < 1+int(d.r.Below(3)); k++ {
			d.tick()
		}
		e := d.event()
		var r gsrp.TxResult
		m.StepTo(&e, &r)
		cov.count(&r)
		line := &FieldVector{}
		for j, v := range []uint64{uint64(e.Conn), uint64(e.Kind), e.M, e.Seq, e.Ts, e.Now} {
			w := ports["s_event_"+txEventNames[j]]
			if w > 0 && w < 64 {
				v &= 1<<uint(w) - 1
			}
			line.In = append(line.In, NamedValue{Name: txEventNames[j], Value: v})
		}
		for j, v := range txResultFields(&r) {
			name := txResultNames[j]
			line.Expect = append(line.Expect, NamedValue{Name: name, Value: v, Flag: ports["m_result_"+name] == 1 && name != "kind" && name != "conn"})
		}
		vs.Events = append(vs.Events, line)
	}
	return vs, nil
}
