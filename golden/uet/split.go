package uet

import (
	"fmt"

	"github.com/nicgen/nicgen/golden/pipe"
	greps "github.com/nicgen/nicgen/golden/reps"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
)

// The split engine (docs/blocks/uet_cc.md, "Split send path") runs the
// events on two paths, each a shell of docs/pipeline.md:
//
//   - the send path (depth Params.Depth): every event, in order. It keeps
//     the load balancer and the bytes in flight, and reads the window from
//     a window table beside its word. An open's result shows the initial
//     window; every other event's shows the table's value at the edge
//     that issued it. may_send compares the bytes in flight after the event
//     with that window.
//   - the window path (the window controller's own shell, with its merge
//     slots): the send path's results of every kind but send and error, in
//     order, with the bytes in flight after the event as unacked. Its
//     results are taken at once, and each one that is not an error writes
//     its connection's window into the table.
//
// The send path's result stream is the engine's. A result of the window
// path's kinds also enters the window queue (SplitQueueLen entries) as it
// is taken, and the queue's head is the window path's input. The engine
// takes an event while fewer events than the queue holds are accepted and
// not yet passed on (to the queue's head's taker, or dropped as a send or
// an error), so the queue never refuses a result. An accepted open writes
// the initial window into the table in the next cycle; the window path's
// results wait for that cycle. A table write in cycle b is seen by the
// events issued in cycles b+1 and later.

// WindowPath is the split engine's window path: the window controller's
// shell.
type WindowPath struct {
	Depth      int  // datapath stages; 0: the engine is not split
	Slots      int  // merge slots (0: the plain shell)
	MergeAcks  bool // with Slots, ACKs merge (gsmartt.AckMerger)
	MergeNacks bool // with MergeAcks, NACKs merge too
}

// sendOut is a send path result: the engine's result, plus what the window queue
// hands to the window path.
type sendOut struct {
	Result
	Size uint32
	ECN  bool
	RTT  uint32
	Now  uint64
}

// sendModel is the send path's transaction model: the bytes in flight and
// the load balancer of Model, and the window table as the send path's
// reads see it.
type sendModel struct {
	m       *Model
	win     []uint32 // the window table, as read by the event in the last stage
	initWin uint32
	lbEv    greps.Event
	lbRes   greps.Result
}

func (s *sendModel) Reset()                  { s.m.Reset() }
func (s *sendModel) ConnKey(e *Event) uint64 { return s.m.ConnKey(e) }

func (s *sendModel) StepTo(ev *Event, o *sendOut) {
	r := &o.Result
	e, ok := s.m.admit(ev, r)
	o.Size, o.ECN, o.RTT, o.Now = 0, false, 0, 0
	if !ok {
		return
	}
	// the fields the send path hands on, through its ports' widths
	p := &s.m.p
	o.Size, o.ECN, o.RTT, o.Now = e.Size, e.ECN, e.RTT&uint32(uint64(1)<<p.CC.RttW-1), e.Now&(uint64(1)<<p.CC.TimeW-1)
	f := s.m.stepInflight(&e)
	r.Inflight = f
	r.Cwnd = s.win[e.Conn]
	if e.Kind == KindOpen {
		r.Cwnd = s.initWin
	}
	s.lbEv = greps.Event{Conn: e.Conn, Kind: greps.Kind(e.Kind), ECN: e.ECN, EV: e.EV, Now: e.Now}
	s.m.lb.StepTo(&s.lbEv, &s.lbRes)
	r.EV, r.Explored, r.Frozen = s.lbRes.EV, s.lbRes.Explored, s.lbRes.Frozen
	r.MaySend = s.m.maySend(f, r.Cwnd)
}

// sideBeat is a write of the window table.
type sideBeat struct {
	cycle uint64
	conn  uint32
	cwnd  uint32
}

// Split is the split engine at cycle level.
type Split struct {
	p      Params
	sm     *sendModel
	send   *pipe.Pipeline[Event, sendOut]
	cc     *gsmartt.Model
	win    *gsmartt.Pipeline
	last   uint64 // the send path's last stage: a read is applied this many cycles after its issue
	cycle  uint64
	beats  []sideBeat // written, not yet seen by the event in the last stage
	queue  []gsmartt.Event
	qLen   int
	held   int  // events accepted and not yet passed on to the window path or dropped from it
	room   bool // held < qLen after the last edge: the engine takes events
	openWr bool // an open was accepted in the last cycle
	openC  uint32
	zero   Result
	res    Result
	wBeat  bool           // a window update was taken in the last cycle
	wRes   gsmartt.Result // that update (m_window_*)
}

// NewSplit returns the split engine of p (p.Window.Depth > 0), empty, with
// all-zero tables.
func NewSplit(p Params) (*Split, error) {
	if p.Window.Depth < 1 {
		return nil, fmt.Errorf("uet: the split engine needs the window path's depth")
	}
	if p.Window.MergeAcks && p.Window.Slots == 0 {
		return nil, fmt.Errorf("uet: merged ACKs need merge slots")
	}
	m, err := NewModel(p)
	if err != nil {
		return nil, err
	}
	s := &Split{p: p, cc: m.cc, last: uint64(p.Depth + pipe.ReadStages), qLen: SplitQueueLen(p.Depth), room: true}
	s.sm = &sendModel{m: m, win: make([]uint32, p.CC.NumConn), initWin: p.CC.Derive().InitCwnd}
	s.send = pipe.New[Event, sendOut](s.sm, p.Depth)
	switch w := p.Window; {
	case w.Slots == 0:
		s.win = gsmartt.NewPipeline(m.cc, w.Depth)
	case w.MergeAcks:
		s.win = gsmartt.NewMergingPipeline(m.cc, w.Depth, w.Slots, w.MergeNacks)
	default:
		s.win = gsmartt.NewPlainSlotPipeline(m.cc, w.Depth, w.Slots)
	}
	return s, nil
}

// Model is the transaction state the engine's paths share (the bytes in
// flight, the load balancer, the window controller's words).
func (s *Split) Model() *Model { return s.sm.m }

// Window is connection c's entry of the window table, as the event now in
// the send path's last stage read it.
func (s *Split) Window(c uint32) uint32 { return s.sm.win[c] }

// see applies the table writes that the event in the send path's last
// stage this cycle read: those of cycles before its issue.
func (s *Split) see() {
	n := 0
	for _, b := range s.beats {
		if b.cycle+s.last+1 > s.cycle {
			break
		}
		s.sm.win[b.conn] = b.cwnd
		n++
	}
	s.beats = s.beats[n:]
}

// write records the window table's write of the cycle: an open accepted
// in the last cycle writes the initial window; otherwise the window
// path's result, unless an error. It reports whether the window path's
// result is taken (not while the open writes).
func (s *Split) write() bool {
	if s.openWr {
		s.beats = append(s.beats, sideBeat{s.cycle, s.openC, s.sm.initWin})
		return false
	}
	if _, wv, wres := s.win.Peek(); wv && !wres.Error {
		s.beats = append(s.beats, sideBeat{s.cycle, wres.Conn, wres.Cwnd})
	}
	return true
}

// Cycle returns the output ports during one cycle with inputs in, then
// applies the cycle's edge.
func (s *Split) Cycle(in CycleIn) CycleOut {
	s.see()
	usReady, hv, head := s.send.Peek()
	wReady, wv, wres := s.win.Peek()
	sReady := usReady && s.room
	need := hv && !head.Error && head.Kind != KindSend
	pop := hv && in.MReady
	push := pop && need
	qValid := len(s.queue) > 0
	take := qValid && wReady

	winTake := s.write()
	s.wBeat = wv && winTake
	s.wRes = gsmartt.Result{}
	if s.wBeat {
		s.wRes = *wres
	}
	s.res = s.zero
	if hv {
		s.res = head.Result
	}
	var pushed gsmartt.Event
	if push {
		pushed = gsmartt.Event{Conn: head.Conn, Kind: ccKinds[head.Kind], Size: head.Size, ECN: head.ECN,
			RTT: head.RTT, Unacked: head.Inflight, Now: head.Now}
	}
	dropped := pop && !need

	if qValid {
		*s.win.Input() = s.queue[0]
	}
	s.win.CyclePorts(qValid, winTake)
	*s.send.Input() = in.Event
	s.send.CyclePorts(in.SValid && s.room, pop)

	if take {
		s.queue = s.queue[1:]
	}
	if push {
		s.queue = append(s.queue, pushed)
	}
	accept := in.SValid && sReady
	if accept {
		s.held++
	}
	if dropped {
		s.held--
	}
	if take {
		s.held--
	}
	s.room = s.held < s.qLen
	c := in.Event.Conn & uint32(uint64(1)<<s.p.CC.ConnW-1)
	s.openWr = accept && in.Event.Kind&7 == KindOpen && uint64(c) < uint64(s.p.CC.NumConn)
	s.openC = c
	s.cycle++
	return CycleOut{SReady: sReady, MValid: hv, Result: s.res}
}

// Idle is whether the engine holds no event: both paths and the window
// queue are empty, so no result and no window update is still to come.
func (s *Split) Idle() bool {
	return s.held == 0 && len(s.queue) == 0 && s.send.Idle() && s.win.Idle()
}

// WindowUpdate is the m_window_* stream of the last Cycle: whether the
// window path's result was taken, and that result (zero when not).
func (s *Split) WindowUpdate() (bool, *gsmartt.Result) { return s.wBeat, &s.wRes }

// Reset is a cycle with rst high: the window table takes this cycle's
// write (it has no reset), both paths reset (docs/pipeline.md), the
// window queue empties and the open's write is cleared.
func (s *Split) Reset() {
	s.see()
	s.write()
	s.send.Reset()
	s.win.Reset()
	s.queue = s.queue[:0]
	s.held, s.room = 0, true
	s.openWr, s.wBeat = false, false
	s.cycle++
}

// SplitQueueLen is the split engine's window queue for a send path of
// depth stages: the events the send path holds (its input buffer and its
// credits) and two more.
func SplitQueueLen(depth int) int { return pipe.Credits(depth) + 4 }

// SplitLatency is the cycles from an event's acceptance to its result,
// without stalls: the send path's.
func SplitLatency(depth int) int { return pipe.Latency(depth) }

// StepSpaced is the split engine's result for an event that finds both
// paths empty, as when events come further apart than both paths'
// latency: the window it sees is the one its connection's last event
// left (an open's is the initial window), and the window controller then
// runs on it. Case, QA and Fast stay 0: the split engine's results do not
// carry them.
func (m *Model) StepSpaced(ev *Event, r *Result) {
	e, ok := m.admit(ev, r)
	if !ok {
		return
	}
	p := &m.p
	f := m.stepInflight(&e)
	r.Inflight = f
	r.Cwnd = uint32(m.cc.Conn(e.Conn).C >> uint(p.CC.F))
	if e.Kind == KindOpen {
		r.Cwnd = p.CC.Derive().InitCwnd
	}
	m.lbEv = greps.Event{Conn: e.Conn, Kind: greps.Kind(e.Kind), ECN: e.ECN, EV: e.EV, Now: e.Now}
	m.lb.StepTo(&m.lbEv, &m.lbRes)
	r.EV, r.Explored, r.Frozen = m.lbRes.EV, m.lbRes.Explored, m.lbRes.Frozen
	r.MaySend = m.maySend(f, r.Cwnd)
	if e.Kind != KindSend {
		m.ccEv = gsmartt.Event{Conn: e.Conn, Kind: ccKinds[e.Kind], Size: e.Size, ECN: e.ECN, RTT: e.RTT, Unacked: f, Now: e.Now}
		m.cc.StepTo(&m.ccEv, &m.ccRes)
	}
}
