package srp

import (
	"fmt"

	"github.com/nicgen/nicgen/golden/pipe"
)

// IPDKind is the kind of an ecn_ipd event.
type IPDKind uint8

// The kinds of ecn_ipd events, in the order of the block's s_event_kind.
const (
	IPDOpen IPDKind = iota // a send queue starts: IPD 0, timer from now
	IPDCN                  // a congestion notification (CNP) for the queue
	IPDSend                // a send opportunity: the IPD to wait before the next packet
	IPDNumKinds
)

func (k IPDKind) String() string {
	switch k {
	case IPDOpen:
		return "open"
	case IPDCN:
		return "cn"
	case IPDSend:
		return "send"
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// IPDTableParams is ecn_ipd with its table of send queues.
type IPDTableParams struct {
	IPDParams
	NumConn int
	ConnW   int // width of the connection id the hardware compares
	KindW   int // width of the kind field: kinds IPDNumKinds and above are errors
}

// IPDEvent is one event of a send queue.
type IPDEvent struct {
	Conn uint32
	Kind IPDKind
	Now  uint64
}

// IPDResult is the answer to one event: the queue's IPD after it. An
// event of a queue past the table, or of an unknown kind, is an error: it
// changes nothing and its IPD is 0.
type IPDResult struct {
	Conn  uint32
	Kind  IPDKind
	IPD   uint64
	Error bool
}

// IPDModel is ecn_ipd over a table of send queues: one IPDState each.
// The table starts all-zero; a queue is meaningful from its open on.
type IPDModel struct {
	p     IPDTableParams
	table []IPDState
}

// NewIPDModel checks the parameters (ValidateIPD) and makes the table.
func NewIPDModel(p IPDTableParams) (*IPDModel, error) {
	if err := ValidateIPD(p.IPDParams); err != nil {
		return nil, err
	}
	if p.NumConn < 1 || p.ConnW < 1 || p.ConnW > 32 || p.KindW < 2 || p.KindW > 8 {
		return nil, fmt.Errorf("ecn_ipd: %d queues, %d-bit ids, %d-bit kinds: want at least 1 queue, 1..32-bit ids and 2..8-bit kinds", p.NumConn, p.ConnW, p.KindW)
	}
	return &IPDModel{p: p, table: make([]IPDState, p.NumConn)}, nil
}

// StepTo runs one event (pipe.Stepper).
func (m *IPDModel) StepTo(e *IPDEvent, r *IPDResult) {
	conn := e.Conn & uint32(1<<uint(m.p.ConnW)-1)
	kind := e.Kind & IPDKind(1<<uint(m.p.KindW)-1)
	*r = IPDResult{Conn: conn, Kind: kind}
	if int64(conn) >= int64(m.p.NumConn) || kind >= IPDNumKinds {
		r.Error = true
		return
	}
	s := &m.table[conn]
	switch kind {
	case IPDOpen:
		*s = IPDState{Stamp: e.Now & (uint64(1)<<uint(m.p.TimeW) - 1)}
	default:
		IPDStep(m.p.IPDParams, s, kind == IPDCN, e.Now)
	}
	r.IPD = s.IPD
}

// Reset does nothing: ecn_ipd has no state outside its table.
func (m *IPDModel) Reset() {}

// ConnKey is the event's connection as the RTL's hazard unit compares it.
func (m *IPDModel) ConnKey(e *IPDEvent) uint64 { return uint64(e.Conn & uint32(1<<uint(m.p.ConnW)-1)) }

// State is queue conn's word (tests).
func (m *IPDModel) State(conn int) IPDState { return m.table[conn] }

// IPDPipeline is ecn_ipd in the cycle contract of the pipelined shell.
type IPDPipeline = pipe.Pipeline[IPDEvent, IPDResult]

// NewIPDPipeline wraps m in the shell of a datapath of depth stages.
func NewIPDPipeline(m *IPDModel, depth int) *IPDPipeline {
	return pipe.New[IPDEvent, IPDResult](m, depth)
}
