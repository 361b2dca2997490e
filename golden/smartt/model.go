package smartt

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/nicgen/nicgen/golden/fixed"
	"github.com/nicgen/nicgen/golden/pipe"
)

// State is one connection's word (contract Sections 5 and 6). smartt uses
// C..AvgWtd (149 bits), nscc C..Increase and AvgRtt..AdjEnd; the fields of
// the other variant stay 0. The zero State is a never-opened word.
type State struct {
	C        uint32 // c: cwnd * 2^F, CwndW+F bits
	Acked    uint32 // acked: bytes in the current QuickAdapt window, ByteW, saturating
	Ignored  uint32 // ignored: bytes since the last QuickAdapt, ByteW, saturating
	ToIgnore uint32 // to_ignore: in-flight bytes when QuickAdapt fired, ByteW
	Count    uint32 // count: FastIncrease byte counter, ByteW, saturating
	End      uint32 // end: QuickAdapt window end, 24-bit stamp
	Trigger  bool   // trigger: a loss asks for QuickAdapt
	Increase bool   // increase: FastIncrease active
	AvgWtd   uint16 // avg_wtd: smartt WTD EWMA, Q0.12
	AvgRtt   uint32 // avg_rtt: nscc RTT EWMA in ns, RttW bits
	MdEnd    uint32 // md_end: nscc, the stamp where the hold-off after the last MD ends
	Inc      uint32 // inc: nscc accumulated increase, CwndW+F bits, saturating
	Recv     uint32 // recv: nscc bytes since the last adjustment, ByteW, saturating
	AdjEnd   uint32 // adj_end: nscc, the stamp where the adjustment period after the last adjustment ends
}

// truncate reads an event through the port widths, in place (a struct
// of more than four fields returned by value is copied through memory,
// which costs more than the masks).
func (p *Params) truncate(e *Event) {
	e.Conn &= mask32(p.ConnW)
	e.Kind &= kindMask
	e.Size &= mask32(p.SizeW)
	e.RTT &= mask32(p.RttW)
	e.Unacked &= mask32(p.ByteW)
	e.Now &= mask64(p.TimeW)
}

// reject answers an event that names no connection or no kind: error set,
// conn and kind echoed, every other field 0, nothing written. Choice beyond
// the contract: its "every other result field 0" is read as every field
// but conn and kind, which echo the (truncated) event as the reps blocks'
// do ("same shell as REPS").
func reject(numConn int, e *Event, r *Result) bool {
	if uint64(e.Conn) >= uint64(numConn) || e.Kind > KindTimeout {
		*r = Result{Conn: e.Conn, Kind: e.Kind, Error: true}
		return true
	}
	return false
}

// Step executes one event on one connection's word (docs/blocks/smartt.md
// Sections 5 and 6, by p.Variant). It is pure: s is a value and the new
// word is returned. p must satisfy Validate and d must be p.Derive().
func Step(p Params, d Derived, s State, e Event) (State, Result) {
	p.truncate(&e)
	var r Result
	if reject(p.NumConn, &e, &r) {
		return s, r
	}
	exec(&p, &d, &s, &e, &r)
	return s, r
}

// exec runs a valid event on s in place. Step and Model.Step share it, so
// the pure and the table model cannot drift.
//
// Windows are computed exactly in uint64 until the clamp (or store). Note
// for the RTL: an ack on a never-opened word (c = 0, read as 1 by div)
// makes the FI term div(size * KFi, 1) about 2^37 before the clamp brings
// it to MaxCwnd, so the adders ahead of the clamp need the full width (or
// must saturate) to agree with this model.
func exec(p *Params, d *Derived, s *State, e *Event, r *Result) {
	var c uint8
	var qa bool
	if p.Variant == NSCC {
		c, qa = execNSCC(p, d, s, e)
	} else {
		c, qa = execConf(p, d, s, e)
	}
	r.Conn, r.Kind, r.Cwnd, r.Case = e.Conn, e.Kind, s.C>>d.F, c
	r.QA, r.Fast, r.Error = qa, s.Increase, false
}

// quickAdapt runs the QuickAdapt sub-block on the word.
func (s *State) quickAdapt(d *Derived, c uint64, now uint64, unacked uint32, extra bool) (uint64, bool) {
	var in QAIn
	in.C, in.Acked, in.Ignored, in.ToIgnore = c, s.Acked, s.Ignored, s.ToIgnore
	in.Trigger, in.End, in.NowQ, in.EndNext, in.Unacked, in.ExtraTrigger = s.Trigger, s.End, d.Stamp(now), d.WindowEnd(now), unacked, extra
	var o QAOut
	quickAdaptTo(d, &in, &o)
	s.Acked, s.Ignored, s.ToIgnore, s.Trigger, s.End = o.Acked, o.Ignored, o.ToIgnore, o.Trigger, o.End
	return o.C, o.Fired
}

// fastIncrease runs the FastIncrease sub-block on the word.
func (s *State) fastIncrease(d *Derived, c uint64, e *Event) (uint64, bool) {
	var in FastIn
	in.C, in.Count, in.Increase, in.Size, in.RTT, in.ECN = c, s.Count, s.Increase, e.Size, e.RTT, e.ECN
	var o FastOut
	fastIncreaseTo(d, &in, &o)
	s.Count, s.Increase = o.Count, o.Increase
	return o.C, o.Fired
}

// count adds an ack's bytes to acked and ignored: step 1 of every ack
// (S0:L173-174).
func (s *State) count(d *Derived, size uint32) {
	u := d.Units(size)
	s.Acked = satAdd(s.Acked, u, d.CountMax)
	s.Ignored = satAdd(s.Ignored, u, d.CountMax)
}

// countLoss is step 1 of a nack or timeout: its bytes always add to
// ignored, and to acked only with TrimsCountAsAcked (A-7: QuickAdapt
// measures the bytes delivered in its window, S0:L214, S1:L706-713).
func (s *State) countLoss(p *Params, d *Derived, size uint32) {
	if p.TrimsCountAsAcked {
		s.Acked = satAdd(s.Acked, d.Units(size), d.CountMax)
	}
	s.Ignored = satAdd(s.Ignored, d.Units(size), d.CountMax)
}

// earlyStore keeps the window of a QuickAdapt / FastIncrease return.
func earlyStore(p *Params, d *Derived, c uint64) uint32 {
	if p.ClampOnEarlyReturn {
		return Clamp(d, c)
	}
	return store(d, c)
}

// fairDecrease is FD (S0 Eq. 1): c - min(c, (c * size * KFd) >> 40), the
// product formed in 128 bits.
func fairDecrease(d *Derived, c uint64, size uint32) uint64 {
	dec := fixed.MulShr(c*uint64(size), d.KFd, FdShift)
	return c - min(c, dec)
}

// fairIncrease is the FI amount (S0 Eq. 3): div(size * KFi, c).
func fairIncrease(d *Derived, c uint64, size uint32) uint64 {
	return d.div(uint64(size)*d.KFi, c)
}

// multIncrease is the MI / PI amount (S0 Eq. 4, S1 Eq. 3): min(size << F,
// div(div(size * KMi, c) * (Trtt - rtt), rtt)) for rtt <= Trtt.
func multIncrease(d *Derived, c uint64, size, rtt uint32) uint64 {
	q := d.div(uint64(size)*d.KMi, c)
	return min(uint64(size)<<d.F, d.div(q*uint64(d.TrttNs-rtt), uint64(rtt)))
}

// execConf is the smartt block (S0 Algorithm 1; contract Section 5). It
// returns the case and whether QuickAdapt fired.
func execConf(p *Params, d *Derived, s *State, e *Event) (uint8, bool) {
	switch e.Kind {
	case KindOpen:
		*s = State{C: d.InitCwnd << d.F}
		return CaseNone, false

	case KindAck:
		// 1-2. Count, then drop the acks of the bytes that were in
		// flight when QuickAdapt fired (S0:L177-178).
		s.count(d, e.Size)
		if s.Ignored < s.ToIgnore {
			return CaseNone, false
		}
		// 3. WTD (S0:L181); only acks that pass the ignore check.
		var canDecrease bool
		s.AvgWtd, canDecrease = WTD(d, s.AvgWtd, e.ECN)
		// 4. Both QuickAdapt and FastIncrease run (S0:L182-185); the
		// second sees the window the first produced.
		c, qa := s.quickAdapt(d, uint64(s.C), e.Now, e.Unacked, false)
		c, fast := s.fastIncrease(d, c, e)
		if qa || fast {
			s.C = earlyStore(p, d, c)
			if qa {
				return CaseQA, true
			}
			return CaseFast, false
		}
		// 5. Core cases (S0:L188-195, A-1: <= as in S0).
		var kase uint8
		high := e.RTT > d.TrttNs
		switch {
		case e.ECN && !canDecrease:
			kase = CaseNone // WTD holds the decrease back
		case e.ECN && !high:
			c = fairDecrease(d, c, e.Size)
			kase = CaseFD
		case e.ECN:
			// MD, then FD on the window MD produced.
			md := d.div(uint64(e.RTT-d.TrttNs)*uint64(e.Size)*d.KMd, uint64(e.RTT))
			c -= min(c, min(uint64(e.Size)<<d.F, md))
			c = fairDecrease(d, c, e.Size)
			kase = CaseMD
		case high:
			c += fairIncrease(d, c, e.Size)
			kase = CaseFI
		default:
			// MI, then FI on the new window.
			c += multIncrease(d, c, e.Size, e.RTT)
			c += fairIncrease(d, c, e.Size)
			kase = CaseMI
		}
		// 6.
		s.C = Clamp(d, c)
		return kase, false

	default: // KindNack, KindTimeout: timeouts act like trims (S0:L197-202, L234)
		s.countLoss(p, d, e.Size)
		c := uint64(s.C)
		c -= min(c, uint64(e.Size)<<d.F)
		s.Trigger = true
		var qa bool
		if s.Ignored >= s.ToIgnore {
			c, qa = s.quickAdapt(d, c, e.Now, e.Unacked, false)
		}
		s.C = Clamp(d, c)
		if qa {
			return CaseQA, true
		}
		return CaseLoss, false
	}
}

// execNSCC is the nscc block (S1 Algorithms 1-4, htsim as tie-breaker;
// contract Section 6).
func execNSCC(p *Params, d *Derived, s *State, e *Event) (uint8, bool) {
	nowq := d.Stamp(e.Now)
	switch e.Kind {
	case KindOpen:
		*s = State{C: d.InitCwnd << d.F, AvgRtt: d.BrttNs}
		return CaseNone, false

	case KindAck:
		// 1-2.
		s.count(d, e.Size)
		if s.Ignored < s.ToIgnore {
			return CaseNone, false
		}
		// 3. avg_rtt += (rtt - avg_rtt) >>> AvgShift, signed, floor.
		diff := int64(e.RTT) - int64(s.AvgRtt)
		s.AvgRtt = min(uint32(int64(s.AvgRtt)+diff>>p.AvgShift)&d.RttMax, d.AvgMax)
		// 4. QuickAdapt (qa_scaling 1, optional delay trigger), then
		// FastIncrease.
		extra := p.DelayQA && e.RTT > d.QaRttNs && s.Acked < d.QaGateUnits
		c, qa := s.quickAdapt(d, uint64(s.C), e.Now, e.Unacked, extra)
		c, fast := s.fastIncrease(d, c, e)
		if qa {
			s.Inc, s.Recv = 0, 0 // htsim drops the pending increase
		}
		if qa || fast {
			s.C = earlyStore(p, d, c)
			if qa {
				return CaseQA, true
			}
			return CaseFast, false
		}
		// 5. Core cases (S1 Alg. 1, A-1 resolved to <=).
		var kase uint8
		high := e.RTT > d.TrttNs
		switch {
		case e.ECN && high:
			// MD at most once per base RTT (S1:L577, L960), sized by
			// avg_rtt, at most half (S1 Eq. 1). Held back: a no-op.
			kase = CaseNone
			if d.passed(nowq, s.MdEnd) && s.AvgRtt > d.TrttNs {
				q := d.div(c*uint64(s.AvgRtt-d.TrttNs), uint64(s.AvgRtt))
				red := min(c>>1, (q*uint64(d.MdGain))>>16)
				c -= red
				s.MdEnd = d.HoldEnd(e.Now)
				s.Count, s.Increase = 0, false
				kase = CaseMD
			}
		case e.ECN:
			kase = CaseNone // the load balancer changes path (S1:L904)
		case high:
			s.Inc = satAdd(s.Inc, uint32(min(fairIncrease(d, c, e.Size), uint64(d.CMax))), d.IncMax)
			kase = CaseFI
		default:
			// PI and FI both from the same c, accumulated.
			pi := multIncrease(d, c, e.Size, e.RTT)
			fi := fairIncrease(d, c, e.Size)
			s.Inc = uint32(min(uint64(s.Inc)+pi+fi, uint64(d.IncMax)))
			kase = CaseMI
		}
		// 6. Adjustment period (S1:L838-854): every 8 MTU or base RTT,
		// after every core case (the MD and no-op acks included). Choice
		// beyond the contract: with AdjustPeriod off every ack that gets
		// here is an adjustment (inc applied, recv = 0, adj_end one base
		// RTT ahead).
		s.Recv = satAdd(s.Recv, d.Units(e.Size), d.RecvMax)
		if !p.AdjustPeriod || s.Recv > d.AdjUnits || d.passed(nowq, s.AdjEnd) {
			c += uint64(s.Inc)
			s.Inc, s.Recv, s.AdjEnd = 0, 0, d.HoldEnd(e.Now)
		}
		// 7.
		s.C = Clamp(d, c)
		return kase, false

	case KindNack:
		s.countLoss(p, d, e.Size)
		c := uint64(s.C)
		c -= min(c, uint64(e.Size)<<d.F)
		s.Trigger = true
		var qa bool
		if s.Ignored >= s.ToIgnore {
			// extra_trigger = 0: the delay trigger reads an ack's RTT
			// (trigger is 1 here anyway).
			c, qa = s.quickAdapt(d, c, e.Now, e.Unacked, false)
			if qa {
				s.Inc, s.Recv = 0, 0
			}
		}
		s.C = Clamp(d, c)
		if qa {
			return CaseQA, true
		}
		return CaseLoss, false

	default: // KindTimeout: no QuickAdapt (S1:L746), htsim mark_packet_for_retransmission
		s.countLoss(p, d, e.Size)
		if p.IgnorePhaseTimeouts && s.Ignored < s.ToIgnore {
			return CaseNone, false // the ignore phase suppresses timeouts (S1:L799-801)
		}
		c := uint64(s.C)
		c -= min(c, uint64(e.Size)<<d.F)
		s.C = Clamp(d, c)
		return CaseLoss, false
	}
}

// pageBits sets the table page size. The table is paged so that a block
// with a huge NumConn (up to 2^32) costs memory only for the connections
// the stimulus touches.
const (
	pageBits = 12
	pageSize = 1 << pageBits
)

// Stepper is a transaction-level block model as the pipeline drives it.
type Stepper = pipe.Stepper[Event, Result]

var _ Stepper = (*Model)(nil)

// Model is the smartt / nscc block at transaction level: the state table.
// Its zero-initialised table matches the RTL's.
type Model struct {
	p     Params
	d     Derived
	pages []*[pageSize]State
}

// NewModel validates p and returns a model with an all-zero table.
func NewModel(p Params) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", p.Variant, err)
	}
	return &Model{
		p:     p,
		d:     p.Derive(),
		pages: make([]*[pageSize]State, (uint64(p.NumConn)+pageSize-1)>>pageBits),
	}, nil
}

// Params returns the model's parameters.
func (m *Model) Params() Params { return m.p }

// Derived returns the model's derived constants.
func (m *Model) Derived() Derived { return m.d }

// Reset models rst: the block has no state outside the table, which rst
// does not touch, so there is nothing to do.
func (m *Model) Reset() {}

// ClearTable makes every connection's word all-zero, as before its first
// event (the control wrapper's clear); the constants stay as tuned.
func (m *Model) ClearTable() { m.pages = make([]*[pageSize]State, len(m.pages)) }

// Retune changes the constants a control wrapper sets at run time
// (docs/control.md): the target RTT in ns, and with it its stamp units
// and the QuickAdapt delay threshold; the Multiplicative Increase gain
// KMi, which software computes from the target (it is not derived here,
// as the hardware has no divider for it); and qa_scaling in Q0.16. The
// words of the connections stay as they are.
func (m *Model) Retune(trttNs uint32, kmi uint64, qaScale uint32) error {
	d := m.d
	d.setTarget(trttNs)
	var errs []error
	if trttNs <= d.BrttNs || trttNs > d.RttMax {
		errs = append(errs, fmt.Errorf("target RTT %d ns: must be above the base RTT %d ns and at most %d", trttNs, d.BrttNs, d.RttMax))
	}
	if uint64(d.TrttH) >= uint64(1)<<(d.StampW-1) {
		errs = append(errs, fmt.Errorf("target RTT %d ns: its window ends up to %d stamp units ahead, which must be < 2^%d, half the stamp cycle", trttNs, d.TrttH, d.StampW-1))
	}
	if m.p.Variant == NSCC && m.p.DelayQA && d.QaRttNs > d.RttMax {
		errs = append(errs, fmt.Errorf("QuickAdapt threshold %d ns (target RTT %d ns): must be at most %d", d.QaRttNs, trttNs, d.RttMax))
	}
	if kmi == 0 || m.p.SizeW+bits.Len64(kmi)+bits.Len32(trttNs) > 64 {
		errs = append(errs, fmt.Errorf("KMi = %d: must be >= 1, and size * KMi * target must fit 64 bits", kmi))
	}
	if qaScale == 0 || qaScale >= 1<<17 {
		errs = append(errs, fmt.Errorf("qa_scaling = %d/65536: must be 1..2^17-1", qaScale))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%s: %w", m.p.Variant, err)
	}
	d.KMi, d.QaScale = kmi, qaScale
	m.d = d
	return nil
}

// MIGainFor is the Multiplicative Increase gain KMi for a target RTT of
// trttNs ns (above the base RTT) in integer arithmetic, as a control
// wrapper derives it when the target is written (docs/control.md):
// round(MTU x base x gamma x 2^2F) divided by d = target - base, rounded
// half up: (A + floor(d/2)) / d. It is within 1 of Derive's float KMi.
func (m *Model) MIGainFor(trttNs uint32) uint64 {
	d := m.d
	a := roundU(float64(d.MTU) * float64(d.BrttNs) * d.Gamma * pow2(2*m.p.F))
	if trttNs <= d.BrttNs {
		return 0
	}
	dt := uint64(trttNs - d.BrttNs)
	return (a + dt/2) / dt
}

// Step executes one event against the table, as the block does for each
// accepted event in acceptance order. It does not allocate, except for the
// first event that touches a page of 4096 connections.
func (m *Model) Step(e Event) Result {
	var r Result
	m.StepTo(&e, &r)
	return r
}

// StepTo is Step through pointers, as the pipeline calls it.
func (m *Model) StepTo(ev *Event, r *Result) {
	e := *ev
	m.p.truncate(&e)
	if reject(m.p.NumConn, &e, r) {
		return
	}
	pg := m.pages[e.Conn>>pageBits]
	if pg == nil {
		pg = new([pageSize]State)
		m.pages[e.Conn>>pageBits] = pg
	}
	exec(&m.p, &m.d, &pg[e.Conn&(pageSize-1)], &e, r)
}

// Conn returns connection c's word. It panics if c >= NumConn.
func (m *Model) Conn(c uint32) State {
	if uint64(c) >= uint64(m.p.NumConn) {
		panic(fmt.Sprintf("smartt: Conn(%d) with NumConn = %d", c, m.p.NumConn))
	}
	if pg := m.pages[c>>pageBits]; pg != nil {
		return pg[c&(pageSize-1)]
	}
	return State{}
}
