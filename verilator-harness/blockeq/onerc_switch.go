package blockeq

import (
	"fmt"
	"math/bits"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/onerc"
	gonerc "github.com/nicgen/nicgen/golden/onerc"
	"github.com/nicgen/nicgen/golden/pipe"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// onerc_switch's bench: the golden model (golden/onerc) in the shell's
// cycle contract; a stimulus whose epochs advance slowly, so that control
// packets fill slots and the data packets of the last few epochs find
// them, with now and then an epoch a ring older (a miss, or a control
// packet that must not replace the newer entry), windows and weights that
// put the threshold in the range of the sequence numbers, and coverage of
// every outcome.

func init() {
	RegisterFamily("onerc_switch", Family{
		Bench: func(cfg blocks.Config, hd harness.Design, profile string, seed uint64) (*Bench, error) {
			p, err := onerc.SwitchOf(cfg)
			if err != nil {
				return nil, err
			}
			pm := newPortMap(hd)
			ins := []string{"s_event_conn", "s_event_kind", "s_event_tag", "s_event_window", "s_event_weight", "s_event_let_through", "s_event_seq", "s_event_spec"}
			outs := []string{"m_result_conn", "m_result_kind", "m_result_hit", "m_result_filled", "m_result_thresh", "m_result_let_through", "m_result_drop", "m_result_spec", "m_result_error"}
			if err := pm.must(append(ins, outs...)...); err != nil {
				return nil, err
			}
			if _, err := gonerc.NewSwitchModel(p.Golden()); err != nil {
				return nil, err
			}
			ports := switchPorts{sValid: pm.inIdx("s_event_valid"), mReady: pm.inIdx("m_result_ready"), sReady: pm.outIdx("s_event_ready"), mValid: pm.outIdx("m_result_valid"),
				mMembers: pm.outIdx("m_result_members")}
			for i, n := range ins {
				ports.in[i] = pm.inIdx(n)
			}
			for i, n := range outs {
				ports.out[i] = pm.outIdx(n)
			}
			newPipe := func() *gonerc.SwitchPipeline {
				m, _ := gonerc.NewSwitchModel(p.Golden())
				return pipe.NewShell[gonerc.SwitchEvent, gonerc.SwitchResult](m, p.Depth, p.WaitSlots, nil)
			}
			cov := newSwitchCoverage(p.MissPass)
			prof := switchProfileFor(p, profile)
			ref := &switchRef{p: ports, pipe: newPipe(), newPipe: newPipe, cov: cov}
			stim := func() harness.Stimulus {
				d := newSwitchDraw(prof, seed)
				return &switchStim{p: ports, d: d, h: newHandshake(ports.sValid, ports.mReady, ports.sReady, d.r, prof.pValid, prof.pReady)}
			}
			return &Bench{Ref: ref, Stim: stim, Coverage: cov}, nil
		},
		Vectors: switchVectors,
	})
}

type switchPorts struct {
	sValid, mReady, sReady, mValid int
	in                             [8]int // conn, kind, tag, window, weight, let_through, seq, spec
	out                            [9]int // conn, kind, hit, filled, thresh, let_through, drop, spec, error
	mMembers                       int    // -1 without wait slots
}

type switchRef struct {
	p       switchPorts
	pipe    *gonerc.SwitchPipeline
	newPipe func() *gonerc.SwitchPipeline
	cov     *SwitchCoverage
}

func (r *switchRef) Reset() { r.pipe = r.newPipe() }

func switchEventOf(v [8]uint64) gonerc.SwitchEvent {
	return gonerc.SwitchEvent{Conn: uint32(v[0]), Kind: gonerc.SwitchKind(v[1]), Tag: v[2], Window: v[3], Weight: v[4],
		LetThrough: v[5], Seq: v[6], Spec: v[7] == 1}
}

func switchResultFields(r *gonerc.SwitchResult) [9]uint64 {
	return [9]uint64{uint64(r.Conn), uint64(r.Kind), b2u(r.Hit), b2u(r.Filled), r.Thresh, r.LetThrough, b2u(r.Drop), b2u(r.Spec), b2u(r.Error)}
}

func (r *switchRef) Cycle(in, out []uint64) {
	p := r.p
	var v [8]uint64
	for i, j := range p.in {
		v[i] = in[j]
	}
	*r.pipe.Input() = switchEventOf(v)
	mReady := in[p.mReady] == 1
	sReady, mValid, res := r.pipe.CyclePorts(in[p.sValid] == 1, mReady)
	out[p.sReady], out[p.mValid] = b2u(sReady), b2u(mValid)
	f := switchResultFields(res)
	for i, j := range p.out {
		out[j] = f[i]
	}
	setMembers(out, p.mMembers, res.Error)
	if mValid && mReady {
		r.cov.count(res)
	}
}

// switchProfile is the event mix of the onerc_switch stimulus.
type switchProfile struct {
	slots                 uint64
	tagW, winW, weightW   int
	seqW                  int
	pValid, pReady, pSame float64
	pCtrl, pSpec          float64
	advance               uint64 // one epoch every this many events on average
	strides               uint64
	startEpoch            uint64
}

func switchProfileFor(p onerc.SwitchParams, name string) switchProfile {
	pr := switchProfile{slots: uint64(p.NumConn), tagW: p.TagW, winW: p.WinW, weightW: p.WeightW, seqW: p.SeqW,
		pValid: 0.9, pReady: 0.8, pSame: 0.3, pCtrl: 0.3, pSpec: 0.7, advance: 24, startEpoch: 5}
	switch name {
	case "same-conn":
		pr.pSame = 1
	case "idle":
		pr.pValid = 0.1
	case "backpressure":
		pr.pReady = 0.2
	case "wrap":
		pr.advance, pr.startEpoch = 2, uint64(1)<<uint(p.TagW+bits.TrailingZeros(uint(p.NumConn)))-40 // tags wrap early
	case "hazard":
		pr.pValid, pr.pReady, pr.strides = 1, 0.8, hazardStrides
	}
	return pr
}

type switchDraw struct {
	prof   switchProfile
	r      *rng
	conns  localityPicker
	opened uint64
	epoch  uint64 // the newest epoch
	pCtrl  threshold
	pSpec  threshold
}

func newSwitchDraw(prof switchProfile, seed uint64) *switchDraw {
	r := newRNG(seed)
	d := &switchDraw{prof: prof, r: r, epoch: prof.startEpoch, pCtrl: thresholdOf(prof.pCtrl), pSpec: thresholdOf(prof.pSpec)}
	d.conns = newLocalityPicker(r, 0, prof.slots, prof.pSame, 0)
	d.conns.Strides = prof.strides
	return d
}

// event draws the fields: conn, kind, tag, window, weight, let_through, seq, spec.
func (d *switchDraw) event() [8]uint64 {
	pr := d.prof
	if d.opened < pr.slots {
		d.conns.Force(d.opened)
		d.opened++
		return [8]uint64{d.opened - 1, uint64(gonerc.SwOpen)}
	}
	if d.r.Below(pr.advance) == 0 {
		d.epoch++
	}
	conn := d.conns.Pick(d.r)
	// the newest epoch of this slot, or the one before (a recent flow), or
	// a ring older (a stale packet), or the next (a flow ahead of the rest)
	ep := d.epoch - (d.epoch-conn)%pr.slots
	switch d.r.Below(16) {
	case 0:
		ep -= pr.slots * (1 + d.r.Below(2))
	case 1:
		ep += pr.slots
	case 2, 3, 4:
		ep -= pr.slots
	}
	tag := (ep / pr.slots) & (uint64(1)<<uint(pr.tagW) - 1)
	wmask, smask := uint64(1)<<uint(pr.winW)-1, uint64(1)<<uint(pr.seqW)-1
	win, weight := d.r.Below(48)&wmask, 1+d.r.Below(6)
	let, seq := d.r.Below(40)&wmask, d.r.Below(24)&smask
	switch d.r.Below(64) {
	case 0:
		win, let = d.r.Next()&wmask, d.r.Next()&wmask // extremes
	case 1:
		weight = d.r.Next() & (uint64(1)<<uint(pr.weightW) - 1)
	case 2:
		weight = 0 // an error
	case 3:
		seq = d.r.Next() & smask
	}
	kind := uint64(gonerc.SwData)
	switch d.r.Below(200) {
	case 0:
		return [8]uint64{pr.slots + d.r.Below(4), uint64(gonerc.SwData), tag, win, weight, let, seq, 1} // a slot past the table
	case 1:
		return [8]uint64{conn, uint64(gonerc.SwNumKinds), tag, win, weight, let, seq, 1} // an unknown kind
	case 2:
		return [8]uint64{conn, uint64(gonerc.SwOpen)}
	}
	if d.r.Hit(d.pCtrl) {
		kind = uint64(gonerc.SwCtrl)
	}
	return [8]uint64{conn, kind, tag, win, weight, let, seq, b2u(d.r.Hit(d.pSpec))}
}

type switchStim struct {
	p switchPorts
	d *switchDraw
	h handshake
	v [8]uint64
}

func (s *switchStim) Next(prevOut, in []uint64) {
	if s.h.step(prevOut, in) {
		s.v = s.d.event()
	}
	for i, j := range s.p.in {
		in[j] = s.v[i]
	}
}

// SwitchCoverage counts the outcomes of onerc_switch a run reached.
type SwitchCoverage struct{ caseCounts }

func newSwitchCoverage(missPass bool) *SwitchCoverage {
	c := &SwitchCoverage{newCaseCounts(switchCases)}
	c.skip["data miss, dropped"] = missPass
	c.skip["data miss, passed"] = !missPass
	return c
}

var switchCases = []string{"open", "ctrl fill", "ctrl hit", "ctrl older epoch", "ctrl floor of one", "data passed", "data dropped",
	"data scheduled", "data miss, dropped", "data miss, passed", "error"}

func (c *SwitchCoverage) count(r *gonerc.SwitchResult) {
	switch {
	case r.Error:
		c.counts["error"]++
	case r.Kind == gonerc.SwOpen:
		c.counts["open"]++
	case r.Kind == gonerc.SwCtrl:
		switch {
		case r.Filled:
			c.counts["ctrl fill"]++
		case r.Hit:
			c.counts["ctrl hit"]++
		default:
			c.counts["ctrl older epoch"]++
		}
		if r.LetThrough == 1 {
			c.counts["ctrl floor of one"]++
		}
	case !r.Spec:
		c.counts["data scheduled"]++
	case !r.Hit && r.Drop:
		c.counts["data miss, dropped"]++
	case !r.Hit:
		c.counts["data miss, passed"]++
	case r.Drop:
		c.counts["data dropped"]++
	default:
		c.counts["data passed"]++
	}
}

// switchVectors draws n events of the mixed profile with the golden
// model's answers.
func switchVectors(cfg blocks.Config, block string, ports map[string]int, n int, seed uint64) (*VectorSet, error) {
	p, err := onerc.SwitchOf(cfg)
	if err != nil {
		return nil, err
	}
	if err := vectorsTakeNoSlots(block, p.WaitSlots); err != nil {
		return nil, err
	}
	m, err := gonerc.NewSwitchModel(p.Golden())
	if err != nil {
		return nil, err
	}
	inNames := []string{"conn", "kind", "tag", "window", "weight", "let_through", "seq", "spec"}
	outNames := []string{"conn", "kind", "hit", "filled", "thresh", "let_through", "drop", "spec", "error"}
	flags := map[string]bool{"hit": true, "filled": true, "drop": true, "spec": true, "error": true}
	for _, f := range inNames {
		if _, ok := ports["s_event_"+f]; len(ports) > 0 && !ok {
			return nil, fmt.Errorf("blockeq: onerc_switch has no port s_event_%s", f)
		}
	}
	cov := newSwitchCoverage(p.MissPass)
	vs := &VectorSet{
		Header: VectorHeader{Block: block, Seed: seed, Events: n, Params: p.Golden(), Depth: p.Depth,
			Latency: pipe.Latency(p.Depth), Credits: pipe.Credits(p.Depth), Ports: ports, Kinds: onerc.SwitchKindNames},
		Events:   make([]VectorLine, 0, n),
		Coverage: cov,
	}
	d := newSwitchDraw(switchProfileFor(p, "mixed"), seed)
	for i := 0; i < n; i++ {
		v := d.event()
		e := switchEventOf(v)
		var r gonerc.SwitchResult
		m.StepTo(&e, &r)
		cov.count(&r)
		line := &FieldVector{}
		for k, name := range inNames {
			line.In = append(line.In, NamedValue{Name: name, Value: v[k]})
		}
		for k, x := range switchResultFields(&r) {
			line.Expect = append(line.Expect, NamedValue{Name: outNames[k], Value: x, Flag: flags[outNames[k]]})
		}
		vs.Events = append(vs.Events, line)
	}
	return vs, nil
}

// RTLSwitch is the Verilated onerc_switch behind golden/netsim/newflow's
// Port (and golden/onerc's StepTo).
type RTLSwitch struct{ S *RTLStepper }

// NewRTLSwitch maps onerc_switch's ports.
func NewRTLSwitch(b Built) (RTLSwitch, error) {
	s, err := NewRTLStepper(b.Model, b.Design, []string{"conn", "kind", "tag", "window", "weight", "let_through", "seq", "spec"},
		[]string{"conn", "kind", "hit", "filled", "thresh", "let_through", "drop", "spec", "error"})
	return RTLSwitch{s}, err
}

// StepTo runs one event through the hardware.
func (c RTLSwitch) StepTo(e *gonerc.SwitchEvent, r *gonerc.SwitchResult) {
	var f [9]uint64
	in := [8]uint64{uint64(e.Conn), uint64(e.Kind), e.Tag, e.Window, e.Weight, e.LetThrough, e.Seq, b2u(e.Spec)}
	c.S.Step(in[:], f[:])
	*r = gonerc.SwitchResult{Conn: uint32(f[0]), Kind: gonerc.SwitchKind(f[1]), Hit: f[2] == 1, Filled: f[3] == 1, Thresh: f[4],
		LetThrough: f[5], Drop: f[6] == 1, Spec: f[7] == 1, Error: f[8] == 1}
}
