package isolation

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/nicgen/nicgen/golden/netsim"
)

// longLived is the byte count of a QP that never finishes within a run.
const longLived = int64(1) << 50

// The two sender hosts and the victim's destination. The attacker's
// destinations are 1..D; every destination sits behind the one egress.
const (
	victimHost   = 0
	attackerHost = 1
	victimDst    = 0
)

// qp is one queue pair: a message of pkts packets to one destination.
type qp struct {
	id     int
	host   *host
	dst    int
	victim bool
	total  int64 // bytes
	pkts   int64
	next   int64 // index of the next packet to send
	acked  int64 // bytes acknowledged
	rxNext int64 // index of the packet the receiver expects next
	closed bool
	st     *ccState // window controls
	rc     *rcFlow  // 1RC
}

// size is packet k's size: MTU but for a shorter last one.
func (q *qp) size(k int64, mtu int) int { return int(min(int64(mtu), q.total-k*int64(mtu))) }

// stateKey names a congestion-control state: a (host, destination) pair,
// or with qp >= 0 one QP.
type stateKey struct{ host, dst, qp int }

// ccState is one congestion-control state and its window. Per-src/dst,
// every QP of the pair sends against it: the pair's bytes in flight stay
// within the one window.
type ccState struct {
	key      stateKey
	w        window
	cwnd     float64 // bytes
	inflight int64   // bytes sent and not acknowledged, of all its QPs
	sent     int64   // packets sent: HPCC's sequence numbers
	qps      int     // open QPs using it
}

// host is a sender's NIC: it serialises one packet at a time at line rate,
// round robin over its QPs that may send.
type host struct {
	id     int
	qps    []*qp
	rr     int
	busy   bool
	wakeAt int64  // a pacing wake-up is pending at this time (1RC), or -1
	nic    *rcNIC // 1RC: its onerc_host
}

// packet is one data packet.
type packet struct {
	qp     *qp
	idx    int64
	size   int
	sentPs int64
	seq    int64 // its state's packet count at send (HPCC)
	// 1RC: sent speculatively, with the header onerc_host gave it: its
	// shared sequence number, its flow's start epoch and weight
	spec                           bool
	specSeq, specEpoch, specWeight uint64
	dup                            bool // a copy of a packet the receiver has (a 1RC resend)
	ecn                            bool
	// HPCC's INT, stamped as the packet leaves the egress
	qlen, tx, tsNs float64
}

type evKind uint8

const (
	evOpen       evKind = iota // the attacker opens its next QP
	evHostDone                 // a host finished serialising a packet
	evWake                     // a paced QP may send again (1RC)
	evSwitchIn                 // a data packet reached the switch
	evEgressDone               // the egress finished its head packet
	evAck                      // an ACK reached its sender
	evCtrlSwitch               // a 1RC control packet reached the switch
	evCtrlBack                 // a 1RC control packet is back at its host
	evCtrlTick                 // a 1RC flow sends its next control packet
)

type event struct {
	kind evKind
	host *host
	qp   *qp
	pkt  *packet
	ctrl *ctrl
	k    int // evOpen: the attacker's QP number
}

// sim is one run: one control, one granularity, one attack.
type sim struct {
	cfg    Config
	n      network
	attack Attack
	gran   Granularity
	wc     windowControl // nil for 1RC
	rc     *rcSwitch     // nil for window controls

	q      netsim.Queue[int64, event]
	now    int64
	warmPs int64
	endPs  int64
	hosts  [2]*host
	states map[stateKey]*ccState
	nextID int
	red    *rand.Rand

	// the egress toward the receivers: one FIFO, never full
	fifo       []*packet
	head       int
	qBytes     int64
	egressBusy bool
	txBytes    float64
	kmin, kmax float64

	cell   Cell
	victim struct {
		bytes, others int64 // delivered in the window
		msgFirst      int64 // index of the message's first packet, -1 before it
		msgLast       int64
		msgStartPs    int64
		msgDonePs     int64 // -1 until the receiver has the whole message
	}
	err error
}

func newSim(cfg Config, k Control, g Granularity, a Attack) (*sim, error) {
	s := &sim{cfg: cfg, attack: a, gran: g, states: map[stateKey]*ccState{},
		red: rand.New(rand.NewPCG(cfg.Seed, 0x69736f6c))} // "isol"
	for i := range s.hosts {
		s.hosts[i] = &host{id: i, wakeAt: -1}
	}
	if k == OneRC {
		rc, err := newRCSwitch()
		if err != nil {
			return nil, err
		}
		s.rc, s.n = rc, rc.n
		for i := range s.hosts {
			if s.hosts[i].nic, err = newRCNIC(); err != nil {
				return nil, err
			}
		}
	} else {
		wc, err := newWindowControl(k)
		if err != nil {
			return nil, err
		}
		s.wc, s.n = wc, wc.net()
	}
	s.warmPs = int64(cfg.WarmupRTTs) * s.n.BaseRTT
	s.endPs = s.warmPs + int64(cfg.WindowRTTs)*s.n.BaseRTT
	s.kmin, s.kmax = 0.2*float64(s.n.BDP), 0.8*float64(s.n.BDP)
	s.victim.msgFirst, s.victim.msgDonePs = -1, -1
	s.cell = Cell{Attack: a}
	return s, nil
}

// run simulates until the end of the window and measures.
func (s *sim) run() (*Cell, error) {
	s.start()
	s.runTo(s.endPs)
	if s.err != nil {
		return nil, s.err
	}
	return s.measure(), nil
}

// start opens the victim's QP and schedules the attacker's first open.
func (s *sim) start() {
	s.openQP(s.hosts[victimHost], victimDst, longLived, true)
	s.q.Push(0, event{kind: evOpen, k: 0})
}

// runTo dispatches the events up to time until; later ones stay queued
// (the first of them behind any others of its time).
func (s *sim) runTo(until int64) {
	for s.q.Len() > 0 && s.err == nil {
		at, e := s.q.Pop()
		if at > until {
			s.q.Push(at, e)
			return
		}
		s.now = at
		s.cell.Events++
		s.dispatch(e)
	}
}

func (s *sim) dispatch(e event) {
	switch e.kind {
	case evOpen:
		s.attackerOpens(e.k)
	case evHostDone:
		e.host.busy = false
		s.q.Push(s.now+s.n.PropPs, event{kind: evSwitchIn, pkt: e.pkt})
		s.wake(e.host)
	case evWake:
		if e.host.wakeAt == s.now {
			e.host.wakeAt = -1
		}
		s.wake(e.host)
	case evSwitchIn:
		s.switchIn(e.pkt)
	case evEgressDone:
		s.egressDone()
	case evAck:
		s.ackIn(e.pkt)
	case evCtrlSwitch:
		s.rc.atSwitch(s, e.ctrl)
	case evCtrlBack:
		s.rc.back(s, e.ctrl)
	case evCtrlTick:
		s.rc.tick(s, e.qp)
	}
}

// attackerOpens opens the attacker's QP number k and schedules the next.
func (s *sim) attackerOpens(k int) {
	h := s.hosts[attackerHost]
	switch s.attack {
	case None:
		s.openQP(h, 1, longLived, false)
	case Parallel:
		for range s.cfg.Parallel {
			s.openQP(h, 1, longLived, false)
		}
	case Staggered, Shuffled:
		dst := 1
		if s.attack == Shuffled {
			dst = 1 + k%s.cfg.Destinations
		}
		s.openQP(h, dst, s.n.BDP, false)
		if next := s.now + s.n.BaseRTT; next <= s.endPs {
			s.q.Push(next, event{kind: evOpen, k: k + 1})
		}
	}
}

// openQP opens a QP of total bytes and lets its host send.
func (s *sim) openQP(h *host, dst int, total int64, victim bool) {
	q := &qp{id: s.nextID, host: h, dst: dst, victim: victim, total: total,
		pkts: (total + int64(s.n.MTU) - 1) / int64(s.n.MTU)}
	s.nextID++
	if !victim {
		s.cell.AttackerQPs++
	}
	h.qps = append(h.qps, q)
	if s.rc != nil {
		s.rc.open(s, q)
	} else {
		s.attachState(q)
	}
	s.wake(h)
}

// attachState gives q its congestion-control state: its own, or its
// pair's, created if the pair has none.
func (s *sim) attachState(q *qp) {
	key := stateKey{host: q.host.id, dst: q.dst, qp: -1}
	if s.gran == PerConnection || s.cfg.NoSharing {
		key.qp = q.id
	}
	st, ok := s.states[key]
	if !ok {
		w, cwnd, err := s.wc.open(q.id, float64(s.now)/1000)
		if err != nil {
			s.fail(err)
			return
		}
		st = &ccState{key: key, w: w, cwnd: cwnd}
		s.states[key] = st
	}
	st.qps++
	q.st = st
}

// closeQP ends a QP whose every byte is acknowledged; its pair's state
// goes with the pair's last QP.
func (s *sim) closeQP(q *qp) {
	q.closed = true
	h := q.host
	i := slices.Index(h.qps, q)
	h.qps = slices.Delete(h.qps, i, i+1)
	if h.rr > i {
		h.rr--
	}
	if s.rc != nil {
		s.rc.close(s, q)
		return
	}
	if q.st.qps--; q.st.qps == 0 {
		q.st.w.close()
		delete(s.states, q.st.key)
	}
}

func (s *sim) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// canSend is whether q may start a packet now.
func (s *sim) canSend(q *qp) bool {
	if q.closed || q.next >= q.pkts {
		return false
	}
	if s.rc != nil {
		return s.rc.canSend(s, q)
	}
	st := q.st
	return st.inflight == 0 || float64(st.inflight+int64(q.size(q.next, s.n.MTU))) <= st.cwnd
}

// wake starts h's next packet if its link is idle: round robin from the
// QP after the last one served (under 1RC, one whose send onerc_host
// does not answer stale).
func (s *sim) wake(h *host) {
	if h.busy || len(h.qps) == 0 || s.err != nil {
		return
	}
	n := len(h.qps)
	for i := range n {
		j := (h.rr + i) % n
		if q := h.qps[j]; s.canSend(q) && (q.rc == nil || s.rc.ask(s, q)) {
			h.rr = (j + 1) % n
			s.send(h, q)
			return
		}
	}
	if s.rc != nil {
		s.rc.schedulePacing(s, h)
	}
}

// send serialises q's next packet.
func (s *sim) send(h *host, q *qp) {
	k := q.next
	q.next++
	p := &packet{qp: q, idx: k, size: q.size(k, s.n.MTU), sentPs: s.now}
	if q.st != nil {
		q.st.inflight += int64(p.size)
		p.seq = q.st.sent
		q.st.sent++
	}
	if q.rc != nil {
		s.rc.sent(s, q, p)
	}
	if q.victim && s.victim.msgFirst < 0 && s.now >= s.warmPs {
		s.victim.msgFirst, s.victim.msgStartPs = k, s.now
		s.victim.msgLast = k + s.messagePackets() - 1
	}
	h.busy = true
	s.q.Push(s.now+s.n.serPs(p.size), event{kind: evHostDone, host: h, pkt: p})
}

// messagePackets is the victim's message M in full packets.
func (s *sim) messagePackets() int64 {
	return max(1, int64(math.Ceil(s.cfg.MessageBDPs*float64(s.n.BDP)/float64(s.n.MTU))))
}

// switchIn queues a packet at the egress (1RC may drop a speculative one
// first).
func (s *sim) switchIn(p *packet) {
	if p.spec && s.rc.drops(s, p) {
		return
	}
	s.fifo = append(s.fifo, p)
	s.qBytes += int64(p.size)
	s.cell.MaxQueueBytes = max(s.cell.MaxQueueBytes, s.qBytes)
	if !s.egressBusy {
		s.egressBusy = true
		s.q.Push(s.now+s.n.serPs(p.size), event{kind: evEgressDone})
	}
}

// egressDone sends the head packet on, ECN-marked with a probability
// rising linearly from 0 at Kmin to 1 at Kmax of the queue it leaves
// behind (as golden/netsim marks at dequeue) and stamped with the INT of
// that queue.
func (s *sim) egressDone() {
	p := s.fifo[s.head]
	s.fifo[s.head] = nil
	s.head++
	if s.head > 1024 && 2*s.head > len(s.fifo) {
		s.fifo = slices.Clone(s.fifo[s.head:])
		s.head = 0
	}
	s.qBytes -= int64(p.size)
	p.ecn = s.mark(float64(s.qBytes))
	s.txBytes += float64(p.size)
	p.qlen, p.tx, p.tsNs = float64(s.qBytes), s.txBytes, float64(s.now)/1000
	s.deliver(p)
	s.q.Push(s.now+3*s.n.PropPs, event{kind: evAck, pkt: p})
	if s.head < len(s.fifo) {
		s.q.Push(s.now+s.n.serPs(s.fifo[s.head].size), event{kind: evEgressDone})
	} else {
		s.egressBusy = false
	}
}

func (s *sim) mark(q float64) bool {
	switch {
	case q <= s.kmin:
		return false
	case q >= s.kmax:
		return true
	}
	return s.red.Float64() < (q-s.kmin)/(s.kmax-s.kmin)
}

// deliver counts a packet leaving the egress: the window's shares, the
// receiver's order, the victim's message. The receiver discards a copy of
// a packet it has (1RC resends some that got through): below the index
// it expects next, as a flow loses only a tail of its speculative
// packets, so none below is missing (OutOfOrder would count a gap).
func (s *sim) deliver(p *packet) {
	q := p.qp
	if p.idx < q.rxNext {
		p.dup = true
		s.cell.Duplicates++
		return
	}
	if s.now >= s.warmPs {
		if q.victim {
			s.victim.bytes += int64(p.size)
		} else {
			s.victim.others += int64(p.size)
		}
	}
	if p.idx != q.rxNext {
		s.cell.OutOfOrder++
	}
	q.rxNext = p.idx + 1
	if q.victim && s.victim.msgFirst >= 0 && s.victim.msgDonePs < 0 && q.rxNext > s.victim.msgLast && p.idx <= s.victim.msgLast {
		s.victim.msgDonePs = s.now + s.n.PropPs // its tail reaches the receiver
	}
}

// ackIn hands an ACK to its sender; a copy's ACK acknowledges nothing
// new.
func (s *sim) ackIn(p *packet) {
	q := p.qp
	if !p.dup {
		q.acked += int64(p.size)
	}
	if st := q.st; st != nil {
		st.inflight -= int64(p.size)
		cwnd, err := st.w.ack(ackInfo{delayNs: float64(s.now-p.sentPs) / 1000, nowNs: float64(s.now) / 1000, size: p.size,
			ecn: p.ecn, unacked: st.inflight, seq: p.seq, sndNxt: st.sent, qlen: p.qlen, tx: p.tx, tsNs: p.tsNs})
		if err != nil {
			s.fail(err)
			return
		}
		st.cwnd = cwnd
	}
	if !p.dup && q.acked == q.total {
		s.closeQP(q)
	}
	s.wake(q.host)
}

// measure turns the run's counters into its cell.
func (s *sim) measure() *Cell {
	c := &s.cell
	v := &s.victim
	if total := v.bytes + v.others; total > 0 {
		c.VictimShare = float64(v.bytes) / float64(total)
		c.Utilisation = float64(total) * 8 / (s.n.LinkGbps * float64(s.endPs-s.warmPs) / 1000)
	}
	mBytes := s.messagePackets() * int64(s.n.MTU)
	ideal := float64(s.n.serPs(int(mBytes)) + s.n.serPs(s.n.MTU) + 2*s.n.PropPs)
	c.MessageBytes = mBytes
	c.IdealUs = ideal / 1e6
	switch {
	case v.msgDonePs >= 0:
		c.MessageDone = true
		c.FCTUs = float64(v.msgDonePs-v.msgStartPs) / 1e6
	case v.msgFirst >= 0:
		c.FCTUs = float64(s.endPs-v.msgStartPs) / 1e6
	default:
		c.FCTUs = float64(s.endPs-s.warmPs) / 1e6
	}
	c.Slowdown = c.FCTUs / c.IdealUs
	c.MaxQueueBDP = float64(c.MaxQueueBytes) / float64(s.n.BDP)
	if s.rc != nil {
		c.SpecSent, c.SpecDropped, c.DropsInOrder = s.rc.specSent, s.rc.specDropped, s.rc.dropHoles == 0
		c.Resumed, c.ResumeExact, c.ResumeOver, c.Resent = s.rc.resumed, s.rc.resumeExact, s.rc.resumeOver, s.rc.resent
	}
	return c
}

// runCell runs one attack under one control and granularity.
func runCell(cfg Config, k Control, g Granularity, a Attack) (*Cell, network, error) {
	s, err := newSim(cfg, k, g, a)
	if err != nil {
		return nil, network{}, err
	}
	c, err := s.run()
	if err != nil {
		return nil, network{}, fmt.Errorf("%s %s %s: %w", k, g, a, err)
	}
	c.Verdict = verdict(c.VictimShare, cfg.VulnerableBelow)
	c.Thesis = thesis(g, a)
	return c, s.n, nil
}
