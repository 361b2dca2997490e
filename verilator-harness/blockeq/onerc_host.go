package blockeq

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/onerc"
	gonerc "github.com/nicgen/nicgen/golden/onerc"
	"github.com/nicgen/nicgen/golden/pipe"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// onerc_host's bench: the golden model (golden/onerc) in the shell's
// cycle contract; a stimulus that runs flows through their lives (open,
// speculative sends, control packets out and back, scheduled sends,
// close), each connection's first event an open or a close (the two
// kinds that never read the word: the table's power-on contents are
// random under cocotb), with an epoch that advances slowly, so that flows of one epoch
// share their numbers, now and then jumps (a flow's counter is claimed
// by a later epoch: stale sends), and now and then reopens or closes a
// closed connection, with coverage of every outcome.

func init() {
	RegisterFamily("onerc_host", Family{
		Bench: func(cfg blocks.Config, hd harness.Design, profile string, seed uint64) (*Bench, error) {
			p, err := onerc.HostOf(cfg)
			if err != nil {
				return nil, err
			}
			ports, err := newFieldPorts(hd, onerc.HostEventFields, onerc.HostResultFields)
			if err != nil {
				return nil, err
			}
			if _, err := gonerc.NewHostModel(p.HostParams); err != nil {
				return nil, err
			}
			newPipe := func() *gonerc.HostPipeline {
				m, _ := gonerc.NewHostModel(p.HostParams)
				return gonerc.NewHostPipeline(m, p.Depth)
			}
			cov := newHostCoverage(p)
			prof := hostProfileFor(p, profile)
			ref := &fieldRef[gonerc.HostEvent, gonerc.HostResult]{p: ports, pipe: newPipe(), newPipe: newPipe,
				eventOf: onerc.HostEventOf, values: onerc.HostResultValues, count: cov.count}
			stim := func() harness.Stimulus {
				d := newHostDraw(prof, seed)
				return &fieldStim{p: ports, draw: d.event, h: newHandshake(ports.sValid, ports.mReady, ports.sReady, d.r, prof.pValid, prof.pReady)}
			}
			return &Bench{Ref: ref, Stim: stim, Coverage: cov}, nil
		},
		Vectors: hostVectors,
	})
}

// hostProfile is the event mix of the onerc_host stimulus.
type hostProfile struct {
	conns, numConn          uint64 // connections the flows use; the table's
	epochW, weightW         int
	seqW, rateW             int
	pValid, pReady, pSame   float64
	advance                 uint64 // one epoch every this many events on average
	strides                 uint64
	letSpan, weightSpan     uint64 // let_through and weights mostly below these
	pSend, pTx, pRx, pClose uint64 // per 64 events of an open flow
}

func hostProfileFor(p onerc.HostParams, name string) hostProfile {
	pr := hostProfile{conns: uint64(min(p.NumConn, 64)), numConn: uint64(p.NumConn), epochW: p.EpochW, weightW: p.WeightW, seqW: p.SeqW, rateW: p.RateW,
		pValid: 0.9, pReady: 0.8, pSame: 0.3, advance: 48, letSpan: 24, weightSpan: 9,
		pSend: 30, pTx: 6, pRx: 10, pClose: 16}
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

type hostDraw struct {
	prof    hostProfile
	r       *rng
	conns   localityPicker
	open    []bool // the stimulus's view: opened and not closed
	touched []bool // opened or closed once: the word no longer depends on the table's power-on contents
	epoch   uint64
}

func newHostDraw(prof hostProfile, seed uint64) *hostDraw {
	r := newRNG(seed)
	d := &hostDraw{prof: prof, r: r, open: make([]bool, prof.conns), touched: make([]bool, prof.conns), epoch: 3}
	d.conns = newLocalityPicker(r, 0, prof.conns, prof.pSame, 0)
	d.conns.Strides = prof.strides
	return d
}

func (d *hostDraw) mask(v uint64, w int) uint64 {
	if w >= 64 {
		return v
	}
	return v & (uint64(1)<<uint(w) - 1)
}

// event draws the fields in onerc.HostEventFields's order: conn, kind,
// epoch, b, let_through, weight, bottleneck.
func (d *hostDraw) event() []uint64 {
	pr := d.prof
	switch d.r.Below(pr.advance) {
	case 0:
		d.epoch++
	case 1:
		if d.r.Below(16) == 0 {
			d.epoch += 2 + d.r.Below(1<<min(pr.epochW, 20)) // a jump: counters go stale, the epoch wraps
		}
	}
	conn := d.conns.Pick(d.r)
	kind := gonerc.HostOpen
	switch x := d.r.Below(64); {
	case conn < pr.conns && !d.touched[conn] && x < 16:
		kind = gonerc.HostClose // a connection's first event opens or closes it
	case conn < pr.conns && !d.touched[conn]:
		kind = gonerc.HostOpen
	case !d.open[conn] && x < 16:
		kind = gonerc.HostOpen
	case !d.open[conn] && x == 16:
		kind = gonerc.HostClose // closing a closed connection (as often as reopening an open one)
	case !d.open[conn]:
		kind = gonerc.HostKind(1 + d.r.Below(uint64(gonerc.HostCtrlRx))) // send, ctrl_tx or ctrl_rx on a closed connection
	case x < pr.pSend:
		kind = gonerc.HostSend
	case x < pr.pSend+pr.pTx:
		kind = gonerc.HostCtrlTx
	case x < pr.pSend+pr.pTx+pr.pRx:
		kind = gonerc.HostCtrlRx
	case x < pr.pSend+pr.pTx+pr.pRx+pr.pClose:
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
	weight := 1 + d.r.Below(pr.weightSpan)
	let := d.r.Below(pr.letSpan)
	switch d.r.Below(64) {
	case 0:
		weight = 0 // an error on ctrl_rx
	case 1:
		weight = d.r.Next()
	case 2:
		let = d.r.Next()
	}
	v := []uint64{conn, uint64(kind), d.mask(d.epoch, pr.epochW), d.mask(b, pr.rateW), d.mask(let, pr.seqW),
		d.mask(weight, pr.weightW), d.r.Below(2)}
	switch d.r.Below(256) {
	case 0:
		v[0] = pr.numConn + d.r.Below(4) // past the table (masked to the id's width in the block and the model)
	case 1:
		v[1] = uint64(gonerc.HostNumKinds) + d.r.Below(8-uint64(gonerc.HostNumKinds)) // an unknown kind
	}
	if v[0] < pr.conns && (v[1] == uint64(gonerc.HostOpen) || v[1] == uint64(gonerc.HostClose)) {
		d.open[v[0]] = v[1] == uint64(gonerc.HostOpen)
		d.touched[v[0]] = true
	}
	return v
}

// HostCoverage counts the outcomes of onerc_host a run reached.
type HostCoverage struct {
	caseCounts
	top uint64
}

var hostCases = []string{"open", "open, weight above 1", "send speculative", "send stale", "send scheduled", "send idle",
	"ctrl_tx speculative", "ctrl_tx scheduled", "ctrl_rx ended, resume above 0", "ctrl_rx ended, resume 0", "ctrl_rx scheduled",
	"ctrl_rx idle", "close", "count at its top", "error"}

func newHostCoverage(p onerc.HostParams) *HostCoverage {
	c := &HostCoverage{newCaseCounts(hostCases), uint64(1)<<uint(p.WeightW) - 1}
	c.skip["count at its top"] = c.top > 31 // the stimulus keeps about 32 of its 64 connections open
	return c
}

func (c *HostCoverage) count(r *gonerc.HostResult) {
	if r.Error {
		c.counts["error"]++
		return
	}
	if r.Conns == c.top {
		c.counts["count at its top"]++
	}
	switch r.Kind {
	case gonerc.HostOpen:
		c.counts["open"]++
		if r.NewWeight > 1 {
			c.counts["open, weight above 1"]++
		}
	case gonerc.HostSend:
		c.counts[map[gonerc.HostStatus]string{gonerc.StatusIdle: "send idle", gonerc.StatusSpec: "send speculative",
			gonerc.StatusSched: "send scheduled", gonerc.StatusStale: "send stale"}[r.Status]]++
	case gonerc.HostCtrlTx:
		if r.Status == gonerc.StatusSpec {
			c.counts["ctrl_tx speculative"]++
		} else if r.Status == gonerc.StatusSched {
			c.counts["ctrl_tx scheduled"]++
		}
	case gonerc.HostCtrlRx:
		switch {
		case r.Status == gonerc.StatusIdle:
			c.counts["ctrl_rx idle"]++
		case !r.Ended:
			c.counts["ctrl_rx scheduled"]++
		case r.Resume > 0:
			c.counts["ctrl_rx ended, resume above 0"]++
		default:
			c.counts["ctrl_rx ended, resume 0"]++
		}
	case gonerc.HostClose:
		c.counts["close"]++
	}
}

// hostVectors draws n events of the mixed profile with the golden
// model's answers.
func hostVectors(cfg blocks.Config, block string, ports map[string]int, n int, seed uint64) (*VectorSet, error) {
	p, err := onerc.HostOf(cfg)
	if err != nil {
		return nil, err
	}
	m, err := gonerc.NewHostModel(p.HostParams)
	if err != nil {
		return nil, err
	}
	for _, f := range onerc.HostEventFields {
		if _, ok := ports["s_event_"+f]; len(ports) > 0 && !ok {
			return nil, fmt.Errorf("blockeq: onerc_host has no port s_event_%s", f)
		}
	}
	flags := map[string]bool{"ended": true, "error": true}
	cov := newHostCoverage(p)
	vs := &VectorSet{
		Header: VectorHeader{Block: block, Seed: seed, Events: n, Params: p.HostParams, Depth: p.Depth,
			Latency: pipe.Latency(p.Depth), Credits: pipe.Credits(p.Depth), Ports: ports, Kinds: onerc.HostKindNames},
		Events:   make([]VectorLine, 0, n),
		Coverage: cov,
	}
	d := newHostDraw(hostProfileFor(p, "mixed"), seed)
	res := make([]uint64, len(onerc.HostResultFields))
	for i := 0; i < n; i++ {
		v := d.event()
		e := onerc.HostEventOf(v)
		var r gonerc.HostResult
		m.StepTo(&e, &r)
		cov.count(&r)
		onerc.HostResultValues(&r, res)
		line := &FieldVector{}
		for k, name := range onerc.HostEventFields {
			line.In = append(line.In, NamedValue{Name: name, Value: v[k]})
		}
		for k, x := range res {
			name := onerc.HostResultFields[k]
			line.Expect = append(line.Expect, NamedValue{Name: name, Value: x, Flag: flags[name]})
		}
		vs.Events = append(vs.Events, line)
	}
	return vs, nil
}
