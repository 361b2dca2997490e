package collective

import (
	"container/heap"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/nicgen/nicgen/golden/threecpo"
)

// The network, cycle by cycle:
//
//   - every link carries one flit per cycle; a packet of f flits holds
//     its link for f cycles and is whole at the far end when its last flit
//     arrives (store and forward);
//   - a GPU's uplink serves four injection queues least recently used
//     first (S3:L1761-1769, A-29's VCs): responses (read data and write
//     acks from memory), probes (its own and its echoes of others'), its
//     read requests and its write requests; the last two are gated by the
//     control, and every packet needs credits at the switch's input;
//   - a packet reaches the switch's output stage PathLatency cycles after
//     its last flit left the GPU. There a multicast request is copied to
//     every member's output port (the initiator's own included: all GPUs
//     are in the group), a member's response joins its operation's
//     reduction, which sends one response to the initiator when all
//     members have answered, and a probe or echo goes to its destination;
//   - each output port (the downlink to a GPU) is an unbounded FIFO per
//     VC, request and response, served round robin packet by packet;
//   - a GPU answers a request MemLatency cycles after it arrived, and
//     echoes a probe at once.

type pktKind uint8

const (
	readReq   pktKind = iota // multicast read reduction request: 1 flit
	writeReq                 // multicast write: DataFlits
	readResp                 // a member's read data (DataFlits); reduced, the initiator's
	writeAck                 // a member's write ack (1 flit); reduced, the initiator's
	probe                    // 3CPO's probe, unicast, request VC
	probeEcho                // its echo, response VC
)

type packet struct {
	kind   pktKind
	src    int32 // the GPU that sent it
	dst    int32 // unicast: the destination; responses: the initiator
	seq    int32 // the operation's index at its initiator (reads and writes apart)
	flits  int32
	inject int64 // the cycle it entered the network (reduced: its latest member response's)
	born   int64 // probe and echo: the probe's injection
}

type fifo[T any] struct {
	q []T
	h int
}

func (f *fifo[T]) push(v T)  { f.q = append(f.q, v) }
func (f *fifo[T]) len() int  { return len(f.q) - f.h }
func (f *fifo[T]) front() *T { return &f.q[f.h] }
func (f *fifo[T]) pop() T {
	v := f.q[f.h]
	var z T
	f.q[f.h] = z
	f.h++
	if f.h >= 1024 && 2*f.h >= len(f.q) {
		n := copy(f.q, f.q[f.h:])
		f.q, f.h = f.q[:n], 0
	}
	return v
}

type evKind uint8

const (
	atSwitch evKind = iota // the packet reaches the switch's output stage
	atGPU                  // the packet's last flit reached GPU gpu
	memDone                // GPU gpu's memory answered: the response waits for the uplink
)

type event struct {
	kind evKind
	gpu  int32
	p    packet
}

// The uplink's injection queues, in the LRU arbiter's tie order (the
// open's order of threecpo.ArbStep: VC 0 the least recently granted).
const (
	vcResp = iota
	vcProbe
	vcRead
	vcWrite
	numVCs
)

// injArb is the uplink's arbiter: least recently used over the four
// injection queues (S3:L1769), the lru_arb block's golden model.
var injArb = threecpo.ArbParams{VCs: numVCs, Policy: threecpo.ArbLRU}

type gpu struct {
	up       fifo[packet] // memory's responses for the uplink
	probes   fifo[packet] // its probe and its echoes of other GPUs' probes
	upBusy   int64        // the uplink is free from this cycle on
	arb      uint64       // the uplink arbiter's age matrix (threecpo.ArbStep, the lru_arb block's model)
	credits  [2]int       // flits the switch's input from this GPU can take, request and response VC
	inReq    fifo[packet] // that input's request VC at the output stage
	downReq  fifo[packet] // the switch's output port to this GPU
	downRsp  fifo[packet]
	reqFlits int // flits in downReq
	downBusy int64
	downLast int // the VC the port served last
}

type expiries []int64

func (h expiries) Len() int           { return len(h) }
func (h expiries) Less(i, j int) bool { return h[i] < h[j] }
func (h expiries) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiries) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *expiries) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

type initiator struct {
	readsIssued, writesIssued, writesReady int
	readsDone, writesDone                  int
	outReads, outWrites                    int
	readAt, writeAt                        []int64 // each operation's issue cycle
	lastColl                               uint32  // the latest completed operation's latency (the MI factor's input)

	// 3CPO
	mreq, mrsp *threecpo.Matcher
	// debt: matched tokens not yet paid, request tokens (paid by the next
	// write) and response tokens (by the next read)
	debtReq, debtRsp uint32
	maySend          [2]bool // may_send of the read and the write VC's irl_tokens ports after their last events
	rtt              int64   // the last probe's RTT
	lastSend, gap    int64   // the last multicast send and the gap before it
	exp              expiries
	wm               [2]uint32 // wm_ctrl's request and response watermarks, 2^-F
	trace            []WMPoint
}

type reduction struct {
	n      int32
	inject int64
}

type sim struct {
	c     Config
	u     Units
	t     int64
	g     []gpu
	x     []*initiator
	win   int
	cal   [][]event
	mask  int64
	red   [2][]reduction // reads, writes: [initiator*Transactions+seq]
	rot   int            // the input the switch serves first this cycle
	lats  []uint32
	eff   int64
	done  int
	err   error
	stats Result
}

// Run runs one configuration. u is used under 3CPO only (GoldenUnits, or
// the Verilated blocks behind the same interfaces).
func Run(c Config, u Units) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Control == ThreeCPO && (u.IRL == nil || u.WM == nil) {
		return nil, errors.New("collective: 3CPO needs an irl_tokens and a wm_ctrl unit")
	}
	s := &sim{c: c, u: u, g: make([]gpu, c.GPUs), x: make([]*initiator, c.GPUs)}
	for i := range s.g {
		s.g[i].arb = injArb.ArbOpen()
	}
	s.win = c.Window
	if s.win == 0 {
		s.win = TableWindow(c.Initiators)
	}
	maxDelay := max(c.PathLatency()+c.DataFlits, c.MemLatency, c.DataFlits) + 1
	n := 1 << bits.Len(uint(maxDelay))
	s.cal, s.mask = make([][]event, n), int64(n-1)
	for k := range s.red {
		s.red[k] = make([]reduction, c.Initiators*c.Transactions)
	}
	for g := range s.g {
		s.g[g].credits = [2]int{c.PathLatency() + c.BufferFlits, c.PathLatency() + c.BufferFlits}
	}
	s.open()
	if s.err != nil {
		return nil, s.err
	}
	total := c.Initiators * c.Transactions
	for t := int64(0); ; t++ {
		if t > c.MaxCycles {
			return nil, fmt.Errorf("collective: %d of %d transactions done after %d cycles", s.done, total, c.MaxCycles)
		}
		s.t = t
		b := &s.cal[t&s.mask]
		for i := 0; i < len(*b); i++ {
			s.handle((*b)[i])
		}
		*b = (*b)[:0]
		if s.err != nil {
			return nil, s.err
		}
		if s.done == total {
			break
		}
		s.crossbar()
		for g := range s.g {
			s.downlink(g)
		}
		for g := range s.g {
			s.uplink(g)
		}
		if s.err != nil {
			return nil, s.err
		}
	}
	return s.result(), nil
}

func (s *sim) schedule(at int64, e event) {
	b := &s.cal[at&s.mask]
	*b = append(*b, e)
}

func (s *sim) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("collective: cycle %d: "+format, append([]any{s.t}, args...)...)
	}
}

// open starts the initiators; under 3CPO each opens its irl_tokens port
// (full buckets, watermarks at WM_MAX, its own LFSR seed) and its two
// wm_ctrl instances (2i: requests, 2i+1: responses).
func (s *sim) open() {
	c := s.c
	mp := c.Match
	mp.Members = c.GPUs - 1
	for i := range c.Initiators {
		x := &initiator{readAt: make([]int64, c.Transactions), writeAt: make([]int64, c.Transactions), lastSend: -1}
		s.x[i] = x
		if c.Control != ThreeCPO {
			continue
		}
		x.mreq, _ = threecpo.NewMatcher(mp)
		x.mrsp, _ = threecpo.NewMatcher(mp)
		x.rtt = int64(2 * (c.PathLatency() + 2))
		s.g[i].probes.push(packet{kind: probe, src: int32(i), dst: int32((i + 1) % c.GPUs), flits: 1})
		seed := c.Seed + uint32(i)*0x9E3779B9
		if seed == 0 {
			seed = 1
		}
		for v := range 2 {
			var r threecpo.IRLEventResult
			s.irl(&threecpo.IRLEvent{Conn: uint32(2*i + v), Kind: threecpo.IRLOpen, Seed: seed + uint32(v)*0x6A09E667 | 1}, &r)
			x.maySend[v] = r.MaySend
		}
		for k := range 2 {
			var w threecpo.WMResult
			s.wm(&threecpo.WMEvent{Conn: uint32(2*i + k), Kind: threecpo.WMOpen}, &w)
			x.wm[k] = w.WM
		}
		x.trace = append(x.trace, WMPoint{At: 0, Req: s.units(x.wm[0]), Rsp: s.units(x.wm[1])})
	}
}

func (s *sim) irl(e *threecpo.IRLEvent, r *threecpo.IRLEventResult) {
	s.u.IRL.StepTo(e, r)
	s.stats.IRLEvents++
	if r.Error {
		s.fail("irl_tokens answered %+v with an error", *e)
	}
}

func (s *sim) wm(e *threecpo.WMEvent, r *threecpo.WMResult) {
	s.u.WM.StepTo(e, r)
	s.stats.WMEvents++
	if r.Error {
		s.fail("wm_ctrl answered %+v with an error", *e)
	}
	if r.Decreased {
		s.stats.WMDecreases++
	}
}

func (s *sim) units(wm uint32) float64 { return float64(wm) / float64(uint32(1)<<uint(s.c.WM.F)) }

// flits are an operation's request and response flits: a read is a
// 1-flit request and a data response, a write the reverse.
func (s *sim) flits(k pktKind) (req, rsp uint32) {
	if k == readReq || k == readResp {
		return 1, uint32(s.c.DataFlits)
	}
	return uint32(s.c.DataFlits), 1
}

func (s *sim) handle(e event) {
	c, p := s.c, e.p
	switch e.kind {
	case atSwitch:
		switch p.kind {
		case readReq, writeReq, probe:
			s.g[p.src].inReq.push(p)
		case readResp, writeAck:
			s.g[p.src].credits[1] += int(p.flits)
			k := 0
			if p.kind == writeAck {
				k = 1
			}
			r := &s.red[k][int(p.dst)*c.Transactions+int(p.seq)]
			r.n++
			r.inject = max(r.inject, p.inject)
			if int(r.n) == c.GPUs {
				q := p
				q.src, q.inject = -1, r.inject
				s.g[p.dst].downRsp.push(q)
			}
		case probeEcho:
			s.g[p.src].credits[1] += int(p.flits)
			s.g[p.dst].downRsp.push(p)
		}
	case memDone:
		s.g[e.gpu].up.push(p)
	case atGPU:
		s.arrive(int(e.gpu), p)
	}
}

// arrive is a packet's last flit at GPU g.
func (s *sim) arrive(g int, p packet) {
	c, t := s.c, s.t
	x := s.x[g]
	if p.kind != probe && p.kind != probeEcho {
		s.lats = append(s.lats, uint32(min(t-p.inject, 1<<32-1)))
	}
	switch p.kind {
	case readReq, writeReq:
		q := packet{kind: readResp, src: int32(g), dst: p.src, seq: p.seq, flits: int32(c.DataFlits)}
		if p.kind == writeReq {
			q.kind, q.flits = writeAck, 1
		}
		s.schedule(t+int64(c.MemLatency), event{kind: memDone, gpu: int32(g), p: q})
		if x != nil && c.Control == ThreeCPO && int(p.src) != g {
			m := int(p.src)
			if m > g {
				m--
			}
			fq, fs := s.flits(p.kind)
			gap := max(x.gap, 0)
			tq, _ := x.mreq.ReceiveRemote(m, fq, uint64(t), uint64(x.rtt), uint64(gap), x.lastColl)
			ts, _ := x.mrsp.ReceiveRemote(m, fs, uint64(t), uint64(x.rtt), uint64(gap), x.lastColl)
			x.debtReq += tq
			x.debtRsp += ts
			heap.Push(&x.exp, t+x.rtt+gap)
		}
	case readResp, writeAck:
		if x == nil || int(p.dst) != g {
			s.fail("GPU %d got a reduced response of initiator %d", g, p.dst)
			return
		}
		var at int64
		if p.kind == readResp {
			at = x.readAt[p.seq]
			x.readsDone++
			x.outReads--
			x.writesReady++
		} else {
			at = x.writeAt[p.seq]
			x.writesDone++
			x.outWrites--
			s.done++
			if total := c.Initiators * c.Transactions; s.done*progressSteps/total > len(s.stats.Progress) {
				s.stats.Progress = append(s.stats.Progress, t)
			}
		}
		s.eff += int64(c.GPUs * c.DataFlits)
		x.lastColl = uint32(min(t-at, 1<<32-1))
		if c.Control == ThreeCPO {
			fq, fs := s.flits(p.kind)
			x.mreq.Response(fq)
			x.mrsp.Response(fs)
		}
	case probe:
		s.g[g].probes.push(packet{kind: probeEcho, src: int32(g), dst: p.src, flits: 1, born: p.born})
	case probeEcho:
		s.probeBack(g, x, t-p.born)
	}
}

// probeBack is a probe's return: both of the initiator's wm_ctrl
// instances run Algorithm 6 with its RTT (every probe ends an RTT: one is
// always outstanding, S3:L1669), and irl_tokens loads the two watermarks
// in whole tokens.
func (s *sim) probeBack(g int, x *initiator, rtt int64) {
	x.rtt = rtt
	s.stats.Probes++
	lat := uint32(min(rtt, int64(1)<<uint(s.c.WM.LatW)-1)) // the latency port saturates
	for k := range 2 {
		var w threecpo.WMResult
		s.wm(&threecpo.WMEvent{Conn: uint32(2*g + k), Kind: threecpo.WMProbe, Lat: lat, RTTEnd: true}, &w)
		x.wm[k] = w.WM
	}
	for v := range 2 {
		var r threecpo.IRLEventResult
		s.irl(&threecpo.IRLEvent{Conn: uint32(2*g + v), Kind: threecpo.IRLSetWM, ReqWM: x.wm[0] >> uint(s.c.WM.F), RspWM: x.wm[1] >> uint(s.c.WM.F)}, &r)
		x.maySend[v] = r.MaySend
	}
	x.trace = append(x.trace, WMPoint{At: s.t, Req: s.units(x.wm[0]), Rsp: s.units(x.wm[1])})
	if x.writesDone < s.c.Transactions {
		s.g[g].probes.push(packet{kind: probe, src: int32(g), dst: int32((g + 1) % s.c.GPUs), flits: 1})
	}
}

// crossbar moves the head of each input's request VC to its output
// ports' request VCs when they all have room for it (a multicast is
// copied to every port at once, S3:L1570's output-queued switch with
// queues of BufferFlits), one packet per input per cycle, the inputs
// served from a rotating start; the input's flits return to its GPU as
// credits.
func (s *sim) crossbar() {
	n := len(s.g)
	lim := s.c.BufferFlits
	for k := range n {
		in := &s.g[(s.rot+k)%n]
		if in.inReq.len() == 0 {
			continue
		}
		p := in.inReq.front()
		f := int(p.flits)
		if p.kind == probe {
			if s.g[p.dst].reqFlits+f > lim {
				continue
			}
			s.g[p.dst].downReq.push(*p)
			s.g[p.dst].reqFlits += f
		} else {
			full := false
			for g := range s.g {
				if s.g[g].reqFlits+f > lim {
					full = true
					break
				}
			}
			if full {
				continue
			}
			for g := range s.g {
				s.g[g].downReq.push(*p)
				s.g[g].reqFlits += f
			}
		}
		in.inReq.pop()
		in.credits[0] += f
	}
	s.rot = (s.rot + 1) % n
}

// downlink serves the switch's output port to GPU g: round robin between
// its request and response VCs, one packet at a time.
func (s *sim) downlink(g int) {
	d := &s.g[g]
	if d.downBusy > s.t {
		return
	}
	vcs := [2]*fifo[packet]{&d.downReq, &d.downRsp}
	for k := 1; k <= 2; k++ {
		v := (d.downLast + k) % 2
		if vcs[v].len() == 0 {
			continue
		}
		p := vcs[v].pop()
		if v == 0 {
			d.reqFlits -= int(p.flits)
		}
		d.downLast = v
		d.downBusy = s.t + int64(p.flits)
		s.schedule(d.downBusy, event{kind: atGPU, gpu: int32(g), p: p})
		return
	}
}

// uplink is GPU g's injection in this cycle, and under 3CPO its
// irl_tokens port's cycle: one event per initiator per cycle, whether it
// sends or not.
func (s *sim) uplink(g int) {
	c, t := s.c, s.t
	d, x := &s.g[g], s.x[g]
	cc := x != nil && c.Control == ThreeCPO
	if cc && len(x.exp) > 0 && x.exp[0] <= t {
		for len(x.exp) > 0 && x.exp[0] <= t {
			heap.Pop(&x.exp)
		}
		x.mreq.Expire(uint64(t))
		x.mrsp.Expire(uint64(t))
	}
	if d.upBusy > t {
		if cc {
			s.ticks(g, x, -1, 0, 0)
		}
		return
	}
	var elig [numVCs]bool
	elig[vcResp] = d.up.len() > 0 && d.credits[1] >= int(d.up.front().flits)
	if d.probes.len() > 0 {
		elig[vcProbe] = d.credits[0] >= 1
		if d.probes.front().kind == probeEcho {
			elig[vcProbe] = d.credits[1] >= 1
		}
	}
	if x != nil {
		canRead := x.readsIssued < c.Transactions && d.credits[0] >= 1
		canWrite := x.writesReady > 0 && d.credits[0] >= c.DataFlits
		switch c.Control {
		case Window:
			canRead = canRead && x.outReads < s.win
			canWrite = canWrite && x.outWrites < s.win
		case ThreeCPO:
			canRead = canRead && x.maySend[0]
			canWrite = canWrite && x.maySend[1]
		}
		elig[vcRead], elig[vcWrite] = canRead, canWrite
	}
	var mask uint32
	for v := range numVCs {
		if elig[v] {
			mask |= 1 << uint(v)
		}
	}
	var granted bool
	pick := -1
	if d.arb, granted, pick = threecpo.ArbStep(injArb, d.arb, mask); !granted {
		pick = -1
	}
	if pick < 0 {
		if cc {
			s.ticks(g, x, -1, 0, 0)
		}
		return
	}
	var p packet
	switch pick {
	case vcResp:
		p = d.up.pop()
	case vcProbe:
		p = d.probes.pop()
		if p.kind == probe {
			p.born = t
		}
	case vcRead:
		p = packet{kind: readReq, src: int32(g), seq: int32(x.readsIssued), flits: 1}
		x.readAt[x.readsIssued] = t
		x.readsIssued++
		x.outReads++
	case vcWrite:
		p = packet{kind: writeReq, src: int32(g), seq: int32(x.writesIssued), flits: int32(c.DataFlits)}
		x.writeAt[x.writesIssued] = t
		x.writesIssued++
		x.writesReady--
		x.outWrites++
	}
	if cc {
		if pick == vcRead || pick == vcWrite {
			s.send(g, x, p.kind)
		} else {
			s.ticks(g, x, -1, 0, 0)
		}
	}
	p.inject = t
	d.upBusy = t + int64(p.flits)
	if p.kind == readResp || p.kind == writeAck || p.kind == probeEcho {
		d.credits[1] -= int(p.flits)
	} else {
		d.credits[0] -= int(p.flits)
	}
	s.schedule(d.upBusy+int64(c.PathLatency()), event{kind: atSwitch, p: p})
}

// send is a multicast request's cycle under 3CPO. Both matchers pay for
// the remote flits it matches (S3:L1641). Its VC's irl_tokens port takes
// its own flits and the matched tokens of the type that gates that VC
// (a read: response tokens, a write: request tokens), with the matched
// tokens of that type owed since (arrivals, the other VC's sends), at
// most MaxCost (the rest stays owed); matched tokens of the other type
// are owed to the other VC's next send. wm_ctrl counts the matched
// tokens as they are paid.
func (s *sim) send(g int, x *initiator, k pktKind) {
	fq, fs := s.flits(k)
	tq, _ := x.mreq.SendLocal(fq, x.lastColl)
	ts, _ := x.mrsp.SendLocal(fs, x.lastColl)
	x.debtReq += tq - fq
	x.debtRsp += ts - fs
	mc := uint32(s.c.IRL.MaxCost)
	v, cq, cs := 0, fq, fs
	if k == readReq {
		pay := min(x.debtRsp, mc-fs)
		cs += pay
		x.debtRsp -= pay
	} else {
		v = 1
		pay := min(x.debtReq, mc-fq)
		cq += pay
		x.debtReq -= pay
	}
	if !s.ticks(g, x, v, cq, cs) {
		s.fail("irl_tokens refused initiator %d's send after may_send", g)
		return
	}
	for i, extra := range []uint32{cq - fq, cs - fs} {
		if extra > 0 {
			var w threecpo.WMResult
			s.wm(&threecpo.WMEvent{Conn: uint32(2*g + i), Kind: threecpo.WMMatched, Tokens: extra}, &w)
		}
	}
	if x.lastSend >= 0 {
		x.gap = s.t - x.lastSend
	}
	x.lastSend = s.t
}

// ticks is one cycle of initiator g's two irl_tokens ports, 2g for its
// read VC and 2g+1 for its write VC; port send (0, 1, or -1 for none)
// asks to send at the costs. It reports whether the send went.
func (s *sim) ticks(g int, x *initiator, send int, reqCost, rspCost uint32) bool {
	sent := false
	for v := range 2 {
		var r threecpo.IRLEventResult
		e := threecpo.IRLEvent{Conn: uint32(2*g + v), Kind: threecpo.IRLTick}
		if v == send {
			e.Send, e.ReqCost, e.RspCost = true, reqCost, rspCost
		}
		s.irl(&e, &r)
		x.maySend[v] = r.MaySend
		if r.Sent {
			s.stats.Sends++
			sent = true
		}
	}
	return sent
}

// result gathers the run's measures.
func (s *sim) result() *Result {
	c := s.c
	r := s.stats
	r.GPUs, r.Initiators, r.Transactions, r.Control = c.GPUs, c.Initiators, c.Transactions, c.Control
	if c.Control == Window {
		r.Window = s.win
	}
	r.Cycles = s.t
	r.EffFlits = s.eff
	r.EffBW = float64(s.eff) / float64(max(s.t, 1)*int64(c.GPUs))
	r.Bound = c.Bound()
	if n := len(s.lats); n > 0 {
		var sum float64
		for _, l := range s.lats {
			sum += float64(l)
		}
		r.AvgLat = sum / float64(n)
		slices.Sort(s.lats)
		r.P99Lat = int64(s.lats[(99*n-1)/100])
		r.MaxLat = int64(s.lats[n-1])
		r.Packets = int64(n)
	}
	// spacing: the middle half of each initiator's writes
	lo, hi := c.Transactions/4, 3*c.Transactions/4
	if hi > lo {
		var sum float64
		for i := range c.Initiators {
			x := s.x[i]
			sum += float64(x.writeAt[hi]-x.writeAt[lo]) / float64(hi-lo)
		}
		r.Spacing = sum / float64(c.Initiators)
	}
	r.SpacingIdeal = float64(c.Initiators * (c.DataFlits + 1))
	if c.Control == ThreeCPO {
		r.WMMin, r.WMMax = float64(c.WM.WMMax), 0
		r.WMLateMin, r.WMLateMax = float64(c.WM.WMMax), 0
		for i := range c.Initiators {
			for _, pt := range s.x[i].trace {
				for _, v := range []float64{pt.Req, pt.Rsp} {
					r.WMMin, r.WMMax = min(r.WMMin, v), max(r.WMMax, v)
					if 2*pt.At >= s.t {
						r.WMLateMin, r.WMLateMax = min(r.WMLateMin, v), max(r.WMLateMax, v)
					}
				}
			}
		}
		r.WMFinalMin, r.WMFinalMax = float64(c.WM.WMMax), 0
		for i := range c.Initiators {
			tr := s.x[i].trace
			pt := tr[len(tr)-1]
			r.WMFinalMin = min(r.WMFinalMin, pt.Req, pt.Rsp)
			r.WMFinalMax = max(r.WMFinalMax, pt.Req, pt.Rsp)
		}
		r.Trace = s.x[0].trace
	}
	return &r
}
