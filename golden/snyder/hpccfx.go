package snyder

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/nicgen/nicgen/golden/fixed"
	"github.com/nicgen/nicgen/golden/pipe"
)

// This file is the bit-exact golden model of the hpcc block: HPCC's
// per-ACK window update from in-band telemetry against eta (S3 Section
// 3.2.1, Table 3.1), with the thesis's random feedback (S3:L659-669),
// Variable Additive Increase and Sampling Frequency as options, in the
// fixed point the hardware computes, one word per connection. Written from
// the thesis and from the float64 reference HPCC of this package, never
// from the DSL block.
//
// The arithmetic contract (docs/blocks/hpcc.md), one bottleneck hop:
//
//   - U, the normalised inflight, is unsigned in 2^-UFrac, saturating at
//     UW bits. An ACK whose telemetry timestamp is newer than the last one
//     (serial, within half the time's circle) measures u = (min(q,
//     q_prev) x K1) >> S1 + div(dtx x KB, tau), K1 = round(2^(UFrac+S1) /
//     (B T)) and KB = round(2^UFrac / B), with q the queue (bytes), dtx the
//     bytes sent since the last ACK's stamp and tau the time between the
//     stamps (ns), B the link's bytes per ns and T the base RTT; then U =
//     (U (2^G - a) + u a + 2^(G-1)) >> G (rounded to the nearest) with
//     a = floor(min(tau, T) 2^G / T).
//   - Congestion is U >= eta (C = U / eta >= 1, A-26).
//   - An RTT ends at the first ACK of a packet sent after the last end
//     (seq past the stored snd_nxt, serial): the reference window follows
//     the window then (once per RTT), and with SF every SF congested ACKs,
//     in place of the RTT's while congested (A-38, S3:L1020) or, with
//     SFKeepsRTT, besides it (S3:L1022-1024); where both fall on one ACK
//     the RTT's move is the one made.
//   - The window: W = div(Wc x eta, U) + ai when congested or after
//     MaxStage additive steps (a reference move resets the count), else W
//     = Wc + ai (and the count rises when the reference moves). With SF,
//     the period's end moves the reference to div(Wc x eta, U) first.
//     W is clamped to [MinCwnd, MaxCwnd], and a reference that follows W
//     takes the clamped value.
//   - Random feedback: a congested ACK that would move the reference is
//     ignored (no decrease, no move) when W < (r x MaxCwnd) >> RandW, r the
//     RandW low bits of the block's 32-bit LFSR after RandW steps, one
//     draw per accepted ack.
//   - VAI: Algorithm 1 at the end of each RTT on the RTT's largest queue,
//     "no congestion" meaning no congested ACK in it; Algorithm 2 then
//     (tokens spent when the window rose over the RTT) and at the end of
//     an SF period (spent), once per ACK. The new AI applies from the
//     next ACK.

// HPCCKind is the kind of an hpcc event.
type HPCCKind uint8

// The kinds, in the order of the block's s_event_kind.
const (
	HPCCOpen HPCCKind = iota // a connection starts at the initial window
	HPCCAck                  // an ACK with the bottleneck's telemetry
	HPCCNumKinds
)

// HPCCFxParams configure the hpcc block and its model.
type HPCCFxParams struct {
	NumConn, ConnW, KindW int
	TimeW, SeqW, QW, TxW  int // telemetry stamp (ns), sequence numbers, queue and sent bytes
	FracW, IntW           int // the window: 2^-FracW packets, IntW integer bits
	InitCwnd              uint64
	MinCwnd, MaxCwnd      uint64
	LinkBpns              float64 // B
	BaseRTTNs             uint64  // T
	UFrac, UW             int
	G                     int    // fraction bits of the EWMA's weight
	S1                    int    // extra bits of the queue term's constant
	Eta                   uint64 // 2^-UFrac
	MaxStage              uint64
	AI                    uint64 // 2^-FracW packets per RTT
	K                     int
	SF                    uint64
	// SFKeepsRTT keeps the per-RTT reference move on congested ACKs with
	// SF (A-38's second reading); false, SF's period replaces it while
	// congested.
	SFKeepsRTT     bool
	RandomFeedback bool
	RandW          int
	Seed           uint32
	VAI            *VAIFx
}

// DefaultHPCCFx is Table 3.1's HPCC (eta 0.95, increment stage 5, AI 50
// Mb/s over the base RTT) for a 100 Gb/s link, a 4160 ns base RTT and
// 1000 B packets (the thesis's microbenchmark, which
// golden/netsim/convergence simulates) on 4096 connections.
func DefaultHPCCFx() HPCCFxParams {
	const fw, uf = 16, 16
	t := uint64(4160)
	return HPCCFxParams{NumConn: 4096, ConnW: 16, KindW: 2, TimeW: 32, SeqW: 32, QW: 24, TxW: 32,
		FracW: fw, IntW: 10, InitCwnd: 52 << fw, MinCwnd: FixedOfFloat(0.01, fw), MaxCwnd: 1000 << fw,
		LinkBpns: 12.5, BaseRTTNs: t, UFrac: uf, UW: uf + 4, G: 12, S1: 16,
		Eta: FixedOfFloat(0.95, uf), MaxStage: 5, AI: FixedOfFloat(50e6*float64(t)/8e12, fw), K: 10,
		RandW: 12, Seed: 0xACE12D3B}
}

// DefaultHPCCVAIFx is Table 4.1's HPCC column: Token_Thresh 50 KB, AI_DIV
// 1 KB, AI_Cap 100, Bank_Cap 1000, Dampener_Constant 8.
func DefaultHPCCVAIFx() *VAIFx {
	return &VAIFx{TokenThresh: 50_000, AIDiv: 1_000, AICap: 100, BankCap: 1000, DampConst: 8, DampFrac: 4, DampW: 12, MultFrac: 4}
}

// CwndW is the window's width.
func (p HPCCFxParams) CwndW() int { return p.FracW + p.IntW }

// AIMax is the largest AI (AI_Cap x AI with VAI).
func (p HPCCFxParams) AIMax() uint64 {
	if p.VAI != nil {
		return p.VAI.AICap * p.AI
	}
	return p.AI
}

// AIW is the AI's width: twice AIMax (the reciprocal may overshoot).
func (p HPCCFxParams) AIW() int { return bits.Len64(2 * p.AIMax()) }

// K1 and KB are the constants of u's two terms; SatU is U's largest value.
func (p HPCCFxParams) K1() uint64 {
	return uint64(math.Round(math.Ldexp(1, p.UFrac+p.S1) / (p.LinkBpns * float64(p.BaseRTTNs))))
}
func (p HPCCFxParams) KB() uint64   { return uint64(math.Round(math.Ldexp(1, p.UFrac) / p.LinkBpns)) }
func (p HPCCFxParams) SatU() uint64 { return uint64(1)<<uint(p.UW) - 1 }

// ValidateHPCCFx reports parameters the model cannot run.
func ValidateHPCCFx(p HPCCFxParams) error {
	cw := p.CwndW()
	switch {
	case p.NumConn < 1 || p.ConnW < 1 || p.ConnW > 32 || p.KindW < 1 || p.KindW > 8:
		return fmt.Errorf("hpcc: %d connections, %d-bit ids, %d-bit kinds: want at least 1, 1..32 and 1..8", p.NumConn, p.ConnW, p.KindW)
	case p.TimeW < 8 || p.TimeW > 48 || p.SeqW < 4 || p.SeqW > 48 || p.QW < 4 || p.QW > 32 || p.TxW < 8 || p.TxW > 48:
		return fmt.Errorf("hpcc: %d-bit stamps, %d-bit sequence numbers, %d-bit queues, %d-bit byte counts: want 8..48, 4..48, 4..32, 8..48", p.TimeW, p.SeqW, p.QW, p.TxW)
	case p.FracW < 2 || p.FracW > 20 || p.IntW < 1 || p.IntW > 20:
		return fmt.Errorf("hpcc: window of %d fraction and %d integer bits: want 2..20 and 1..20", p.FracW, p.IntW)
	case p.MinCwnd == 0 || p.MinCwnd > p.MaxCwnd || p.MaxCwnd >= uint64(1)<<uint(cw) || p.InitCwnd < p.MinCwnd || p.InitCwnd > p.MaxCwnd:
		return fmt.Errorf("hpcc: windows min %d, max %d, initial %d (2^-%d packets): want 0 < min <= initial <= max < 2^%d", p.MinCwnd, p.MaxCwnd, p.InitCwnd, p.FracW, cw)
	case !(p.LinkBpns >= 0.01 && p.LinkBpns <= 1e4) || p.BaseRTTNs == 0 || p.BaseRTTNs >= uint64(1)<<uint(p.TimeW-1):
		return fmt.Errorf("hpcc: link %g bytes per ns, base RTT %d ns: want 0.01..10000 and 1 .. half the stamp's circle", p.LinkBpns, p.BaseRTTNs)
	case p.UFrac < 4 || p.UFrac > 20 || p.UW <= p.UFrac || p.UW > p.UFrac+8 || p.G < 4 || p.G > 20 || p.S1 < 0 || p.S1 > 24:
		return fmt.Errorf("hpcc: U of %d bits with %d fraction bits, EWMA weight of %d, queue constant of %d extra bits: want 4..20 fraction bits and up to 8 integer bits, 4..20, 0..24", p.UW, p.UFrac, p.G, p.S1)
	case p.Eta == 0 || p.Eta > p.SatU() || p.MaxStage == 0 || p.MaxStage > 255:
		return fmt.Errorf("hpcc: eta %d (2^-%d), increment stage %d: want 0 < eta within U and 1..255 stages", p.Eta, p.UFrac, p.MaxStage)
	case p.K < 2 || p.K > 14 || p.AI == 0 || p.AIMax() >= uint64(1)<<32:
		return fmt.Errorf("hpcc: reciprocal of %d index bits, AI %d: want 2..14 and 1 .. 2^32 - 1", p.K, p.AI)
	case p.SF >= 1<<12 || p.RandW < 1 || p.RandW > 32 || p.RandomFeedback && p.Seed == 0:
		return fmt.Errorf("hpcc: sampling frequency %d, random draw of %d bits, seed %d: want 0..4095, 1..32, a nonzero seed", p.SF, p.RandW, p.Seed)
	case p.K1() == 0 || p.K1() >= uint64(1)<<40 || p.KB() == 0 || p.KB() >= uint64(1)<<32:
		return fmt.Errorf("hpcc: the telemetry's constants %d and %d do not fit: change S1 or UFrac", p.K1(), p.KB())
	}
	if p.VAI != nil {
		if err := p.VAI.Validate(p.QW); err != nil {
			return fmt.Errorf("hpcc: %w", err)
		}
	}
	return nil
}

// HPCCFxState is one connection's word.
type HPCCFxState struct {
	W, Wc    uint64
	U        uint64
	Stage    uint64 // additive steps since the reference last moved (up to MaxStage)
	LastSeq  uint64 // snd_nxt at the last RTT's end
	PrevTx   uint64
	PrevTs   uint64
	PrevQ    uint64
	HavePrev bool
	SFAcks   uint64
	// VAI
	AI, Bank, Damp, MC uint64
	Cong               bool
	RTTW               uint64
}

// HPCCFxEvent is one event.
type HPCCFxEvent struct {
	Conn   uint32
	Kind   HPCCKind
	Seq    uint64 // ack: the acknowledged packet's sequence number
	SndNxt uint64 // ack: the sender's next sequence number
	QLen   uint64 // ack: the bottleneck's queue when the packet left, bytes
	TxB    uint64 // ack: the bottleneck's bytes sent so far (wrapping)
	Ts     uint64 // ack: the telemetry's timestamp, ns (wrapping)
}

// HPCCFxResult answers an event.
type HPCCFxResult struct {
	Conn      uint32
	Kind      HPCCKind
	Cwnd      uint64
	U         uint64 // ack: the normalised inflight after the ACK
	Congested bool   // ack: U >= eta
	Moved     bool   // ack: the reference window moved
	Error     bool
	Members   uint8 // merging shell: the ACKs the result stands for (0 on error)
}

// HPCCFxModel is hpcc over its table (all-zero at start) and its LFSR.
type HPCCFxModel struct {
	p     HPCCFxParams
	lfsr  fixed.LFSR
	table []HPCCFxState
}

// NewHPCCFxModel checks p and makes the table.
func NewHPCCFxModel(p HPCCFxParams) (*HPCCFxModel, error) {
	if err := ValidateHPCCFx(p); err != nil {
		return nil, err
	}
	return &HPCCFxModel{p: p, lfsr: fixed.LFSR(p.Seed), table: make([]HPCCFxState, p.NumConn)}, nil
}

// serialAfter reports a - b in (0, 2^(w-1)) modulo 2^w.
func serialAfter(a, b uint64, w int) bool {
	d := maskW(a-b, w)
	return d != 0 && d < uint64(1)<<uint(w-1)
}

// StepTo runs one event (pipe.Stepper).
func (m *HPCCFxModel) StepTo(e *HPCCFxEvent, r *HPCCFxResult) {
	p := m.p
	conn := uint32(maskW(uint64(e.Conn), p.ConnW))
	kind := HPCCKind(maskW(uint64(e.Kind), p.KindW))
	*r = HPCCFxResult{Conn: conn, Kind: kind}
	if int64(conn) >= int64(p.NumConn) || kind >= HPCCNumKinds {
		r.Error = true
		return
	}
	s := &m.table[conn]
	if kind == HPCCOpen {
		*s = HPCCFxState{W: p.InitCwnd, Wc: p.InitCwnd, AI: p.AI, RTTW: p.InitCwnd, LastSeq: maskW(e.SndNxt, p.SeqW)}
		r.Cwnd = s.W
		return
	}
	var rnd uint64
	if p.RandomFeedback {
		rnd = uint64(m.lfsr.Draw(p.RandW))
	}
	seq, sndNxt := maskW(e.Seq, p.SeqW), maskW(e.SndNxt, p.SeqW)
	q, tx, ts := maskW(e.QLen, p.QW), maskW(e.TxB, p.TxW), maskW(e.Ts, p.TimeW)

	// MeasureInflight
	if s.HavePrev && serialAfter(ts, s.PrevTs, p.TimeW) {
		tau := maskW(ts-s.PrevTs, p.TimeW)
		dtx := maskW(tx-s.PrevTx, p.TxW)
		u := (min(q, s.PrevQ)*p.K1())>>uint(p.S1) + fixed.Div(dtx*p.KB(), tau, p.K)
		u = min(u, p.SatU())
		a := (min(tau, p.BaseRTTNs) << uint(p.G)) / p.BaseRTTNs
		// rounded to the nearest, halves up: a truncated step loses half
		// a unit on average, which the EWMA accumulates into a bias of
		// about -2^G/(2a) units (-4 units, -6e-5, at ACKs 50 ns to 1 us
		// apart; TestHPCCFxEWMAUnbiased)
		s.U = (s.U*(uint64(1)<<uint(p.G)-a) + u*a + uint64(1)<<uint(p.G-1)) >> uint(p.G)
	}
	s.PrevTx, s.PrevTs, s.PrevQ, s.HavePrev = tx, ts, q, true
	cong := s.U >= p.Eta
	r.U, r.Congested = s.U, cong

	rttEnd := serialAfter(seq, s.LastSeq, p.SeqW)
	w := s.W
	ai := s.AI
	if p.VAI == nil {
		ai = p.AI
	} else {
		mc, cg := max(s.MC, q), s.Cong || cong
		if rttEnd {
			p.VAI.EndRTT(&s.Bank, &s.Damp, mc, cg)
			s.AI = p.VAI.Increase(&s.Bank, s.Damp, w >= s.RTTW, p.AI, p.K)
			s.MC, s.Cong, s.RTTW = 0, false, w
		} else {
			s.MC, s.Cong = mc, cg
		}
	}

	mimd := cong || s.Stage >= p.MaxStage
	perRTT := rttEnd
	sfEnd := false
	if p.SF > 0 && cong {
		perRTT = perRTT && p.SFKeepsRTT
		if s.SFAcks++; s.SFAcks >= p.SF {
			sfEnd, s.SFAcks = true, 0
			if p.VAI != nil && !rttEnd {
				s.AI = p.VAI.Increase(&s.Bank, s.Damp, true, p.AI, p.K)
			}
		}
	}
	update := perRTT || sfEnd
	if update && cong && p.RandomFeedback && w < (rnd*p.MaxCwnd)>>uint(p.RandW) {
		update, sfEnd, mimd = false, false, false // this feedback is ignored
	}
	// where the RTT and the SF period both end on this ACK (SFKeepsRTT),
	// the RTT's move is made: Wc follows W, its AI included
	sfEnd = sfEnd && !perRTT
	q2 := fixed.Div(s.Wc*p.Eta, s.U, p.K) // Wc / (U / eta)
	var next uint64
	switch {
	case sfEnd:
		next = min(q2, p.MaxCwnd) + ai
	case mimd:
		next = q2 + ai
	default:
		next = s.Wc + ai
	}
	s.W = min(max(next, p.MinCwnd), p.MaxCwnd)
	switch {
	case sfEnd:
		s.Wc = min(max(q2, p.MinCwnd), p.MaxCwnd)
	case update && mimd:
		s.Stage, s.Wc = 0, s.W
	case update:
		s.Stage, s.Wc = min(s.Stage+1, p.MaxStage), s.W
	}
	r.Moved = update
	if rttEnd {
		s.LastSeq = sndNxt
	}
	r.Cwnd = s.W
}

// Reset restarts the LFSR from its seed (the block's rst).
func (m *HPCCFxModel) Reset() { m.lfsr = fixed.LFSR(m.p.Seed) }

// ConnKey is the event's connection as the RTL's hazard unit compares it.
func (m *HPCCFxModel) ConnKey(e *HPCCFxEvent) uint64 { return maskW(uint64(e.Conn), m.p.ConnW) }

// State is connection conn's word (tests).
func (m *HPCCFxModel) State(conn int) HPCCFxState { return m.table[conn] }

// HPCCFxPipeline is hpcc in the cycle contract of the pipelined shell.
type HPCCFxPipeline = pipe.Pipeline[HPCCFxEvent, HPCCFxResult]

// NewHPCCFxPipeline wraps m in the shell of a datapath of depth stages.
func NewHPCCFxPipeline(m *HPCCFxModel, depth int) *HPCCFxPipeline {
	return pipe.New[HPCCFxEvent, HPCCFxResult](m, depth)
}

// HPCCAckMerger is hpcc's merge rule (docs/blocks/hpcc.md, "Merged
// ACKs"), as the merging shell applies it (golden/pipe): only an ACK
// folds, and only into its connection's pending ACK (an open is a
// barrier); the merged ACK is its last member, the latest in-band
// telemetry sample (sequence number, snd_nxt, queue, bytes sent and
// timestamp), so the per-RTT reference moves by the rule of that sample
// alone.
type HPCCAckMerger struct{ p HPCCFxParams }

// Fold merges the ACK e into the pending ACK q when the rule allows it.
func (a HPCCAckMerger) Fold(q *HPCCFxEvent, _ int, e *HPCCFxEvent) bool {
	p := a.p
	if HPCCKind(maskW(uint64(q.Kind), p.KindW)) != HPCCAck || HPCCKind(maskW(uint64(e.Kind), p.KindW)) != HPCCAck {
		return false
	}
	if maskW(uint64(e.Conn), p.ConnW) >= uint64(p.NumConn) {
		return false
	}
	*q = *e
	return true
}

// Members writes the ACKs a result stands for (0 on an error).
func (HPCCAckMerger) Members(r *HPCCFxResult, n int) { r.Members = members(n, r.Error) }

// NewHPCCFxMergingPipeline is hpcc in the merging shell with slots
// waiting slots and its ACK merge rule.
func NewHPCCFxMergingPipeline(m *HPCCFxModel, depth, slots int) *HPCCFxPipeline {
	return pipe.NewMerging[HPCCFxEvent, HPCCFxResult](m, depth, slots, 1<<MergeMembersW-1, HPCCAckMerger{m.p})
}
