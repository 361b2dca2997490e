package srp

import (
	"fmt"

	"github.com/nicgen/nicgen/golden/pipe"
)

// RxKind is the kind of an srp_rx event.
type RxKind uint8

// The kinds of srp_rx events, in the order of the block's s_event_kind.
const (
	RxOpen    RxKind = iota // an endpoint starts (or restarts): nothing booked
	RxReserve               // a reservation R(n): answered with a grant G(t_s)
	RxSpec                  // a speculative packet arrived: it is ACKed (S2:L76)
	RxNumKinds
)

func (k RxKind) String() string {
	switch k {
	case RxOpen:
		return "open"
	case RxReserve:
		return "reserve"
	case RxSpec:
		return "spec"
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// RxTableParams is srp_rx with one schedule per receiving endpoint.
type RxTableParams struct {
	RxParams
	NumConn int    // endpoints
	ConnW   int    // width of the endpoint id the hardware compares
	KindW   int    // width of the kind field: kinds RxNumKinds and above are errors
	NW      int    // width of n
	NMax    uint64 // largest n of a reservation (S2 Table 1: n_max = 16); above it an error
}

// RxEvent is one event of an endpoint.
type RxEvent struct {
	Conn uint32
	Kind RxKind
	N    uint64 // packets reserved (reserve)
	Now  uint64
}

// RxResult answers an event: a grant for a reservation (Ts, Delay), an ACK
// for a speculative packet. An endpoint past the table, an unknown kind or
// a reservation of more than NMax packets is an error that changes nothing
// and answers zeros.
type RxResult struct {
	Conn  uint32
	Kind  RxKind
	Ts    uint64
	Delay uint64
	Ack   bool
	Error bool
}

// RxModel is srp_rx over a table of endpoints, each an Rx. The table
// starts all-zero (nothing booked); an endpoint is meaningful from its
// open on.
type RxModel struct {
	p     RxTableParams
	table []Rx
}

// NewRxModel checks the parameters and makes the table.
func NewRxModel(p RxTableParams) (*RxModel, error) {
	if p.TimeW < 2 || p.FracW < 0 || p.TimeW+p.FracW > 63 || p.NW < 1 || p.NW > 16 {
		return nil, fmt.Errorf("srp_rx: %d-bit time with %d fraction bits, %d-bit n: want 2..63 bits of time and fraction together and 1..16-bit n", p.TimeW, p.FracW, p.NW)
	}
	if p.NMax < 1 || p.NMax>>uint(p.NW) != 0 {
		return nil, fmt.Errorf("srp_rx: n_max %d: want 1 .. 2^%d - 1 (the width of n)", p.NMax, p.NW)
	}
	if p.SlotFx == 0 || p.SlotFx>>uint(p.TimeW+p.FracW-1-p.NW) != 0 {
		return nil, fmt.Errorf("srp_rx: a slot of %d x 2^-%d ticks: want 1 .. 2^%d (time width %d + fraction bits %d - 1 - n width %d), so that a reservation moves the schedule by less than half the clock's range", p.SlotFx, p.FracW, p.TimeW+p.FracW-1-p.NW, p.TimeW, p.FracW, p.NW)
	}
	if p.NumConn < 1 || p.ConnW < 1 || p.ConnW > 32 || p.KindW < 2 || p.KindW > 8 {
		return nil, fmt.Errorf("srp_rx: %d endpoints, %d-bit ids, %d-bit kinds: want at least 1 endpoint, 1..32-bit ids and 2..8-bit kinds", p.NumConn, p.ConnW, p.KindW)
	}
	m := &RxModel{p: p, table: make([]Rx, p.NumConn)}
	for i := range m.table {
		m.table[i] = Rx{p: p.RxParams}
	}
	return m, nil
}

// StepTo runs one event (pipe.Stepper).
func (m *RxModel) StepTo(e *RxEvent, r *RxResult) {
	conn := e.Conn & uint32(1<<uint(m.p.ConnW)-1)
	kind := e.Kind & RxKind(1<<uint(m.p.KindW)-1)
	*r = RxResult{Conn: conn, Kind: kind}
	n := e.N & (uint64(1)<<uint(m.p.NW) - 1)
	if int64(conn) >= int64(m.p.NumConn) || kind >= RxNumKinds || kind == RxReserve && n > m.p.NMax {
		r.Error = true
		return
	}
	rx := &m.table[conn]
	switch kind {
	case RxOpen:
		rx.Reset()
	case RxReserve:
		g := rx.Reserve(Reservation{N: n, Now: e.Now})
		r.Ts, r.Delay = g.Ts, g.Delay
	case RxSpec:
		r.Ack = true
	}
}

// Reset does nothing: the schedules are in the table.
func (m *RxModel) Reset() {}

// ConnKey is the event's endpoint as the RTL's hazard unit compares it.
func (m *RxModel) ConnKey(e *RxEvent) uint64 { return uint64(e.Conn & uint32(1<<uint(m.p.ConnW)-1)) }

// RxPipeline is srp_rx in the cycle contract of the pipelined shell.
type RxPipeline = pipe.Pipeline[RxEvent, RxResult]

// NewRxPipeline wraps m in the shell of a datapath of depth stages.
func NewRxPipeline(m *RxModel, depth int) *RxPipeline {
	return pipe.New[RxEvent, RxResult](m, depth)
}
