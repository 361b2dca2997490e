package reps

import (
	"testing"
)

// Cycle behaviour: the pipelined shell of docs/pipeline.md around a
// datapath of D stages. Expected cycles are worked out here from the
// contract text, never taken from golden/pipe:
//   - an event accepted in cycle t (s_event_valid && s_event_ready) enters
//     the input buffer at that edge, issues in cycle t+1 at the earliest,
//     is in stage k in cycle issue+k (stages 1..D+R, R = readStages: the
//     block RAM read, its output register, the bank and snoop selection,
//     then D datapath stages) and its result is at the head of the result
//     buffer (m_result_valid) from cycle issue+D+R+1: latency D+R+2 with
//     no stall;
//   - s_event_ready is 1 in a cycle iff the input buffer held at most one
//     event after the previous edge;
//   - the head waits while an event of its connection is in stages 1..D-1
//     (so one event of a connection every D cycles) or while D+R+2 events
//     are issued and not yet taken (the credits: with m_result_ready high
//     the events issued in the last D+R+1 cycles are in flight, the oldest
//     being taken, so D+R+2 lets one issue every cycle).

// readStages is R above, the number of stages before the datapath.
const readStages = 3

// latency is the number of cycles from an event's acceptance to its result
// with no stall.
func latency(d int) int { return d + readStages + 2 }

// credits is the number of events that may be issued and not yet taken.
func credits(d int) int { return d + readStages + 2 }

// depths are the datapath depths every cycle test runs.
var depths = []int{1, 2, 3, 4, 5}

func cycleModel(t *testing.T) *Model {
	t.Helper()
	return newModel(t, func(p *Params) { p.ExploreInit = 0 })
}

// TestPipelineLatency: an isolated event's result is valid in exactly one
// cycle, latency(D) cycles after its acceptance; s_event_ready stays high.
func TestPipelineLatency(t *testing.T) {
	for _, d := range depths {
		pl := NewPipeline(cycleModel(t), d)
		for c := range latency(d) + 4 {
			in := CycleIn{MReady: true}
			if c == 0 {
				in.SValid, in.Event = true, ev(1, KindOpen, 0)
			}
			want := CycleOut{SReady: true}
			if c == latency(d) {
				want = CycleOut{SReady: true, MValid: true, Result: Result{Conn: 1, Kind: KindOpen}}
			}
			if out := pl.Cycle(in); out != want {
				t.Fatalf("depth %d cycle %d: %+v, want %+v", d, c, out, want)
			}
		}
	}
}

// TestPipelineDepthZero: a depth below 1 reads as 1 (latency(1)).
func TestPipelineDepthZero(t *testing.T) {
	pl := NewPipeline(cycleModel(t), 0)
	pl.Cycle(CycleIn{SValid: true, Event: ev(1, KindOpen, 0), MReady: true})
	for c := 1; c <= latency(1)+2; c++ {
		if out := pl.Cycle(CycleIn{MReady: true}); out.MValid != (c == latency(1)) {
			t.Fatalf("cycle %d: %+v", c, out)
		}
	}
}

// TestPipelineOnePerClock: events of different connections, one offered
// every cycle, are all accepted at once and come out one per clock,
// latency(D) cycles later, equal to the transaction-level run. A connection
// recurs after 6 events, out of the hazard window of every depth tested (an
// event of it issued 6 cycles earlier is in stage 6 >= D).
func TestPipelineOnePerClock(t *testing.T) {
	var in []Event
	for c := range uint32(6) {
		in = append(in, ev(c, KindOpen, 0))
	}
	for i := range uint32(6) {
		in = append(in, ack(i, 40+i, 1))
	}
	for i := range uint32(12) {
		in = append(in, ev(i%6, KindSend, 2))
	}
	for _, d := range depths {
		ref := cycleModel(t)
		pl := NewPipeline(cycleModel(t), d)
		for c := range len(in) + latency(d) + 2 {
			cin := CycleIn{MReady: true}
			if c < len(in) {
				cin.SValid, cin.Event = true, in[c]
			}
			out := pl.Cycle(cin)
			want := CycleOut{SReady: true}
			if k := c - latency(d); k >= 0 && k < len(in) {
				want.MValid, want.Result = true, ref.Step(in[k])
			}
			if out != want {
				t.Fatalf("depth %d cycle %d: %+v, want %+v", d, c, out, want)
			}
		}
	}
}

// TestPipelineSameConn: events of one connection offered back to back.
// Event k issues in cycle 1+kD (the previous one must have left stages
// 1..D-1), so its result is valid in cycle kD+latency(D); the buffer takes
// events 0, 1 and 2 in cycles 0..2, then fills, and each issue frees one
// place (ready is a register: one cycle later), so event k >= 2 is accepted
// in cycle (k-2)D+2. Every event sees its predecessor's word: the sends
// recycle the acked EVs. Conn 3 + 2^ConnW is conn 3 at the 16-bit port.
func TestPipelineSameConn(t *testing.T) {
	const alias = 3 + 1<<16
	in := []Event{ev(3, KindOpen, 0), ack(alias, 77, 1), ack(3, 88, 2), ev(alias, KindSend, 3), ev(3, KindSend, 4), ev(3, KindSend, 5)}
	want := []Result{
		{Conn: 3, Kind: KindOpen}, {Conn: 3, Kind: KindAck}, {Conn: 3, Kind: KindAck},
		sendRes(3, 77, false, false), sendRes(3, 88, false, false), sendRes(3, firstDraw16, true, false),
	}
	for _, d := range depths {
		accept := func(k int) int {
			if k < 2 {
				return k
			}
			return (k-2)*d + 2
		}
		pl := NewPipeline(cycleModel(t), d)
		next, got := 0, 0
		for c := range len(in)*d + latency(d) + 2 {
			cin := CycleIn{MReady: true}
			if next < len(in) {
				cin.SValid, cin.Event = true, in[next]
			}
			out := pl.Cycle(cin)
			if next < len(in) && out.SReady != (c == accept(next)) {
				t.Fatalf("depth %d cycle %d: SReady %v, event %d is due in cycle %d", d, c, out.SReady, next, accept(next))
			}
			if out.SReady && cin.SValid {
				next++
			}
			if out.MValid != (got < len(want) && c == got*d+latency(d)) {
				t.Fatalf("depth %d cycle %d: MValid %v, result %d is due in cycle %d", d, c, out.MValid, got, got*d+latency(d))
			}
			if out.MValid {
				if out.Result != want[got] {
					t.Fatalf("depth %d: result %d = %+v, want %+v", d, got, out.Result, want[got])
				}
				got++
			}
		}
		if next != len(in) || got != len(want) {
			t.Fatalf("depth %d: %d accepted, %d results", d, next, got)
		}
	}
}

// TestPipelineInterleaved: A1 B A2 C, A2 of A1's connection, offered in
// cycles 0..3. Issue is in order: A1 issues in cycle 1, B in 2, A2 once A1
// has left stages 1..D-1, in max(3, 1+D), and C, queued behind A2, one
// cycle later. Each result is valid D+R+1 cycles after its issue.
func TestPipelineInterleaved(t *testing.T) {
	in := []Event{ev(0, KindOpen, 0), ev(1, KindOpen, 0), ack(0, 5, 1), ev(2, KindOpen, 1)}
	for _, d := range depths {
		ref := cycleModel(t)
		var want []Result
		for _, e := range in {
			want = append(want, ref.Step(e))
		}
		issue := []int{1, 2, max(3, 1+d)}
		issue = append(issue, issue[2]+1)
		pl := NewPipeline(cycleModel(t), d)
		got := 0
		for c := range 3*d + readStages + 9 {
			cin := CycleIn{MReady: true}
			if c < len(in) {
				cin.SValid, cin.Event = true, in[c]
			}
			out := pl.Cycle(cin)
			if c < len(in) && !out.SReady {
				t.Fatalf("depth %d cycle %d: not ready", d, c)
			}
			due := got < len(in) && c == issue[got]+d+readStages+1
			if out.MValid != due || due && out.Result != want[got] {
				t.Fatalf("depth %d cycle %d: %+v, result %d due in cycle %d: %+v", d, c, out, got, issue[min(got, 3)]+d+readStages+1, want[min(got, 3)])
			}
			if due {
				got++
			}
		}
		if got != len(in) {
			t.Fatalf("depth %d: %d results", d, got)
		}
	}
}

// TestPipelineCredits: with m_result_ready low and a new connection's
// event offered every cycle, event k is accepted in cycle k and issues in
// k+1 while fewer than C = credits(D) are issued: events 0..C-1 issue,
// event C waits at the head, event C+1 fills the buffer in cycle C+1 and
// ready drops from cycle C+2 on: 2 + C events accepted in all. The first
// result is valid from cycle latency(D) and holds. Released in cycle r, one
// result is taken per cycle; the head issues in r+1 (in cycle r the
// result being taken still counts), ready rises in r+2, and results then
// flow one per clock without a gap.
func TestPipelineCredits(t *testing.T) {
	for _, d := range depths {
		ref := cycleModel(t)
		r := 3*d + 20 // release cycle
		var in, poison []Event
		var want []Result
		for c := range uint32(r + d + 20) {
			in = append(in, ev(c, KindOpen, 0))
			want = append(want, ref.Step(in[c]))
			poison = append(poison, ev(1000+c, KindOpen, 0))
		}
		pl := NewPipeline(cycleModel(t), d)
		next, got := 0, 0
		for c := range r + d + 20 {
			ready := c <= credits(d)+1 || c >= r+2
			cin := CycleIn{SValid: true, Event: in[next], MReady: c >= r}
			if !ready { // what a source may not do: proves nothing is taken
				cin.Event = poison[c]
			}
			out := pl.Cycle(cin)
			if out.SReady != ready {
				t.Fatalf("depth %d cycle %d: SReady %v", d, c, out.SReady)
			}
			if out.SReady {
				next++
			}
			if c == r-1 && next != 2+credits(d) {
				t.Fatalf("depth %d: %d events accepted under back-pressure, want 2 + %d", d, next, credits(d))
			}
			switch {
			case c < latency(d):
				if out.MValid {
					t.Fatalf("depth %d cycle %d: early result %+v", d, c, out)
				}
			case c < r:
				if !out.MValid || out.Result != want[0] {
					t.Fatalf("depth %d cycle %d: stalled result %+v, want %+v", d, c, out, want[0])
				}
			default:
				if !out.MValid || out.Result != want[got] {
					t.Fatalf("depth %d cycle %d: result %d = %+v (valid %v), want %+v", d, c, got, out.Result, out.MValid, want[got])
				}
				got++
			}
		}
	}
}

// TestPipelineReset: rst in the middle of a stream of events of distinct
// connections (accepted in cycle k, issued in k+1, in the last stage, D+R,
// in k+1+D+R), in cycle D+R+3: events 0..2 are written (event 2 at the rst
// edge: block RAM has no reset), events 3..D+R+1 (stages) and D+R+2 (input
// buffer) are dropped unwritten, the results of events 1 and 2 are dropped
// with the result buffer, and the LFSR is reloaded. Then the same with the
// pipeline full under back-pressure.
func TestPipelineReset(t *testing.T) {
	for _, d := range depths {
		m := cycleModel(t)
		ref := cycleModel(t) // the table as the RTL keeps it
		pl := NewPipeline(m, d)
		const conns = 12
		for c := range uint32(conns) { // open them all and drain
			pl.Cycle(CycleIn{SValid: true, Event: ev(c, KindOpen, 0), MReady: true})
			ref.Step(ev(c, KindOpen, 0))
		}
		for range latency(d) + 2 {
			pl.Cycle(CycleIn{MReady: true})
		}
		in := []Event{ev(0, KindSend, 1)} // draws from the LFSR
		for c := range uint32(conns - 1) {
			in = append(in, ack(c+1, 100+c, 1))
		}
		res0 := ref.Step(in[0])
		for c := range 2 + 1 + d + readStages { // until event 2 is in the last stage
			out := pl.Cycle(CycleIn{SValid: true, Event: in[c], MReady: true})
			if !out.SReady || out.MValid != (c == latency(d)) || out.MValid && out.Result != res0 {
				t.Fatalf("depth %d cycle %d: %+v", d, c, out)
			}
		}
		if m.LFSR() == defaultSeed {
			t.Fatalf("depth %d: setup: the send did not draw", d)
		}
		pl.Reset()
		ref.Step(in[1])
		ref.Step(in[2])
		ref.Reset()
		if m.LFSR() != defaultSeed {
			t.Fatalf("depth %d: Reset did not reload the LFSR", d)
		}
		for c := range uint32(conns) {
			checkConn(t, m, c, ref.Conn(c))
		}
		for c := range latency(d) + 2 {
			if out := pl.Cycle(CycleIn{MReady: true}); out != (CycleOut{SReady: true}) {
				t.Fatalf("depth %d: cycle %d after reset: %+v", d, c, out)
			}
		}
		// Fill everything: results, stages and the input buffer.
		for c := range 2 + credits(d) + d + 3 { // more than the 2 + credits(D) it takes
			pl.Cycle(CycleIn{SValid: true, Event: ack(uint32(c%conns), 7, 2), MReady: false})
		}
		if out := pl.Cycle(CycleIn{MReady: false}); out.SReady || !out.MValid {
			t.Fatalf("depth %d: setup: not full: %+v", d, out)
		}
		before := make([]State, conns)
		for c := range before {
			before[c] = m.Conn(uint32(c))
		}
		pl.Reset()
		for c := range latency(d) + 2 {
			if out := pl.Cycle(CycleIn{MReady: true}); out != (CycleOut{SReady: true}) {
				t.Fatalf("depth %d: cycle %d after the second reset: %+v", d, c, out)
			}
		}
		for c := range before { // every issued event was written; the two buffered ones are dropped
			checkConn(t, m, uint32(c), before[c])
		}
		// A send after the reset (conn 11 has no cached EV): the seed's
		// first draw, latency(D) cycles later.
		e := ev(conns-1, KindSend, 3)
		pl.Cycle(CycleIn{SValid: true, Event: e, MReady: true})
		for c := 1; c <= latency(d); c++ {
			out := pl.Cycle(CycleIn{MReady: true})
			if out.MValid != (c == latency(d)) || out.MValid && out.Result != sendRes(conns-1, firstDraw16, true, false) {
				t.Fatalf("depth %d: cycle %d after reset: %+v", d, c, out)
			}
		}
	}
}

// randomCycles drives a pipeline with random valid/ready patterns and
// checks that the consumed results are, 1:1 and in order, the reference
// stepper applied to the accepted events, that a stalled result holds, that
// no result comes earlier than latency(D) cycles after its event's
// acceptance, that at most 2 + credits(D) events are in flight, and that
// s_event_ready is low only with two events accepted and not yet out.
func randomCycles(t *testing.T, pl *Pipeline, ref Stepper, cycles int, seed rng) {
	t.Helper()
	d := pl.Depth()
	r := seed
	var now uint64
	type pend struct {
		res Result
		acc int
	}
	var pending []pend // expected, not yet consumed
	var last CycleOut
	lastReady := true
	accepted, consumed, notReady, full := 0, 0, 0, 0
	validP, readyP := uint64(1+r.next()%4), uint64(1+r.next()%4)
	for c := range cycles {
		if c%1000 == 0 { // change the traffic pattern now and then
			validP, readyP = 1+r.next()%4, r.next()%5
		}
		in := CycleIn{SValid: r.chance(validP, 4), Event: randomEvent(&r, &now), MReady: r.chance(readyP, 4)}
		out := pl.Cycle(in)
		if !out.SReady {
			notReady++
			if len(pending) < 2 {
				t.Fatalf("depth %d cycle %d: not ready with %d events in flight", d, c, len(pending))
			}
		}
		// A valid result that was not consumed must still be there.
		if last.MValid && !lastReady && (!out.MValid || out.Result != last.Result) {
			t.Fatalf("depth %d cycle %d: stalled output changed: %+v -> %+v", d, c, last, out)
		}
		if !out.MValid && out.Result != (Result{}) {
			t.Fatalf("depth %d cycle %d: data %+v while not valid", d, c, out.Result)
		}
		if out.MValid {
			if len(pending) == 0 {
				t.Fatalf("depth %d cycle %d: result %+v with no accepted event", d, c, out.Result)
			}
			if c-pending[0].acc < latency(d) {
				t.Fatalf("depth %d cycle %d: result of the event accepted in cycle %d, before latency %d", d, c, pending[0].acc, latency(d))
			}
			if out.Result != pending[0].res {
				t.Fatalf("depth %d cycle %d: result %d = %+v, want %+v", d, c, consumed, out.Result, pending[0].res)
			}
		}
		if out.MValid && in.MReady {
			pending = pending[1:]
			consumed++
		}
		if in.SValid && out.SReady {
			pending = append(pending, pend{stepVia(ref, in.Event), c})
			accepted++
		}
		if len(pending) > 2+credits(d) {
			t.Fatalf("depth %d cycle %d: %d events in flight, the pipeline holds 2 + %d", d, c, len(pending), credits(d))
		}
		if len(pending) == 2+credits(d) {
			full++
		}
		last, lastReady = out, in.MReady
	}
	if accepted-consumed != len(pending) || accepted < cycles/10 || notReady == 0 || full == 0 {
		t.Fatalf("depth %d: accepted %d, consumed %d, pending %d, %d cycles not ready, %d full", d, accepted, consumed, len(pending), notReady, full)
	}
}

func TestPipelineMatchesModel(t *testing.T) {
	for _, d := range depths {
		p := invariantParams()
		m, _ := NewModel(p)
		ref, _ := NewModel(p)
		randomCycles(t, NewPipeline(m, d), ref, 100_000, rng(11+d))
	}
}

func TestPipelineMatchesConfModel(t *testing.T) {
	for _, d := range depths {
		p := DefaultConfParams()
		p.NumConn, p.ConnW, p.NumEntropies, p.EntW, p.ExploreW, p.ExploreInit = 4, 3, 5, 3, 3, 3
		m, _ := NewConfModel(p)
		ref, _ := NewConfModel(p)
		randomCycles(t, NewPipeline(m, d), ref, 100_000, rng(12+d))
	}
}

func TestPipelineCycleDoesNotAllocate(t *testing.T) {
	m := newModel(t, nil)
	pl := NewPipeline(m, 3)
	i := uint32(0)
	allocs := testing.AllocsPerRun(10000, func() {
		i++
		pl.Cycle(CycleIn{SValid: true, Event: Event{Conn: i % 4096, Kind: Kind(i % 5), EV: i, Now: uint64(i)}, MReady: i%3 != 0})
	})
	if allocs != 0 {
		t.Fatalf("Cycle allocates %v times per call", allocs)
	}
}

// BenchmarkPipelineCycle drives the reps pipeline (default parameters,
// depth 3, 4096 open connections) with random events and random
// back-pressure.
func BenchmarkPipelineCycle(b *testing.B) {
	m, err := NewModel(DefaultParams())
	if err != nil {
		b.Fatal(err)
	}
	for c := range uint32(4096) {
		m.Step(ev(c, KindOpen, 0))
	}
	// Precomputed stimulus so that the benchmark measures the model.
	const ring = 1 << 16
	ins := make([]CycleIn, ring)
	r := rng(5)
	for i := range ins {
		e := Event{Conn: uint32(r.next() % 4096), ECN: r.chance(1, 8), EV: uint32(r.next()), Now: uint64(i) * 16}
		switch x := r.next() % 100; {
		case x < 45:
			e.Kind = KindSend
		case x < 90:
			e.Kind = KindAck
		case x < 95:
			e.Kind = KindNack
		default:
			e.Kind = KindTimeout
		}
		ins[i] = CycleIn{SValid: r.chance(15, 16), Event: e, MReady: r.chance(15, 16)}
	}
	pl := NewPipeline(m, 3)
	i := 0
	for b.Loop() {
		in := &ins[i&(ring-1)]
		*pl.Input() = in.Event
		pl.CyclePorts(in.SValid, in.MReady)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cycles/s")
}

// BenchmarkModelStep measures the transaction model alone.
func BenchmarkModelStep(b *testing.B) {
	m, _ := NewModel(DefaultParams())
	for c := range uint32(4096) {
		m.Step(ev(c, KindOpen, 0))
	}
	r := rng(6)
	const ring = 1 << 16
	evs := make([]Event, ring)
	for i := range evs {
		evs[i] = Event{Conn: uint32(r.next() % 4096), Kind: Kind(1 + r.next()%4), ECN: r.chance(1, 8), EV: uint32(r.next()), Now: uint64(i) * 16}
	}
	var res Result
	i := 0
	for b.Loop() {
		m.StepTo(&evs[i&(ring-1)], &res)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// stepVia executes e on s as the pipeline does.
func stepVia(s Stepper, e Event) Result {
	var r Result
	s.StepTo(&e, &r)
	return r
}
