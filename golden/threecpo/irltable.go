package threecpo

// This file is irl_tokens as a block sees it: a table of token units, one
// per GPU injection port, each event one cycle of one port (S3:L1558: each
// cycle, each GPU draws and maybe gains a token). A block serving N ports
// round robin gives each of them a cycle every N clocks; one port alone
// gets an event every clock the pipeline allows (its depth). Each unit
// keeps its own LFSR in its word, so its draws depend on its own cycles
// only, not on the other ports' traffic.

import (
	"fmt"
	"math/bits"

	"github.com/nicgen/nicgen/golden/fixed"
	"github.com/nicgen/nicgen/golden/pipe"
)

// IRLKind is the kind of an irl_tokens event.
type IRLKind uint8

// The kinds, in the order of the block's s_event_kind.
const (
	IRLOpen  IRLKind = iota // reset the port: full buckets, watermarks at WM_MAX, the LFSR at the event's seed
	IRLTick                 // one cycle of the port: draw, maybe send a request
	IRLSetWM                // load the two watermarks (wm_ctrl's outputs); not a cycle: no draw
	IRLNumKinds
)

func (k IRLKind) String() string {
	switch k {
	case IRLOpen:
		return "open"
	case IRLTick:
		return "cycle"
	case IRLSetWM:
		return "set_wm"
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// IRLEvent is one event of a port.
type IRLEvent struct {
	Conn             uint32 // the port
	Kind             IRLKind
	Seed             uint32 // open: the LFSR's start, nonzero (0 is an error)
	Send             bool   // cycle: a request packet asks to go
	ReqCost, RspCost uint32 // cycle: its request and response tokens
	ReqWM, RspWM     uint32 // set_wm: the watermarks (above WM_MAX: WM_MAX)
}

// IRLEventResult answers an event.
type IRLEventResult struct {
	Conn           uint32
	Kind           IRLKind
	Sent, Refused  bool  // cycle: the request went; it asked and did not
	NewReq, NewRsp bool  // cycle: a token arrived
	Req, Rsp       int32 // the counters after the event
	MaySend        bool  // after the event: both counters hold a token
	Error          bool
}

// IRLTableParams are the unit's parameters and the table's shape.
type IRLTableParams struct {
	IRLParams
	NumConn, ConnW, KindW int
}

// TokW is the width of a counter in two's complement: it holds Cap and
// 1 - MaxCost.
func (p IRLParams) TokW() int {
	return 1 + max(bits.Len32(uint32(p.Cap)), bits.Len32(uint32(p.MaxCost-1)))
}

// CostW is the width of a cost field: it holds MaxCost (and larger
// values, which a send may not take).
func (p IRLParams) CostW() int { return bits.Len32(uint32(p.MaxCost)) }

// WMW is the width of a watermark field: it holds WMMax.
func (p IRLParams) WMW() int { return bits.Len32(p.WMMax) }

// ValidateTable reports a table the model cannot run.
func (p IRLTableParams) ValidateTable() error {
	if err := p.IRLParams.Validate(); err != nil {
		return fmt.Errorf("irl_tokens: %w", err)
	}
	if p.NumConn < 1 || p.ConnW < 1 || p.ConnW > 32 || p.ConnW < bits.Len(uint(p.NumConn-1)) || p.KindW < 2 || p.KindW > 8 {
		return fmt.Errorf("irl_tokens: %d ports behind a %d-bit id, %d-bit kinds: want at least 1 port the id holds, 2..8-bit kinds", p.NumConn, p.ConnW, p.KindW)
	}
	return nil
}

type irlWord struct {
	s    IRLState
	lfsr fixed.LFSR
}

// IRLTable is irl_tokens over its ports. The table starts all-zero (a
// port is meaningful from its open on).
type IRLTable struct {
	p     IRLTableParams
	table []irlWord
}

// NewIRLTable checks the parameters and makes the table.
func NewIRLTable(p IRLTableParams) (*IRLTable, error) {
	if err := p.ValidateTable(); err != nil {
		return nil, err
	}
	return &IRLTable{p: p, table: make([]irlWord, p.NumConn)}, nil
}

func mask64(v uint64, w int) uint64 { return v & (uint64(1)<<uint(w) - 1) }

// StepTo runs one event (pipe.Stepper).
func (t *IRLTable) StepTo(e *IRLEvent, r *IRLEventResult) {
	p := t.p
	conn, kind := uint32(mask64(uint64(e.Conn), p.ConnW)), IRLKind(mask64(uint64(e.Kind), p.KindW))
	*r = IRLEventResult{Conn: conn, Kind: kind}
	if int64(conn) >= int64(p.NumConn) || kind >= IRLNumKinds || kind == IRLOpen && e.Seed == 0 {
		r.Error = true
		return
	}
	w := &t.table[conn]
	switch kind {
	case IRLOpen:
		*w = irlWord{s: IRLState{Req: p.Cap, Rsp: p.Cap, ReqWM: p.WMMax, RspWM: p.WMMax}, lfsr: fixed.LFSR(e.Seed)}
	case IRLTick:
		d := w.lfsr.Draw(32)
		cw := p.CostW()
		var res IRLResult
		w.s, res = IRLStep(p.IRLParams, w.s, IRLCycle{Send: e.Send,
			ReqCost: int32(mask64(uint64(e.ReqCost), cw)), RspCost: int32(mask64(uint64(e.RspCost), cw)),
			ReqRand: p.Rand(d), RspRand: p.Rand(d >> 16)})
		r.Sent, r.Refused, r.NewReq, r.NewRsp = res.Sent, res.Refused, res.NewReq, res.NewRsp
	case IRLSetWM:
		ww := p.WMW()
		w.s.ReqWM = min(uint32(mask64(uint64(e.ReqWM), ww)), p.WMMax)
		w.s.RspWM = min(uint32(mask64(uint64(e.RspWM), ww)), p.WMMax)
	}
	r.Req, r.Rsp, r.MaySend = w.s.Req, w.s.Rsp, w.s.MaySend()
}

// Reset does nothing: the table is all the state.
func (t *IRLTable) Reset() {}

// ConnKey is the event's port as the RTL's hazard unit compares it.
func (t *IRLTable) ConnKey(e *IRLEvent) uint64 { return mask64(uint64(e.Conn), t.p.ConnW) }

// Port is port conn's counters and watermarks (tests).
func (t *IRLTable) Port(conn int) IRLState { return t.table[conn].s }

// IRLPipeline is irl_tokens in the cycle contract of the pipelined shell.
type IRLPipeline = pipe.Pipeline[IRLEvent, IRLEventResult]

// NewIRLPipeline wraps t in the shell of a datapath of depth stages.
func NewIRLPipeline(t *IRLTable, depth int) *IRLPipeline {
	return pipe.New[IRLEvent, IRLEventResult](t, depth)
}
