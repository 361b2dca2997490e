// Package onerc is the golden model of 1RC, One-RTT Convergence (seed S3
// chapter 5; ALGORITHMS.md sections 7.6 and 7.7, A-24 and A-27), written
// from the thesis's text and Algorithms 4 and 5, never from a DSL block.
//
// This file is onerc_switch, the window table of one switch port and its
// two users:
//
//   - The first control packet of an epoch fills the epoch's entry with
//     rate_to_window(b), the port's fair rate in packets (Alg. 4 lines
//     15-16), and every control packet of a new flow returns let_through
//     = max(1, min(entry / weight, let_through)) (lines 17-19).
//   - A speculative data packet of a flow that started in an epoch is
//     dropped when its sequence number reaches max(1, entry / weight)
//     (Alg. 5): in order, without per-flow state. Scheduled packets are
//     never dropped (S3:L1235).
//
// Choices where the thesis is silent (A-27, S3:L1420):
//   - The table is a ring of NumConn slots (a power of two) indexed by the
//     epoch's low bits; each slot keeps the rest of the epoch as a tag.
//     The host computes the epoch, SSTS div epoch_length (S3:L1237), and
//     the port splits it into slot (the connection id of the shell) and
//     tag. A control packet of an epoch newer than the slot's (serial
//     comparison of TagW-bit tags) replaces it: that is the garbage
//     collection. One of an older epoch leaves the slot alone and uses its
//     own window as the entry.
//   - A speculative packet whose epoch has no entry (never filled, or
//     replaced) is dropped, or with MissPass let through.
//   - The weight is the connection count c of the source host,
//     WeightW bits; 0 is an error. Division is integer, rounded down, and
//     the threshold at least 1.
package onerc

import (
	"fmt"
	"math/bits"

	"github.com/nicgen/nicgen/golden/pipe"
)

// SwitchKind is the kind of an onerc_switch event.
type SwitchKind uint8

// The kinds, in the order of the block's s_event_kind.
const (
	SwOpen SwitchKind = iota // clear the slot
	SwCtrl                   // a control packet of a new flow
	SwData                   // a data packet (speculative or scheduled)
	SwNumKinds
)

func (k SwitchKind) String() string {
	switch k {
	case SwOpen:
		return "open"
	case SwCtrl:
		return "ctrl"
	case SwData:
		return "data"
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// SwitchParams configure onerc_switch.
type SwitchParams struct {
	NumConn, ConnW, KindW int // slots of the window table (a power of two)
	TagW                  int // bits of the epoch above the slot index
	WinW                  int // bits of a window (packets), of let_through and of the threshold
	WeightW               int // bits of the weight (connection count)
	SeqW                  int // bits of a sequence number
	MissPass              bool
}

// ValidateSwitch reports parameters the model cannot run.
func ValidateSwitch(p SwitchParams) error {
	switch {
	case p.NumConn < 2 || p.NumConn&(p.NumConn-1) != 0 || p.ConnW < bits.Len(uint(p.NumConn-1)) || p.ConnW > 32:
		return fmt.Errorf("onerc_switch: %d slots behind a %d-bit id: want a power of two, at least 2, that the id holds", p.NumConn, p.ConnW)
	case p.KindW < 2 || p.KindW > 8:
		return fmt.Errorf("onerc_switch: %d-bit kinds: want 2..8", p.KindW)
	case p.TagW < 2 || p.TagW > 48 || p.WinW < 1 || p.WinW > 32 || p.WeightW < 1 || p.WeightW > 16 || p.SeqW < 1 || p.SeqW > 32:
		return fmt.Errorf("onerc_switch: %d-bit tags, %d-bit windows, %d-bit weights, %d-bit sequence numbers: want 2..48, 1..32, 1..16 and 1..32", p.TagW, p.WinW, p.WeightW, p.SeqW)
	}
	return nil
}

// SwitchEvent is one packet at the port, or an open.
type SwitchEvent struct {
	Conn       uint32 // slot: the epoch's low bits
	Kind       SwitchKind
	Tag        uint64 // the epoch's other bits
	Window     uint64 // ctrl: rate_to_window(b), packets
	Weight     uint64 // ctrl, data: the flow's weight (connection count)
	LetThrough uint64 // ctrl: let_through so far
	Seq        uint64 // data: sequence number
	Spec       bool   // data: speculative
}

// SwitchResult answers an event.
type SwitchResult struct {
	Conn       uint32
	Kind       SwitchKind
	Hit        bool   // the slot holds the packet's epoch (after a fill)
	Filled     bool   // ctrl: this packet created the entry
	Thresh     uint64 // ctrl, data with an entry: max(1, entry / weight)
	LetThrough uint64 // ctrl: max(1, min(entry / weight, let_through))
	Drop       bool   // data: the speculative packet is dropped
	Spec       bool   // data: the packet is speculative (echo)
	Error      bool
}

type winSlot struct {
	valid    bool
	tag, win uint64
}

// SwitchModel is onerc_switch over its window table. The table starts
// all-zero (every slot empty).
type SwitchModel struct {
	p     SwitchParams
	table []winSlot
}

// NewSwitchModel checks the parameters and makes the table.
func NewSwitchModel(p SwitchParams) (*SwitchModel, error) {
	if err := ValidateSwitch(p); err != nil {
		return nil, err
	}
	return &SwitchModel{p: p, table: make([]winSlot, p.NumConn)}, nil
}

func mask(v uint64, w int) uint64 { return v & (uint64(1)<<uint(w) - 1) }

// StepTo runs one event (pipe.Stepper).
func (m *SwitchModel) StepTo(e *SwitchEvent, r *SwitchResult) {
	p := m.p
	conn := e.Conn & uint32(1<<uint(p.ConnW)-1)
	kind := e.Kind & SwitchKind(1<<uint(p.KindW)-1)
	*r = SwitchResult{Conn: conn, Kind: kind}
	weight := mask(e.Weight, p.WeightW)
	if int64(conn) >= int64(p.NumConn) || kind >= SwNumKinds || kind != SwOpen && weight == 0 {
		r.Error = true
		return
	}
	s := &m.table[conn]
	if kind == SwOpen {
		*s = winSlot{}
		return
	}
	tag, win := mask(e.Tag, p.TagW), mask(e.Window, p.WinW)
	hit := s.valid && s.tag == tag
	entry := s.win
	if !hit {
		entry = win // ctrl: the packet's own window (the entry it creates, or one of an older epoch)
	}
	q := entry / weight
	thresh := max(1, q)
	switch kind {
	case SwCtrl:
		// a newer epoch than the slot's replaces it (serial comparison)
		if d := mask(tag-s.tag, p.TagW); !hit && (!s.valid || d != 0 && d < uint64(1)<<uint(p.TagW-1)) {
			*s = winSlot{valid: true, tag: tag, win: win}
			hit, r.Filled = true, true
		}
		r.Hit, r.Thresh = hit, thresh
		r.LetThrough = max(1, min(q, mask(e.LetThrough, p.WinW)))
	case SwData:
		r.Hit = hit
		spec := e.Spec
		r.Spec = spec
		if hit {
			r.Thresh = thresh
			r.Drop = spec && mask(e.Seq, p.SeqW) >= thresh
		} else {
			r.Drop = spec && !p.MissPass
		}
	}
}

// Reset does nothing: the slots are in the table.
func (m *SwitchModel) Reset() {}

// ConnKey is the event's slot as the RTL's hazard unit compares it.
func (m *SwitchModel) ConnKey(e *SwitchEvent) uint64 {
	return uint64(e.Conn & uint32(1<<uint(m.p.ConnW)-1))
}

// SwitchPipeline is onerc_switch in the cycle contract of the pipelined shell.
type SwitchPipeline = pipe.Pipeline[SwitchEvent, SwitchResult]

// NewSwitchPipeline wraps m in the shell of a datapath of depth stages.
func NewSwitchPipeline(m *SwitchModel, depth int) *SwitchPipeline {
	return pipe.New[SwitchEvent, SwitchResult](m, depth)
}
