package snyder

import "math"

// RefRate is the reference-rate decrease that Sampling Frequency builds on
// (S3:L1020-1024, from HPCC): a congested ACK sets the rate to a factor of
// the reference, not of the current rate, and the reference follows the
// rate once per sampling period: every S ACKs (Sampling Frequency) or once
// per RTT (the plain protocols). The thesis's example: at rate R, a
// congested ACK asking for half gives R/2 and the reference stays R;
// another gives R/2 again; once the reference is R/2, the next gives R/4.
type RefRate struct {
	Ref, Rate float64
	acks      int     // ACKs since the reference moved (SF)
	sincePs   float64 // time the reference moved (per RTT)
}

// NewRefRate starts at rate c.
func NewRefRate(c float64) *RefRate { return &RefRate{Ref: c, Rate: c} }

// AckSF takes a congested ACK asking for factor f of the reference under
// Sampling Frequency with period s ACKs.
func (r *RefRate) AckSF(f float64, s int) {
	r.Rate = r.Ref * f
	if r.acks++; r.acks >= s {
		r.Ref, r.acks = r.Rate, 0
	}
}

// AckRTT takes a congested ACK at time now asking for factor f of the
// reference when the reference moves once per RTT rtt.
func (r *RefRate) AckRTT(f, now, rtt float64) {
	r.Rate = r.Ref * f
	if now-r.sincePs >= rtt {
		r.Ref, r.sincePs = r.Rate, now
	}
}

// The fluid model of Section 4.1.2: under steady congestion a flow whose
// rate falls once per RTT r follows R' = -beta R / r, one that falls every
// s ACKs of MTU bytes S' = -beta S^2 / (s MTU). Rates in bytes per unit of
// time, r in the same unit.

// FluidRTT is R(t) = C e^(-beta t / r).
func FluidRTT(c, beta, r, t float64) float64 { return c * math.Exp(-beta*t/r) }

// FluidSF is S(t) = C / (1 + beta C t / (s MTU)).
func FluidSF(c, beta, s, mtu, t float64) float64 { return c / (1 + beta*c*t/(s*mtu)) }

// FairnessGap is Eq. 4.1's left side, (R1 - R0) - (S1 - S0) at time t for
// flows starting at c1 > c0: positive where Sampling Frequency is fairer.
func FairnessGap(c1, c0, beta, s, mtu, r, t float64) float64 {
	return (FluidRTT(c1, beta, r, t) - FluidRTT(c0, beta, r, t)) - (FluidSF(c1, beta, s, mtu, t) - FluidSF(c0, beta, s, mtu, t))
}

// SFFairer is the condition under which the gap grows from 0 at t = 0:
// 1/r < (C1 + C0) / (s MTU).
func SFFairer(c1, c0, s, mtu, r float64) bool { return 1/r < (c1+c0)/(s*mtu) }
