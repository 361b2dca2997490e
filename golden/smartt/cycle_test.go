package smartt

import "testing"

// Cycle behaviour: the pipelined shell of docs/pipeline.md around a
// datapath of D stages, shared with reps (see golden/reps/cycle_test.go for
// the same checks on the REPS blocks). Expected cycles are worked out here
// from the contract text, never taken from golden/pipe:
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

// TestPipelineLatency: an isolated event's result is valid in exactly one
// cycle, latency(D) cycles after its acceptance; s_event_ready stays high.
func TestPipelineLatency(t *testing.T) {
	for _, d := range depths {
		pl := NewPipeline(newModel(t, Conf, nil), d)
		for c := range latency(d) + 4 {
			in := CycleIn{MReady: true}
			if c == 0 {
				in.SValid, in.Event = true, openEv(1, 0)
			}
			want := CycleOut{SReady: true}
			if c == latency(d) {
				want = CycleOut{SReady: true, MValid: true, Result: res(1, KindOpen, 1_075_000, CaseNone)}
			}
			if out := pl.Cycle(in); out != want {
				t.Fatalf("depth %d cycle %d: %+v, want %+v", d, c, out, want)
			}
		}
	}
}

// TestPipelineOnePerClock: events of different connections, one offered
// every cycle, are all accepted at once and come out one per clock,
// latency(D) cycles later, equal to the transaction-level run. A connection
// recurs after 6 events, out of the hazard window of every depth tested.
func TestPipelineOnePerClock(t *testing.T) {
	var in []Event
	for c := range uint32(6) {
		in = append(in, openEv(c, 0))
	}
	for i := range uint32(18) {
		if i%4 == 3 {
			in = append(in, lossEv(i%6, KindNack, mtu, 0, uint64(1000+i)))
		} else {
			in = append(in, ackEv(i%6, mtu, 9000+100*i, i%3 == 0, 2*mtu, uint64(1000+i)))
		}
	}
	for _, v := range []Variant{Conf, NSCC} {
		for _, d := range depths {
			ref := newModel(t, v, nil)
			pl := NewPipeline(newModel(t, v, nil), d)
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
					t.Fatalf("%s depth %d cycle %d: %+v, want %+v", v, d, c, out, want)
				}
			}
		}
	}
}

// TestPipelineSameConn: events of one connection offered back to back.
// Event k issues in cycle 1+kD, so its result is valid in cycle
// kD+latency(D); the buffer takes events 0..2 in cycles 0..2, then each
// issue frees one place (ready is a register: one cycle later), so event k
// >= 2 is accepted in cycle (k-2)D+2. Each event sees its predecessor's
// word. Conn 3 + 2^ConnW is conn 3 at the 16-bit port.
func TestPipelineSameConn(t *testing.T) {
	const alias = 3 + 1<<16
	in := []Event{openEv(3, 0), lossEv(alias, KindNack, mtu, 0, 1), lossEv(3, KindNack, mtu, 0, 2), ackEv(alias, mtu, 20_000, false, 0, 3)}
	ref := newModel(t, Conf, initCwnd(mtu))
	var want []Result
	for _, e := range in {
		want = append(want, ref.Step(e))
	}
	// FI from the MTU, c = 2^18: div(4096 * KFi, 2^18): m = 1024, T =
	// 2047, e = 18: (98,497,916,928 * 2047) >> 29 = 375,556 (exact
	// 375,739.7); c = 637,700 -> 9964 B.
	if want[3].Cwnd != 9964 || want[3].Conn != 3 {
		t.Fatalf("ack after two nacks: %+v", want[3])
	}
	for _, d := range depths {
		accept := func(k int) int {
			if k < 2 {
				return k
			}
			return (k-2)*d + 2
		}
		pl := NewPipeline(newModel(t, Conf, initCwnd(mtu)), d)
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

// TestPipelineCredits: with m_result_ready low and a new connection's
// event offered every cycle, with C = credits(D), events 0..C-1 issue in
// cycles 1..C, event C waits at the head (C issued, none taken), event C+1
// fills the buffer in cycle C+1 and ready is low from cycle C+2: 2 + C
// events accepted. The first result is valid from cycle latency(D) and
// holds. Released in cycle r: the head issues in r+1, ready rises in r+2,
// and results flow one per clock without a gap.
func TestPipelineCredits(t *testing.T) {
	for _, d := range depths {
		r := 3*d + 20 // release cycle
		ref := newModel(t, NSCC, nil)
		var in, poison []Event
		var want []Result
		for c := range uint32(r + d + 20) {
			in = append(in, openEv(c, 0))
			want = append(want, ref.Step(in[c]))
			poison = append(poison, lossEv(c, KindNack, mtu, 0, 1))
		}
		pl := NewPipeline(newModel(t, NSCC, nil), d)
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

// TestPipelineReset: rst in cycle D+R+3 of a stream of events of distinct
// connections (event k accepted in cycle k, issued in k+1, in the last
// stage, D+R, in k+1+D+R): events 0..2 are written (event 2 at the rst
// edge: block RAM has no reset), events 3..D+R+1 (stages) and D+R+2 (input
// buffer) are dropped unwritten, and so are the results in the result
// buffer. Then the same with the pipeline full under back-pressure.
func TestPipelineReset(t *testing.T) {
	for _, d := range depths {
		m := newModel(t, Conf, nil)
		ref := newModel(t, Conf, nil) // the table as the RTL keeps it
		pl := NewPipeline(m, d)
		const conns = 12
		for c := range uint32(conns) { // open them all and drain
			pl.Cycle(CycleIn{SValid: true, Event: openEv(c, 0), MReady: true})
			ref.Step(openEv(c, 0))
		}
		for range latency(d) + 2 {
			pl.Cycle(CycleIn{MReady: true})
		}
		var in []Event
		for c := range uint32(conns) {
			in = append(in, lossEv(c, KindNack, mtu, 0, 1))
		}
		res0 := ref.Step(in[0])
		for c := range 2 + 1 + d + readStages { // until event 2 is in the last stage
			out := pl.Cycle(CycleIn{SValid: true, Event: in[c], MReady: true})
			if !out.SReady || out.MValid != (c == latency(d)) || out.MValid && out.Result != res0 {
				t.Fatalf("depth %d cycle %d: %+v", d, c, out)
			}
		}
		pl.Reset()
		ref.Step(in[1])
		ref.Step(in[2])
		for c := range uint32(conns) {
			checkConn(t, m, c, ref.Conn(c))
		}
		for c := range latency(d) + 2 {
			if out := pl.Cycle(CycleIn{MReady: true}); out != (CycleOut{SReady: true}) {
				t.Fatalf("depth %d: cycle %d after reset: %+v", d, c, out)
			}
		}
		// Fill everything: results and the input buffer.
		for c := range 2 + credits(d) + d + 3 { // more than the 2 + credits(D) it takes
			pl.Cycle(CycleIn{SValid: true, Event: openEv(uint32(c%conns), 2), MReady: false})
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
		// The pipeline works on after the resets: a nack, latency(D) cycles
		// later.
		e := lossEv(conns-1, KindNack, mtu, 0, 3)
		want := ref.Step(e)
		pl.Cycle(CycleIn{SValid: true, Event: e, MReady: true})
		for c := 1; c <= latency(d); c++ {
			out := pl.Cycle(CycleIn{MReady: true})
			if out.MValid != (c == latency(d)) || out.MValid && out.Result != want {
				t.Fatalf("depth %d: cycle %d after reset: %+v, want %+v", d, c, out, want)
			}
		}
	}
}

// randomCycles drives a pipeline with random valid/ready patterns and
// checks that the consumed results are, 1:1 and in order, the reference
// model applied to the accepted events, that a stalled result holds, that
// no result comes earlier than latency(D) cycles after its event's
// acceptance, that at most 2 + credits(D) events are in flight, and that
// s_event_ready is low only with two events accepted and not yet out.
func randomCycles(t *testing.T, pl *Pipeline, ref Stepper, evs []Event, seed rng) {
	t.Helper()
	d := pl.Depth()
	r := seed
	type pend struct {
		res Result
		acc int
	}
	var pending []pend
	var last CycleOut
	lastReady := true
	next, consumed, notReady, full := 0, 0, 0, 0
	validP, readyP := 1+r.next()%4, 1+r.next()%4
	for c := 0; next < len(evs) || len(pending) > 0; c++ {
		if c%1000 == 0 {
			validP, readyP = 1+r.next()%4, r.next()%5
		}
		in := CycleIn{MReady: r.chance(readyP, 4) || next == len(evs)}
		if next < len(evs) {
			in.SValid, in.Event = r.chance(validP, 4), evs[next]
		}
		out := pl.Cycle(in)
		if !out.SReady {
			notReady++
			if len(pending) < 2 {
				t.Fatalf("depth %d cycle %d: not ready with %d events in flight", d, c, len(pending))
			}
		}
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
			next++
		}
		if len(pending) > 2+credits(d) {
			t.Fatalf("depth %d cycle %d: %d events in flight, the pipeline holds 2 + %d", d, c, len(pending), credits(d))
		}
		if len(pending) == 2+credits(d) {
			full++
		}
		last, lastReady = out, in.MReady
		if c > 10*len(evs)+100 {
			t.Fatalf("depth %d: pipeline stuck", d)
		}
	}
	if notReady == 0 || full == 0 {
		t.Fatalf("depth %d: weak stimulus: %d cycles not ready, %d full", d, notReady, full)
	}
}

func TestPipelineMatchesModel(t *testing.T) {
	for _, v := range []Variant{Conf, NSCC} {
		p := DefaultParams(v)
		evs := randomTrace(p, 4, 40_000, 21, wrapStart)
		for _, d := range depths {
			m, _ := NewModel(p)
			ref, _ := NewModel(p)
			randomCycles(t, NewPipeline(m, d), ref, evs, rng(11+d))
		}
	}
}

// TestPureStepMatchesModel: Step on a value equals Model.Step on the table,
// and Model.Step leaves the other connections alone.
func TestPureStepMatchesModel(t *testing.T) {
	for _, v := range []Variant{Conf, NSCC} {
		p := DefaultParams(v)
		d := p.Derive()
		m, _ := NewModel(p)
		evs := randomTrace(p, 5, 50_000, 33, wrapStart)
		r := rng(4)
		for i, e := range evs {
			if r.chance(1, 50) { // some errors too
				e.Kind = Kind(4 + r.next()%4)
			}
			s := m.Conn(e.Conn % uint32(p.NumConn))
			other := m.Conn((e.Conn + 1) % 5)
			s2, want := Step(p, d, s, e)
			got := m.Step(e)
			if got != want || m.Conn(e.Conn) != s2 || m.Conn((e.Conn+1)%5) != other {
				t.Fatalf("%s event %d %+v: model %+v, Step %+v", v, i, e, got, want)
			}
		}
	}
}

// TestInvariants: on random traces every field stays within its width, the
// window within [MTU, MaxCwnd], and the result echoes the word.
func TestInvariants(t *testing.T) {
	for _, v := range []Variant{Conf, NSCC} {
		p := DefaultParams(v)
		m, _ := NewModel(p)
		d := m.Derived()
		for _, e := range randomTrace(p, 4, 100_000, 8, 0) {
			r := m.Step(e)
			s := m.Conn(e.Conn)
			if s.C < d.MinC || s.C > d.MaxC || r.Cwnd != s.C>>d.F || r.Fast != s.Increase || r.Cwnd >= 1<<d.CwndW {
				t.Fatalf("%s: %+v -> %+v %+v", v, e, r, s)
			}
			for _, f := range []uint32{s.Acked, s.Ignored, s.ToIgnore, s.Count, s.Recv} {
				if f > d.ByteMax {
					t.Fatalf("%s: counter over ByteW: %+v", v, s)
				}
			}
			if s.End > d.StampMask || s.MdEnd > d.StampMask || s.AdjEnd > d.StampMask || s.Inc > d.IncMax || s.AvgRtt > d.AvgMax {
				t.Fatalf("%s: field over its width: %+v", v, s)
			}
			if v == Conf && (s.AvgRtt|s.MdEnd|s.Inc|s.Recv|s.AdjEnd) != 0 || v == NSCC && s.AvgWtd != 0 {
				t.Fatalf("%s: other variant's fields used: %+v", v, s)
			}
		}
	}
}

func TestNoAllocations(t *testing.T) {
	for _, v := range []Variant{Conf, NSCC} {
		p := DefaultParams(v)
		m, _ := NewModel(p)
		pl := NewPipeline(m, 3)
		evs := randomTrace(p, 4096, 1<<14, 3, wrapStart)
		for _, e := range evs[:4096] { // the opens allocate the page
			m.Step(e)
		}
		i := 0
		allocs := testing.AllocsPerRun(10_000, func() {
			i++
			pl.Cycle(CycleIn{SValid: true, Event: evs[i%len(evs)], MReady: i%3 != 0})
		})
		if allocs != 0 {
			t.Fatalf("%s: Cycle allocates %v times per call", v, allocs)
		}
		d := m.Derived()
		s := m.Conn(0)
		allocs = testing.AllocsPerRun(10_000, func() {
			i++
			s, _ = Step(p, d, s, evs[i%len(evs)])
		})
		if allocs != 0 {
			t.Fatalf("%s: Step allocates %v times per call", v, allocs)
		}
	}
}

// BenchmarkPipelineCycle drives the pipeline (default parameters, depth 3,
// 4096 open connections) with a random trace and random back-pressure
// (15/16 valid, 15/16 ready).
func BenchmarkPipelineCycle(b *testing.B) {
	for _, v := range []Variant{Conf, NSCC} {
		b.Run(v.String(), func(b *testing.B) {
			p := DefaultParams(v)
			m, err := NewModel(p)
			if err != nil {
				b.Fatal(err)
			}
			const ring = 1 << 16
			evs := randomTrace(p, 4096, 4096+ring, 5, wrapStart)
			for _, e := range evs[:4096] {
				m.Step(e)
			}
			r := rng(9)
			ins := make([]CycleIn, ring)
			for i := range ins {
				ins[i] = CycleIn{SValid: r.chance(15, 16), Event: evs[4096+i], MReady: r.chance(15, 16)}
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
		})
	}
}

// BenchmarkModelStep measures the transaction model alone.
func BenchmarkModelStep(b *testing.B) {
	for _, v := range []Variant{Conf, NSCC} {
		b.Run(v.String(), func(b *testing.B) {
			p := DefaultParams(v)
			m, _ := NewModel(p)
			const ring = 1 << 16
			evs := randomTrace(p, 4096, 4096+ring, 6, wrapStart)
			for _, e := range evs[:4096] {
				m.Step(e)
			}
			evs = evs[4096:]
			var res Result
			i := 0
			for b.Loop() {
				m.StepTo(&evs[i&(ring-1)], &res)
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// stepVia executes e on s as the pipeline does.
func stepVia(s Stepper, e Event) Result {
	var r Result
	s.StepTo(&e, &r)
	return r
}
