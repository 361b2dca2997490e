package netsim

import (
	"fmt"
	"math/rand/v2"

	"github.com/nicgen/nicgen/golden/smartt"
	"github.com/nicgen/nicgen/golden/uet"
)

// Controller is a congestion controller as the simulator sees it: one event
// in, the window after it out. Each sender drives its own connection id
// (the sender's index), so one multi-connection model may serve every
// sender, or each sender may have its own.
type Controller interface {
	Step(smartt.Event) smartt.Result
}

// packet is one data packet in flight, or its trimmed header.
type packet struct {
	sender  int
	size    int    // message bytes carried (the original size once trimmed)
	sentPs  int64  // start of serialisation at the sender (of this copy)
	ecn     bool   // marked at the egress dequeue
	trimmed bool   // only the header is left
	ev      uint32 // entropy an Engine chose for this copy
}

// evKind is what happens; at one instant, events run in this order. An
// egress port that finishes a packet starts the next one (freeing its
// buffer) before the packets arriving at that instant are admitted.
type evKind uint8

const (
	evEgressDone evKind = iota // the egress port finished a packet or header
	evSwitchIn                 // a data packet reached the switch
	evSenderDone               // a sender finished serialising a packet
	evFeedbackIn               // an ACK or NACK reached its sender
	evReceiverIn               // a packet or header reached the receiver
	evEngine                   // a clocked engine's clock edge (after the arrivals of its instant)
)

type event struct {
	atPs int64
	kind evKind
	// tie orders simultaneous arrivals at the switch: the senders are in
	// lockstep (same rate, same start), so a fixed order would hand every
	// contested buffer slot to the same sender. It is drawn from the
	// seeded arbitration stream; 0 for every other kind.
	tie uint64
	seq uint64 // scheduling order, the last tie-break
	pkt *packet
	snd int // evEngine: the sender whose engine it clocks
}

// eventHeap is a binary min-heap on (atPs, kind, tie, seq).
type eventHeap []event

func (h eventHeap) less(i, j int) bool {
	a, b := &h[i], &h[j]
	switch {
	case a.atPs != b.atPs:
		return a.atPs < b.atPs
	case a.kind != b.kind:
		return a.kind < b.kind
	case a.tie != b.tie:
		return a.tie < b.tie
	}
	return a.seq < b.seq
}

func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *eventHeap) pop() event {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && s.less(l, m) {
			m = l
		}
		if r < len(s) && s.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

type sender struct {
	conn     uint32
	ctrl     Controller
	engine   Engine // ctrl, when it also sees the sends (uet_cc); else nil
	cwnd     uint32 // bytes, from the controller's last result
	inFlight int64  // bytes sent and neither acked nor nacked
	nextOff  int64  // offset of the next new byte to send
	retx     []int  // sizes of trimmed packets waiting to be resent, FIFO
	busy     bool   // the NIC is serialising a packet
	acked    int64
	stats    SenderStats

	// a clocked engine (ClockedUET): its sends decided and not yet on the
	// link, and those whose entropy is out, in order
	clk       *ClockedUET
	requested int
	ready     []*packet
}

// sim is one run. Everything it does is driven by the event heap.
type sim struct {
	cfg     Config
	tm      timing
	red     *rand.Rand // RED marking draws
	arb     *rand.Rand // switch input arbitration (event tie-breaks)
	events  eventHeap
	seq     uint64
	nowPs   int64
	senders []*sender

	// Egress port toward the receiver.
	dataQ      []*packet
	dataQBytes int64
	hdrQ       []*packet
	egressBusy bool

	// Reverse path: the receiver's uplink and the switch ports toward each
	// sender carry only ACKs and NACKs, FIFO, so the time each is free
	// again is all their state.
	uplinkFreePs int64
	homeFreePs   []int64

	res     Result
	errStep error
}

func (s *sim) schedule(atPs int64, kind evKind, p *packet) {
	s.seq++
	e := event{atPs: atPs, kind: kind, seq: s.seq, pkt: p}
	if kind == evSwitchIn {
		e.tie = s.arb.Uint64()
	}
	s.events.push(e)
}

// Run simulates one incast with ctrls[i] driving sender i (connection id i)
// and returns its measurements. It fails on an invalid Config, a controller
// that answers with an error, or a run that has not completed by
// Config.MaxSimNs.
func Run(cfg Config, ctrls []Controller) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("netsim: %w", err)
	}
	if len(ctrls) != cfg.Senders {
		return nil, fmt.Errorf("netsim: %d controllers for %d senders", len(ctrls), cfg.Senders)
	}
	tm, _ := cfg.timing()
	s := &sim{
		cfg:        cfg,
		tm:         tm,
		red:        rand.New(rand.NewPCG(cfg.Seed, 0x726564)), // "red"
		arb:        rand.New(rand.NewPCG(cfg.Seed, 0x617262)), // "arb"
		homeFreePs: make([]int64, cfg.Senders),
	}
	for i, c := range ctrls {
		if c == nil {
			return nil, fmt.Errorf("netsim: sender %d has no controller", i)
		}
		e, _ := c.(Engine)
		k, _ := c.(*ClockedUET)
		if k != nil {
			e = nil
		}
		s.senders = append(s.senders, &sender{conn: uint32(i), ctrl: c, engine: e, clk: k})
	}
	for _, snd := range s.senders {
		if snd.clk != nil {
			s.offer(snd, queued{ev: uet.Event{Conn: snd.conn, Kind: uet.KindOpen}})
			continue
		}
		r := s.step(snd, smartt.Event{Conn: snd.conn, Kind: smartt.KindOpen}, 0)
		s.record(snd, r)
	}
	for _, snd := range s.senders {
		s.trySend(snd)
	}
	for len(s.events) > 0 && s.errStep == nil {
		e := s.events.pop()
		if e.atPs > tm.maxPs {
			return nil, fmt.Errorf("netsim: not complete after %d ns (%d of %d bytes acknowledged)", tm.maxPs/1000, s.ackedBytes(), int64(cfg.Senders)*cfg.MessageBytes)
		}
		s.nowPs = e.atPs
		s.res.Events++
		switch e.kind {
		case evSenderDone:
			snd := s.senders[e.pkt.sender]
			snd.busy = false
			s.schedule(s.nowPs+tm.propUp, evSwitchIn, e.pkt)
			s.startLink(snd)
			s.trySend(snd)
		case evSwitchIn:
			s.switchIn(e.pkt)
		case evEgressDone:
			s.egressBusy = false
			s.schedule(s.nowPs+tm.propDown, evReceiverIn, e.pkt)
			s.serveEgress()
		case evReceiverIn:
			s.receiverIn(e.pkt)
		case evFeedbackIn:
			s.feedbackIn(e.pkt)
		case evEngine:
			s.engineEdge(s.senders[e.snd])
		}
	}
	if s.errStep != nil {
		return nil, s.errStep
	}
	if got, want := s.ackedBytes(), int64(cfg.Senders)*cfg.MessageBytes; got != want {
		return nil, fmt.Errorf("netsim: stalled at %d ns with %d of %d bytes acknowledged", s.nowPs/1000, got, want)
	}
	s.finish()
	return &s.res, nil
}

func (s *sim) ackedBytes() int64 {
	var n int64
	for _, snd := range s.senders {
		n += snd.acked
	}
	return n
}

// step runs the controller and keeps the first error it reports.
func (s *sim) step(snd *sender, ev smartt.Event, entropy uint32) smartt.Result {
	var r smartt.Result
	if snd.engine != nil {
		r = snd.engine.StepEV(ev, entropy)
	} else {
		r = snd.ctrl.Step(ev)
	}
	if r.Error && s.errStep == nil {
		s.errStep = fmt.Errorf("netsim: sender %d: controller rejected %+v", snd.conn, ev)
	}
	return r
}

// record applies a controller result to its sender.
func (s *sim) record(snd *sender, r smartt.Result) {
	st := &snd.stats
	if r.QA {
		st.QuickAdapts++
	}
	if r.Fast {
		st.FastAcks++
	}
	changed := r.Cwnd != snd.cwnd || len(st.Cwnd) == 0 && s.cfg.RecordCwnd
	snd.cwnd = r.Cwnd
	if st.Events == 0 || r.Cwnd > st.MaxCwnd {
		st.MaxCwnd = r.Cwnd
	}
	st.Events++
	if changed && s.cfg.RecordCwnd {
		st.Cwnd = append(st.Cwnd, Sample{AtNs: float64(s.nowPs) / 1000, Cwnd: r.Cwnd})
	}
}

// trySend starts the next packet of a sender if its NIC is idle, it has
// something to send, and its window allows it.
func (s *sim) trySend(snd *sender) {
	if snd.clk != nil {
		for snd.requested < SendAhead && s.decideSend(snd) {
		}
		return
	}
	if snd.busy {
		return
	}
	size, ok := s.nextPacket(snd)
	if !ok {
		return
	}
	snd.busy = true
	p := &packet{sender: int(snd.conn), size: size, sentPs: s.nowPs}
	if snd.engine != nil {
		ev, err := snd.engine.Send(snd.conn, uint32(size), uint64(s.nowPs/1000))
		if err != nil && s.errStep == nil {
			s.errStep = fmt.Errorf("netsim: sender %d: %w", snd.conn, err)
		}
		p.ev = ev
	}
	s.schedule(s.nowPs+s.tm.ser(size), evSenderDone, p)
}

// nextPacket takes a sender's next packet, when it has one and its window
// allows it: a retransmission first, else the message's next bytes. It
// counts the packet in flight and returns its size.
func (s *sim) nextPacket(snd *sender) (int, bool) {
	var size int
	resend := len(snd.retx) > 0
	switch {
	case resend:
		size = snd.retx[0]
	case snd.nextOff < s.cfg.MessageBytes:
		size = int(min(int64(s.cfg.MTU), s.cfg.MessageBytes-snd.nextOff))
	default:
		return 0, false
	}
	if snd.inFlight > 0 && snd.inFlight+int64(s.cfg.MTU) > int64(snd.cwnd) {
		return 0, false
	}
	if resend {
		snd.retx = snd.retx[1:]
		snd.stats.Retransmits++
	} else {
		snd.nextOff += int64(size)
	}
	snd.inFlight += int64(size)
	snd.stats.Packets++
	return size, true
}

// switchIn queues a data packet at the egress port, or trims it when it
// would overflow the data queue (S0:L212: only when it would otherwise be
// dropped).
func (s *sim) switchIn(p *packet) {
	if s.dataQBytes+int64(p.size) > s.tm.queueCap {
		p.trimmed = true
		s.res.Trims++
		s.hdrQ = append(s.hdrQ, p)
	} else {
		s.dataQ = append(s.dataQ, p)
		s.dataQBytes += int64(p.size)
		s.res.PeakQueueBytes = max(s.res.PeakQueueBytes, s.dataQBytes)
	}
	s.serveEgress()
}

// serveEgress starts the next transmission of an idle egress port: headers
// first, then data, marked at dequeue.
func (s *sim) serveEgress() {
	if s.egressBusy {
		return
	}
	var p *packet
	var d int64
	switch {
	case len(s.hdrQ) > 0:
		p = s.hdrQ[0]
		s.hdrQ = s.hdrQ[1:]
		d = s.tm.hdrPs
	case len(s.dataQ) > 0:
		p = s.dataQ[0]
		s.dataQ = s.dataQ[1:]
		s.dataQBytes -= int64(p.size)
		p.ecn = s.redMark(s.dataQBytes)
		if p.ecn {
			s.res.Marks++
		}
		d = s.tm.ser(p.size)
	default:
		return
	}
	s.egressBusy = true
	s.schedule(s.nowPs+d, evEgressDone, p)
}

// redMark decides the ECN mark of a packet leaving the data queue from the
// bytes it leaves behind: never at or below Kmin, always at or above Kmax,
// and in between with a probability linear in the occupancy, drawn exactly
// in integers.
func (s *sim) redMark(q int64) bool {
	switch {
	case q <= s.tm.kmin:
		return false
	case q >= s.tm.kmax:
		return true
	}
	return s.red.Int64N(s.tm.kmax-s.tm.kmin) < q-s.tm.kmin
}

// receiverIn acknowledges a data packet or returns a trimmed header as a
// NACK, through the receiver's uplink and the switch port toward the
// sender. Both carry only control packets and are FIFO, and this runs in
// time order, so each arrival time is known now.
func (s *sim) receiverIn(p *packet) {
	if !p.trimmed {
		st := &s.senders[p.sender].stats
		st.Delivered += int64(p.size)
		st.lastDeliveryPs = s.nowPs
	}
	start := max(s.nowPs, s.uplinkFreePs)
	s.uplinkFreePs = start + s.tm.hdrPs
	atSwitch := s.uplinkFreePs + s.tm.propBack
	start = max(atSwitch, s.homeFreePs[p.sender])
	s.homeFreePs[p.sender] = start + s.tm.hdrPs
	s.schedule(s.homeFreePs[p.sender]+s.tm.propHome, evFeedbackIn, p)
}

// feedbackIn hands an ACK or NACK to the sender's controller.
func (s *sim) feedbackIn(p *packet) {
	snd := s.senders[p.sender]
	snd.inFlight -= int64(p.size)
	ev := smartt.Event{
		Conn:    snd.conn,
		Size:    uint32(p.size),
		Unacked: uint32(snd.inFlight),
		Now:     uint64(s.nowPs / 1000),
	}
	if p.trimmed {
		ev.Kind = smartt.KindNack
		snd.retx = append(snd.retx, p.size)
		snd.stats.Trims++
	} else {
		ev.Kind = smartt.KindAck
		ev.ECN = p.ecn
		// NIC timestamps in ns. A sample beyond the RTT port (over 1 ms:
		// a huge queue on a slow link) saturates rather than wraps, as a
		// wrapped RTT would read as an empty network.
		ev.RTT = uint32(min((s.nowPs-p.sentPs)/1000, 1<<rttW-1))
		snd.acked += int64(p.size)
		if p.ecn {
			snd.stats.Marks++
		}
		if snd.acked == s.cfg.MessageBytes {
			snd.stats.DoneNs = float64(s.nowPs) / 1000
		}
	}
	if snd.clk != nil {
		s.offer(snd, queued{ev: uet.Event{Conn: ev.Conn, Kind: uetKinds[ev.Kind&3], Size: ev.Size, ECN: ev.ECN, RTT: ev.RTT, EV: p.ev, Now: ev.Now}, unacked: ev.Unacked})
		return
	}
	s.record(snd, s.step(snd, ev, p.ev))
	s.trySend(snd)
}

// finish derives the summary numbers once every byte is acknowledged.
func (s *sim) finish() {
	r := &s.res
	c := s.cfg
	r.Config = c
	total := int64(c.Senders) * c.MessageBytes
	r.BDPBytes = c.BDP()
	r.QueueCapBytes = s.tm.queueCap
	r.IdealNs = float64(total) * s.tm.serPerByte / 1000
	// No schedule can beat: the first packet's serialisation at its sender,
	// both forward hops, and every byte through the bottleneck.
	r.FloorNs = float64(s.tm.mtuPs+s.tm.propUp+s.tm.propDown)/1000 + r.IdealNs
	var last int64
	tputs := make([]float64, 0, len(s.senders))
	for _, snd := range s.senders {
		st := snd.stats
		st.Conn = snd.conn
		st.CompletionNs = float64(st.lastDeliveryPs) / 1000
		st.FinalCwnd = snd.cwnd
		if st.lastDeliveryPs > 0 {
			st.ThroughputGbps = float64(st.Delivered) * 8 / st.CompletionNs
		}
		last = max(last, st.lastDeliveryPs)
		tputs = append(tputs, st.ThroughputGbps)
		r.Senders = append(r.Senders, st)
	}
	r.CompletionNs = float64(last) / 1000
	r.Slowdown = r.CompletionNs / r.IdealNs
	r.Jain = Jain(tputs)
	r.PeakQueueBDP = float64(r.PeakQueueBytes) / float64(r.BDPBytes)
	for _, st := range r.Senders {
		r.Delivered += st.Delivered
		r.Packets += st.Packets
	}
}
