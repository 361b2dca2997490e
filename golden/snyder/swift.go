package snyder

import "math"

// SwiftParams configure the float64 reference of Swift as the thesis runs
// it (S3 Section 3.2.2, Table 3.1, Section 4.2), windows in packets and
// times in ns.
type SwiftParams struct {
	Beta, MaxMDF     float64 // Eq. 3.1: 0.8 and 0.5
	BaseNs, PerHopNs float64 // target delay: base 5 us, 2 us per hop
	FBS              FBSParams
	// AIPkts is the additive increase per RTT in packets: Table 3.1's
	// 50 Mb/s over the 5 us base delay is 0.03125 packets of 1000 B.
	AIPkts           float64
	MinCwnd, MaxCwnd float64
	// MDFPrinted takes Eq. 3.1 as printed, 1 - beta (delay - target)
	// with delays in us; by default the decrease is Swift's,
	// 1 - beta (delay - target) / delay. The thesis drops the division,
	// which leaves beta with a unit.
	MDFPrinted bool
	// VAI enables Variable Additive Increase with these constants
	// (measured congestion: the RTT's largest delay).
	VAI *VAIParams
	// SF > 0 enables Sampling Frequency: a congested ACK decreases the
	// window relative to a reference that follows it every SF ACKs
	// (S3:L1020-1024); otherwise Swift decreases at most once per RTT.
	SF int
	// AlwaysAI performs the additive increase on every ACK, congested or
	// not (S3:L1026, the thesis's second change, made with VAI and SF).
	AlwaysAI bool
}

// DefaultSwift is Table 3.1's Swift with neither mechanism.
func DefaultSwift() SwiftParams {
	return SwiftParams{Beta: 0.8, MaxMDF: 0.5, BaseNs: 5_000, PerHopNs: 2_000, FBS: DefaultFBS(),
		AIPkts: 50e6 * 5e-6 / (8 * 1000), MinCwnd: 0.01, MaxCwnd: 1000}
}

// Swift is one flow.
type Swift struct {
	Cwnd, Ref  float64
	VAI        VAI
	ai         float64 // the AI of this RTT (VAI), packets per RTT
	lastDecNs  float64
	rttStartNs float64
	rttCwnd    float64 // the window when the RTT started
	sfAcks     int
}

// NewSwift starts a flow at window cwnd at time nowNs.
func NewSwift(p SwiftParams, cwnd, nowNs float64) *Swift {
	return &Swift{Cwnd: cwnd, Ref: cwnd, ai: p.AIPkts, lastDecNs: nowNs, rttStartNs: nowNs, rttCwnd: cwnd}
}

// Target is the target delay for hops hops at the flow's window.
func (s *Swift) Target(p SwiftParams, hops int) float64 {
	return p.BaseNs + float64(hops)*p.PerHopNs + p.FBS.FBS(s.Cwnd)
}

// Ack takes the ACK of acked packets with delay delayNs over hops hops
// at time nowNs, and returns the window after it.
func (s *Swift) Ack(p SwiftParams, delayNs float64, hops int, acked, nowNs float64) float64 {
	target := s.Target(p, hops)
	congested := delayNs >= target
	if p.VAI != nil {
		s.VAI.Observe(delayNs, congested)
		if nowNs-s.rttStartNs >= delayNs { // an RTT finished
			s.VAI.EndRTT(*p.VAI)
			// tokens are spent per RTT while the window rises (S3:L943)
			s.ai = s.VAI.Increase(*p.VAI, s.Cwnd >= s.rttCwnd)
			s.rttStartNs, s.rttCwnd = nowNs, s.Cwnd
		}
	}
	if congested {
		f := 1 - p.Beta*(delayNs-target)/delayNs
		if p.MDFPrinted {
			f = 1 - p.Beta*(delayNs-target)/1000
		}
		f = math.Max(f, 1-p.MaxMDF)
		switch {
		case p.SF > 0:
			s.Cwnd = f * s.Ref
			if s.sfAcks++; s.sfAcks >= p.SF {
				s.Ref, s.sfAcks = s.Cwnd, 0
				if p.VAI != nil { // spent per decrease period while falling
					s.ai = s.VAI.Increase(*p.VAI, true)
				}
			}
		case nowNs-s.lastDecNs >= delayNs:
			s.Cwnd *= f
			s.lastDecNs = nowNs
		}
	}
	if !congested || p.AlwaysAI {
		if s.Cwnd >= 1 {
			s.Cwnd += s.ai * acked / s.Cwnd
		} else {
			s.Cwnd += s.ai * acked
		}
		if !congested {
			s.Ref, s.sfAcks = s.Cwnd, 0
		}
	}
	s.Cwnd = math.Min(math.Max(s.Cwnd, p.MinCwnd), p.MaxCwnd)
	return s.Cwnd
}
