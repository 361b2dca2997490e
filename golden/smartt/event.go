package smartt

import (
	"fmt"

	"github.com/nicgen/nicgen/golden/pipe"
)

// Kind is the 3-bit s_event_kind port.
type Kind uint8

// Event kinds (docs/blocks/smartt.md, Section 1). Kinds 4..7 fit the port
// but mean nothing: the block answers them with an error result and leaves
// its state alone.
const (
	KindOpen    Kind = 0 // a new connection: the word is initialised
	KindAck     Kind = 1 // an ACK with its ECN echo and RTT sample
	KindNack    Kind = 2 // a trimmed packet's header came back
	KindTimeout Kind = 3 // a retransmission timer expired
)

// kindMask is the width of the kind port: the model sees only what the wire
// carries.
const kindMask = 7

func (k Kind) String() string {
	switch k {
	case KindOpen:
		return "open"
	case KindAck:
		return "ack"
	case KindNack:
		return "nack"
	case KindTimeout:
		return "timeout"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Result case codes, the 3-bit m_result_case port: which window rule the
// event applied.
const (
	CaseNone uint8 = 0 // no window rule: open, ignored ack, WTD hold, nscc no-op
	CaseFD   uint8 = 1 // Fair Decrease
	CaseMD   uint8 = 2 // Multiplicative Decrease (smartt: followed by FD)
	CaseFI   uint8 = 3 // Fair Increase
	CaseMI   uint8 = 4 // Multiplicative / Proportional Increase, followed by FI
	CaseQA   uint8 = 5 // QuickAdapt fired
	CaseFast uint8 = 6 // FastIncrease fired
	CaseLoss uint8 = 7 // nack or timeout reduction without QuickAdapt
)

// Event is one beat of the s_event_* stream.
//
// The models read each field through its port width (Conn: ConnW bits,
// Kind: 3, Size: SizeW, ECN: 1, RTT: RttW, Unacked: ByteW, Now: TimeW)
// because that is all the RTL can see; a value with bits above the width
// behaves like its truncation.
type Event struct {
	Conn    uint32 // connection id
	Kind    Kind   // open, ack, nack, timeout
	Size    uint32 // bytes of the acked / trimmed / timed-out packet (data size, A-7)
	ECN     bool   // ECN echo of an ack; ignored for other kinds
	RTT     uint32 // RTT sample of an ack in ns; ignored for other kinds
	Unacked uint32 // bytes in flight at this event (read by QuickAdapt)
	Now     uint64 // timestamp in ns, modulo 2^TimeW
}

// Result is one beat of the m_result_* stream. Conn and Kind echo the
// (truncated) event; on an error every other field is zero.
type Result struct {
	Conn  uint32
	Kind  Kind
	Cwnd  uint32 // window after the event in whole bytes (c >> F), CwndW bits
	Case  uint8  // Case* code
	QA    bool   // QuickAdapt fired on this event
	Fast  bool   // FastIncrease is active after the event
	Error bool   // conn >= NumConn or kind 4..7; nothing changed
	// Members is the number of ACKs the event stood for, in a merging
	// shell (m_result_members; 0 on an error); 0 in the plain shell.
	Members uint8
}

// CycleIn holds the block's input ports during one clock cycle.
type CycleIn = pipe.In[Event]

// CycleOut holds the block's output ports during one clock cycle.
type CycleOut = pipe.Out[Result]

// mask32 and mask64 give the all-ones value of a field width (0..32, 0..63).
func mask32(w int) uint32 { return uint32(uint64(1)<<w - 1) }
func mask64(w int) uint64 { return uint64(1)<<w - 1 }
