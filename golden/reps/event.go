package reps

import (
	"fmt"

	"github.com/nicgen/nicgen/golden/pipe"
)

// Kind is the 3-bit s_event_kind port.
type Kind uint8

// Event kinds. Kinds 5..7 fit the port but mean nothing: the block answers
// them with an error result and leaves its state alone.
const (
	KindOpen    Kind = 0
	KindSend    Kind = 1
	KindAck     Kind = 2
	KindNack    Kind = 3
	KindTimeout Kind = 4
)

// kindMask is the width of the kind port: the model sees only what the wire
// carries.
const kindMask = 7

func (k Kind) String() string {
	switch k {
	case KindOpen:
		return "open"
	case KindSend:
		return "send"
	case KindAck:
		return "ack"
	case KindNack:
		return "nack"
	case KindTimeout:
		return "timeout"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Event is one beat of the s_event_* stream.
//
// The models read each field through its port width (Conn: ConnW bits,
// Kind: 3, EV: EVW, Now: TimeW) because that is all the RTL can see; a value
// with bits above the width behaves like its truncation.
type Event struct {
	Conn uint32
	Kind Kind
	ECN  bool   // ECN echo of an ack; ignored for other kinds
	EV   uint32 // EV carried by an ack or nack
	Now  uint64 // timestamp, modulo 2^TimeW
}

// Result is one beat of the m_result_* stream. Conn and Kind echo the
// (truncated) event. EV is the EV chosen by a send and 0 otherwise.
type Result struct {
	Conn     uint32
	Kind     Kind
	EV       uint32
	Explored bool // a send's EV was explored rather than recycled
	Frozen   bool // reps only: the connection is frozen after the event
	Error    bool // conn >= NumConn or kind 5..7; nothing changed
}

// CycleIn holds the block's input ports during one clock cycle.
type CycleIn = pipe.In[Event]

// CycleOut holds the block's output ports during one clock cycle.
type CycleOut = pipe.Out[Result]

// mask32 and mask64 give the all-ones value of a field width (1..32, 1..63).
func mask32(w int) uint32 { return uint32(uint64(1)<<w - 1) }
func mask64(w int) uint64 { return uint64(1)<<w - 1 }
