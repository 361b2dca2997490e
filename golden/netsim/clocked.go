package netsim

import (
	"fmt"
	"slices"

	"github.com/nicgen/nicgen/golden/smartt"
	"github.com/nicgen/nicgen/golden/uet"
)

// UETCycler is uet_cc at cycle level: golden/uet's Pipeline (the shared
// shell) or its Split engine, the models the equivalence tests prove
// equal to the RTL cycle by cycle.
type UETCycler interface {
	Cycle(uet.CycleIn) uet.CycleOut
	Idle() bool
}

// windowStream is the split engine's m_window_* stream.
type windowStream interface {
	WindowUpdate() (bool, *smartt.Result)
}

// ClockedUET is a sender's uet_cc clocked as the hardware is, so that
// the loop closes through the engine's latency, its input stream and, in
// the split engine, its merged window path:
//
//   - the sender's NIC hands every event to the engine through a FIFO in
//     front of s_event (one event per cycle at most, when s_event_ready
//     is high); m_result is always ready;
//   - a send is decided when the window the sender holds allows it, and
//     its packet leaves once the engine's result for it (its entropy) is
//     out and the link is free; at most SendAhead sends are decided and
//     not yet on the link, so the next packet's result can be on its way
//     while one is serialised;
//   - the window the sender holds is the newest the engine has answered:
//     every result's window in the shared engine, the window path's
//     updates (m_window_*) in the split one.
type ClockedUET struct {
	*UETEngine
	c        UETCycler
	win      windowStream // the split engine's window stream; nil: results carry the window
	periodPs int64

	fifo     []queued // waiting for s_event_ready
	accepted []queued // taken by the engine, waiting for their results
	toWindow []int64  // arrival times of the events the window path is still to answer
	stats    EngineStats
	lastEdge int64
	edgeAt   int64 // the scheduled edge, 0 when none
}

// SendAhead is how many sends a clocked sender decides ahead of its link.
const SendAhead = 2

// EngineStats is a clocked engine's account of a run.
type EngineStats struct {
	// Cycles counts the engine's clock edges while it held an event.
	Cycles int64 `json:"cycles"`
	// MaxFIFO is the most events that waited for s_event_ready at once.
	MaxFIFO int `json:"max_fifo"`
	// FeedbackMeanNs and FeedbackMaxNs are the times from an ACK's,
	// NACK's or open's arrival at the NIC to the window update that
	// answers it (the split engine's window path merges ACKs: one update
	// answers every member of its group).
	FeedbackMeanNs float64 `json:"feedback_mean_ns"`
	FeedbackMaxNs  float64 `json:"feedback_max_ns"`
	// Updates counts the window updates, Feedback the events they answered.
	Updates  int64 `json:"updates"`
	Feedback int64 `json:"feedback"`
	// SendWaitMaxNs is the longest time from a send's decision to its
	// entropy's result.
	SendWaitMaxNs float64 `json:"send_wait_max_ns"`
	feedbackSum   float64
}

type queued struct {
	ev      uet.Event
	pkt     *packet // a send's packet, which leaves once its result is out
	unacked uint32  // the simulator's bytes in flight after the event
	atPs    int64
}

// NewClockedUET clocks c at clockMHz. c is a golden/uet Pipeline or Split;
// the Split's window stream is the sender's window.
func NewClockedUET(c UETCycler, clockMHz float64) (*ClockedUET, error) {
	if !(clockMHz >= 1 && clockMHz <= 10000) {
		return nil, fmt.Errorf("netsim: engine clock %v MHz: want 1..10000", clockMHz)
	}
	w, _ := c.(windowStream)
	return &ClockedUET{UETEngine: &UETEngine{EVs: map[uint32]int64{}}, c: c, win: w, periodPs: int64(1e6/clockMHz + 0.5)}, nil
}

// Stats is the engine's account of the run.
func (k *ClockedUET) Stats() EngineStats {
	s := k.stats
	if s.Feedback > 0 {
		s.FeedbackMeanNs = s.feedbackSum / float64(s.Feedback)
	}
	return s
}

// Step and StepEV belong to an engine that answers at once; the simulator
// never calls them on a clocked one.
func (k *ClockedUET) Step(smartt.Event) smartt.Result { return k.StepEV(smartt.Event{}, 0) }

// StepEV reports the misuse as an error result.
func (k *ClockedUET) StepEV(smartt.Event, uint32) smartt.Result {
	if k.err == nil {
		k.err = fmt.Errorf("uet_cc: a clocked engine was stepped at once")
	}
	return smartt.Result{Error: true}
}

// Send reports the misuse as an error.
func (k *ClockedUET) Send(uint32, uint32, uint64) (uint32, error) {
	return 0, fmt.Errorf("uet_cc: a clocked engine was asked for a send at once")
}

// offer queues an event at the NIC's FIFO.
func (k *ClockedUET) offer(q queued) {
	k.fifo = append(k.fifo, q)
	k.stats.MaxFIFO = max(k.stats.MaxFIFO, len(k.fifo))
}

// busy is whether the engine still has an edge to run.
func (k *ClockedUET) busy() bool { return len(k.fifo) > 0 || !k.c.Idle() }

// nextEdge is the first clock edge at or after nowPs that has not run.
func (k *ClockedUET) nextEdge(nowPs int64) int64 {
	e := (nowPs + k.periodPs - 1) / k.periodPs * k.periodPs
	if e <= k.lastEdge {
		e = k.lastEdge + k.periodPs
	}
	return e
}

// edgeOut is what one edge hands the simulator: the send whose result
// came out (its packet may leave), and the window update.
type edgeOut struct {
	sent   *packet
	window *smartt.Result
}

// edge runs one clock edge at nowPs.
func (k *ClockedUET) edge(nowPs int64) (o edgeOut, err error) {
	k.lastEdge, k.edgeAt = nowPs, 0
	k.stats.Cycles++
	in := uet.CycleIn{SValid: len(k.fifo) > 0, MReady: true}
	if in.SValid {
		in.Event = k.fifo[0].ev
	}
	out := k.c.Cycle(in)
	if in.SValid && out.SReady {
		k.accepted = append(k.accepted, k.fifo[0])
		k.fifo = slices.Delete(k.fifo, 0, 1)
	}
	if out.MValid {
		if len(k.accepted) == 0 {
			return o, fmt.Errorf("uet_cc: a result with no event")
		}
		q := k.accepted[0]
		k.accepted = slices.Delete(k.accepted, 0, 1)
		r := &out.Result
		if r.Error || r.Inflight != q.unacked {
			return o, fmt.Errorf("uet_cc connection %d: %d bytes in flight after %v (error %v), the simulator %d", q.ev.Conn, r.Inflight, q.ev.Kind, r.Error, q.unacked)
		}
		if r.Frozen {
			k.Frozen++
		}
		if q.ev.Kind == uet.KindSend {
			k.count(r)
			q.pkt.ev = r.EV
			o.sent = q.pkt
			k.stats.SendWaitMaxNs = max(k.stats.SendWaitMaxNs, float64(nowPs-q.atPs)/1000)
		} else {
			k.toWindow = append(k.toWindow, q.atPs)
			if k.win == nil {
				w := smartt.Result{Conn: r.Conn, Cwnd: r.Cwnd, Case: r.Case, QA: r.QA, Fast: r.Fast}
				o.window = &w
				k.answered(nowPs, 1)
			}
		}
	}
	if k.win != nil {
		if ok, w := k.win.WindowUpdate(); ok {
			n := max(int(w.Members), 1)
			if n > len(k.toWindow) {
				return o, fmt.Errorf("uet_cc: a window update for %d events, %d waiting", n, len(k.toWindow))
			}
			c := *w
			o.window = &c
			k.answered(nowPs, n)
		}
	}
	return o, nil
}

// answered takes the oldest n events off toWindow: one window update
// answered them at nowPs.
func (k *ClockedUET) answered(nowPs int64, n int) {
	k.stats.Updates++
	for _, at := range k.toWindow[:n] {
		d := float64(nowPs-at) / 1000
		k.stats.Feedback++
		k.stats.feedbackSum += d
		k.stats.FeedbackMaxNs = max(k.stats.FeedbackMaxNs, d)
	}
	k.toWindow = slices.Delete(k.toWindow, 0, n)
}

// count tallies a send's entropy.
func (u *UETEngine) count(r *uet.Result) {
	if r.Explored {
		u.Explored++
	} else {
		u.Recycled++
	}
	u.EVs[r.EV]++
}

// ClockedEngines gives each of n senders a uet_cc of its own at cycle
// level, clocked at clockMHz (its LFSR seeded apart as in GoldenEngines):
// the split engine when p.Window.Depth > 0, else the shared shell.
func ClockedEngines(p uet.Params, n int, clockMHz float64) ([]Controller, []*ClockedUET, error) {
	cs := make([]Controller, n)
	ks := make([]*ClockedUET, n)
	for i := range cs {
		q := seeded(p, i)
		var c UETCycler
		if q.Window.Depth > 0 {
			s, err := uet.NewSplit(q)
			if err != nil {
				return nil, nil, fmt.Errorf("uet_cc model: %w", err)
			}
			c = s
		} else {
			m, err := uet.NewModel(q)
			if err != nil {
				return nil, nil, fmt.Errorf("uet_cc model: %w", err)
			}
			c = uet.NewPipeline(m, q.Depth)
		}
		k, err := NewClockedUET(c, clockMHz)
		if err != nil {
			return nil, nil, err
		}
		ks[i], cs[i] = k, k
	}
	return cs, ks, nil
}

// offer hands an event to a clocked sender's engine, stamped now, and
// makes sure its next edge is scheduled.
func (s *sim) offer(snd *sender, q queued) {
	q.atPs = s.nowPs
	q.ev.Now = uint64(s.nowPs / 1000)
	snd.clk.offer(q)
	s.clock(snd)
}

// clock schedules a clocked sender's next edge while its engine is busy.
func (s *sim) clock(snd *sender) {
	k := snd.clk
	if k.edgeAt != 0 || !k.busy() {
		return
	}
	k.edgeAt = k.nextEdge(s.nowPs)
	s.seq++
	s.events.push(event{atPs: k.edgeAt, kind: evEngine, seq: s.seq, snd: int(snd.conn)})
}

// engineEdge runs a clocked sender's engine edge and applies what comes
// out: a send's packet goes to the link, a window update to the sender.
func (s *sim) engineEdge(snd *sender) {
	o, err := snd.clk.edge(s.nowPs)
	if err != nil {
		if s.errStep == nil {
			s.errStep = fmt.Errorf("netsim: sender %d: %w", snd.conn, err)
		}
		return
	}
	if o.window != nil {
		s.record(snd, *o.window)
	}
	if o.sent != nil {
		snd.ready = append(snd.ready, o.sent)
		s.startLink(snd)
	}
	s.trySend(snd)
	s.clock(snd)
}

// decideSend decides a clocked sender's next packet, as trySend does for
// an engine that answers at once, and hands its send to the engine; it
// reports whether it did.
func (s *sim) decideSend(snd *sender) bool {
	size, ok := s.nextPacket(snd)
	if !ok {
		return false
	}
	snd.requested++
	p := &packet{sender: int(snd.conn), size: size}
	s.offer(snd, queued{ev: uet.Event{Conn: snd.conn, Kind: uet.KindSend, Size: uint32(size)}, pkt: p, unacked: uint32(snd.inFlight)})
	return true
}

// startLink puts a clocked sender's oldest packet whose entropy is out on
// its idle link.
func (s *sim) startLink(snd *sender) {
	if snd.clk == nil || snd.busy || len(snd.ready) == 0 {
		return
	}
	p := snd.ready[0]
	snd.ready = snd.ready[1:]
	snd.requested--
	snd.busy = true
	p.sentPs = s.nowPs
	s.schedule(s.nowPs+s.tm.ser(p.size), evSenderDone, p)
}

// EngineTotals sums the clocked engines' accounts: counts add up, maxima
// are the largest sender's, the mean feedback time is over every event.
func EngineTotals(ks []*ClockedUET) EngineStats {
	var t EngineStats
	for _, k := range ks {
		s := k.stats
		t.Cycles += s.Cycles
		t.MaxFIFO = max(t.MaxFIFO, s.MaxFIFO)
		t.FeedbackMaxNs = max(t.FeedbackMaxNs, s.FeedbackMaxNs)
		t.SendWaitMaxNs = max(t.SendWaitMaxNs, s.SendWaitMaxNs)
		t.Updates += s.Updates
		t.Feedback += s.Feedback
		t.feedbackSum += s.feedbackSum
	}
	if t.Feedback > 0 {
		t.FeedbackMeanNs = t.feedbackSum / float64(t.Feedback)
	}
	return t
}
