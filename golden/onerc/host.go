package onerc

// This file is onerc_host: the host side of 1RC with flow weights (S3
// chapter 5, S3:L1334-1352; ALGORITHMS.md sections 7.6 and 7.7), one
// block per NIC, with a word per connection and a few host-wide registers.
//
//   - Weight: the host counts its open connections (open increments,
//     close decrements, S3:L1350). A new flow's weight, the one its first
//     control packet carries and its speculative packets are judged by,
//     is the count at the start of the epoch (S3:L1340, Fig. 5.4): the
//     count the host had when it first saw the epoch, before any open or
//     close in it, and at least 1. Later control packets carry the count
//     of the moment as new_weight and the previous packet's as old_weight.
//   - Shared speculative sequence numbers (S3:L1334, Fig. 5.3): the flows
//     that start in one epoch number their speculative packets from one
//     counter, so together they get through what one flow would.
//   - let_through (S3:L1348): when a flow's first control packet returns,
//     the switch let the packets with a shared sequence number below L
//     through, so the flow resumes from its first packet that was not:
//     no NACK, no timeout.
//   - Rate: from the control packet's return the flow is paced at b, or
//     at b / new_weight when a switch is the bottleneck (S3:L1350), with
//     the new_weight the returning packet carries.
//
// Choices where the thesis is silent (docs/blocks/onerc.md):
//   - The epoch, SSTS div epoch_length, is one counter for the whole NIC
//     (S3:L1237); every event carries its value. Epochs compare for
//     equality only, EpochW bits.
//   - The host keeps the shared counters of two epochs, a slot per epoch
//     parity with the epoch as tag. An open claims its epoch's slot (and
//     clears it when it held another epoch). A speculative send of a flow
//     whose slot another epoch has since claimed is stale: it gets no
//     number, and the host waits for the control packet (speculation lasts
//     one RTT, at most an epoch, so only a late flow loses its slot).
//   - The resume point is exact when the flow's speculative packets got
//     consecutive shared numbers. When another flow of the epoch sent in
//     between, the block knows only the flow's count n and its last
//     number, and takes the fewest packets that can have got through,
//     n - min(n, last + 1 - L): it may send again a packet the switch let
//     through (the receiver discards the copy), never skips one.
//   - Division by the weight is exact: floor(b / w). A returning control
//     packet with weight 0 is an error (its host never sends one).
//   - The count is opens minus closes: open and close never read the
//     connection's word, so they are exact from any table contents (a
//     block RAM's power-on value, an Icarus X), and the host pairs them:
//     a connection opened twice counts twice, closing a closed one takes
//     one off. The count stops at its top (2^WeightW - 1) and at 0; the
//     shared counter and a flow's count stop at their top.
//   - Short flows below a BDP are exempt from s-PERC (S3:L1201): the host
//     simply sends no control packets for them; the block does not know
//     flow sizes.

import (
	"fmt"
	"math/bits"

	"github.com/nicgen/nicgen/golden/pipe"
)

// HostKind is the kind of an onerc_host event.
type HostKind uint8

// The kinds, in the order of the block's s_event_kind.
const (
	HostOpen   HostKind = iota // a flow starts: its first control packet leaves
	HostSend                   // the flow sends a data packet
	HostCtrlTx                 // the flow sends a control packet (one per RTT)
	HostCtrlRx                 // a control packet of the flow returns
	HostClose                  // the flow ends
	HostNumKinds
)

func (k HostKind) String() string {
	switch k {
	case HostOpen:
		return "open"
	case HostSend:
		return "send"
	case HostCtrlTx:
		return "ctrl_tx"
	case HostCtrlRx:
		return "ctrl_rx"
	case HostClose:
		return "close"
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// HostStatus is a flow's phase as a result reports it.
type HostStatus uint8

// The statuses (2 bits).
const (
	StatusIdle  HostStatus = iota // no flow on the connection
	StatusSpec                    // first RTT: speculative packets
	StatusSched                   // scheduled: paced at the rate, never dropped
	StatusStale                   // a speculative send whose epoch's counter is gone: send nothing
)

// HostParams configure onerc_host.
type HostParams struct {
	NumConn, ConnW, KindW int
	EpochW                int // bits of the epoch number
	WeightW               int // bits of a weight and of the host's connection count
	SeqW                  int // bits of a speculative sequence number, of let_through and of a flow's count
	RateW                 int // bits of a rate (sperc_link's b)
}

// DefaultHostParams: 4,096 connections, 16-bit epochs, weights up to
// 255 connections and 28-bit rates as sperc_link, 16-bit sequence numbers
// as onerc_switch.
func DefaultHostParams() HostParams {
	return HostParams{NumConn: 4096, ConnW: 12, KindW: 3, EpochW: 16, WeightW: 8, SeqW: 16, RateW: 28}
}

// ValidateHost reports parameters the model cannot run.
func ValidateHost(p HostParams) error {
	switch {
	case p.NumConn < 2 || p.ConnW < bits.Len(uint(p.NumConn-1)) || p.ConnW > 32:
		return fmt.Errorf("onerc_host: %d connections behind a %d-bit id: want at least 2, that the id holds", p.NumConn, p.ConnW)
	case p.KindW < 3 || p.KindW > 8:
		return fmt.Errorf("onerc_host: %d-bit kinds: want 3..8", p.KindW)
	case p.EpochW < 2 || p.EpochW > 48 || p.WeightW < 1 || p.WeightW > 12 || p.SeqW < 1 || p.SeqW > 32 || p.RateW < 1 || p.RateW > 48:
		return fmt.Errorf("onerc_host: %d-bit epochs, %d-bit weights, %d-bit sequence numbers, %d-bit rates: want 2..48, 1..12, 1..32 and 1..48",
			p.EpochW, p.WeightW, p.SeqW, p.RateW)
	}
	return nil
}

// HostEvent is one event of a flow.
type HostEvent struct {
	Conn       uint32
	Kind       HostKind
	Epoch      uint64 // every kind: the NIC's epoch now
	B          uint64 // ctrl_rx: the bottleneck rate the packet brings back, per unit of weight
	LetThrough uint64 // ctrl_rx: let_through, the switches' least threshold
	Weight     uint64 // ctrl_rx: the new_weight the packet carried; 0 is an error
	Bottleneck bool   // ctrl_rx: a switch is the flow's bottleneck (divide by the weight)
}

// HostResult answers an event.
type HostResult struct {
	Conn      uint32
	Kind      HostKind
	Status    HostStatus // the flow's phase (after open and ctrl_rx, at send and ctrl_tx)
	Seq       uint64     // send, speculative: the packet's shared sequence number
	Epoch     uint64     // open, send (speculative), ctrl_tx: the flow's start epoch, the header's timestamp epoch
	OldWeight uint64     // open, ctrl_tx: old_weight of the control packet
	NewWeight uint64     // open, ctrl_tx: new_weight; send (speculative): the weight the switch divides by
	Ended     bool       // ctrl_rx: this packet ended the flow's first RTT, Resume is valid
	Resume    uint64     // ctrl_rx with Ended: the flow's speculative packets that got through; it resumes from the next
	Rate      uint64     // ctrl_rx, send (scheduled): the flow's pacing rate
	Conns     uint64     // every kind: the host's open connections after the event
	Error     bool
}

// HostWord is one connection's state.
type HostWord struct {
	Active, Spec bool
	Ep           uint64 // the flow's start epoch
	WSpec, WOld  uint64 // the start weight; the last new_weight sent
	Sent, Last   uint64 // speculative packets sent; the last one's number
	Rate         uint64
}

type seqSlot struct {
	valid    bool
	tag, seq uint64
}

// HostModel is onerc_host: the connections' words and the host's
// registers. Everything starts at zero: no connection open, no epoch seen.
type HostModel struct {
	p     HostParams
	words []HostWord

	count     uint64 // open connections
	snapValid bool   // an epoch was seen
	snapEpoch uint64 // the last epoch seen
	snapCount uint64 // the count at its start
	slots     [2]seqSlot
}

// NewHostModel checks the parameters and makes the state.
func NewHostModel(p HostParams) (*HostModel, error) {
	if err := ValidateHost(p); err != nil {
		return nil, err
	}
	return &HostModel{p: p, words: make([]HostWord, p.NumConn)}, nil
}

// Word is connection conn's state.
func (m *HostModel) Word(conn int) HostWord { return m.words[conn] }

// Conns is the host's open connection count.
func (m *HostModel) Conns() uint64 { return m.count }

func top(w int) uint64 { return uint64(1)<<uint(w) - 1 }

// StepTo runs one event (pipe.Stepper).
func (m *HostModel) StepTo(e *HostEvent, r *HostResult) {
	p := m.p
	conn := e.Conn & uint32(top(p.ConnW))
	kind := e.Kind & HostKind(top(p.KindW))
	*r = HostResult{Conn: conn, Kind: kind}
	if int64(conn) >= int64(p.NumConn) || kind >= HostNumKinds || kind == HostCtrlRx && mask(e.Weight, p.WeightW) == 0 {
		r.Error = true
		return
	}
	epoch := mask(e.Epoch, p.EpochW)
	// the first event of an epoch notes the count at its start
	if !m.snapValid || m.snapEpoch != epoch {
		m.snapValid, m.snapEpoch, m.snapCount = true, epoch, m.count
	}
	w := &m.words[conn]
	switch kind {
	case HostOpen:
		if m.count < top(p.WeightW) {
			m.count++
		}
		weight := max(1, m.snapCount)
		if s := &m.slots[epoch&1]; !s.valid || s.tag != epoch {
			*s = seqSlot{valid: true, tag: epoch}
		}
		*w = HostWord{Active: true, Spec: true, Ep: epoch, WSpec: weight, WOld: weight}
		r.Status, r.Epoch, r.OldWeight, r.NewWeight = StatusSpec, epoch, weight, weight
	case HostSend:
		switch {
		case !w.Active:
		case !w.Spec:
			r.Status, r.Rate = StatusSched, w.Rate
		default:
			s := &m.slots[w.Ep&1]
			if !s.valid || s.tag != w.Ep {
				r.Status = StatusStale
				break
			}
			r.Status, r.Seq, r.Epoch, r.NewWeight = StatusSpec, s.seq, w.Ep, w.WSpec
			w.Last = s.seq
			s.seq = min(s.seq+1, top(p.SeqW))
			w.Sent = min(w.Sent+1, top(p.SeqW))
		}
	case HostCtrlTx:
		if w.Active {
			nw := max(1, m.count)
			r.Status = StatusSched
			if w.Spec {
				nw, r.Status = w.WSpec, StatusSpec
			}
			r.Epoch, r.OldWeight, r.NewWeight = w.Ep, w.WOld, nw
			w.WOld = nw
		}
	case HostCtrlRx:
		if w.Active {
			if w.Spec {
				// the flow's packets numbered L and above were dropped: at
				// most last + 1 - L of its n
				lt := mask(e.LetThrough, p.SeqW)
				late := uint64(0)
				if w.Last+1 > lt {
					late = w.Last + 1 - lt
				}
				r.Ended, r.Resume = true, w.Sent-min(w.Sent, late)
				w.Spec = false
			}
			b := mask(e.B, p.RateW)
			w.Rate = b
			if e.Bottleneck {
				w.Rate = b / mask(e.Weight, p.WeightW)
			}
			r.Status, r.Rate = StatusSched, w.Rate
		}
	case HostClose:
		if m.count > 0 {
			m.count--
		}
		*w = HostWord{}
	}
	r.Conns = m.count
}

// Reset clears the host's registers (the words are in the table).
func (m *HostModel) Reset() {
	m.count, m.snapValid, m.snapEpoch, m.snapCount = 0, false, 0, 0
	m.slots = [2]seqSlot{}
}

// ClearTable zeroes every connection's word and keeps the host's
// registers (the open connection count, the epoch snapshot, the sequence
// slots): the control wrapper's CLEAR_TABLE.
func (m *HostModel) ClearTable() { clear(m.words) }

// ConnKey is the event's connection as the RTL's hazard unit compares it.
func (m *HostModel) ConnKey(e *HostEvent) uint64 {
	return uint64(e.Conn & uint32(top(m.p.ConnW)))
}

// HostPipeline is onerc_host in the cycle contract of the pipelined shell.
type HostPipeline = pipe.Pipeline[HostEvent, HostResult]

// NewHostPipeline wraps m in the shell of a datapath of depth stages.
func NewHostPipeline(m *HostModel, depth int) *HostPipeline {
	return pipe.New[HostEvent, HostResult](m, depth)
}
