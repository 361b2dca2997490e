// Package uet is the golden model of uet_cc: a UEC transport's congestion
// engine, the composition of a window controller (golden/smartt: nscc or
// smartt) and a load balancer (golden/reps: reps or reps_conf) on one
// event stream, plus the bytes in flight of each connection.
//
// It is written from the algorithm text (ALGORITHMS.md Section 12.2: the
// UEC reference simulator runs NSCC and REPS for every connection, on the
// same events) and from the two models it composes, never from the DSL:
//
//   - open: both parts open the connection; nothing is in flight.
//   - send: REPS chooses the entropy; the packet's size joins the bytes in
//     flight (saturating). The window is not touched.
//   - ack: the size leaves the bytes in flight first (htsim processAck
//     step 1), then the window controller runs with that in-flight figure
//     as its unacked bytes, and REPS recycles the ack's entropy (unless
//     ECN-marked).
//   - nack (a trimmed packet came back): the size leaves the bytes in
//     flight; the window controller cuts the window; REPS does not recycle
//     the entropy.
//   - timeout: the size leaves the bytes in flight; the window controller
//     runs its timeout rule; REPS may enter freezing mode.
//
// The result holds both parts' results, the bytes in flight after the
// event, and may_send: whether the connection may send after the event.
package uet

import (
	"fmt"

	"github.com/nicgen/nicgen/golden/pipe"
	greps "github.com/nicgen/nicgen/golden/reps"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
)

// Kind is the 3-bit s_event_kind port: the values of golden/reps.
type Kind uint8

// Event kinds. Kinds 5..7 fit the port but mean nothing: an error result.
const (
	KindOpen    Kind = 0
	KindSend    Kind = 1
	KindAck     Kind = 2
	KindNack    Kind = 3
	KindTimeout Kind = 4
)

func (k Kind) String() string { return greps.Kind(k).String() }

// Event is one beat of the s_event_* stream, read through its port widths.
type Event struct {
	Conn uint32
	Kind Kind
	Size uint32 // bytes of the sent, acked, trimmed or timed-out packet
	ECN  bool   // ECN echo of an ack
	RTT  uint32 // RTT sample of an ack, ns
	EV   uint32 // entropy carried by an ack or nack
	Now  uint64 // timestamp, ns (wraps)
}

// Result is one beat of the m_result_* stream. On an error, every field
// but Conn and Kind is zero.
type Result struct {
	Conn     uint32
	Kind     Kind
	EV       uint32 // a send's entropy; 0 for other kinds
	Explored bool   // the send's entropy is an exploration
	Frozen   bool   // reps only: the connection is frozen after the event
	Cwnd     uint32 // window after the event, bytes (a send: the window held)
	Case     uint8  // the window controller's rule; 0 for a send
	QA       bool   // QuickAdapt fired
	Fast     bool   // FastIncrease active after the event; 0 for a send
	Inflight uint32 // bytes in flight after the event
	MaySend  bool   // the connection may send after the event
	Error    bool   // conn >= NumConn or kind 5..7: nothing changed
}

// SendRule says when a connection may send.
type SendRule int

const (
	// BelowWindow: bytes in flight < cwnd (the rule).
	BelowWindow SendRule = iota
	// RoomForMTU: bytes in flight + MTU <= cwnd (htsim's send permission,
	// uec.cpp:1130-1135, with a full-size packet).
	RoomForMTU
)

// Params are the composition's: the window controller's and the load
// balancer's parameters (one of REPS and Conf, as UseConf says) and the
// send rule. Both parts share NumConn and ConnW.
type Params struct {
	CC      gsmartt.Params
	REPS    greps.Params
	Conf    greps.ConfParams
	UseConf bool // reps_conf instead of reps
	Rule    SendRule
	Depth   int // datapath stages of the RTL shell (golden/pipe); split: the send path's
	// Window is the split engine's window path (split.go); its zero value
	// is the shared engine, one shell for every part.
	Window WindowPath
}

// Validate checks that the parts are valid and agree.
func (p Params) Validate() error {
	if err := p.CC.Validate(); err != nil {
		return fmt.Errorf("%s: %w", p.CC.Variant, err)
	}
	if p.UseConf {
		if err := p.Conf.Validate(); err != nil {
			return fmt.Errorf("reps_conf: %w", err)
		}
	} else if err := p.REPS.Validate(); err != nil {
		return fmt.Errorf("reps: %w", err)
	}
	return p.Agree()
}

// Agree checks that the parts serve one table and read one clock: the
// same connections and id width, and (reps) the same timestamp width.
func (p Params) Agree() error {
	nc, cw := p.REPS.NumConn, p.REPS.ConnW
	if p.UseConf {
		nc, cw = p.Conf.NumConn, p.Conf.ConnW
	} else if p.REPS.TimeW != p.CC.TimeW {
		return fmt.Errorf("the parts' timestamps differ: %s %d bits, reps %d; both read s_event_now: give the two blocks one time_width", p.CC.Variant, p.CC.TimeW, p.REPS.TimeW)
	}
	if nc != p.CC.NumConn || cw != p.CC.ConnW {
		return fmt.Errorf("the parts' tables differ: %s %d connections of %d-bit ids, the load balancer %d of %d", p.CC.Variant, p.CC.NumConn, p.CC.ConnW, nc, cw)
	}
	return nil
}

// EVW is the width of the ack's entropy port (the load balancer's).
func (p Params) EVW() int {
	if p.UseConf {
		return p.Conf.EntW
	}
	return p.REPS.EVW
}

// ResultEVW is the width of the send's entropy result.
func (p Params) ResultEVW() int {
	if p.UseConf {
		return p.Conf.EVW
	}
	return p.REPS.EVW
}

// Model is uet_cc at transaction level.
type Model struct {
	p        Params
	cc       *gsmartt.Model
	lb       greps.Clearer
	inflight []uint32
	max      uint32 // the in-flight counter saturates there
	ccEv     gsmartt.Event
	ccRes    gsmartt.Result
	lbEv     greps.Event
	lbRes    greps.Result
}

var _ pipe.Stepper[Event, Result] = (*Model)(nil)

// NewModel validates p and returns a model with all-zero tables.
func NewModel(p Params) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	cc, err := gsmartt.NewModel(p.CC)
	if err != nil {
		return nil, err
	}
	var lb greps.Clearer
	if p.UseConf {
		lb, err = greps.NewConfModel(p.Conf)
	} else {
		lb, err = greps.NewModel(p.REPS)
	}
	if err != nil {
		return nil, err
	}
	return &Model{p: p, cc: cc, lb: lb, inflight: make([]uint32, p.CC.NumConn), max: uint32(uint64(1)<<p.CC.ByteW - 1)}, nil
}

// Params returns the model's parameters.
func (m *Model) Params() Params { return m.p }

// Reset applies rst: the load balancer's LFSR; the tables keep their words.
func (m *Model) Reset() { m.lb.Reset() }

// ConnKey is the connection as the hazard unit compares it.
func (m *Model) ConnKey(e *Event) uint64 { return uint64(e.Conn) & (uint64(1)<<m.p.CC.ConnW - 1) }

// Step executes one event.
func (m *Model) Step(e Event) Result {
	var r Result
	m.StepTo(&e, &r)
	return r
}

// ccKinds maps the event kinds to the window controller's; a send has none.
var ccKinds = [...]gsmartt.Kind{KindOpen: gsmartt.KindOpen, KindAck: gsmartt.KindAck, KindNack: gsmartt.KindNack, KindTimeout: gsmartt.KindTimeout}

// StepTo is Step through pointers, as the pipeline calls it.
func (m *Model) StepTo(ev *Event, r *Result) {
	e, ok := m.admit(ev, r)
	if !ok {
		return
	}
	p := &m.p
	f := m.stepInflight(&e)
	r.Inflight = f

	// the window controller, with the bytes in flight as its unacked
	if e.Kind == KindSend {
		r.Cwnd = m.cc.Conn(e.Conn).C >> uint(p.CC.F)
	} else {
		m.ccEv = gsmartt.Event{Conn: e.Conn, Kind: ccKinds[e.Kind], Size: e.Size, ECN: e.ECN, RTT: e.RTT, Unacked: f, Now: e.Now}
		m.cc.StepTo(&m.ccEv, &m.ccRes)
		r.Cwnd, r.Case, r.QA, r.Fast = m.ccRes.Cwnd, m.ccRes.Case, m.ccRes.QA, m.ccRes.Fast
	}

	// the load balancer, on every kind
	m.lbEv = greps.Event{Conn: e.Conn, Kind: greps.Kind(e.Kind), ECN: e.ECN, EV: e.EV, Now: e.Now}
	m.lb.StepTo(&m.lbEv, &m.lbRes)
	r.EV, r.Explored, r.Frozen = m.lbRes.EV, m.lbRes.Explored, m.lbRes.Frozen

	r.MaySend = m.maySend(f, r.Cwnd)
}

// admit reads an event through its port widths and starts its result:
// conn and kind, or the error result of a connection or kind out of
// range (ok false: nothing changes).
func (m *Model) admit(ev *Event, r *Result) (e Event, ok bool) {
	e = *ev
	p := &m.p
	e.Conn &= uint32(uint64(1)<<p.CC.ConnW - 1)
	e.Kind &= 7
	e.Size &= uint32(uint64(1)<<p.CC.SizeW - 1)
	if uint64(e.Conn) >= uint64(p.CC.NumConn) || e.Kind > KindTimeout {
		*r = Result{Conn: e.Conn, Kind: e.Kind, Error: true}
		return e, false
	}
	*r = Result{Conn: e.Conn, Kind: e.Kind}
	return e, true
}

// stepInflight applies a valid event to its connection's bytes in flight
// and returns them: an open clears them, a send adds its size
// (saturating), every other kind takes its size away (floored at 0).
func (m *Model) stepInflight(e *Event) uint32 {
	f := m.inflight[e.Conn]
	switch e.Kind {
	case KindOpen:
		f = 0
	case KindSend:
		if uint64(f)+uint64(e.Size) > uint64(m.max) {
			f = m.max
		} else {
			f += e.Size
		}
	default:
		if e.Size >= f {
			f = 0
		} else {
			f -= e.Size
		}
	}
	m.inflight[e.Conn] = f
	return f
}

// maySend is the send rule for bytes in flight f against window cwnd.
func (m *Model) maySend(f, cwnd uint32) bool {
	if m.p.Rule == RoomForMTU {
		return uint64(f)+uint64(m.p.CC.Network.MTU) <= uint64(cwnd)
	}
	return f < cwnd
}

// Inflight is connection c's bytes in flight.
func (m *Model) Inflight(c uint32) uint32 { return m.inflight[c] }

// CC is the window controller's model (its connections' words).
func (m *Model) CC() *gsmartt.Model { return m.cc }

// LB is the load balancer's model.
func (m *Model) LB() greps.Stepper { return m.lb }

// ClearTable makes every connection's word and bytes in flight zero, as
// before its first event (the control wrapper's clear); reps's LFSR goes
// on, and the settings stay as retuned.
func (m *Model) ClearTable() {
	m.cc.ClearTable()
	m.lb.ClearTable()
	clear(m.inflight)
}

// Pipeline is the cycle-level wrapper: the pipelined shell of
// docs/pipeline.md around the model (golden/pipe).
type Pipeline = pipe.Pipeline[Event, Result]

// NewPipeline returns an empty pipeline of depth datapath stages around m.
func NewPipeline(m *Model, depth int) *Pipeline { return pipe.New[Event, Result](m, depth) }

// CycleIn holds the block's input ports during one clock cycle.
type CycleIn = pipe.In[Event]

// CycleOut holds the block's output ports during one clock cycle.
type CycleOut = pipe.Out[Result]
