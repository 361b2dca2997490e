package snyder

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/nicgen/nicgen/golden/fixed"
	"github.com/nicgen/nicgen/golden/pipe"
)

// This file is the bit-exact golden model of the swift block: Swift's
// window update (S3 Eq. 3.1) with flow-based scaling (Eqs. 3.2, 3.3),
// Variable Additive Increase (Algorithms 1, 2) and Sampling Frequency
// (S3:L1018-1026) as options, in the fixed point the hardware computes,
// one word per connection. Written from the thesis and from the float64
// reference Swift of this package, which bounds its error; never from the
// DSL block.
//
// The arithmetic contract (docs/blocks/swift.md):
//
//   - The window is an unsigned number of 2^-FracW packets, IntW integer
//     bits, clamped to [MinCwnd, MaxCwnd] after every ACK.
//   - target = base + hops x per_hop + fbs(cwnd), whole ns; fbs is
//     FBSFixed (a 2^TableBits-entry 1/sqrt table). An ACK is congested
//     when its delay reaches the target.
//   - The decrease: mdf = min(div(beta x (delay - target), delay),
//     max_mdf) in 2^-MdfFrac, beta and max_mdf rounded to that unit, and
//     the new window (base x (2^MdfFrac - mdf)) >> MdfFrac, truncated,
//     where base is the reference window (SF) or the window (once per
//     RTT: the last decrease at least one delay ago). div(n, x) is the
//     reciprocal divider of smartt (golden/smartt Div, K index bits).
//   - The increase: the window grows by ai x acked when it is below one
//     packet, else by div(ai x acked x 2^FracW, cwnd), where cwnd is the
//     window the ACK found (not the decreased one: the two paths run side
//     by side in the hardware).
//   - VAI: an RTT ends at the first ACK at least one delay after it
//     began. Then Algorithm 1 runs on the RTT's largest delay mc (tokens
//     floor(mc / AI_DIV), integers; the dampener in 2^-DampFrac, raised by
//     floor(mc x 2^DampFrac / Token_Thresh) and saturating), and
//     Algorithm 2 sets the AI: tokens = min(AI_Cap, bank), spent when the
//     window rose over the RTT; mult = max(div(tokens x DC x
//     2^(DampFrac+MultFrac), dampener + DC x 2^DampFrac), 2^MultFrac) and
//     ai = (mult x base_AI) >> MultFrac. With SF, the end of a decrease
//     period also spends tokens, unless the ACK ended an RTT (one
//     Algorithm 2 per ACK). The new AI applies from the next ACK.
//   - SF: a congested ACK decreases relative to the reference window and
//     counts; every SF congested ACKs the reference takes the window. An
//     uncongested ACK moves the reference to the window and restarts the
//     count.
//   - AlwaysAI: the additive increase runs on congested ACKs too
//     (S3:L1026).

// SwiftKind is the kind of a swift event.
type SwiftKind uint8

// The kinds, in the order of the block's s_event_kind.
const (
	SwiftOpen SwiftKind = iota // a connection starts at the initial window
	SwiftAck                   // an ACK with its delay
	SwiftNumKinds
)

func (k SwiftKind) String() string {
	switch k {
	case SwiftOpen:
		return "open"
	case SwiftAck:
		return "ack"
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// VAIFx are VAI's constants in a block's units (Table 4.1): ns of delay
// for swift, bytes of queue for hpcc.
type VAIFx struct {
	TokenThresh uint64 // swift: 4 us + the target delay (S3:L1047); hpcc: 50 KB
	AIDiv       uint64 // swift: 30 ns per token; hpcc: 1 KB
	AICap       uint64 // tokens spent at most per update (100)
	BankCap     uint64 // tokens banked at most (1000)
	DampConst   uint64 // Dampener_Constant (8)
	DampFrac    int    // fraction bits of the dampener
	DampW       int    // bits of the dampener (saturating)
	MultFrac    int    // fraction bits of tokens / divisor
}

// SwiftFxParams configure the swift block and its model.
type SwiftFxParams struct {
	NumConn, ConnW, KindW int
	TimeW, DelayW         int // ns
	HopW, AckW            int
	FracW, IntW           int // the window: 2^-FracW packets, IntW integer bits
	InitCwnd              uint64
	MinCwnd, MaxCwnd      uint64 // 2^-FracW packets
	BaseNs, PerHopNs      uint64
	FBS                   FBSParams
	TableBits, OutW       int // the 1/sqrt table
	AlphaFrac             int
	MdfFrac               int
	Beta, MaxMDF          uint64 // 2^-MdfFrac
	AI                    uint64 // base AI, 2^-FracW packets per RTT
	K                     int    // reciprocal index bits
	SF                    uint64 // ACKs per decrease period; 0: once per RTT
	AlwaysAI              bool
	VAI                   *VAIFx
}

// DefaultSwiftFx is Table 3.1's Swift (base 5 us, 2 us per hop, beta 0.8,
// max_mdf 0.5, fs_range 25 us, fs 0.1..50 packets, AI 50 Mb/s = 0.03125
// packets of 1000 B per 5 us) on 4096 connections, without VAI or SF.
func DefaultSwiftFx() SwiftFxParams {
	const fw = 16
	return SwiftFxParams{NumConn: 4096, ConnW: 16, KindW: 2, TimeW: 32, DelayW: 20, HopW: 3, AckW: 4,
		FracW: fw, IntW: 10, InitCwnd: 10 << fw, MinCwnd: FixedOfFloat(0.01, fw), MaxCwnd: 1000 << fw,
		BaseNs: 5000, PerHopNs: 2000, FBS: DefaultFBS(), TableBits: 10, OutW: 16, AlphaFrac: 8,
		MdfFrac: 12, Beta: FixedOfFloat(0.8, 12), MaxMDF: FixedOfFloat(0.5, 12),
		AI: FixedOfFloat(50e6*5e-6/(8*1000), fw), K: 10}
}

// DefaultSwiftVAIFx is Table 4.1's Swift column for a target of
// targetNs: Token_Thresh 4 us + target, AI_DIV 30 ns, AI_Cap 100,
// Bank_Cap 1000, Dampener_Constant 8; the dampener in 2^-4 up to 255.9,
// tokens / divisor in 2^-4.
func DefaultSwiftVAIFx(targetNs uint64) *VAIFx {
	return &VAIFx{TokenThresh: 4000 + targetNs, AIDiv: 30, AICap: 100, BankCap: 1000, DampConst: 8, DampFrac: 4, DampW: 12, MultFrac: 4}
}

// FixedOfFloat is v in units of 2^-frac, rounded to nearest.
func FixedOfFloat(v float64, frac int) uint64 { return uint64(math.Round(math.Ldexp(v, frac))) }

// UsesNow reports whether the block reads the event's time: for the
// per-RTT decrease or VAI's RTTs (SF alone does not).
func (p SwiftFxParams) UsesNow() bool { return p.SF == 0 || p.VAI != nil }

// CwndW is the window's width.
func (p SwiftFxParams) CwndW() int { return p.FracW + p.IntW }

// MaxHops is the largest hop count of the hops field.
func (p SwiftFxParams) MaxHops() uint64 { return uint64(1)<<uint(p.HopW) - 1 }

// TargetW is the width of the target delay: base + every hop + fs_range.
func (p SwiftFxParams) TargetW() int {
	return bits.Len64(p.BaseNs + p.MaxHops()*p.PerHopNs + uint64(math.Round(p.FBS.RangeNs)))
}

// AIMax is the largest AI: AI_Cap x base AI with VAI (tokens / divisor
// is at most AI_Cap), else the base AI.
func (p SwiftFxParams) AIMax() uint64 {
	if p.VAI != nil {
		return p.VAI.AICap * p.AI
	}
	return p.AI
}

// AIW is the width of the AI: twice AIMax, as the reciprocal divider
// may overshoot tokens / divisor by up to 2^-K of itself.
func (p SwiftFxParams) AIW() int { return bits.Len64(2 * p.AIMax()) }

// FBSFixed is the block's flow-based scaling.
func (p SwiftFxParams) FBSFixed() (*FBSFixed, error) {
	return NewFBSFixed(p.FBS, p.FracW, p.TableBits, p.OutW, p.AlphaFrac)
}

// ValidateSwiftFx reports parameters the model cannot run.
func ValidateSwiftFx(p SwiftFxParams) error {
	cw := p.CwndW()
	switch {
	case p.NumConn < 1 || p.ConnW < 1 || p.ConnW > 32 || p.KindW < 1 || p.KindW > 8:
		return fmt.Errorf("swift: %d connections, %d-bit ids, %d-bit kinds: want at least 1, 1..32 and 1..8", p.NumConn, p.ConnW, p.KindW)
	case p.TimeW < 8 || p.TimeW > 48 || p.DelayW < 4 || p.DelayW > 32 || p.DelayW > p.TimeW || p.HopW < 1 || p.HopW > 6 || p.AckW < 1 || p.AckW > 12:
		return fmt.Errorf("swift: %d-bit time, %d-bit delays, %d-bit hops, %d-bit acked counts: want 8..48, 4..32 and at most the time, 1..6, 1..12", p.TimeW, p.DelayW, p.HopW, p.AckW)
	case p.FracW < 2 || p.FracW > 20 || p.FracW%2 != 0 || p.IntW < 1 || p.IntW > 20:
		return fmt.Errorf("swift: window of %d fraction and %d integer bits: want an even 2..20 and 1..20", p.FracW, p.IntW)
	case p.MinCwnd == 0 || p.MinCwnd > p.MaxCwnd || p.MaxCwnd >= uint64(1)<<uint(cw) || p.InitCwnd < p.MinCwnd || p.InitCwnd > p.MaxCwnd:
		return fmt.Errorf("swift: windows min %d, max %d, initial %d (2^-%d packets): want 0 < min <= initial <= max < 2^%d", p.MinCwnd, p.MaxCwnd, p.InitCwnd, p.FracW, cw)
	case p.MdfFrac < 2 || p.MdfFrac > 16 || p.Beta == 0 || p.Beta > uint64(1)<<uint(p.MdfFrac) || p.MaxMDF > uint64(1)<<uint(p.MdfFrac):
		return fmt.Errorf("swift: beta %d and max_mdf %d in 2^-%d: want 0 < beta <= 1, max_mdf <= 1 and 2..16 fraction bits", p.Beta, p.MaxMDF, p.MdfFrac)
	case p.K < 2 || p.K > 14:
		return fmt.Errorf("swift: reciprocal of %d index bits: want 2..14", p.K)
	case p.AI == 0 || p.AIMax() >= uint64(1)<<32:
		return fmt.Errorf("swift: AI %d (2^-%d packets per RTT, at most %d with VAI): want 1 .. 2^32 - 1", p.AI, p.FracW, p.AIMax())
	case p.BaseNs == 0 || p.BaseNs >= uint64(1)<<uint(p.DelayW) || p.PerHopNs >= uint64(1)<<uint(p.DelayW):
		return fmt.Errorf("swift: base delay %d ns, per hop %d ns: want 0 < each < 2^%d (the delay's width)", p.BaseNs, p.PerHopNs, p.DelayW)
	case p.SF >= 1<<12:
		return fmt.Errorf("swift: sampling frequency %d ACKs: want 0 (off) .. 4095", p.SF)
	case p.OutW+p.AlphaFrac < p.FracW/2:
		return fmt.Errorf("swift: the 1/sqrt table's %d bits and alpha's %d fraction bits must be at least half the window's %d fraction bits", p.OutW, p.AlphaFrac, p.FracW)
	}
	if w := p.AIW() + p.AckW + p.FracW; w > 62 {
		return fmt.Errorf("swift: AI (%d bits) x acked (%d bits) x 2^%d needs %d bits: want at most 62", p.AIW(), p.AckW, p.FracW, w)
	}
	if p.TargetW() > 32 {
		return fmt.Errorf("swift: the target delay needs %d bits: want at most 32", p.TargetW())
	}
	if v := p.VAI; v != nil {
		if err := v.Validate(p.DelayW); err != nil {
			return fmt.Errorf("swift: %w", err)
		}
	}
	if _, err := p.FBSFixed(); err != nil {
		return fmt.Errorf("swift: %w", err)
	}
	return nil
}

// SwiftFxState is one connection's word.
type SwiftFxState struct {
	Cwnd    uint64
	Ref     uint64 // SF: the reference window
	SFAcks  uint64 // SF: congested ACKs since the reference moved
	LastDec uint64 // not SF: time of the last decrease
	// VAI
	AI       uint64 // the AI of this RTT
	Bank     uint64
	Damp     uint64
	MC       uint64 // the RTT's largest delay
	Cong     bool   // a congested ACK in this RTT
	RTTStart uint64
	RTTCwnd  uint64
}

// SwiftFxEvent is one event.
type SwiftFxEvent struct {
	Conn  uint32
	Kind  SwiftKind
	Now   uint64 // ns, wrapping at TimeW bits
	Delay uint64 // ack: the measured delay, ns
	Hops  uint64 // ack: hops of the path
	Acked uint64 // ack: packets acknowledged
}

// SwiftFxResult answers an event.
type SwiftFxResult struct {
	Conn      uint32
	Kind      SwiftKind
	Cwnd      uint64 // the window after the event
	Target    uint64 // ack: the target delay, ns
	Congested bool   // ack: delay >= target
	Decreased bool   // ack: a decrease applied
	Error     bool
	Members   uint8 // merging shell: the ACKs the result stands for (0 on error)
}

// SwiftFxModel is swift over its table; it starts all-zero, and a
// connection is meaningful from its open on.
type SwiftFxModel struct {
	p     SwiftFxParams
	fbs   *FBSFixed
	table []SwiftFxState
}

// NewSwiftFxModel checks p and makes the table.
func NewSwiftFxModel(p SwiftFxParams) (*SwiftFxModel, error) {
	if err := ValidateSwiftFx(p); err != nil {
		return nil, err
	}
	f, _ := p.FBSFixed()
	return &SwiftFxModel{p: p, fbs: f, table: make([]SwiftFxState, p.NumConn)}, nil
}

func maskW(v uint64, w int) uint64 {
	if w >= 64 {
		return v
	}
	return v & (uint64(1)<<uint(w) - 1)
}

// StepTo runs one event (pipe.Stepper).
func (m *SwiftFxModel) StepTo(e *SwiftFxEvent, r *SwiftFxResult) {
	p := m.p
	conn := uint32(maskW(uint64(e.Conn), p.ConnW))
	kind := SwiftKind(maskW(uint64(e.Kind), p.KindW))
	*r = SwiftFxResult{Conn: conn, Kind: kind}
	if int64(conn) >= int64(p.NumConn) || kind >= SwiftNumKinds {
		r.Error = true
		return
	}
	s := &m.table[conn]
	now := maskW(e.Now, p.TimeW)
	if kind == SwiftOpen {
		*s = SwiftFxState{Cwnd: p.InitCwnd, Ref: p.InitCwnd, LastDec: now, AI: p.AI, RTTStart: now, RTTCwnd: p.InitCwnd}
		r.Cwnd = s.Cwnd
		return
	}
	delay, hops, acked := maskW(e.Delay, p.DelayW), maskW(e.Hops, p.HopW), maskW(e.Acked, p.AckW)
	cwnd := s.Cwnd
	target := p.BaseNs + hops*p.PerHopNs + m.fbs.FBS(cwnd)
	congested := delay >= target
	r.Target, r.Congested = target, congested

	// VAI: Algorithm 1 at the end of an RTT, then Algorithm 2
	ai := s.AI
	if p.VAI == nil {
		ai = p.AI
	}
	rttEnded := false
	if v := p.VAI; v != nil {
		mc := max(s.MC, delay)
		cong := s.Cong || congested
		if maskW(now-s.RTTStart, p.TimeW) >= delay {
			rttEnded = true
			m.endRTT(s, mc, cong)
			s.AI = m.increase(s, cwnd >= s.RTTCwnd)
			s.RTTStart, s.RTTCwnd = now, cwnd
		} else {
			s.MC, s.Cong = mc, cong
		}
	}

	next := cwnd
	if congested {
		mdf := min(fixed.Div(p.Beta*(delay-target), delay, p.K), p.MaxMDF)
		f := uint64(1)<<uint(p.MdfFrac) - mdf
		if p.SF > 0 {
			next = (s.Ref * f) >> uint(p.MdfFrac)
			r.Decreased = true
			if s.SFAcks++; s.SFAcks >= p.SF {
				s.Ref, s.SFAcks = next, 0
				if p.VAI != nil && !rttEnded {
					s.AI = m.increase(s, true)
				}
			}
		} else if maskW(now-s.LastDec, p.TimeW) >= delay {
			next = (cwnd * f) >> uint(p.MdfFrac)
			s.LastDec = now
			r.Decreased = true
		}
	}
	if !congested || p.AlwaysAI {
		n := ai * acked
		if cwnd >= uint64(1)<<uint(p.FracW) {
			n = fixed.Div(n<<uint(p.FracW), cwnd, p.K)
		}
		next += n
	}
	s.Cwnd = min(max(next, p.MinCwnd), p.MaxCwnd)
	if !congested && p.SF > 0 {
		s.Ref, s.SFAcks = s.Cwnd, 0
	}
	r.Cwnd = s.Cwnd
}

// endRTT is Algorithm 1 on the RTT's largest delay mc.
func (m *SwiftFxModel) endRTT(s *SwiftFxState, mc uint64, cong bool) {
	m.p.VAI.EndRTT(&s.Bank, &s.Damp, mc, cong)
	s.MC, s.Cong = 0, false
}

// increase is Algorithm 2: the AI, spending the tokens when adjust.
func (m *SwiftFxModel) increase(s *SwiftFxState, adjust bool) uint64 {
	return m.p.VAI.Increase(&s.Bank, s.Damp, adjust, m.p.AI, m.p.K)
}

// EndRTT is Algorithm 1 in the blocks' fixed point on the RTT's largest
// measured congestion mc (ns of delay for swift, bytes of queue for
// hpcc) and whether any ACK of it signalled congestion: tokens
// floor(mc / AI_DIV) up to Bank_Cap and the dampener raised by floor(mc x
// 2^DampFrac / Token_Thresh), saturating, when mc passes Token_Thresh;
// else, with an empty bank, the dampener cleared after an RTT without
// congestion or lowered by one below Token_Thresh.
func (v *VAIFx) EndRTT(bank, damp *uint64, mc uint64, cong bool) {
	switch {
	case mc > v.TokenThresh:
		*bank = min(mc/v.AIDiv+*bank, v.BankCap)
		*damp = min(*damp+(mc<<uint(v.DampFrac))/v.TokenThresh, uint64(1)<<uint(v.DampW)-1)
	case *bank == 0:
		if !cong {
			*damp = 0
		} else if mc < v.TokenThresh {
			*damp -= min(*damp, uint64(1)<<uint(v.DampFrac))
		}
	}
}

// Increase is Algorithm 2 in the blocks' fixed point: tokens = min(AI_Cap,
// bank), taken from the bank when adjust; mult = max(div(tokens x DC x
// 2^(DampFrac+MultFrac), damp + DC x 2^DampFrac), 2^MultFrac) with the
// reciprocal divider of k index bits; the AI (mult x ai) >> MultFrac.
func (v *VAIFx) Increase(bank *uint64, damp uint64, adjust bool, ai uint64, k int) uint64 {
	tokens := min(v.AICap, *bank)
	if adjust {
		*bank -= tokens
	}
	one := uint64(1) << uint(v.MultFrac)
	dc := v.DampConst << uint(v.DampFrac)
	mult := max(fixed.Div(tokens*dc<<uint(v.MultFrac), damp+dc, k), one)
	return (mult * ai) >> uint(v.MultFrac)
}

// Validate reports VAI constants the blocks cannot build for a measured
// congestion of mcW bits.
func (v *VAIFx) Validate(mcW int) error {
	switch {
	case v.TokenThresh == 0 || v.TokenThresh >= uint64(1)<<uint(mcW) || v.AIDiv == 0 || v.AIDiv >= uint64(1)<<uint(mcW):
		return fmt.Errorf("VAI token threshold %d, AI_DIV %d: want 1 .. 2^%d - 1 (the measured congestion's width)", v.TokenThresh, v.AIDiv, mcW)
	case v.AICap == 0 || v.AICap > 1<<12 || v.BankCap == 0 || v.BankCap > 1<<20 || v.DampConst == 0 || v.DampConst > 1<<8:
		return fmt.Errorf("VAI AI_Cap %d, Bank_Cap %d, Dampener_Constant %d: want 1..4096, 1..2^20, 1..256", v.AICap, v.BankCap, v.DampConst)
	case v.DampFrac < 0 || v.DampFrac > 8 || v.DampW <= v.DampFrac || v.DampW > 20 || v.MultFrac < 0 || v.MultFrac > 8:
		return fmt.Errorf("VAI dampener of %d bits with %d fraction bits, multiplier with %d: want fraction 0..8 below a width of at most 20, and 0..8", v.DampW, v.DampFrac, v.MultFrac)
	}
	return nil
}

// Reset does nothing: swift has no state outside its table.
func (m *SwiftFxModel) Reset() {}

// ConnKey is the event's connection as the RTL's hazard unit compares it.
func (m *SwiftFxModel) ConnKey(e *SwiftFxEvent) uint64 { return maskW(uint64(e.Conn), m.p.ConnW) }

// State is connection conn's word (tests).
func (m *SwiftFxModel) State(conn int) SwiftFxState { return m.table[conn] }

// SwiftFxPipeline is swift in the cycle contract of the pipelined shell.
type SwiftFxPipeline = pipe.Pipeline[SwiftFxEvent, SwiftFxResult]

// NewSwiftFxPipeline wraps m in the shell of a datapath of depth stages.
func NewSwiftFxPipeline(m *SwiftFxModel, depth int) *SwiftFxPipeline {
	return pipe.New[SwiftFxEvent, SwiftFxResult](m, depth)
}

// MergeMembersW is the width of swift's and hpcc's m_result_members: a
// group closes at 2^MergeMembersW - 1 ACKs.
const MergeMembersW = 8

// members is a merged result's m_result_members: the events it stands
// for, 0 on an error.
func members(n int, isErr bool) uint8 {
	if isErr {
		return 0
	}
	return uint8(n)
}

// SwiftAckMerger is swift's merge rule (docs/blocks/swift.md, "Merged
// ACKs"), the contract of Falcon's rate-update engine, as the merging
// shell applies it (golden/pipe):
//   - only an ACK folds, and only into its connection's pending ACK; an
//     open is a barrier;
//   - the merged ACK's acked count is the members' sum, while it fits the
//     acked port;
//   - its delay, hops and time are the last member's.
type SwiftAckMerger struct{ p SwiftFxParams }

// Fold merges the ACK e into the pending ACK q when the rule allows it.
func (a SwiftAckMerger) Fold(q *SwiftFxEvent, _ int, e *SwiftFxEvent) bool {
	p := a.p
	if SwiftKind(maskW(uint64(q.Kind), p.KindW)) != SwiftAck || SwiftKind(maskW(uint64(e.Kind), p.KindW)) != SwiftAck {
		return false
	}
	if maskW(uint64(e.Conn), p.ConnW) >= uint64(p.NumConn) {
		return false
	}
	sum := maskW(q.Acked, p.AckW) + maskW(e.Acked, p.AckW)
	if sum > maskW(^uint64(0), p.AckW) {
		return false
	}
	q.Acked, q.Delay, q.Hops, q.Now = sum, e.Delay, e.Hops, e.Now
	return true
}

// Members writes the ACKs a result stands for (0 on an error).
func (SwiftAckMerger) Members(r *SwiftFxResult, n int) { r.Members = members(n, r.Error) }

// NewSwiftFxMergingPipeline is swift in the merging shell with slots
// waiting slots and its ACK merge rule.
func NewSwiftFxMergingPipeline(m *SwiftFxModel, depth, slots int) *SwiftFxPipeline {
	return pipe.NewMerging[SwiftFxEvent, SwiftFxResult](m, depth, slots, 1<<MergeMembersW-1, SwiftAckMerger{m.p})
}
