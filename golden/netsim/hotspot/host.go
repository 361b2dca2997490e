package hotspot

import "github.com/nicgen/nicgen/golden/srp"

// generate makes a victim's next message: uniform random destination
// other than itself and the hot spot, Poisson arrivals at VictimLoad.
func (s *sim) generate(h *host) {
	c := &s.cfg
	m := &message{src: h.id, packets: c.VictimPackets}
	if s.traffic.Float64() < c.SmallShare {
		m.packets, m.small = c.SmallPackets, true
	}
	for {
		m.dst = s.victimDst[s.traffic.IntN(len(s.victimDst))]
		if m.dst != h.id {
			break
		}
	}
	if s.now >= s.warmPs {
		s.st.victimMsgs++
	}
	s.queueMessage(h, m)
	s.at(s.gap(), event{kind: eGen, h: h})
}

// reply queues a control packet of h's NIC.
func (s *sim) reply(h *host, kind pktKind, to int, seq, ts uint64) {
	h.ctrl.push(&packet{kind: kind, dst: to, peer: h.id, seq: seq, ts: ts, up: -1})
	s.nicTry(h)
}

// txKindOf is the srp_tx event a control packet makes at its source.
var txKindOf = [...]srp.TxKind{pGrant: srp.TxGrant, pAck: srp.TxAck, pNack: srp.TxNack}

// arriveHost takes a packet's tail at host h.
func (s *sim) arriveHost(h *host, p *packet) {
	switch p.kind {
	case pData:
		s.delivered(h, p)
		if p.spec {
			if r := s.stepRx(srp.RxEvent{Conn: uint32(h.id), Kind: srp.RxSpec}); r.Ack {
				s.reply(h, pAck, p.msg.src, p.seq, 0)
			}
		}
		if p.ecn { // one notification per marked packet (S2:L152)
			s.reply(h, pCN, p.msg.src, 0, 0)
		}
	case pRes:
		r := s.stepRx(srp.RxEvent{Conn: uint32(h.id), Kind: srp.RxReserve, N: p.n})
		s.st.grants++
		if h.id == s.cfg.Hotspot && s.now >= s.warmPs {
			s.st.hotReserved += int64(p.n)
		}
		s.reply(h, pGrant, p.peer, p.seq, r.Ts)
	case pGrant, pAck, pNack:
		q := &h.queues[p.peer]
		r := s.stepTx(srp.TxEvent{Conn: s.txConn(h.id, p.peer), Kind: txKindOf[p.kind], Seq: p.seq, Ts: p.ts})
		if r.Stale {
			s.st.stale++
		} else {
			q.blocked = false
			if p.kind == pGrant {
				// resume at t_s (absolute: the simulated clocks agree, A-19)
				s.at(max(s.now, int64(p.ts)*1000), event{kind: eResume, h: h, port: p.peer})
			}
		}
		if r.MsgDone {
			s.messageSent(h, q)
		}
		s.nicTry(h)
	case pCN:
		s.st.cns++
		s.stepIPD(srp.IPDCN, s.txConn(h.id, p.peer))
	}
}

// zeroLoadPs is a packet's in-flight latency through an empty network:
// its links and routers, and its serialisation once (cut-through).
func (s *sim) zeroLoadPs(crossing bool) int64 {
	if crossing {
		return 4*s.linkPs + 3*s.routerPs + s.pktPs
	}
	return 2*s.linkPs + s.routerPs + s.pktPs
}

// delivered counts a data packet reaching its destination.
func (s *sim) delivered(h *host, p *packet) {
	m := p.msg
	m.delivered++
	if m.delivered > m.packets {
		s.fail("message %d->%d of %d packets was delivered %d times over", m.src, m.dst, m.packets, m.delivered)
		return
	}
	st := &s.st
	b := &st.bins[min(int(s.now/s.binPs), len(st.bins)-1)]
	lat := s.now - p.sentPs
	if m.hot {
		b.hot++
	} else {
		b.victim++
		b.victimLat += float64(lat)
	}
	l := &st.load[m.src]
	switch {
	case s.now < s.warmPs:
		l.preDelivered++
		return
	case m.createdPs < s.warmPs:
		l.drained++
	default:
		l.accepted++
	}
	switch {
	case m.hot:
		st.hotDelivered++
		if p.spec {
			st.hotSpec++
		}
		st.perSender[m.src]++
	default:
		zl := s.zeroLoadPs(p.crossing)
		st.victimDelivered++
		st.victimLat += float64(lat)
		st.victimZero += float64(zl)
		st.victimLatMax = max(st.victimLatMax, lat)
		if m.delivered == m.packets && m.createdPs >= s.warmPs {
			ms := &st.large
			if m.small {
				ms = &st.small
			}
			ms.n++
			ms.sum += float64(s.now - m.createdPs)
			ms.zero += float64(zl + int64(m.packets-1)*s.pktPs)
		}
	}
}

type msgStats struct {
	n         int64
	sum, zero float64
}

// load counts one source's data packets. The window's: offered (of the
// messages created in it) and accepted (the part of them delivered).
// Before the warm-up: preOffered and preDelivered, whose difference is the
// backlog the window starts with; drained is the part of the backlog
// delivered in the window.
type load struct {
	offered, accepted                 int64
	preOffered, preDelivered, drained int64
}

type bin struct {
	hot, victim int64
	victimLat   float64
}

type stats struct {
	events, blockEvents                         int64
	specSent, specDropped, reservations, grants int64
	stale, marks, cns                           int64
	peakVOQ                                     int
	hotDelivered, hotSpec, hotReserved          int64
	perSender                                   []int64 // by host
	load                                        []load  // by source host
	victimMsgs, victimDelivered                 int64
	victimLat, victimZero                       float64
	victimLatMax                                int64
	small, large                                msgStats
	bins                                        []bin
}
