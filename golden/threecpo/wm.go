package threecpo

import (
	"errors"
	"fmt"
	"math"
)

// This file is the float64 reference of watermark control (§7.8 and
// §7.10, S3:L1564, L1579, L1665-1759): the AIMD baseline and Algorithm 6,
// the unicast protocol run when a probe packet arrives, with the
// multicast-to-unicast conversion and the FBS factor. Latencies are in
// cycles. The request and response watermarks each run an instance.

// WMParams are the watermark controller's constants.
type WMParams struct {
	WMMax, WMMin float64 // 2468 and 100 (S3:L1579)
	LatThresh    float64 // below it: additive increase (2,000 cycles)
	MaxLatThresh float64 // at and above it: the full decrease (5,000 cycles)
	BaseMD       float64 // the full decrease fraction (0.5: halving)
	AI           float64 // WM_AI, the additive increase per probe (50)
	// ElseOfLine12 attaches Algorithm 6's line 18 to line 12 (A-31's
	// recommendation, the text's S3:L1759 and Fig. 6.9: decrease when the
	// watermark equivalent did not grow and the network is congested).
	// False reads the listing as printed (line 18 is the else of line 15,
	// whose two branches are then identical, so a shrinking equivalent
	// never decreases the watermark).
	ElseOfLine12 bool
}

// DefaultWMParams are the thesis's AIMD constants, which S3:L1784 says
// the unicast protocol reuses, with A-31's reading.
func DefaultWMParams() WMParams {
	return WMParams{WMMax: 2468, WMMin: 100, LatThresh: 2000, MaxLatThresh: 5000, BaseMD: 0.5, AI: 50, ElseOfLine12: true}
}

// Validate reports what is out of range.
func (p WMParams) Validate() error {
	var errs []error
	if !(p.WMMin > 0 && p.WMMin < p.WMMax) {
		errs = append(errs, fmt.Errorf("WMMin %g, WMMax %g: want 0 < WMMin < WMMax", p.WMMin, p.WMMax))
	}
	if !(p.LatThresh > 0 && p.LatThresh < p.MaxLatThresh) {
		errs = append(errs, fmt.Errorf("LatThresh %g, MaxLatThresh %g: want 0 < LatThresh < MaxLatThresh", p.LatThresh, p.MaxLatThresh))
	}
	if !(p.BaseMD > 0 && p.BaseMD < 1) {
		errs = append(errs, fmt.Errorf("BaseMD %g: want (0, 1)", p.BaseMD))
	}
	if !(p.AI >= 0 && p.AI < p.WMMax) {
		errs = append(errs, fmt.Errorf("AI %g: want [0, WMMax)", p.AI))
	}
	return errors.Join(errs...)
}

// Alpha and Beta are the FBS constants: alpha = 1/(1/sqrt(WMMin) -
// 1/sqrt(WMMax)), beta = alpha/sqrt(WMMax) (S3:L1757), so that fbs is 0 at
// WMMin and 1 at WMMax.
func (p WMParams) Alpha() float64 { return 1 / (1/math.Sqrt(p.WMMin) - 1/math.Sqrt(p.WMMax)) }
func (p WMParams) Beta() float64  { return p.Alpha() / math.Sqrt(p.WMMax) }

// FBS is max(1 - (alpha/sqrt(x) - beta), 0.05) (Algorithm 6, lines 16
// and 19). For x <= 0, where the square root is undefined, it is
// 0.05, the floor; Alg6 never asks for it.
func (p WMParams) FBS(x float64) float64 {
	if x <= 0 {
		return 0.05
	}
	return math.Max(1-(p.Alpha()/math.Sqrt(x)-p.Beta()), 0.05)
}

// MD is the decrease fraction of a probe's latency (Algorithm 6, lines
// 1-2): 0 at LatThresh, rising linearly to BaseMD at MaxLatThresh, BaseMD
// above it. Below LatThresh it is negative; no rule uses it there.
func (p WMParams) MD(lat float64) float64 {
	scaling := (lat - p.LatThresh) / (p.MaxLatThresh - p.LatThresh) * p.BaseMD
	return 1 - math.Max(1-scaling, p.BaseMD)
}

func (p WMParams) clamp(wm float64) float64 { return math.Min(math.Max(wm, p.WMMin), p.WMMax) }

// AIMD is the baseline's once-per-RTT update from a probe's latency
// (S3:L1579): +AI below LatThresh, times 1 - MD(lat) from there (the
// factor falls linearly from 1 to 1 - BaseMD at MaxLatThresh: halving),
// within [WMMin, WMMax].
func (p WMParams) AIMD(wm, lat float64) float64 {
	if lat < p.LatThresh {
		return p.clamp(wm + p.AI)
	}
	return p.clamp(wm * (1 - p.MD(lat)))
}

// WatermarkEquivalent is the conversion of S3:L1681-1697: n extra tokens
// consumed by multicast matching over a latency of lat cycles are the
// tokens a watermark lower by X = WMMax n / lat would not have made.
func (p WMParams) WatermarkEquivalent(n, lat float64) float64 { return p.WMMax * n / lat }

// Alg6State is one instance's state between probes.
type Alg6State struct {
	WM       float64 // the watermark
	LastWMEq float64 // last RTT's watermark equivalent
	// GlobalDec is the extra tokens multicast matching consumed this RTT
	// (N of the conversion); the caller adds to it, Probe clears it at
	// an RTT's end.
	GlobalDec float64
}

// Probe is one probe's arrival.
type Probe struct {
	Lat         float64 // the probe packet's latency, cycles; > 0
	RTTFinished bool    // an RTT ended with this probe (lines 3-25)
	// Skew correction (lines 4-8), for request tokens: the multicast
	// writes and all multicast sends of the RTT, and the write's request
	// and response sizes in flits. Sent 0 skips it.
	SentMcastWrites, SentMcastTotal float64
	WriteSize, WriteAck             float64
}

// Alg6 is Algorithm 6 for one probe, with the choices where the listing
// is silent or inconsistent: carry_over (line 22's
// calculate_carry_over, undefined) is 0; the skew correction uses the
// fraction of writes among multicast sends (line 4's name) and runs when
// it is at most 0.5; a decrease needs wm > wm_eq (line 16's square root);
// line 18 attaches as ElseOfLine12 says.
func (p WMParams) Alg6(s Alg6State, pr Probe) Alg6State {
	md := p.MD(pr.Lat)
	congested := pr.Lat > p.LatThresh
	if pr.RTTFinished {
		if pr.SentMcastTotal > 0 {
			pw := pr.SentMcastWrites / pr.SentMcastTotal
			if pw <= 0.5 {
				s.GlobalDec += (pr.WriteSize - pr.WriteAck) * s.GlobalDec * (2*(1-pw) - 1)
			}
		}
		wmEq := p.WatermarkEquivalent(s.GlobalDec, pr.Lat)
		decrease := func() {
			if x := s.WM - wmEq; x > 0 {
				s.WM -= p.FBS(x) * md * x
			}
		}
		if wmEq > s.LastWMEq {
			delta := wmEq - s.LastWMEq
			s.WM = math.Min(s.WM+delta, p.WMMax)
			if congested && delta < s.WM*md {
				decrease()
			}
		} else if p.ElseOfLine12 && congested {
			decrease()
		}
		s.LastWMEq = wmEq
		s.GlobalDec = 0
	}
	if pr.Lat < p.LatThresh {
		s.WM = math.Min(s.WM+p.AI, p.WMMax)
	}
	s.WM = p.clamp(s.WM)
	return s
}
