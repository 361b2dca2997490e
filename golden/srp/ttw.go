package srp

import (
	"fmt"

	"github.com/nicgen/nicgen/golden/pipe"
)

// This file is srp_ttw, a router input buffer's TTW check (S2:L70,
// L247-251; ALGORITHMS.md section 6.4): a speculative packet is dropped
// when "its total accumulated queuing time inside the network is greater
// than its TTW", tracked "by timestamping packets upon arrival at a
// router's input port and then performing checks on this timestamp when
// the packet is at the head of the input buffer"; "packet drop can be
// handled ... when a packet arrives from the channel or when it reaches
// the head of an input queue", and the dropped packet's head flit becomes
// a NACK to its source.
//
// The state is the buffer's slots: a packet arriving into slot s is
// stamped with the time and its header; at the head of the buffer, slot
// s is checked and released. Non-speculative packets pass unchanged and
// are never dropped.
//
// How the time is carried across hops is A-20; TTWMode chooses:
//   - TTWAccumulated (the default, ALGORITHMS.md's recommendation): the
//     header carries the queueing time accumulated at earlier hops; each
//     router adds its own wait (head time - arrival time), saturating at
//     the field's width, forwards the sum, and drops the packet when the
//     sum exceeds the TTW. At arrival, a header already past the TTW is
//     dropped at once.
//   - TTWPerHop: each router checks its own wait only (the second
//     sentence of S2:L70 read alone); the header is forwarded unchanged.
//   - TTWDeadline: the source writes send time + TTW into the header
//     (synchronised clocks); a router drops the packet when now is after
//     it (serial-number comparison on the TimeW-bit clock), at arrival or
//     at the head, and forwards the header unchanged. The header is then
//     TimeW bits.
type TTWMode uint8

// The A-20 choices of srp_ttw.
const (
	TTWAccumulated TTWMode = iota
	TTWPerHop
	TTWDeadline
)

func (m TTWMode) String() string {
	switch m {
	case TTWAccumulated:
		return "accumulated"
	case TTWPerHop:
		return "per_hop"
	case TTWDeadline:
		return "deadline"
	}
	return fmt.Sprintf("mode%d", uint8(m))
}

// TTWKind is the kind of an srp_ttw event.
type TTWKind uint8

// The kinds of srp_ttw events, in the order of the block's s_event_kind.
const (
	TTWOpen   TTWKind = iota // clear a slot (after reset, or a flushed buffer)
	TTWArrive                // a packet arrives into the slot
	TTWHead                  // the slot's packet is at the head: check and release
	TTWNumKinds
)

func (k TTWKind) String() string {
	switch k {
	case TTWOpen:
		return "open"
	case TTWArrive:
		return "arrive"
	case TTWHead:
		return "head"
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// TTWParams configures srp_ttw; times in ticks.
type TTWParams struct {
	Mode    TTWMode
	TTW     uint64 // S2 Table 1: 1.3 us
	TimeW   int    // bits of now
	HdrW    int    // bits of the header field (TimeW in deadline mode)
	NumConn int    // slots of the input buffer
	ConnW   int
	KindW   int
}

// ValidateTTW reports parameters the model cannot run.
func ValidateTTW(p TTWParams) error {
	switch {
	case p.Mode > TTWDeadline:
		return fmt.Errorf("srp_ttw: mode %d: want accumulated, per_hop or deadline", p.Mode)
	case p.TimeW < 2 || p.TimeW > 63 || p.HdrW < 1 || p.HdrW > 63:
		return fmt.Errorf("srp_ttw: %d-bit time, %d-bit header: want 2..63 and 1..63 bits", p.TimeW, p.HdrW)
	case p.Mode == TTWDeadline && p.HdrW != p.TimeW:
		return fmt.Errorf("srp_ttw: a deadline header is a time: %d bits, want the time's %d", p.HdrW, p.TimeW)
	case p.TTW == 0:
		return fmt.Errorf("srp_ttw: a TTW of 0 drops every speculative packet that waits at all")
	case p.TTW >= uint64(1)<<uint(min(p.HdrW, p.TimeW-1)):
		return fmt.Errorf("srp_ttw: TTW %d does not fit below 2^%d (the header's width, and half the clock)", p.TTW, min(p.HdrW, p.TimeW-1))
	case p.NumConn < 1 || p.ConnW < 1 || p.ConnW > 32 || p.KindW < 2 || p.KindW > 8:
		return fmt.Errorf("srp_ttw: %d slots, %d-bit ids, %d-bit kinds", p.NumConn, p.ConnW, p.KindW)
	}
	return nil
}

// TTWEvent is one event of a slot.
type TTWEvent struct {
	Conn uint32
	Kind TTWKind
	Now  uint64
	Hdr  uint64 // arrive: the packet's header field
	Spec bool   // arrive: the packet is speculative
}

// TTWResult answers an event. For an arrival: Drop when the packet is
// dropped at once (it is not stored). For a head: the packet's class
// (Spec), Drop (the head flit becomes a NACK to the source) and the header
// to forward (Hdr; 0 when dropped); Empty when the slot held no packet.
type TTWResult struct {
	Conn  uint32
	Kind  TTWKind
	Drop  bool
	Spec  bool
	Hdr   uint64
	Empty bool
	Error bool
}

type ttwSlot struct {
	valid, spec bool
	stamp, hdr  uint64
}

// TTWModel is srp_ttw over the slots of one input buffer. The table
// starts all-zero (every slot empty).
type TTWModel struct {
	p     TTWParams
	table []ttwSlot
}

// NewTTWModel checks the parameters and makes the table.
func NewTTWModel(p TTWParams) (*TTWModel, error) {
	if err := ValidateTTW(p); err != nil {
		return nil, err
	}
	return &TTWModel{p: p, table: make([]ttwSlot, p.NumConn)}, nil
}

// expired says whether a speculative packet with header hdr, waiting
// since stamp, is past its TTW at time now, and gives the header to
// forward.
func (m *TTWModel) expired(hdr, stamp, now uint64) (bool, uint64) {
	tmask := uint64(1)<<uint(m.p.TimeW) - 1
	hmask := uint64(1)<<uint(m.p.HdrW) - 1
	wait := (now - stamp) & tmask
	switch m.p.Mode {
	case TTWPerHop:
		return wait > m.p.TTW, hdr
	case TTWDeadline:
		d := (now - hdr) & tmask // now after the deadline: d in (0, 2^(TimeW-1))
		return d != 0 && d < uint64(1)<<uint(m.p.TimeW-1), hdr
	}
	acc := min(hdr+wait, hmask) // saturating
	return acc > m.p.TTW, acc
}

// StepTo runs one event (pipe.Stepper).
func (m *TTWModel) StepTo(e *TTWEvent, r *TTWResult) {
	conn := e.Conn & uint32(1<<uint(m.p.ConnW)-1)
	kind := e.Kind & TTWKind(1<<uint(m.p.KindW)-1)
	*r = TTWResult{Conn: conn, Kind: kind}
	if int64(conn) >= int64(m.p.NumConn) || kind >= TTWNumKinds {
		r.Error = true
		return
	}
	tmask := uint64(1)<<uint(m.p.TimeW) - 1
	now := e.Now & tmask
	s := &m.table[conn]
	switch kind {
	case TTWOpen:
		*s = ttwSlot{}
	case TTWArrive:
		hdr := e.Hdr & (uint64(1)<<uint(m.p.HdrW) - 1)
		// a header already past the TTW is dropped at arrival (no wait here)
		if exp, _ := m.expired(hdr, now, now); e.Spec && exp {
			r.Drop, r.Spec = true, true
			*s = ttwSlot{}
			return
		}
		*s = ttwSlot{valid: true, spec: e.Spec, stamp: now, hdr: hdr}
	case TTWHead:
		if !s.valid {
			r.Empty = true
			return
		}
		r.Spec, r.Hdr = s.spec, s.hdr
		if s.spec {
			exp, hdr := m.expired(s.hdr, s.stamp, now)
			r.Drop, r.Hdr = exp, hdr
			if exp {
				r.Hdr = 0
			}
		}
		*s = ttwSlot{}
	}
}

// Reset does nothing: the slots are in the table.
func (m *TTWModel) Reset() {}

// ConnKey is the event's slot as the RTL's hazard unit compares it.
func (m *TTWModel) ConnKey(e *TTWEvent) uint64 { return uint64(e.Conn & uint32(1<<uint(m.p.ConnW)-1)) }

// TTWPipeline is srp_ttw in the cycle contract of the pipelined shell.
type TTWPipeline = pipe.Pipeline[TTWEvent, TTWResult]

// NewTTWPipeline wraps m in the shell of a datapath of depth stages.
func NewTTWPipeline(m *TTWModel, depth int) *TTWPipeline {
	return pipe.New[TTWEvent, TTWResult](m, depth)
}
