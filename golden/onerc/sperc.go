package onerc

// This file is sperc_link: the link state of s-PERC with 1RC and weights
// (S3 Algorithm 4, S3:L1358-1399, the changes to Algorithm 3,
// S3:L1153-1197; ALGORITHMS.md sections 7.5 to 7.7), processing the
// control packets that cross one link. The window table of the same
// algorithm (lines 15-19) is onerc_switch (switch.go): it takes b, which
// this model computes, as rate_to_window(b).
//
// Per link: SumE, the sum of the limit rates of the flows bottlenecked
// elsewhere (E), each divided by its weight; NumB, the number of flows
// bottlenecked here (B), each counted as 1/weight; MaxE and MaxE', the
// largest rate given to an E flow in the last round and in this one.
// A control packet carries, for each hop j of its path, the bottleneck
// rate b[j] and the ignore bit i[j], and for this hop l the flow's state
// s[l], the rate x[l] it was given here, and the flow's weight in the
// previous and in this RTT (old_weight, new_weight).
//
//	if s[l] = E: s[l] <- B; SumE <- SumE - x[l]/old_weight; NumB <- NumB + 1/new_weight
//	elif old_weight != new_weight: NumB <- NumB - 1/old_weight + 1/new_weight
//	b <- (c - SumE) / NumB
//	e <- min over j != l with i[j] = 0 of b[j] (infinity if none); x <- min(b, e)
//	i[l] <- b < MaxE
//	if leaving: NumB <- NumB - 1/flow_weight
//	elif e < b: s[l] <- E; SumE <- SumE + x/flow_weight; NumB <- NumB - 1/flow_weight;
//	            MaxE <- max(x, MaxE); MaxE' <- max(x, MaxE')
//
// Choices where the thesis is silent (A-24, A-27; docs/blocks/onerc.md):
//   - The weight is the connection count c of the source host: a
//     flow counts 1/c in NumB. flow_weight (lines 27-33) is new_weight,
//     the weight lines 8-13 just counted. A new_weight of 0, or an
//     old_weight of 0 that lines 8-13 use (states E and B), is an error.
//   - NEW_FLOW (a flow's first control packet) joins B like an E flow
//     whose x[l] is 0 (Alg. 3's initial state E, x 0) and skips line 12.
//   - Rounds: the link's clock gives each packet a round number (RoundW
//     bits, wrapping). The first packet of the next round moves MaxE' to
//     MaxE and clears MaxE'; a packet after a round with no packet clears
//     both (no E flow was seen in the last round).
//   - Fixed point: rates are RateW-bit integers of a unit the
//     configuration chooses; all-ones is infinity (b[] starts there).
//     1/w is a table of round(2^InvF / w); NumB and SumE keep InvF
//     fraction bits, so x/w is exact against the table and a flow that
//     leaves takes away exactly what it added. SumE and NumB saturate at
//     their top and stop at 0 (hostile or lost packets cannot wrap them).
//   - b = (c 2^InvF - SumE) / NumB is the reciprocal divider of
//     golden/smartt (Div, K table bits), 0 when SumE >= c. NumB below 1,
//     which weights make, gives b above c, up to c times the largest
//     weight, which RateW must hold (ValidateSPERC); b saturates at
//     infinity only when NumB is below the least 1/w, which only lost or
//     hostile packets make (NumB 0 divides by 2^-InvF).
//   - Short flows below a BDP are exempt (S3:L1201): their host sends no
//     control packets, so the link never sees them.

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/nicgen/nicgen/golden/fixed"
	"github.com/nicgen/nicgen/golden/pipe"
)

// SPERCKind is the kind of a sperc_link event.
type SPERCKind uint8

// The kinds, in the order of the block's s_event_kind.
const (
	SpOpen SPERCKind = iota // clear the link's state
	SpCtrl                  // a control packet crosses the link
	SpNumKinds
)

func (k SPERCKind) String() string {
	switch k {
	case SpOpen:
		return "open"
	case SpCtrl:
		return "ctrl"
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// FlowState is a flow's state at a link, s[l] in the packet.
type FlowState uint8

// The states (2 bits; 3 is an error).
const (
	StateE   FlowState = iota // bottlenecked elsewhere
	StateB                    // bottlenecked at this link
	StateNew                  // the flow's first control packet (NEW_FLOW)
)

// MaxHops is the most hops a packet's b[] and i[] describe.
const MaxHops = 8

// SPERCParams configure sperc_link.
type SPERCParams struct {
	NumConn, ConnW, KindW int    // links, and the width of their id
	RateW                 int    // bits of a rate; all-ones is infinity
	CapRate               uint64 // c, the link's capacity in rate units
	WeightW               int    // bits of a weight (connection count)
	InvF                  int    // fraction bits of 1/weight, NumB and SumE
	NumBW                 int    // integer bits of NumB
	Hops                  int    // entries of b[] and i[] in a packet
	K                     int    // table bits of b's reciprocal divider
	RoundW                int    // bits of the round number
}

// DefaultSPERCParams: 64 links of 800 Gb/s in units of 1 Mb/s, weights
// up to 255 connections, 16 fraction bits, up to 4,095 B flows of weight 1
// per link, 4 hops, a 4,096-entry reciprocal table, 8-bit rounds. b is a
// rate per unit of weight (the host divides it by its weight, S3:L1350):
// a flow alone with weight 255 has b = 255 c, so rates are 28 bits.
func DefaultSPERCParams() SPERCParams {
	return SPERCParams{NumConn: 64, ConnW: 6, KindW: 1, RateW: 28, CapRate: 800000, WeightW: 8,
		InvF: 16, NumBW: 12, Hops: 4, K: 12, RoundW: 8}
}

// ValidateSPERC reports parameters the model cannot run.
func ValidateSPERC(p SPERCParams) error {
	switch {
	case p.NumConn < 2 || p.ConnW < bits.Len(uint(p.NumConn-1)) || p.ConnW > 32:
		return fmt.Errorf("sperc_link: %d links behind a %d-bit id: want at least 2, that the id holds", p.NumConn, p.ConnW)
	case p.KindW < 1 || p.KindW > 8:
		return fmt.Errorf("sperc_link: %d-bit kinds: want 1..8", p.KindW)
	case p.RateW < 4 || p.RateW > 32 || p.WeightW < 1 || p.WeightW > 12:
		return fmt.Errorf("sperc_link: %d-bit rates, %d-bit weights: want 4..32 and 1..12", p.RateW, p.WeightW)
	case p.CapRate == 0 || p.CapRate > (uint64(1)<<uint(p.RateW)-2)/(uint64(1)<<uint(p.WeightW)-1):
		// the narrowest rate that holds c times the largest weight
		need := p.RateW
		for need < 64 && p.CapRate > (uint64(1)<<uint(need)-2)/(uint64(1)<<uint(p.WeightW)-1) {
			need++
		}
		if most := (uint64(1)<<uint(p.RateW) - 2) / (uint64(1)<<uint(p.WeightW) - 1); most == 0 || p.CapRate == 0 {
			return fmt.Errorf("sperc_link: capacity %d with %d-bit rates and %d-bit weights: the rates cannot hold c times the largest weight (b of a flow alone) below infinity (all-ones) for any capacity; want rate_width %d or more for this capacity",
				p.CapRate, p.RateW, p.WeightW, need)
		}
		return fmt.Errorf("sperc_link: capacity %d with %d-bit rates and %d-bit weights: want capacity 1..%d or rate_width %d or more, so that c times the largest weight (b of a flow alone) is below infinity (all-ones)",
			p.CapRate, p.RateW, p.WeightW, (uint64(1)<<uint(p.RateW)-2)/(uint64(1)<<uint(p.WeightW)-1), need)
	case p.InvF < p.WeightW || p.InvF > 24 || p.NumBW < 1 || p.NumBW > 24:
		return fmt.Errorf("sperc_link: %d fraction bits, %d integer bits of NumB: want %d..24 (1/weight must not round to 0) and 1..24", p.InvF, p.NumBW, p.WeightW)
	case p.Hops < 2 || p.Hops > MaxHops:
		return fmt.Errorf("sperc_link: %d hops: want 2..%d", p.Hops, MaxHops)
	case p.K < 4 || p.K > 14 || p.RoundW < 2 || p.RoundW > 32:
		return fmt.Errorf("sperc_link: %d table bits, %d-bit rounds: want 4..14 and 2..32", p.K, p.RoundW)
	}
	return nil
}

// HopW is the width of a hop index.
func (p SPERCParams) HopW() int { return max(1, bits.Len(uint(p.Hops-1))) }

// SumEW and NumBFullW are the widths of SumE and NumB in the word.
func (p SPERCParams) SumEW() int     { return p.RateW + p.InvF }
func (p SPERCParams) NumBFullW() int { return p.NumBW + p.InvF }

// Inf is the rate that means infinity: all-ones.
func (p SPERCParams) Inf() uint64 { return uint64(1)<<uint(p.RateW) - 1 }

// InvTable is 1/w in 2^-InvF for every weight w (entry 0 unused: an error).
func (p SPERCParams) InvTable() []uint64 {
	t := make([]uint64, 1<<uint(p.WeightW))
	for w := 1; w < len(t); w++ {
		t[w] = (uint64(1)<<uint(p.InvF) + uint64(w)/2) / uint64(w)
	}
	return t
}

// SPERCEvent is one control packet at the link, or an open.
type SPERCEvent struct {
	Conn    uint32 // the link
	Kind    SPERCKind
	Round   uint64    // the link clock's round number
	State   FlowState // s[l]
	XL      uint64    // x[l]: the rate this link gave the flow last time
	OldW    uint64    // old_weight
	NewW    uint64    // new_weight
	Leaving bool      // the flow ends
	Hop     uint32    // l: this link's index in the packet's vectors
	B       [MaxHops]uint64
	Ignore  uint32 // i[]: bit j is i[j]
}

// SPERCResult answers an event: what the link writes into the packet.
type SPERCResult struct {
	Conn   uint32
	Kind   SPERCKind
	B      uint64    // b[l]: the link's bottleneck rate
	X      uint64    // x[l] = min(b, e)
	E      uint64    // e: the least rate of the other hops (infinity if none)
	Ignore bool      // i[l] = b < MaxE
	State  FlowState // s[l] after the packet
	Error  bool
}

// SPERCWord is one link's state.
type SPERCWord struct {
	SumE, NumB  uint64
	MaxE, MaxE2 uint64
	Round       uint64
}

// SPERCModel is sperc_link over its links' state. The state starts all
// zero; open clears a link.
type SPERCModel struct {
	p     SPERCParams
	inv   []uint64
	links []SPERCWord
}

// NewSPERCModel checks the parameters and makes the state.
func NewSPERCModel(p SPERCParams) (*SPERCModel, error) {
	if err := ValidateSPERC(p); err != nil {
		return nil, err
	}
	return &SPERCModel{p: p, inv: p.InvTable(), links: make([]SPERCWord, p.NumConn)}, nil
}

// Word is link conn's state.
func (m *SPERCModel) Word(conn int) SPERCWord { return m.links[conn] }

// StepTo runs one event (pipe.Stepper).
func (m *SPERCModel) StepTo(e *SPERCEvent, r *SPERCResult) {
	p := m.p
	conn := e.Conn & uint32(1<<uint(p.ConnW)-1)
	kind := e.Kind & SPERCKind(1<<uint(p.KindW)-1)
	*r = SPERCResult{Conn: conn, Kind: kind}
	oldW, newW := mask(e.OldW, p.WeightW), mask(e.NewW, p.WeightW)
	state := e.State & 3
	hop := e.Hop & uint32(1<<uint(p.HopW())-1)
	if int64(conn) >= int64(p.NumConn) || kind >= SpNumKinds ||
		kind == SpCtrl && (newW == 0 || oldW == 0 && state != StateNew || state > StateNew || int(hop) >= p.Hops) {
		r.Error = true
		return
	}
	w := &m.links[conn]
	round := mask(e.Round, p.RoundW)
	if kind == SpOpen {
		*w = SPERCWord{Round: round}
		return
	}
	// the round: MaxE' becomes MaxE after one round, both clear after more
	switch mask(round-w.Round, p.RoundW) {
	case 0:
	case 1:
		w.MaxE, w.MaxE2 = w.MaxE2, 0
	default:
		w.MaxE, w.MaxE2 = 0, 0
	}
	w.Round = round
	sumMax, numMax := uint64(1)<<uint(p.SumEW())-1, uint64(1)<<uint(p.NumBFullW())-1
	invNew := m.inv[newW]
	xl := mask(e.XL, p.RateW)
	// lines 8-13
	r.State = state
	switch state {
	case StateE, StateNew:
		if state == StateE {
			w.SumE -= min(w.SumE, xl*m.inv[oldW])
		}
		w.NumB = min(w.NumB+invNew, numMax)
		r.State = StateB
	case StateB:
		if oldW != newW {
			// one clamp after both terms
			w.NumB = uint64(min(max(int64(w.NumB)+int64(invNew)-int64(m.inv[oldW]), 0), int64(numMax)))
		}
	}
	// line 14: b = (c - SumE) / NumB
	capF := p.CapRate << uint(p.InvF)
	var b uint64
	if w.SumE < capF {
		b = min(fixed.Div(capF-w.SumE, w.NumB, p.K), p.Inf())
	}
	// lines 20-24
	ev := p.Inf()
	for j := 0; j < p.Hops; j++ {
		if uint32(j) != hop && e.Ignore>>uint(j)&1 == 0 {
			ev = min(ev, mask(e.B[j], p.RateW))
		}
	}
	x := min(b, ev)
	r.B, r.X, r.E = b, x, ev
	// line 26, against MaxE of the round
	r.Ignore = b < w.MaxE
	// lines 27-33
	switch {
	case e.Leaving:
		w.NumB -= min(w.NumB, invNew)
	case ev < b:
		r.State = StateE
		w.SumE = min(w.SumE+x*invNew, sumMax)
		w.NumB -= min(w.NumB, invNew)
		w.MaxE = max(x, w.MaxE)
		w.MaxE2 = max(x, w.MaxE2)
	}
}

// Reset does nothing: the state is in the table.
func (m *SPERCModel) Reset() {}

// ConnKey is the event's link as the RTL's hazard unit compares it.
func (m *SPERCModel) ConnKey(e *SPERCEvent) uint64 {
	return uint64(e.Conn & uint32(1<<uint(m.p.ConnW)-1))
}

// SPERCPipeline is sperc_link in the cycle contract of the pipelined shell.
type SPERCPipeline = pipe.Pipeline[SPERCEvent, SPERCResult]

// NewSPERCPipeline wraps m in the shell of a datapath of depth stages.
func NewSPERCPipeline(m *SPERCModel, depth int) *SPERCPipeline {
	return pipe.New[SPERCEvent, SPERCResult](m, depth)
}

// SPERCFloat is Algorithm 4 in float64, the reference the fixed-point
// model's error is measured against: exact 1/w, exact division, no
// saturation but SumE and NumB stopping at 0 as the model's do.
type SPERCFloat struct {
	Cap   float64
	links []floatLink
}

type floatLink struct {
	sumE, numB  float64
	maxE, maxE2 float64
	round       uint64
	seen        bool
}

// NewSPERCFloat makes n links of capacity c.
func NewSPERCFloat(n int, c float64) *SPERCFloat {
	return &SPERCFloat{Cap: c, links: make([]floatLink, n)}
}

// FloatPacket is a control packet's view at one link, in float64; Inf is
// math.Inf(1).
type FloatPacket struct {
	Round      uint64
	State      FlowState
	XL         float64
	OldW, NewW float64
	Leaving    bool
	Hop        int
	B          []float64
	Ignore     []bool
}

// Step runs one control packet at link l and returns b, x, e, i[l] and
// the new state.
func (f *SPERCFloat) Step(l int, pk FloatPacket) (b, x, e float64, ign bool, st FlowState) {
	w := &f.links[l]
	if w.seen {
		switch pk.Round - w.round {
		case 0:
		case 1:
			w.maxE, w.maxE2 = w.maxE2, 0
		default:
			w.maxE, w.maxE2 = 0, 0
		}
	}
	w.seen, w.round = true, pk.Round
	st = pk.State
	switch st {
	case StateE, StateNew:
		if st == StateE {
			w.sumE = math.Max(0, w.sumE-pk.XL/pk.OldW)
		}
		w.numB += 1 / pk.NewW
		st = StateB
	case StateB:
		if pk.OldW != pk.NewW {
			w.numB = math.Max(0, w.numB-1/pk.OldW+1/pk.NewW)
		}
	}
	b = 0
	if w.sumE < f.Cap {
		b = (f.Cap - w.sumE) / w.numB
	}
	e = math.Inf(1)
	for j, bj := range pk.B {
		if j != pk.Hop && !pk.Ignore[j] {
			e = math.Min(e, bj)
		}
	}
	x = math.Min(b, e)
	ign = b < w.maxE
	switch {
	case pk.Leaving:
		w.numB = math.Max(0, w.numB-1/pk.NewW)
	case e < b:
		st = StateE
		w.sumE += x / pk.NewW
		w.numB = math.Max(0, w.numB-1/pk.NewW)
		w.maxE = math.Max(x, w.maxE)
		w.maxE2 = math.Max(x, w.maxE2)
	}
	return b, x, e, ign, st
}
