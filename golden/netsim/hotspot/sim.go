package hotspot

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nicgen/nicgen/golden/netsim"
	"github.com/nicgen/nicgen/golden/srp"
)

// The four blocks as the simulator sees them: one event in, its result
// out. The golden models (package srp) implement them; so can a Verilated
// block (verilator-harness/blockeq), which is how the generated RTL runs
// in the loop.
type (
	TxStepper interface {
		StepTo(*srp.TxEvent, *srp.TxResult)
	}
	RxStepper interface {
		StepTo(*srp.RxEvent, *srp.RxResult)
	}
	TTWStepper interface {
		StepTo(*srp.TTWEvent, *srp.TTWResult)
	}
	IPDStepper interface {
		StepTo(*srp.IPDEvent, *srp.IPDResult)
	}
)

// Models are the blocks of a run: srp_tx and srp_rx in every NIC, srp_ttw
// in every switch input (SRP), ecn_ipd in every NIC (ECN). One table serves
// every NIC or switch: the ids keep them apart (Config.Size).
type Models struct {
	Tx  TxStepper
	Rx  RxStepper
	TTW TTWStepper
	IPD IPDStepper
}

// GoldenModels are the golden models for cfg's tables.
func GoldenModels(cfg Config) (Models, error) {
	tx, err := srp.NewTxModel(cfg.Tx)
	if err != nil {
		return Models{}, err
	}
	rx, err := srp.NewRxModel(cfg.Rx)
	if err != nil {
		return Models{}, err
	}
	ttw, err := srp.NewTTWModel(cfg.TTW)
	if err != nil {
		return Models{}, err
	}
	ipd, err := srp.NewIPDModel(cfg.IPD)
	if err != nil {
		return Models{}, err
	}
	return Models{Tx: tx, Rx: rx, TTW: ttw, IPD: ipd}, nil
}

// Virtual channels: control (reservations, grants, ACKs, NACKs, congestion
// notifications; highest priority, one 64-bit flit), data, and the
// low-priority speculative VC.
const (
	vcCtrl = iota
	vcData
	vcSpec
	numVC
)

type pktKind uint8

const (
	pData  pktKind = iota // a data packet (speculative when spec)
	pRes                  // R(n), to the destination
	pGrant                // G(t_s), to the source
	pAck                  // a speculative packet arrived
	pNack                 // a speculative packet was dropped
	pCN                   // ECN congestion notification
)

type packet struct {
	kind     pktKind
	spec     bool
	dst      int // the host it travels to
	peer     int // control: the host whose send queue it concerns
	seq      uint64
	n, ts    uint64
	hdr      uint64 // TTW header field (srp_ttw)
	ecn      bool
	msg      *message
	sentPs   int64 // this copy left the source NIC
	out      int   // output port at the current switch
	readyPs  int64 // may leave the current switch (arrival + router latency)
	slot     int   // srp_ttw slot at the current switch
	up       int   // the spine chosen at the first leaf, -1 before
	crossing bool  // source and destination under different leaves
}

func (p *packet) vc() int {
	switch {
	case p.kind != pData:
		return vcCtrl
	case p.spec:
		return vcSpec
	}
	return vcData
}

type message struct {
	src, dst   int
	packets    int
	createdPs  int64
	delivered  int
	next       int // none/ecn: next packet to send
	firstSeq   uint64
	hot, small bool
}

// link is a channel seen from its sending end: the output port of a
// switch or a NIC's injection port.
type link struct {
	busy    bool
	credits [numVC]int // free packets of the downstream input buffer (control: unlimited)
	toSw    *swtch     // the switch at the far end, or nil for a host
	toPort  int
	toHost  int
	fromSw  *swtch // nil for a NIC
	fromOut int
	fromH   *host
	rr      int // round-robin pointer over the inputs
}

// fifo is a queue of packets.
type fifo struct{ q []*packet }

func (f *fifo) push(p *packet) { f.q = append(f.q, p) }
func (f *fifo) head() *packet {
	if len(f.q) == 0 {
		return nil
	}
	return f.q[0]
}
func (f *fifo) pop() *packet {
	p := f.q[0]
	f.q[0] = nil
	f.q = f.q[1:]
	return p
}

// inport is a switch input: VOQs for control and data (S2:L98), one FIFO
// for the speculative VC with its srp_ttw slots.
type inport struct {
	voq      [2][]fifo // [vcCtrl|vcData][output]
	spec     fifo
	specTail int // ring position of the next speculative arrival
	slotBase int
	upstream *link // nil for the switch's own NACKs
}

type swtch struct {
	leaf  bool
	index int
	in    []*inport // the last is the switch's own (NACKs it generates)
	out   []*link
	dataQ []int // data packets queued for each output, all inputs
}

type sendQueue struct {
	msgs      []*message // msgs[0] is being sent
	blocked   bool       // srp: the last send opportunity gave no packet
	lastEndPs int64      // ecn: the previous packet left
}

type host struct {
	id     int
	up     *link
	ctrl   fifo
	staged *packet
	queues []sendQueue
	rr     int
	hot    bool
	victim bool
}

type evKind uint8

const (
	eLinkFree evKind = iota
	eCredit
	eArriveSwitch
	eArriveHost
	eReady
	eTTW
	eWake
	eResume // t_s of a granted queue (port): it may send again
	eGen
)

type event struct {
	kind evKind
	l    *link
	sw   *swtch
	port int
	h    *host
	p    *packet
}

type sim struct {
	cfg     Config
	m       Models
	now     int64
	evs     netsim.Queue[int64, event]
	hosts   []*host
	leaves  []*swtch
	spines  []*swtch
	route   *rand.Rand // up-port choices
	traffic *rand.Rand // victim arrivals and destinations
	err     error
	st      stats

	pktPs, ctrlPs, linkPs, routerPs int64
	endPs, warmPs, binPs            int64
	gapMeanPs                       float64
	victimDst                       []int
}

func (s *sim) at(t int64, e event) { s.evs.Push(t, e) }

func (s *sim) tick() uint64 { return uint64(s.now / 1000) }

func (s *sim) fail(format string, a ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("hotspot: at %.3f us: %s", float64(s.now)/1e6, fmt.Sprintf(format, a...))
	}
}

// Run simulates cfg with the blocks m and measures it.
func Run(cfg Config, m Models) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &sim{cfg: cfg, m: m,
		route:    rand.New(rand.NewPCG(cfg.Seed, 0x726f757465)),
		traffic:  rand.New(rand.NewPCG(cfg.Seed, 0x74726166)),
		pktPs:    int64(math.Round(float64(cfg.PacketBits) / cfg.LinkGbps * 1000)),
		ctrlPs:   int64(math.Round(float64(cfg.ControlBits) / cfg.LinkGbps * 1000)),
		linkPs:   int64(math.Round(cfg.LinkNs * 1000)),
		routerPs: int64(math.Round(cfg.RouterNs * 1000)),
		endPs:    int64(math.Round(cfg.DurationNs * 1000)),
		warmPs:   int64(math.Round(cfg.WarmupNs * 1000)),
		binPs:    max(1, int64(math.Round(cfg.BinNs*1000))),
	}
	s.st.bins = make([]bin, (s.endPs+s.binPs-1)/s.binPs)
	s.st.perSender = make([]int64, cfg.Hosts())
	s.st.load = make([]load, cfg.Hosts())
	s.build()
	s.open()
	s.startTraffic()
	for s.err == nil && s.evs.Len() > 0 {
		at, e := s.evs.Pop()
		if at > s.endPs {
			break
		}
		s.now = at
		s.st.events++
		s.dispatch(e)
	}
	if s.err != nil {
		return nil, s.err
	}
	return s.result(), nil
}

// build wires the tree: leaf l has ports 0..H-1 down to its hosts and
// H..H+S-1 up to the spines; spine s has ports 0..L-1 down to the leaves.
func (s *sim) build() {
	c := &s.cfg
	H, L, S := c.HostsPerLeaf, c.Leaves, c.Spines
	n := c.Hosts()
	slot := 0
	newSwitch := func(leaf bool, index, ports int) *swtch {
		sw := &swtch{leaf: leaf, index: index, dataQ: make([]int, ports)}
		for i := 0; i <= ports; i++ {
			in := &inport{}
			for k := range in.voq {
				in.voq[k] = make([]fifo, ports)
			}
			if i < ports {
				in.slotBase = slot
				slot += c.BufferPackets
			}
			sw.in = append(sw.in, in)
		}
		for o := 0; o < ports; o++ {
			sw.out = append(sw.out, &link{fromSw: sw, fromOut: o, toHost: -1})
		}
		return sw
	}
	for l := 0; l < L; l++ {
		s.leaves = append(s.leaves, newSwitch(true, l, H+S))
	}
	for sp := 0; sp < S; sp++ {
		s.spines = append(s.spines, newSwitch(false, sp, L))
	}
	connect := func(l *link, sw *swtch, port int) {
		l.toSw, l.toPort, l.toHost = sw, port, -1
		l.credits = [numVC]int{0, c.BufferPackets, c.BufferPackets}
		sw.in[port].upstream = l
	}
	for h := 0; h < n; h++ {
		ho := &host{id: h, queues: make([]sendQueue, n)}
		ho.up = &link{fromH: ho, toHost: -1}
		leaf := s.leaves[h/H]
		connect(ho.up, leaf, h%H)
		leaf.out[h%H].toHost = h
		leaf.out[h%H].credits = [numVC]int{0, math.MaxInt32, math.MaxInt32} // a host takes every packet at once
		s.hosts = append(s.hosts, ho)
	}
	for l, leaf := range s.leaves {
		for sp, spine := range s.spines {
			connect(leaf.out[H+sp], spine, l)
			connect(spine.out[l], leaf, H+sp)
		}
	}
}

func (s *sim) txConn(src, dst int) uint32 { return uint32(src*s.cfg.Hosts() + dst) }

// step runs one event through a block and counts it; an error result is
// a fault of the simulator, which gives every block only events in range.
func step[E, R any](s *sim, m interface{ StepTo(*E, *R) }, e E, failed func(*R) bool, what string) R {
	var r R
	m.StepTo(&e, &r)
	s.st.blockEvents++
	if failed(&r) {
		s.fail("%s answered %+v with an error", what, e)
	}
	return r
}

func (s *sim) stepTx(e srp.TxEvent) srp.TxResult {
	e.Now = s.tick()
	return step(s, s.m.Tx, e, func(r *srp.TxResult) bool { return r.Error }, "srp_tx")
}

func (s *sim) stepRx(e srp.RxEvent) srp.RxResult {
	e.Now = s.tick()
	return step(s, s.m.Rx, e, func(r *srp.RxResult) bool { return r.Error }, "srp_rx")
}

func (s *sim) stepTTW(e srp.TTWEvent) srp.TTWResult {
	e.Now = s.tick()
	return step(s, s.m.TTW, e, func(r *srp.TTWResult) bool { return r.Error }, "srp_ttw")
}

func (s *sim) stepIPD(kind srp.IPDKind, conn uint32) uint64 {
	e := srp.IPDEvent{Conn: conn, Kind: kind, Now: s.tick()}
	return step(s, s.m.IPD, e, func(r *srp.IPDResult) bool { return r.Error }, "ecn_ipd").IPD
}

// open starts every table the run uses: the hardware's tables start with
// whatever the RAM holds.
func (s *sim) open() {
	n := s.cfg.Hosts()
	switch s.cfg.CC {
	case SRP:
		for src := 0; src < n; src++ {
			for dst := 0; dst < n; dst++ {
				s.stepTx(srp.TxEvent{Conn: s.txConn(src, dst), Kind: srp.TxOpen})
			}
			s.stepRx(srp.RxEvent{Conn: uint32(src), Kind: srp.RxOpen})
		}
		for slot := 0; slot < s.cfg.TTW.NumConn; slot++ {
			s.stepTTW(srp.TTWEvent{Conn: uint32(slot), Kind: srp.TTWOpen})
		}
	case ECN:
		for src := 0; src < n; src++ {
			for dst := 0; dst < n; dst++ {
				s.stepIPD(srp.IPDOpen, s.txConn(src, dst))
			}
		}
	}
}

// startTraffic draws the hot-spot senders and starts every source.
func (s *sim) startTraffic() {
	c := &s.cfg
	n := c.Hosts()
	others := make([]int, 0, n-1)
	for h := 0; h < n; h++ {
		if h != c.Hotspot {
			others = append(others, h)
		}
	}
	s.traffic.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	for i, h := range others {
		if i < c.HotspotSenders {
			s.hosts[h].hot = true
		} else {
			s.hosts[h].victim = true
		}
	}
	for h := 0; h < n; h++ {
		if !s.hosts[h].hot && (h != c.Hotspot || c.HotspotSenders == 0) {
			s.victimDst = append(s.victimDst, h)
		}
	}
	if len(s.victimDst) < 2 {
		s.fail("the victims have no destination but themselves")
	}
	mean := float64(c.VictimPackets)*(1-c.SmallShare) + float64(c.SmallPackets)*c.SmallShare
	if c.VictimLoad > 0 {
		s.gapMeanPs = mean * float64(s.pktPs) / c.VictimLoad
	}
	for _, h := range s.hosts {
		switch {
		case h.hot && !c.HotspotIdle:
			s.queueMessage(h, &message{src: h.id, dst: c.Hotspot, packets: c.HotspotPackets, hot: true})
		case h.victim && s.gapMeanPs > 0:
			s.at(s.gap(), event{kind: eGen, h: h})
		}
	}
}

func (s *sim) gap() int64 { return s.now + int64(s.traffic.ExpFloat64()*s.gapMeanPs) + 1 }

// offer counts the packets of a message just created: offered in the
// window, or before the warm-up.
func (s *sim) offer(m *message) {
	l := &s.st.load[m.src]
	if m.createdPs >= s.warmPs {
		l.offered += int64(m.packets)
	} else {
		l.preOffered += int64(m.packets)
	}
}

// queueMessage hands a message to its send queue.
func (s *sim) queueMessage(h *host, m *message) {
	m.createdPs = s.now
	s.offer(m)
	q := &h.queues[m.dst]
	q.msgs = append(q.msgs, m)
	if len(q.msgs) == 1 {
		s.startMessage(h, q)
	}
	s.at(s.now, event{kind: eWake, h: h})
}

func (s *sim) startMessage(h *host, q *sendQueue) {
	m := q.msgs[0]
	if s.cfg.CC == SRP {
		r := s.stepTx(srp.TxEvent{Conn: s.txConn(h.id, m.dst), Kind: srp.TxMsg, M: uint64(m.packets)})
		if r.Busy {
			s.fail("srp_tx queue %d->%d is busy with a message the network considers delivered", h.id, m.dst)
		}
		q.blocked = false
	}
}

// messageSent retires the queue's message at its source and starts the
// next; a hot-spot sender always has one more.
func (s *sim) messageSent(h *host, q *sendQueue) {
	m := q.msgs[0]
	q.msgs[0] = nil
	q.msgs = q.msgs[1:]
	if m.hot {
		next := &message{src: h.id, dst: m.dst, packets: m.packets, hot: true, createdPs: s.now}
		s.offer(next)
		q.msgs = append(q.msgs, next)
	}
	if len(q.msgs) > 0 {
		q.msgs[0].firstSeq = m.firstSeq + uint64(m.packets)
		s.startMessage(h, q)
	}
}

func (s *sim) dispatch(e event) {
	switch e.kind {
	case eLinkFree:
		e.l.busy = false
		s.kick(e.l)
	case eCredit:
		e.l.credits[e.port]++
		s.kick(e.l)
	case eArriveSwitch:
		s.arriveSwitch(e.sw, e.port, e.p)
	case eArriveHost:
		s.arriveHost(s.hosts[e.port], e.p)
	case eReady:
		s.tryOut(e.sw, e.port)
	case eTTW:
		s.ttwTimer(e.sw, e.port, e.p)
	case eWake:
		s.nicTry(e.h)
	case eResume:
		e.h.queues[e.port].blocked = false
		s.nicTry(e.h)
	case eGen:
		s.generate(e.h)
	}
}

// kick serves a link that may have become usable.
func (s *sim) kick(l *link) {
	if l.fromSw != nil {
		s.tryOut(l.fromSw, l.fromOut)
	} else {
		s.nicTry(l.fromH)
	}
}

// transmit puts p on l now. Virtual cut-through: the head reaches the
// next switch after the link's latency and may leave it RouterNs later;
// a host takes the packet when its tail arrives.
func (s *sim) transmit(l *link, p *packet) {
	ser := s.pktPs
	if p.kind != pData {
		ser = s.ctrlPs
	}
	l.busy = true
	s.at(s.now+ser, event{kind: eLinkFree, l: l})
	if vc := p.vc(); vc != vcCtrl {
		l.credits[vc]--
		if l.credits[vc] < 0 {
			s.fail("a packet was sent without a credit")
		}
	}
	if l.toSw != nil {
		s.at(s.now+s.linkPs, event{kind: eArriveSwitch, sw: l.toSw, port: l.toPort, p: p})
	} else {
		s.at(s.now+s.linkPs+ser, event{kind: eArriveHost, port: l.toHost, p: p})
	}
}

// outFor is the output port of sw toward host dst: nearest common
// ancestor routing, a random up-port at the first leaf, deterministic down.
func (s *sim) outFor(sw *swtch, p *packet) int {
	H := s.cfg.HostsPerLeaf
	if !sw.leaf {
		return p.dst / H
	}
	if p.dst/H == sw.index {
		return p.dst % H
	}
	if p.up < 0 {
		p.up = s.route.IntN(s.cfg.Spines)
	}
	return H + p.up
}

func (s *sim) arriveSwitch(sw *swtch, port int, p *packet) {
	in := sw.in[port]
	p.out = s.outFor(sw, p)
	p.readyPs = s.now + s.routerPs
	vc := p.vc()
	if vc != vcSpec {
		in.voq[vc][p.out].push(p)
		if vc == vcData {
			sw.dataQ[p.out]++
			s.st.peakVOQ = max(s.st.peakVOQ, sw.dataQ[p.out])
		}
		s.at(p.readyPs, event{kind: eReady, sw: sw, port: p.out})
		return
	}
	p.slot = in.slotBase + in.specTail
	in.specTail = (in.specTail + 1) % s.cfg.BufferPackets
	r := s.stepTTW(srp.TTWEvent{Conn: uint32(p.slot), Kind: srp.TTWArrive, Hdr: p.hdr, Spec: true})
	if r.Drop { // late already: dropped at arrival, its head turned into a NACK
		s.drop(sw, in, p, s.now+s.pktPs)
		return
	}
	in.spec.push(p)
	if in.spec.head() == p {
		s.armHead(sw, port)
	}
}

// armHead makes the speculative head of an input eligible, and sets the
// timer at which it passes its TTW.
func (s *sim) armHead(sw *swtch, port int) {
	p := sw.in[port].spec.head()
	if p == nil {
		return
	}
	s.at(max(s.now, p.readyPs), event{kind: eReady, sw: sw, port: p.out})
	if exp := s.expiryTick(p); exp >= 0 {
		s.at(max(s.now, exp*1000), event{kind: eTTW, sw: sw, port: port, p: p})
	}
}

// expiryTick is the first tick at which p, stored at its arrival tick,
// is past its TTW (the rule of golden/srp's srp_ttw, for the timer only:
// the block decides), or -1 if the mode never expires it.
func (s *sim) expiryTick(p *packet) int64 {
	t := s.cfg.TTW
	stamp := int64(p.readyPs-s.routerPs) / 1000
	switch t.Mode {
	case srp.TTWPerHop:
		return stamp + int64(t.TTW) + 1
	case srp.TTWDeadline:
		return int64(p.hdr) + 1
	}
	return stamp + int64(t.TTW) - int64(p.hdr) + 1
}

// ttwTimer checks a speculative head that may be past its TTW while it
// waits (S2:L70: the check is made at the head of the input buffer).
func (s *sim) ttwTimer(sw *swtch, port int, p *packet) {
	in := sw.in[port]
	if in.spec.head() != p {
		return // it left or was dropped
	}
	r := s.stepTTW(srp.TTWEvent{Conn: uint32(p.slot), Kind: srp.TTWHead})
	if !r.Drop {
		s.fail("srp_ttw released slot %d at its head past the TTW without dropping it", p.slot)
		return
	}
	in.spec.pop()
	s.drop(sw, in, p, s.now)
	s.armHead(sw, port)
}

// drop discards a speculative packet at sw: its buffer space returns to
// the upstream link once freed (at freedPs), and its head becomes a NACK
// to the source (S2:L247-249), sent by the switch itself.
func (s *sim) drop(sw *swtch, in *inport, p *packet, freedPs int64) {
	s.st.specDropped++
	if in.upstream != nil {
		s.at(freedPs+s.linkPs, event{kind: eCredit, l: in.upstream, port: vcSpec})
	}
	nack := &packet{kind: pNack, dst: p.msg.src, peer: p.dst, seq: p.seq, up: -1}
	nack.out = s.outFor(sw, nack)
	nack.readyPs = s.now + s.routerPs
	own := sw.in[len(sw.in)-1]
	own.voq[vcCtrl][nack.out].push(nack)
	s.at(nack.readyPs, event{kind: eReady, sw: sw, port: nack.out})
}

// tryOut serves an idle switch output: control first, then data from the
// VOQs, then the speculative heads, round-robin over the inputs within a
// class (priority arbiters, S2:L98), each needing a downstream credit.
func (s *sim) tryOut(sw *swtch, o int) {
	l := sw.out[o]
	if l.busy {
		return
	}
	n := len(sw.in)
	for _, vc := range []int{vcCtrl, vcData} {
		if vc == vcData && l.credits[vcData] == 0 {
			continue
		}
		for k := 0; k < n; k++ {
			i := (l.rr + k) % n
			q := &sw.in[i].voq[vc][o]
			p := q.head()
			if p == nil || p.readyPs > s.now {
				continue
			}
			q.pop()
			l.rr = i + 1
			if vc == vcData {
				s.markECN(sw, o, p)
				sw.dataQ[o]--
			}
			s.forward(sw, i, l, p)
			return
		}
	}
	if l.credits[vcSpec] == 0 || s.cfg.CC != SRP {
		return
	}
	for k := 0; k < n-1; k++ {
		i := (l.rr + k) % (n - 1)
		in := sw.in[i]
		for {
			p := in.spec.head()
			if p == nil || p.out != o || p.readyPs > s.now {
				break
			}
			in.spec.pop()
			r := s.stepTTW(srp.TTWEvent{Conn: uint32(p.slot), Kind: srp.TTWHead})
			if r.Drop {
				s.drop(sw, in, p, s.now)
				s.armHead(sw, i)
				continue
			}
			p.hdr = r.Hdr
			l.rr = i + 1
			s.forward(sw, i, l, p)
			s.armHead(sw, i)
			return
		}
	}
}

// forward sends p from input i of sw on l and returns its buffer space
// upstream once its tail has left.
func (s *sim) forward(sw *swtch, i int, l *link, p *packet) {
	if up := sw.in[i].upstream; up != nil && p.vc() != vcCtrl {
		s.at(s.now+s.pktPs+s.linkPs, event{kind: eCredit, l: up, port: p.vc()})
	}
	s.transmit(l, p)
}

// markECN is S2's root-of-congestion rule (S2:L104): a data packet leaving
// an output whose VOQs hold more than b_thres packets, toward a buffer
// with credits (it is being sent, so it has), is marked.
func (s *sim) markECN(sw *swtch, o int, p *packet) {
	if s.cfg.CC != ECN {
		return
	}
	if float64(sw.dataQ[o]) > s.cfg.ECNThreshold*float64(s.cfg.BufferPackets) && !p.ecn {
		p.ecn = true
		s.st.marks++
	}
}

// nicTry serves an idle injection link: control packets first, then a
// packet already chosen, then the send queues round-robin (S2:L100).
func (s *sim) nicTry(h *host) {
	l := h.up
	if l.busy || s.err != nil {
		return
	}
	if p := h.ctrl.head(); p != nil {
		h.ctrl.pop()
		s.transmit(l, p)
		return
	}
	if p := h.staged; p != nil {
		h.staged = nil
		p.sentPs = s.now
		s.transmit(l, p)
		return
	}
	n := s.cfg.Hosts()
	for k := 0; k < n; k++ {
		d := (h.rr + k) % n
		q := &h.queues[d]
		if len(q.msgs) == 0 {
			continue
		}
		p := s.choose(h, q, d)
		if p == nil {
			continue
		}
		h.rr = d + 1
		if h.ctrl.head() != nil { // the reservation goes first (S2:L68)
			h.staged = p
			s.transmit(l, h.ctrl.pop())
			return
		}
		p.sentPs = s.now
		s.transmit(l, p)
		return
	}
}

// choose asks queue q (to d) for its next packet, or nil.
func (s *sim) choose(h *host, q *sendQueue, d int) *packet {
	l := h.up
	m := q.msgs[0]
	newPkt := func(seq uint64, spec bool) *packet {
		return &packet{kind: pData, spec: spec, dst: d, seq: seq, msg: m, up: -1,
			crossing: h.id/s.cfg.HostsPerLeaf != d/s.cfg.HostsPerLeaf}
	}
	switch s.cfg.CC {
	case None, ECN:
		if l.credits[vcData] == 0 {
			return nil
		}
		if s.cfg.CC == ECN {
			ipd := s.stepIPD(srp.IPDSend, s.txConn(h.id, d))
			if allowed := q.lastEndPs + int64(ipd)*1000; s.now < allowed {
				s.at(allowed, event{kind: eWake, h: h})
				return nil
			}
			q.lastEndPs = s.now + s.pktPs
		}
		p := newPkt(m.firstSeq+uint64(m.next), false)
		m.next++
		if m.next == m.packets {
			s.messageSent(h, q)
		}
		return p
	}
	// SRP: a send opportunity may give a packet for either VC
	if q.blocked || l.credits[vcData] == 0 || l.credits[vcSpec] == 0 {
		return nil
	}
	r := s.stepTx(srp.TxEvent{Conn: s.txConn(h.id, d), Kind: srp.TxSend})
	if r.Res {
		s.st.reservations++
		h.ctrl.push(&packet{kind: pRes, dst: d, peer: h.id, seq: r.Seq, n: r.ResN, up: -1})
	}
	var p *packet
	if r.Pkt {
		p = newPkt(r.Seq, r.Spec)
		if r.Spec {
			s.st.specSent++
			if s.cfg.TTW.Mode == srp.TTWDeadline {
				p.hdr = (s.tick() + s.cfg.TTW.TTW) & (uint64(1)<<uint(s.cfg.TTW.HdrW) - 1)
			}
		}
	} else {
		q.blocked = true
	}
	if r.MsgDone {
		s.messageSent(h, q)
	}
	return p
}
