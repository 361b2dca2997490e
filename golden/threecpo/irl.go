// Package threecpo holds the golden models of 3CPO (S3 chapter 6,
// shared/spec/ALGORITHMS.md §7.8 to §7.11): congestion control for
// GPU-to-GPU collectives that gates injection with tokens, not a window.
//
// This file is the injection-rate-limit (IRL) token unit of one GPU
// (§7.8, S3:L1536-1564): a request and a response token counter, each
// filled by its own watermark and drained by the request packets sent.
package threecpo

import (
	"errors"
	"fmt"

	"github.com/nicgen/nicgen/golden/fixed"
)

// IRLParams configures the token unit.
type IRLParams struct {
	// WMMax is WM_MAX, the largest watermark (S3:L1579: 2468). A token
	// arrives in a cycle iff rand < watermark, rand uniform in [0, WMMax).
	WMMax uint32
	// RandBits is k, the random bits drawn per counter and cycle: rand =
	// (r * WMMax) >> k for r uniform in [0, 2^k), so P(token) is within
	// 2^-k of watermark/WMMax (the thesis draws rand without saying how).
	RandBits int
	// Cap is the bucket's capacity in tokens: a counter never rises above
	// it. The thesis's leaky bucket has one but does not give it; the
	// default is one full packet (9 flits), so that an idle GPU can send
	// one packet at once and no burst beyond it.
	Cap int32
	// MaxCost is the most tokens of one type one send may take (flits of
	// the largest packet plus the tokens that multicast matching adds). A
	// counter never falls below 1 - MaxCost: a send needs at least 1.
	MaxCost int32
	// Seed is the LFSR's value after reset; nonzero.
	Seed uint32
}

// DefaultIRLParams are the thesis's: WM_MAX 2468, 9-flit packets, with
// up to 63 senders' matched flits on top of one's own (64 GPUs in one
// group, §7.8).
func DefaultIRLParams() IRLParams {
	return IRLParams{WMMax: 2468, RandBits: 16, Cap: 9, MaxCost: 9 * 64, Seed: 0x3C90A5E1}
}

// Validate reports what is out of range.
func (p IRLParams) Validate() error {
	var errs []error
	if p.WMMax < 2 || p.WMMax > 1<<16 {
		errs = append(errs, fmt.Errorf("WMMax %d: want 2..65536", p.WMMax))
	}
	if p.RandBits < 8 || p.RandBits > 16 {
		errs = append(errs, fmt.Errorf("RandBits %d: want 8..16 (two draws come from one 32-bit LFSR word)", p.RandBits))
	}
	if p.Cap < 1 {
		errs = append(errs, fmt.Errorf("Cap %d: want at least 1 (a send needs one token)", p.Cap))
	}
	if p.MaxCost < 1 {
		errs = append(errs, fmt.Errorf("MaxCost %d: want at least 1", p.MaxCost))
	}
	if p.Seed == 0 {
		errs = append(errs, errors.New("Seed must be nonzero (the LFSR would stay 0)"))
	}
	return errors.Join(errs...)
}

// IRLState is one GPU's counters and watermarks. Counters are signed: a
// send may drive them negative (Fig. 6.1, 6.4).
type IRLState struct {
	Req, Rsp     int32  // request and response tokens
	ReqWM, RspWM uint32 // watermarks, 0..WMMax
}

// IRLCycle is what happens in one cycle.
type IRLCycle struct {
	// Send asks to send a request packet taking ReqCost request tokens
	// and RspCost response tokens (a write of 9 request flits and 1
	// response flit: 9 and 1; a read: 1 and its response's flits).
	// Multicast matching adds the matched remote flits to ReqCost.
	Send             bool
	ReqCost, RspCost int32
	// Draws: the request and response rand values of this cycle, in
	// [0, WMMax). Model.Cycle fills them from the LFSR; Step takes them
	// as given, which is how a test replays the thesis's figures.
	ReqRand, RspRand uint32
}

// IRLResult is the cycle's outcome.
type IRLResult struct {
	// Sent: the send was asked and allowed (both counters >= 1 before
	// it). A send asked while not allowed is refused and takes nothing.
	Sent bool
	// Refused: a send was asked and not allowed, or its cost was out of
	// range (negative, or above MaxCost).
	Refused bool
	// NewReq, NewRsp: a token arrived for that counter this cycle.
	NewReq, NewRsp bool
}

// MaySend is the gate: a request packet may go while both counters hold
// at least one token (S3 Fig. 6.1: send at 1, wait at 0 and below).
func (s IRLState) MaySend() bool { return s.Req >= 1 && s.Rsp >= 1 }

// IRLStep is one cycle: tokens(c+1) = min(tokens(c) - cost(sent) +
// new(c), Cap), with new(c) = rand < watermark. It is pure.
func IRLStep(p IRLParams, s IRLState, c IRLCycle) (IRLState, IRLResult) {
	var r IRLResult
	bad := c.ReqCost < 0 || c.RspCost < 0 || c.ReqCost > p.MaxCost || c.RspCost > p.MaxCost
	if c.Send {
		if s.MaySend() && !bad {
			r.Sent = true
		} else {
			r.Refused = true
		}
	}
	r.NewReq = c.ReqRand < s.ReqWM
	r.NewRsp = c.RspRand < s.RspWM
	next := func(t, cost int32, sent, arrived bool) int32 {
		if sent {
			t -= cost
		}
		if arrived {
			t++
		}
		return min(t, p.Cap)
	}
	s.Req = next(s.Req, c.ReqCost, r.Sent, r.NewReq)
	s.Rsp = next(s.Rsp, c.RspCost, r.Sent, r.NewRsp)
	return s, r
}

// Rand maps k uniform bits r to [0, WMMax): (r * WMMax) >> k.
func (p IRLParams) Rand(r uint32) uint32 {
	return uint32(uint64(r&(1<<p.RandBits-1)) * uint64(p.WMMax) >> p.RandBits)
}

// IRLModel is the unit with its LFSR: every cycle the 32-bit Galois LFSR
// of golden/reps advances 32 steps, and the request draw takes the low k
// bits of the new word, the response draw bits 16..16+k-1.
type IRLModel struct {
	p    IRLParams
	s    IRLState
	lfsr fixed.LFSR
}

// NewIRLModel starts with full buckets and both watermarks at WMMax.
func NewIRLModel(p IRLParams) (*IRLModel, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	m := &IRLModel{p: p}
	m.Reset()
	return m, nil
}

// Reset reloads the LFSR and the reset state.
func (m *IRLModel) Reset() {
	m.lfsr = fixed.LFSR(m.p.Seed)
	m.s = IRLState{Req: m.p.Cap, Rsp: m.p.Cap, ReqWM: m.p.WMMax, RspWM: m.p.WMMax}
}

// State is the current state.
func (m *IRLModel) State() IRLState { return m.s }

// SetWatermarks loads both watermarks (wm_ctrl's outputs), clamped to
// WMMax, effective from the next Cycle.
func (m *IRLModel) SetWatermarks(req, rsp uint32) {
	m.s.ReqWM, m.s.RspWM = min(req, m.p.WMMax), min(rsp, m.p.WMMax)
}

// Draw advances the LFSR one cycle and returns the two rand values.
func (m *IRLModel) Draw() (req, rsp uint32) {
	w := m.lfsr.Draw(32)
	return m.p.Rand(w), m.p.Rand(w >> 16)
}

// Cycle runs one cycle with the LFSR's draws.
func (m *IRLModel) Cycle(send bool, reqCost, rspCost int32) IRLResult {
	req, rsp := m.Draw()
	var r IRLResult
	m.s, r = IRLStep(m.p, m.s, IRLCycle{Send: send, ReqCost: reqCost, RspCost: rspCost, ReqRand: req, RspRand: rsp})
	return r
}
