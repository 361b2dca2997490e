package smartt

import (
	"fmt"
	"math"
)

// floatConn is one connection of the float64 reference: the paper's
// variables, in bytes and ns, without fixed point or saturation.
type floatConn struct {
	cwnd, acked, ignored, toIgnore, count float64
	end                                   float64 // QA window end in ns; 0 = no window yet
	trigger, increase                     bool
	avgWtd                                float64 // smartt
	avgRtt                                float64 // nscc, ns
	lastMd, lastAdj                       float64 // nscc, ns; -Inf = never
	inc, recv                             float64 // nscc: bytes
}

// FloatModel is the float64 reference of a variant (contract Section 7): the
// same steps and choices as Model, with cwnd and every formula in float64
// (exact divisions, no fixed point, counters without saturation, QuickAdapt
// windows of TrttNs and MD / adjustment periods of BrttNs in ns). It bounds
// the error of the fixed-point datapath; it is not cycle-accurate.
//
// Time: the model unwraps the TimeW-bit now port into a 64-bit ns clock, so
// events must come in time order (across all connections) and no two
// consecutive events may be 2^TimeW ns apart. Because its clock never
// wraps, a zero window end means "no window yet" as in S0 Alg. 2 whatever
// ZeroStampExpired says.
type FloatModel struct {
	p        Params
	d        Derived
	pages    []*[pageSize]floatConn
	epoch    uint64 // 2^TimeW times the number of wraps seen
	last     uint64 // last raw now
	seen     bool
	lastCase uint8
	fi, mi   float64 // MTU * fi * gamma and MTU * mi * gamma in bytes
	md       float64
	qa       float64 // qa_scaling
	// Durations on the model's clock: the QuickAdapt window (TrttNs) and
	// the nscc MD / adjustment period (BrttNs). The tests can run the
	// steps on the fixed model's stamp clock instead (deadlines).
	qaWindow, period float64
	clockShift       uint // 0: ns; StampShift: the fixed model's units
	// deadlines: on the fixed model's clock, a window ends and a hold-off
	// or adjustment period ends at the fixed model's rounded deadline
	// (Derived.Deadline) rather than qaWindow or period after now
	deadlines bool
	nowNs     uint64 // the current event's time on the unwrapped ns clock
}

// windowEnd is the end of a QuickAdapt window that starts now.
func (m *FloatModel) windowEnd(now float64) float64 {
	if m.deadlines {
		return float64((m.nowNs + uint64(m.d.TrttC)) >> m.clockShift)
	}
	return now + m.qaWindow
}

// holdStart is what a hold-off or adjustment period that starts now
// records: now, or with deadlines the time from which "now - last >
// period" holds at the fixed model's deadline and after.
func (m *FloatModel) holdStart(now float64) float64 {
	if m.deadlines {
		return float64((m.nowNs+uint64(m.d.BrttC))>>m.clockShift) - m.period - 1
	}
	return now
}

// NewFloatModel validates p and returns an empty float64 reference.
func NewFloatModel(p Params) (*FloatModel, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s float: %w", p.Variant, err)
	}
	d := p.Derive()
	m := &FloatModel{
		p:     p,
		d:     d,
		pages: make([]*[pageSize]floatConn, (uint64(p.NumConn)+pageSize-1)>>pageBits),
		fi:    float64(d.MTU) * fiConst * d.Gamma,
		mi:    float64(d.MTU) * d.Mi * d.Gamma,
		md:    mdConst,
		qa:    qaScaleConf,

		qaWindow: float64(d.TrttNs),
		period:   float64(d.BrttNs),
	}
	if p.TimeoutsReplaceTrims {
		m.md = mdTimeouts
	}
	if p.Variant == NSCC {
		m.qa = qaScaleNSCC
	}
	return m, nil
}

// LastCase returns the case (Case*) of the last event Step executed.
func (m *FloatModel) LastCase() uint8 { return m.lastCase }

// clock returns now on the unwrapped clock.
func (m *FloatModel) clock(now uint64) float64 {
	if m.seen && now < m.last {
		m.epoch += uint64(1) << m.p.TimeW
	}
	m.seen, m.last = true, now
	m.nowNs = m.epoch + now
	return float64(m.nowNs >> m.clockShift)
}

// Step executes one event and returns the connection's window in bytes
// after it (0 for an error event).
func (m *FloatModel) Step(e Event) float64 {
	m.p.truncate(&e)
	now := m.clock(e.Now)
	if uint64(e.Conn) >= uint64(m.p.NumConn) || e.Kind > KindTimeout { // as reject
		m.lastCase = CaseNone
		return 0
	}
	pg := m.pages[e.Conn>>pageBits]
	if pg == nil {
		pg = new([pageSize]floatConn)
		m.pages[e.Conn>>pageBits] = pg
	}
	s := &pg[e.Conn&(pageSize-1)]
	if m.p.Variant == NSCC {
		m.lastCase = m.stepNSCC(s, e, now)
	} else {
		m.lastCase = m.stepConf(s, e, now)
	}
	return s.cwnd
}

// The formulas, on bytes. A zero divisor is replaced by the fixed model's
// smallest value (one cwnd unit, 1 ns) so that the two make the same choice.

func (m *FloatModel) cwndDiv(c float64) float64 { return max(c, math.Ldexp(1, -m.d.F)) }

// fairIncrease is S0 Eq. 3: size / cwnd * mtu * fi * gamma.
func (m *FloatModel) fairIncrease(c, size float64) float64 { return size / m.cwndDiv(c) * m.fi }

// multIncrease is S0 Eq. 4 / S1 Eq. 3 with gamma.
func (m *FloatModel) multIncrease(c, size float64, rtt uint32) float64 {
	r := float64(max(rtt, 1))
	return min(size, (float64(m.d.TrttNs)-float64(rtt))/r*size/m.cwndDiv(c)*m.mi)
}

// fairDecrease is S0 Eq. 1: cwnd - cwnd / bdp * fd * size, floored at 0.
func (m *FloatModel) fairDecrease(c, size float64) float64 {
	return c - min(c, c/float64(m.d.BDP)*fdConst*size)
}

func (m *FloatModel) clamp(c float64) float64 {
	return max(min(c, float64(m.d.MaxCwnd)), float64(m.d.MinCwnd))
}

func (m *FloatModel) early(c float64) float64 {
	if m.p.ClampOnEarlyReturn {
		return m.clamp(c)
	}
	return c
}

// quickAdapt is S0 Alg. 2 in ns.
func (m *FloatModel) quickAdapt(s *floatConn, now float64, unacked uint32, extra bool) bool {
	if now < s.end {
		return false
	}
	fired := false
	if (s.trigger || extra) && s.end != 0 {
		fired = true
		s.trigger = false
		s.cwnd = max(s.acked, float64(m.d.MTU)) * m.qa
		s.toIgnore = float64(unacked)
		s.ignored = 0
	}
	s.end = m.windowEnd(now)
	s.acked = 0
	return fired
}

// fastIncrease is S0 Alg. 3.
func (m *FloatModel) fastIncrease(s *floatConn, e Event) bool {
	if e.RTT <= m.d.FiRttMax && !e.ECN {
		s.count += float64(e.Size)
		if s.count > s.cwnd || s.increase {
			s.cwnd += fastK * float64(m.d.MTU)
			s.increase = true
			return true
		}
		return false
	}
	s.count, s.increase = 0, false
	return false
}

func (m *FloatModel) stepConf(s *floatConn, e Event, now float64) uint8 {
	size := float64(e.Size)
	switch e.Kind {
	case KindOpen:
		*s = floatConn{cwnd: float64(m.d.InitCwnd)}
		return CaseNone
	case KindAck:
		s.acked += size
		s.ignored += size
		if s.ignored < s.toIgnore {
			return CaseNone
		}
		alpha := math.Ldexp(1, -m.p.WtdShift)
		ecn := 0.0
		if e.ECN {
			ecn = 1
		}
		s.avgWtd = alpha*ecn + (1-alpha)*s.avgWtd
		canDecrease := s.avgWtd >= wtdThreshold
		qa := m.quickAdapt(s, now, e.Unacked, false)
		fast := m.fastIncrease(s, e)
		if qa || fast {
			s.cwnd = m.early(s.cwnd)
			if qa {
				return CaseQA
			}
			return CaseFast
		}
		var kase uint8
		high := e.RTT > m.d.TrttNs
		switch {
		case e.ECN && !canDecrease:
			kase = CaseNone
		case e.ECN && !high:
			s.cwnd = m.fairDecrease(s.cwnd, size)
			kase = CaseFD
		case e.ECN:
			rtt := float64(e.RTT)
			s.cwnd -= min(s.cwnd, min(size, (rtt-float64(m.d.TrttNs))/rtt*m.md*size))
			s.cwnd = m.fairDecrease(s.cwnd, size)
			kase = CaseMD
		case high:
			s.cwnd += m.fairIncrease(s.cwnd, size)
			kase = CaseFI
		default:
			s.cwnd += m.multIncrease(s.cwnd, size, e.RTT)
			s.cwnd += m.fairIncrease(s.cwnd, size)
			kase = CaseMI
		}
		s.cwnd = m.clamp(s.cwnd)
		return kase
	default: // nack, timeout
		if m.p.TrimsCountAsAcked {
			s.acked += size
		}
		s.ignored += size
		s.cwnd -= min(s.cwnd, size)
		s.trigger = true
		qa := false
		if s.ignored >= s.toIgnore {
			qa = m.quickAdapt(s, now, e.Unacked, false)
		}
		s.cwnd = m.clamp(s.cwnd)
		if qa {
			return CaseQA
		}
		return CaseLoss
	}
}

func (m *FloatModel) stepNSCC(s *floatConn, e Event, now float64) uint8 {
	size := float64(e.Size)
	switch e.Kind {
	case KindOpen:
		*s = floatConn{
			cwnd:   float64(m.d.InitCwnd),
			avgRtt: float64(m.d.BrttNs),
			lastMd: math.Inf(-1), lastAdj: math.Inf(-1),
		}
		return CaseNone
	case KindAck:
		s.acked += size
		s.ignored += size
		if s.ignored < s.toIgnore {
			return CaseNone
		}
		s.avgRtt += (float64(e.RTT) - s.avgRtt) * math.Ldexp(1, -m.p.AvgShift)
		extra := m.p.DelayQA && e.RTT > m.d.QaRttNs && s.acked < float64(m.d.MaxCwnd)/8
		qa := m.quickAdapt(s, now, e.Unacked, extra)
		fast := m.fastIncrease(s, e)
		if qa {
			s.inc, s.recv = 0, 0
		}
		if qa || fast {
			s.cwnd = m.early(s.cwnd)
			if qa {
				return CaseQA
			}
			return CaseFast
		}
		var kase uint8
		trtt := float64(m.d.TrttNs)
		high := e.RTT > m.d.TrttNs
		switch {
		case e.ECN && high:
			kase = CaseNone
			if now-s.lastMd > m.period && s.avgRtt > trtt {
				s.cwnd *= max(0.5, 1-(s.avgRtt-trtt)/s.avgRtt*mdGain)
				s.lastMd = m.holdStart(now)
				s.count, s.increase = 0, false
				kase = CaseMD
			}
		case e.ECN:
			kase = CaseNone
		case high:
			s.inc += m.fairIncrease(s.cwnd, size)
			kase = CaseFI
		default:
			s.inc += m.multIncrease(s.cwnd, size, e.RTT) + m.fairIncrease(s.cwnd, size)
			kase = CaseMI
		}
		s.recv += size
		if !m.p.AdjustPeriod || s.recv > float64(m.d.AdjBytes) || now-s.lastAdj > m.period {
			s.cwnd += s.inc
			s.inc, s.recv, s.lastAdj = 0, 0, m.holdStart(now)
		}
		s.cwnd = m.clamp(s.cwnd)
		return kase
	case KindNack:
		if m.p.TrimsCountAsAcked {
			s.acked += size
		}
		s.ignored += size
		s.cwnd -= min(s.cwnd, size)
		s.trigger = true
		qa := false
		if s.ignored >= s.toIgnore {
			if qa = m.quickAdapt(s, now, e.Unacked, false); qa {
				s.inc, s.recv = 0, 0
			}
		}
		s.cwnd = m.clamp(s.cwnd)
		if qa {
			return CaseQA
		}
		return CaseLoss
	default: // timeout
		if m.p.TrimsCountAsAcked {
			s.acked += size
		}
		s.ignored += size
		if m.p.IgnorePhaseTimeouts && s.ignored < s.toIgnore {
			return CaseNone // ignored in the QuickAdapt ignore phase (S1:L799-801)
		}
		s.cwnd -= min(s.cwnd, size)
		s.cwnd = m.clamp(s.cwnd)
		return CaseLoss
	}
}
