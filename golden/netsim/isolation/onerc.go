package isolation

import (
	"fmt"

	"github.com/nicgen/nicgen/golden/onerc"
)

// 1RC with weights (S3 chapter 5; ALGORITHMS.md 7.6, 7.7) on the thesis's
// network. The bottleneck runs the two golden models of golden/onerc:
// sperc_link (SPERCModel, fixed point) computes b, the fair rate per unit
// of weight, from the control packets; onerc_switch (SwitchModel) keeps
// the window table and drops speculative packets from
// max(1, window_table[epoch] / weight) on. Rates are in Mb/s.
const (
	rcSlots = 16 // window-table slots: an entry outlives its epoch by 15 epochs
	// weights up to 4095 connections: a staggered attacker held to its
	// share opens QPs faster than they finish, and they pile up
	rcWeightW = 12
	rcWinW    = 16
	rcSeqW    = 16
	rcTagW    = 24
)

// rcSwitch is the bottleneck port's 1RC logic and the run's 1RC counters.
type rcSwitch struct {
	n       network
	epochPs int64 // epoch length: the base RTT (S3:L1233)
	link    *onerc.SPERCModel
	table   *onerc.SwitchModel
	inf     uint64 // the SPERC rate meaning infinity

	specSent, specDropped int64
	dropHoles             int64 // a speculative packet passed after an earlier one of its flow was dropped, or drops skipped one
}

func newRCSwitch() (*rcSwitch, error) {
	n := thesisNet()
	p := onerc.DefaultSPERCParams()
	p.CapRate = uint64(n.LinkGbps * 1000)
	p.WeightW, p.RateW = rcWeightW, 32 // b of a flow alone is c times its weight
	link, err := onerc.NewSPERCModel(p)
	if err != nil {
		return nil, fmt.Errorf("1rc: %w", err)
	}
	table, err := onerc.NewSwitchModel(onerc.SwitchParams{NumConn: rcSlots, ConnW: 4, KindW: 2, TagW: rcTagW,
		WinW: rcWinW, WeightW: rcWeightW, SeqW: rcSeqW})
	if err != nil {
		return nil, fmt.Errorf("1rc: %w", err)
	}
	var r onerc.SPERCResult
	link.StepTo(&onerc.SPERCEvent{Conn: 0, Kind: onerc.SpOpen}, &r)
	return &rcSwitch{n: n, epochPs: n.BaseRTT, link: link, table: table, inf: p.Inf()}, nil
}

// rcHost is a host's 1RC bookkeeping: its open connections, their count
// at the start of the current epoch (the weight, S3:L1340) and the
// speculative sequence numbers its flows of one epoch share (S3:L1334).
type rcHost struct {
	open       int
	epochNum   int64
	epochCount int
	group      *specGroup
}

type specGroup struct {
	epoch int64
	next  uint64
}

// roll brings the count at the start of epoch e up to date; it runs before
// every change of open, so the count is the one of the epoch's first
// instant (a QP opening exactly at the boundary is not in it).
func (h *rcHost) roll(e int64) {
	if e > h.epochNum {
		h.epochNum, h.epochCount = e, h.open
	}
}

// rcFlow is a QP's 1RC state at its host.
type rcFlow struct {
	weight     uint64 // the weight of its start epoch: the speculative threshold's
	startEpoch int64
	group      *specGroup
	spec       bool     // in its first RTT: speculative packets at line rate
	specSeq    []uint64 // the shared sequence number of each speculative packet, by packet index
	lastW      uint64   // the weight its last control packet carried (the link counts it)
	state      onerc.FlowState
	xl         uint64  // x[l] the link last gave it
	rateMbps   float64 // b / new_weight once a control packet returned
	nextPs     int64   // pacing: the next packet may start then
	firstDrop  int64   // its first dropped packet, -1 if none
	lastDrop   int64
}

// ctrl is a control packet.
type ctrl struct {
	qp             *qp
	first, leaving bool
	sentPs         int64
	oldW, newW     uint64
	state          onerc.FlowState
	xl             uint64
	// filled at the switch
	b, x       uint64
	letThrough uint64
}

func (r *rcSwitch) epoch(ps int64) int64 { return ps / r.epochPs }

func (r *rcSwitch) weight(s *sim, h *host) uint64 {
	h.roll(r.epoch(s.now))
	w := uint64(max(1, h.epochCount))
	if w >= 1<<rcWeightW {
		s.fail(fmt.Errorf("1rc: host %d has %d connections: weights stop at %d", h.id, w, 1<<rcWeightW-1))
	}
	return w
}

// open starts a flow: its weight is its host's connection count at the
// start of this epoch, it joins the epoch's shared sequence numbers, sends
// its first control packet and starts speculating.
func (r *rcSwitch) open(s *sim, q *qp) {
	h := q.host
	e := r.epoch(s.now)
	w := r.weight(s, h)
	h.open++
	if h.group == nil || h.group.epoch != e {
		h.group = &specGroup{epoch: e}
	}
	q.rc = &rcFlow{weight: w, startEpoch: e, group: h.group, spec: true, lastW: w, state: onerc.StateNew,
		firstDrop: -1, lastDrop: -1}
	r.sendCtrl(s, q, &ctrl{first: true, oldW: w, newW: w, state: onerc.StateNew})
	s.q.Push(s.now+r.epochPs, event{kind: evCtrlTick, qp: q})
}

// close sends the flow's leaving control packet.
func (r *rcSwitch) close(s *sim, q *qp) {
	h := q.host
	h.roll(r.epoch(s.now))
	h.open--
	f := q.rc
	r.sendCtrl(s, q, &ctrl{leaving: true, oldW: f.lastW, newW: f.lastW, state: f.state, xl: f.xl})
}

// tick sends the flow's control packet of this RTT with its host's
// current weight.
func (r *rcSwitch) tick(s *sim, q *qp) {
	if q.closed {
		return
	}
	f := q.rc
	w := r.weight(s, q.host)
	r.sendCtrl(s, q, &ctrl{oldW: f.lastW, newW: w, state: f.state, xl: f.xl})
	f.lastW = w
	s.q.Push(s.now+r.epochPs, event{kind: evCtrlTick, qp: q})
}

// sendCtrl sends a control packet; control packets are small and
// bypass the data queue (they take the propagation delays only).
func (r *rcSwitch) sendCtrl(s *sim, q *qp, c *ctrl) {
	c.qp, c.sentPs = q, s.now
	s.q.Push(s.now+s.n.PropPs, event{kind: evCtrlSwitch, ctrl: c})
}

// atSwitch runs a control packet through sperc_link (b, x) and then
// onerc_switch (the epoch's entry rate_to_window(b), let_through), as
// Algorithm 4 orders them (lines 8-14, then 15-19).
func (r *rcSwitch) atSwitch(s *sim, c *ctrl) {
	e := r.epoch(c.sentPs)
	ev := onerc.SPERCEvent{Conn: 0, Kind: onerc.SpCtrl, Round: uint64(e), State: c.state, XL: c.xl,
		OldW: c.oldW, NewW: c.newW, Leaving: c.leaving, Hop: 0, Ignore: ^uint32(0)}
	for j := range ev.B {
		ev.B[j] = r.inf // the hosts' links are never the bottleneck
	}
	var res onerc.SPERCResult
	r.link.StepTo(&ev, &res)
	if res.Error {
		s.fail(fmt.Errorf("1rc: sperc_link rejected %+v", ev))
		return
	}
	c.b, c.x, c.state = res.B, res.X, res.State
	if c.leaving {
		return
	}
	sw := onerc.SwitchEvent{Conn: uint32(e % rcSlots), Kind: onerc.SwCtrl, Tag: uint64(e / rcSlots),
		Window: r.rateToWindow(res.B), Weight: c.newW, LetThrough: 1<<rcWinW - 1}
	var sr onerc.SwitchResult
	r.table.StepTo(&sw, &sr)
	if sr.Error {
		s.fail(fmt.Errorf("1rc: onerc_switch rejected %+v", sw))
		return
	}
	c.letThrough = sr.LetThrough
	s.q.Push(c.sentPs+4*s.n.PropPs, event{kind: evCtrlBack, ctrl: c})
}

// rateToWindow is floor(b x epoch / MTU) packets, b in Mb/s.
func (r *rcSwitch) rateToWindow(b uint64) uint64 {
	w := b * uint64(r.epochPs) / (8 * uint64(r.n.MTU) * 1_000_000)
	return min(w, 1<<rcWinW-1)
}

// back applies a returned control packet: the rate x / new_weight, and
// for the first one the end of speculation, resuming from the flow's
// first packet whose shared sequence number reached let_through (the
// switch dropped it and every later one: no NACK, no timeout).
func (r *rcSwitch) back(s *sim, c *ctrl) {
	q := c.qp
	if q.closed {
		return
	}
	f := q.rc
	f.state, f.xl = c.state, c.x
	f.rateMbps = float64(c.x) / float64(c.newW)
	if c.first {
		f.spec = false
		for k, seq := range f.specSeq {
			if seq >= c.letThrough {
				q.next = min(q.next, int64(k))
				break
			}
		}
		f.nextPs = s.now
	}
	s.wake(q.host)
}

// canSend: speculating, up to one BDP at line rate; afterwards at the
// paced rate.
func (r *rcSwitch) canSend(s *sim, q *qp) bool {
	f := q.rc
	if f.spec {
		return int64(len(f.specSeq)) < s.n.BDP/int64(s.n.MTU) && q.next == int64(len(f.specSeq))
	}
	return f.rateMbps > 0 && s.now >= f.nextPs
}

// sent numbers a speculative packet, or paces a scheduled one.
func (r *rcSwitch) sent(s *sim, q *qp, p *packet) {
	f := q.rc
	if f.spec {
		p.spec, p.specSeq = true, f.group.next
		f.group.next++
		f.specSeq = append(f.specSeq, p.specSeq)
		r.specSent++
		return
	}
	gap := int64(float64(p.size) * 8e6 / f.rateMbps)
	f.nextPs = max(f.nextPs, s.now) + gap
}

// schedulePacing wakes h when its earliest paced QP may send.
func (r *rcSwitch) schedulePacing(s *sim, h *host) {
	at := int64(-1)
	for _, q := range h.qps {
		if f := q.rc; !q.closed && q.next < q.pkts && !f.spec && f.rateMbps > 0 && (at < 0 || f.nextPs < at) {
			at = f.nextPs
		}
	}
	if at <= s.now || h.wakeAt > s.now && h.wakeAt <= at {
		return
	}
	h.wakeAt = at
	s.q.Push(at, event{kind: evWake, host: h})
}

// drops runs a speculative packet through onerc_switch's data path and
// checks that its flow's drops stay in order.
func (r *rcSwitch) drops(s *sim, p *packet) bool {
	f := p.qp.rc
	e := f.startEpoch
	ev := onerc.SwitchEvent{Conn: uint32(e % rcSlots), Kind: onerc.SwData, Tag: uint64(e / rcSlots), Weight: f.weight,
		Seq: p.specSeq, Spec: true}
	var res onerc.SwitchResult
	r.table.StepTo(&ev, &res)
	if res.Error {
		s.fail(fmt.Errorf("1rc: onerc_switch rejected %+v", ev))
		return false
	}
	if !res.Drop {
		if f.firstDrop >= 0 {
			r.dropHoles++
		}
		return false
	}
	r.specDropped++
	if f.firstDrop < 0 {
		f.firstDrop = p.idx
	} else if p.idx != f.lastDrop+1 {
		r.dropHoles++
	}
	f.lastDrop = p.idx
	return true
}
