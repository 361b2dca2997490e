package srp

import (
	"fmt"
	"math/bits"

	"github.com/nicgen/nicgen/golden/pipe"
)

// This file is srp_tx, the sender NIC's side of SRP (S2:L68-84, L168-170,
// L205, L245; ALGORITHMS.md section 6.2), one state per destination send
// queue:
//
//   - A message of fewer than NMin packets bypasses SRP: its packets go
//     out non-speculatively at once, with no reservation (S2:L84, A-22).
//   - A longer message is cut into chunks of n = min(remaining, NMax)
//     packets. A chunk starts with a reservation R(n), issued with the
//     first send opportunity, and speculative transmission: the chunk's
//     packets go out in order on the speculative VC, each kept until it is
//     ACKed (S2:L68-70, L245), at most the chunk's n.
//   - The grant G(t_s) stops speculation; from t_s on, the packets never
//     sent or NACKed go out non-speculatively, lowest first (S2:L76).
//   - A NACK stops speculation; the NACKed packet is resent
//     non-speculatively after t_s (S2:L78). Only NACKed packets are resent
//     (S2:L205).
//   - The chunk is complete when every packet is ACKed or was sent
//     non-speculatively; the next send opportunity starts the next chunk
//     (S2:L76; by default, A-37 below).
//
// When the next chunk may start is A-37 (this project's label: the
// paper's "After S has transmitted all n packets successfully, any
// future transmission between S and D repeats this reservation process",
// S2:L76, says nothing of a grant still on its way). By default
// (after_sent) the next chunk starts as soon as the chunk is complete,
// even when every packet got through speculatively before the grant came
// back; that grant is then Stale. With WaitGrant (after_grant) the
// reservation process ends with its grant (R, G(t_s), then the packets):
// a complete chunk whose grant has not arrived holds the next chunk's
// reservation, its send opportunities send nothing, and its grant, when
// it comes, is taken (not Stale) and lets the next send start the next
// chunk. Only the grant's arrival is waited for, not t_s: t_s times the
// chunk's non-speculative packets, and it has none left. The next
// chunk may be a new message's first; a message that bypasses SRP makes
// no reservation and does not wait (the grant awaited is then Stale).
//
// Choices where the paper is silent:
//   - One message at a time per send queue: a message for a busy queue is
//     answered Busy and changes nothing (the host keeps it).
//   - A grant names its chunk by the chunk's first sequence number (the
//     reservation carries it); a grant for another chunk, or a second one,
//     is Stale and changes nothing, as is an ACK or NACK of a packet that
//     is not outstanding.
//   - t_s is an absolute time of the sender's clock (the NIC adds the
//     grant's delay to its arrival time, A-19); now >= t_s is a
//     serial-number comparison on the TimeW-bit clock.
//   - Sequence numbers are SeqW bits and wrap.

// TxKind is the kind of an srp_tx event.
type TxKind uint8

// The kinds of srp_tx events, in the order of the block's s_event_kind.
const (
	TxOpen  TxKind = iota // a send queue starts: nothing queued
	TxMsg                 // a message of M packets to the destination
	TxSend                // a send opportunity: the packet to send, if any
	TxGrant               // G(t_s) for the chunk starting at Seq
	TxAck                 // the speculative packet Seq was delivered
	TxNack                // the speculative packet Seq was dropped
	TxNumKinds
)

func (k TxKind) String() string {
	switch k {
	case TxOpen:
		return "open"
	case TxMsg:
		return "msg"
	case TxSend:
		return "send"
	case TxGrant:
		return "grant"
	case TxAck:
		return "ack"
	case TxNack:
		return "nack"
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// TxParams configures srp_tx.
type TxParams struct {
	NMin, NMax uint64 // S2 Table 1: 4 and 16 packets
	MW         int    // bits of a message's length in packets
	SeqW       int    // bits of a sequence number
	TimeW      int    // bits of now and t_s
	NumConn    int    // send queues
	ConnW      int
	KindW      int
	// WaitGrant holds a chunk's reservation until the grant of the chunk
	// before it has arrived (A-37's after_grant; false: after_sent)
	WaitGrant bool
}

// ValidateTx reports parameters the model cannot run.
func ValidateTx(p TxParams) error {
	switch {
	case p.NMax < 1 || p.NMax > 32:
		return fmt.Errorf("srp_tx: n_max %d: want 1..32 (one bit per packet of a chunk)", p.NMax)
	case p.NMin < 1 || p.NMin > p.NMax:
		return fmt.Errorf("srp_tx: n_min %d: want 1..n_max (%d)", p.NMin, p.NMax)
	case p.MW < 1 || p.MW > 32 || p.SeqW < 1 || p.SeqW > 32 || p.TimeW < 2 || p.TimeW > 63:
		return fmt.Errorf("srp_tx: %d-bit lengths, %d-bit sequence numbers, %d-bit time: want 1..32, 1..32 and 2..63", p.MW, p.SeqW, p.TimeW)
	case uint64(1)<<uint(p.SeqW) < 2*p.NMax:
		return fmt.Errorf("srp_tx: %d-bit sequence numbers cannot tell two chunks of %d apart", p.SeqW, p.NMax)
	case p.NumConn < 1 || p.ConnW < 1 || p.ConnW > 32 || p.KindW < 3 || p.KindW > 8:
		return fmt.Errorf("srp_tx: %d queues, %d-bit ids, %d-bit kinds", p.NumConn, p.ConnW, p.KindW)
	}
	return nil
}

// TxEvent is one event of a send queue.
type TxEvent struct {
	Conn uint32
	Kind TxKind
	M    uint64 // msg: packets; 0 is an error
	Seq  uint64 // grant: the chunk's first sequence number; ack, nack: the packet
	Ts   uint64 // grant: t_s
	Now  uint64
}

// TxResult answers an event. A send may issue a reservation (Res, of ResN
// packets) and a packet (Pkt: Seq, Spec: on the speculative VC, else the
// data VC); a reservation goes with its chunk's first packet, so Seq is
// also the chunk's first sequence number, which the grant names. MsgDone
// marks the event after which the message is delivered.
type TxResult struct {
	Conn    uint32
	Kind    TxKind
	Pkt     bool
	Seq     uint64
	Spec    bool
	Res     bool
	ResN    uint64
	Stale   bool
	Busy    bool
	MsgDone bool
	Error   bool
}

// TxState is one send queue's word.
type TxState struct {
	Left    uint64 // packets of the message not yet in a chunk
	Base    uint64 // first sequence number of the chunk
	N       uint64 // packets of the chunk
	Next    uint64 // packets of the chunk sent speculatively (in order)
	Out     uint64 // bit i: packet i sent speculatively, neither ACKed nor NACKed
	Done    uint64 // bit i: packet i ACKed, or sent non-speculatively
	Halted  bool   // a NACK stopped speculation
	Granted bool   // the grant arrived (or the chunk bypasses SRP)
	Ts      uint64 // t_s
}

func (s *TxState) complete() bool { return s.Done == uint64(1)<<s.N-1 }
func (s *TxState) idle() bool     { return s.Left == 0 && s.complete() }

// awaitingGrant: the chunk's reservation went out and its grant has not
// come back (a bypassed chunk made none; after open there is no chunk).
func (s *TxState) awaitingGrant() bool { return s.N > 0 && !s.Granted }

// TxModel is srp_tx over a table of send queues.
type TxModel struct {
	p     TxParams
	table []TxState
}

// NewTxModel checks the parameters and makes the table.
func NewTxModel(p TxParams) (*TxModel, error) {
	if err := ValidateTx(p); err != nil {
		return nil, err
	}
	return &TxModel{p: p, table: make([]TxState, p.NumConn)}, nil
}

// State is queue conn's word (tests).
func (m *TxModel) State(conn int) TxState { return m.table[conn] }

// StepTo runs one event (pipe.Stepper).
func (m *TxModel) StepTo(e *TxEvent, r *TxResult) {
	p := m.p
	conn := e.Conn & uint32(1<<uint(p.ConnW)-1)
	kind := e.Kind & TxKind(1<<uint(p.KindW)-1)
	*r = TxResult{Conn: conn, Kind: kind}
	msgLen := e.M & (uint64(1)<<uint(p.MW) - 1)
	if int64(conn) >= int64(p.NumConn) || kind >= TxNumKinds || kind == TxMsg && msgLen == 0 {
		r.Error = true
		return
	}
	smask := uint64(1)<<uint(p.SeqW) - 1
	tmask := uint64(1)<<uint(p.TimeW) - 1
	now := e.Now & tmask
	s := &m.table[conn]
	wasIdle := s.idle()
	switch kind {
	case TxOpen:
		*s = TxState{}
		return
	case TxMsg:
		if !wasIdle {
			r.Busy = true
			return
		}
		if msgLen < p.NMin { // bypass: a chunk sent non-speculatively from now
			*s = TxState{Base: (s.Base + s.N) & smask, N: msgLen, Next: msgLen, Granted: true, Ts: now}
		} else {
			s.Left = msgLen
		}
	case TxSend:
		if s.complete() && s.Left > 0 && !(p.WaitGrant && s.awaitingGrant()) { // the next chunk: its reservation
			n := min(s.Left, p.NMax)
			*s = TxState{Left: s.Left - n, Base: (s.Base + s.N) & smask, N: n}
			r.Res, r.ResN = true, n
		}
		switch {
		case !s.Granted && !s.Halted && s.Next < s.N: // speculative, in order
			r.Pkt, r.Spec, r.Seq = true, true, (s.Base+s.Next)&smask
			s.Out |= 1 << s.Next
			s.Next++
		case s.Granted && ((now-s.Ts)&tmask) < uint64(1)<<uint(p.TimeW-1): // from t_s on
			todo := (uint64(1)<<s.N - 1) &^ (s.Done | s.Out)
			if todo != 0 {
				i := uint64(bits.TrailingZeros64(todo))
				r.Pkt, r.Seq = true, (s.Base+i)&smask
				s.Done |= 1 << i
			}
		}
	case TxGrant:
		// after_sent: a complete chunk needs no grant; after_grant: it
		// waits for this one
		if !s.awaitingGrant() || !p.WaitGrant && s.complete() || (e.Seq&smask) != s.Base {
			r.Stale = true
			return
		}
		s.Granted, s.Ts = true, e.Ts&tmask
	case TxAck, TxNack:
		i := (e.Seq - s.Base) & smask
		if i >= s.N || s.Out&(1<<i) == 0 {
			r.Stale = true
			return
		}
		s.Out &^= 1 << i
		if kind == TxAck {
			s.Done |= 1 << i
		} else {
			s.Halted = true
		}
	}
	r.MsgDone = !wasIdle && s.idle()
}

// Reset does nothing: the queues are in the table.
func (m *TxModel) Reset() {}

// ConnKey is the event's queue as the RTL's hazard unit compares it.
func (m *TxModel) ConnKey(e *TxEvent) uint64 { return uint64(e.Conn & uint32(1<<uint(m.p.ConnW)-1)) }

// TxPipeline is srp_tx in the cycle contract of the pipelined shell.
type TxPipeline = pipe.Pipeline[TxEvent, TxResult]

// NewTxPipeline wraps m in the shell of a datapath of depth stages.
func NewTxPipeline(m *TxModel, depth int) *TxPipeline {
	return pipe.New[TxEvent, TxResult](m, depth)
}
