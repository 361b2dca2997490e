package isolation

import (
	"fmt"

	"github.com/nicgen/nicgen/golden/onerc"
)

// 1RC with weights (S3 chapter 5; ALGORITHMS.md 7.6, 7.7) on the thesis's
// network, with the three golden models of golden/onerc in the loop. The
// bottleneck runs sperc_link (SPERCModel, fixed point), which computes b,
// the fair rate per unit of weight, from the control packets, and
// onerc_switch (SwitchModel), which keeps the window table and drops
// speculative packets from max(1, window_table[epoch] / weight) on. Each
// sender host runs onerc_host (HostModel), one connection id per QP: the
// weights, the speculative sequence numbers its flows of one epoch share,
// the resume point and the pacing rate. Rates are in Mb/s.
const (
	rcSlots = 16 // window-table slots: an entry outlives its epoch by 15 epochs
	// weights up to 4095 connections: a staggered attacker held to its
	// share opens QPs faster than they finish, and they pile up
	rcWeightW = 12
	rcRateW   = 32 // b of a flow alone is c times its weight: 100,000 x 4095 Mb/s
	rcWinW    = 16
	rcSeqW    = 16
	rcTagW    = 24
	// the epoch every onerc_host event carries: 24 bits hold every epoch
	// of a run (Config allows at most 200,000 base RTTs, one epoch each),
	// so it never wraps and onerc_switch's slot and tag (the low 4 and the
	// next 20 of its 24-bit tag) are the ones of the unmasked epoch
	rcEpochW = 24
)

// rcHostParams is onerc_host as the simulator sizes it: weights and rates
// as sperc_link's (12 and 32 bits), sequence numbers as onerc_switch's
// (16 bits; a host's flows of one epoch number at most a few hundred
// packets), 24-bit epochs (above), and one connection per QP a host can
// have open: 4,096, as a count of 4,096 open QPs no longer fits the
// weight, which is an error of the run anyway.
func rcHostParams() onerc.HostParams {
	return onerc.HostParams{NumConn: 1 << rcWeightW, ConnW: rcWeightW, KindW: 3, EpochW: rcEpochW,
		WeightW: rcWeightW, SeqW: rcSeqW, RateW: rcRateW}
}

// rcSwitch is the bottleneck port's 1RC logic and the run's 1RC counters.
type rcSwitch struct {
	n       network
	epochPs int64 // epoch length: the base RTT (S3:L1233)
	link    *onerc.SPERCModel
	table   *onerc.SwitchModel
	inf     uint64 // the SPERC rate meaning infinity

	specSent, specDropped int64
	dropHoles             int64 // a speculative packet passed after an earlier one of its flow was dropped, or drops skipped one
	// the resume points onerc_host gave, against the exact ones
	resumed, resumeExact, resumeOver, resent int64
}

func newRCSwitch() (*rcSwitch, error) {
	n := thesisNet()
	p := onerc.DefaultSPERCParams()
	p.CapRate = uint64(n.LinkGbps * 1000)
	p.WeightW, p.RateW = rcWeightW, rcRateW
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

// rcNIC is a sender host's onerc_host and its connection ids.
type rcNIC struct {
	m    *onerc.HostModel
	free []uint32 // ids of closed QPs, reused last-in first
	next uint32
}

func newRCNIC() (*rcNIC, error) {
	m, err := onerc.NewHostModel(rcHostParams())
	if err != nil {
		return nil, fmt.Errorf("1rc: %w", err)
	}
	return &rcNIC{m: m}, nil
}

// rcFlow is a QP's 1RC state at its host's transmit engine; the rest is
// in its onerc_host word.
type rcFlow struct {
	conn    uint32   // its connection id at onerc_host
	spec    bool     // in its first RTT: speculative packets at line rate
	stale   bool     // onerc_host answered a send stale: it waits for its control packet
	specSeq []uint64 // the shared sequence number of each speculative packet, by packet index
	hdr     onerc.HostResult
	lastW   uint64 // the weight its last control packet carried (the link counts it)
	state   onerc.FlowState
	xl      uint64 // x[l] the link last gave it
	rate    uint64 // the pacing rate onerc_host gave at the last return, Mb/s
	nextPs  int64  // pacing: the next packet may start then
	// its first and last dropped packets, -1 if none
	firstDrop, lastDrop int64
}

// ctrl is a control packet.
type ctrl struct {
	qp         *qp
	leaving    bool
	sentPs     int64
	epoch      uint64 // the epoch whose window-table entry it fills
	oldW, newW uint64
	state      onerc.FlowState
	xl         uint64
	// filled at the switch
	b, x       uint64
	bottleneck bool // this link's b is the flow's limit (x = b)
	letThrough uint64
}

func (r *rcSwitch) epoch(ps int64) int64 { return ps / r.epochPs }

// hostEpoch is the epoch every onerc_host event carries.
func (r *rcSwitch) hostEpoch(ps int64) uint64 {
	return uint64(r.epoch(ps)) & (1<<rcEpochW - 1)
}

// host runs one event through q's host's onerc_host.
func (r *rcSwitch) host(s *sim, q *qp, kind onerc.HostKind, e onerc.HostEvent) onerc.HostResult {
	e.Conn, e.Kind, e.Epoch = q.rc.conn, kind, r.hostEpoch(s.now)
	var res onerc.HostResult
	q.host.nic.m.StepTo(&e, &res)
	if res.Error {
		s.fail(fmt.Errorf("1rc: onerc_host of host %d rejected %+v", q.host.id, e))
	}
	return res
}

// open starts a flow on a free connection id: onerc_host gives its weight
// (its host's connection count at the start of this epoch) for its first
// control packet, and it starts speculating.
func (r *rcSwitch) open(s *sim, q *qp) {
	nic := q.host.nic
	var conn uint32
	switch {
	case len(nic.free) > 0:
		conn, nic.free = nic.free[len(nic.free)-1], nic.free[:len(nic.free)-1]
	case int(nic.next) < 1<<rcWeightW:
		conn = nic.next
		nic.next++
	default:
		s.fail(fmt.Errorf("1rc: host %d has more than %d QPs open", q.host.id, 1<<rcWeightW))
		return
	}
	q.rc = &rcFlow{conn: conn, spec: true, state: onerc.StateNew, firstDrop: -1, lastDrop: -1}
	res := r.host(s, q, onerc.HostOpen, onerc.HostEvent{})
	if res.Conns != uint64(len(q.host.qps)) {
		s.fail(fmt.Errorf("1rc: host %d has %d connections: weights stop at %d", q.host.id, len(q.host.qps), 1<<rcWeightW-1))
		return
	}
	q.rc.lastW = res.NewWeight
	r.sendCtrl(s, q, &ctrl{epoch: res.Epoch, oldW: res.OldWeight, newW: res.NewWeight, state: onerc.StateNew})
	s.q.Push(s.now+r.epochPs, event{kind: evCtrlTick, qp: q})
}

// close ends the flow at onerc_host, frees its id and sends its leaving
// control packet.
func (r *rcSwitch) close(s *sim, q *qp) {
	f := q.rc
	r.host(s, q, onerc.HostClose, onerc.HostEvent{})
	q.host.nic.free = append(q.host.nic.free, f.conn)
	r.sendCtrl(s, q, &ctrl{leaving: true, epoch: r.hostEpoch(s.now), oldW: f.lastW, newW: f.lastW, state: f.state, xl: f.xl})
}

// tick sends the flow's control packet of this RTT with the weights
// onerc_host gives (the previous packet's and its host's count now).
func (r *rcSwitch) tick(s *sim, q *qp) {
	if q.closed {
		return
	}
	f := q.rc
	res := r.host(s, q, onerc.HostCtrlTx, onerc.HostEvent{})
	if res.Status == onerc.StatusIdle {
		s.fail(fmt.Errorf("1rc: onerc_host has no flow on connection %d of host %d", f.conn, q.host.id))
		return
	}
	r.sendCtrl(s, q, &ctrl{epoch: r.hostEpoch(s.now), oldW: res.OldWeight, newW: res.NewWeight, state: f.state, xl: f.xl})
	f.lastW = res.NewWeight
	s.q.Push(s.now+r.epochPs, event{kind: evCtrlTick, qp: q})
}

// sendCtrl sends a control packet; control packets are small and
// bypass the data queue (they take the propagation delays only).
func (r *rcSwitch) sendCtrl(s *sim, q *qp, c *ctrl) {
	c.qp, c.sentPs = q, s.now
	s.q.Push(s.now+s.n.PropPs, event{kind: evCtrlSwitch, ctrl: c})
}

// atSwitch runs a control packet through sperc_link (b, x) and then
// onerc_switch (the entry of the packet's epoch, rate_to_window(b), and
// let_through), as Algorithm 4 orders them (lines 8-14, then 15-19).
func (r *rcSwitch) atSwitch(s *sim, c *ctrl) {
	e := c.epoch
	ev := onerc.SPERCEvent{Conn: 0, Kind: onerc.SpCtrl, Round: e, State: c.state, XL: c.xl,
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
	c.b, c.x, c.state, c.bottleneck = res.B, res.X, res.State, res.X == res.B
	if c.leaving {
		return
	}
	sw := onerc.SwitchEvent{Conn: uint32(e % rcSlots), Kind: onerc.SwCtrl, Tag: e / rcSlots,
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

// back hands a returned control packet to onerc_host: the pacing rate
// (floor(x / new_weight) when this link is the limit), and for the first
// one the end of speculation and Resume, the flow's speculative packets
// that got through by the block's count: the flow sends again from the
// next (the switch dropped every one numbered let_through or more: no
// NACK, no timeout). The transmit engine kept each speculative packet's
// number, so it counts how many were below let_through: the exact resume
// point, which the block's may not exceed; every packet between them is
// sent again and the receiver discards the copy.
func (r *rcSwitch) back(s *sim, c *ctrl) {
	q := c.qp
	if q.closed {
		return
	}
	f := q.rc
	f.state, f.xl = c.state, c.x
	res := r.host(s, q, onerc.HostCtrlRx, onerc.HostEvent{B: c.x, LetThrough: c.letThrough, Weight: c.newW, Bottleneck: c.bottleneck})
	f.rate = res.Rate
	if res.Ended {
		if !f.spec {
			s.fail(fmt.Errorf("1rc: onerc_host ended the first RTT of connection %d of host %d twice", f.conn, q.host.id))
			return
		}
		exact := uint64(0)
		for _, seq := range f.specSeq {
			if seq < c.letThrough {
				exact++
			}
		}
		r.resumed++
		switch {
		case res.Resume == exact:
			r.resumeExact++
		case res.Resume > exact:
			r.resumeOver++
		default:
			r.resent += int64(exact - res.Resume)
		}
		f.spec, f.stale = false, false
		q.next = min(q.next, int64(res.Resume))
		f.nextPs = s.now
	}
	s.wake(q.host)
}

// canSend: speculating, up to one BDP at line rate (unless onerc_host
// answered stale); afterwards at the paced rate.
func (r *rcSwitch) canSend(s *sim, q *qp) bool {
	f := q.rc
	if f.spec {
		return !f.stale && int64(len(f.specSeq)) < s.n.BDP/int64(s.n.MTU) && q.next == int64(len(f.specSeq))
	}
	return f.rate > 0 && s.now >= f.nextPs
}

// ask asks onerc_host for the header of q's next packet, as the transmit
// engine does before it starts one: a speculative number, or the pacing
// rate. A stale answer sends nothing: the flow waits for its control
// packet.
func (r *rcSwitch) ask(s *sim, q *qp) bool {
	f := q.rc
	f.hdr = r.host(s, q, onerc.HostSend, onerc.HostEvent{})
	want := onerc.StatusSched
	if f.spec {
		want = onerc.StatusSpec
		if f.hdr.Status == onerc.StatusStale {
			f.stale = true
			return false
		}
	}
	if f.hdr.Status != want {
		s.fail(fmt.Errorf("1rc: onerc_host answered a send of connection %d of host %d with %+v", f.conn, q.host.id, f.hdr))
		return false
	}
	return true
}

// sent numbers a speculative packet, or paces a scheduled one, by the
// header ask got.
func (r *rcSwitch) sent(s *sim, q *qp, p *packet) {
	f := q.rc
	if f.spec {
		p.spec, p.specSeq, p.specEpoch, p.specWeight = true, f.hdr.Seq, f.hdr.Epoch, f.hdr.NewWeight
		f.specSeq = append(f.specSeq, p.specSeq)
		r.specSent++
		return
	}
	gap := int64(float64(p.size) * 8e6 / float64(f.hdr.Rate))
	f.nextPs = max(f.nextPs, s.now) + gap
}

// schedulePacing wakes h when its earliest paced QP may send.
func (r *rcSwitch) schedulePacing(s *sim, h *host) {
	at := int64(-1)
	for _, q := range h.qps {
		if f := q.rc; !q.closed && q.next < q.pkts && !f.spec && f.rate > 0 && (at < 0 || f.nextPs < at) {
			at = f.nextPs
		}
	}
	if at <= s.now || h.wakeAt > s.now && h.wakeAt <= at {
		return
	}
	h.wakeAt = at
	s.q.Push(at, event{kind: evWake, host: h})
}

// drops runs a speculative packet through onerc_switch's data path, with
// the epoch and weight onerc_host put in its header, and checks that its
// flow's drops stay in order.
func (r *rcSwitch) drops(s *sim, p *packet) bool {
	f := p.qp.rc
	e := p.specEpoch
	ev := onerc.SwitchEvent{Conn: uint32(e % rcSlots), Kind: onerc.SwData, Tag: e / rcSlots, Weight: p.specWeight,
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
