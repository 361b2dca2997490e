package reps

import (
	"testing"
)

// Cycle behaviour of docs/blocks/reps.md: s_event_ready =
// !m_result_valid || m_result_ready; an event accepted at cycle t with no
// stall has its result valid during cycle t+2.

func cycleModel(t *testing.T) (*Model, *Pipeline) {
	t.Helper()
	m := newModel(t, func(p *Params) { p.ExploreInit = 0 })
	return m, NewPipeline(m)
}

func TestPipelineLatency(t *testing.T) {
	_, pl := cycleModel(t)
	open := ev(1, KindOpen, 0)
	outs := []CycleOut{
		pl.Cycle(CycleIn{SValid: true, Event: open, MReady: true}), // t: accepted
		pl.Cycle(CycleIn{MReady: true}),                            // t+1: in stage 1
		pl.Cycle(CycleIn{MReady: true}),                            // t+2: result valid
		pl.Cycle(CycleIn{MReady: true}),                            // t+3: consumed
	}
	want := []CycleOut{
		{SReady: true},
		{SReady: true},
		{SReady: true, MValid: true, Result: Result{Conn: 1, Kind: KindOpen}},
		{SReady: true},
	}
	for i := range want {
		if outs[i] != want[i] {
			t.Fatalf("cycle %d: %+v, want %+v", i, outs[i], want[i])
		}
	}
}

// One event per clock to the same connection: each sees the previous
// one's write (the doc's forwarding), so the send recycles the ack's EV.
func TestPipelineBackToBackSameConn(t *testing.T) {
	_, pl := cycleModel(t)
	in := []Event{ev(3, KindOpen, 0), ack(3, 77, 1), ack(3, 88, 2), ev(3, KindSend, 3), ev(3, KindSend, 4), ev(3, KindSend, 5)}
	want := []Result{
		{Conn: 3, Kind: KindOpen}, {Conn: 3, Kind: KindAck}, {Conn: 3, Kind: KindAck},
		sendRes(3, 77, false, false), sendRes(3, 88, false, false), sendRes(3, firstDraw16, true, false),
	}
	var got []Result
	for c := range len(in) + 2 {
		cin := CycleIn{MReady: true}
		if c < len(in) {
			cin.SValid, cin.Event = true, in[c]
		}
		out := pl.Cycle(cin)
		if !out.SReady {
			t.Fatalf("cycle %d: stalled with MReady high", c)
		}
		if c >= 2 != out.MValid {
			t.Fatalf("cycle %d: MValid = %v", c, out.MValid)
		}
		if out.MValid {
			got = append(got, out.Result)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("result %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// With m_result_ready low and a valid result, nothing moves: the result
// holds, s_event_ready is low and an offered event is not taken.
func TestPipelineBackpressure(t *testing.T) {
	_, pl := cycleModel(t)
	a, b, c := ev(0, KindOpen, 0), ev(1, KindOpen, 0), ev(2, KindOpen, 0)
	pl.Cycle(CycleIn{SValid: true, Event: a, MReady: false}) // a accepted (no result yet)
	pl.Cycle(CycleIn{SValid: true, Event: b, MReady: false}) // b accepted, a -> result
	resA := Result{Conn: 0, Kind: KindOpen}
	for i := range 5 {
		out := pl.Cycle(CycleIn{SValid: true, Event: c, MReady: false})
		if out != (CycleOut{SReady: false, MValid: true, Result: resA}) {
			t.Fatalf("stall cycle %d: %+v", i, out)
		}
	}
	// Release: a is consumed and c accepted on the same cycle.
	if out := pl.Cycle(CycleIn{SValid: true, Event: c, MReady: true}); out != (CycleOut{SReady: true, MValid: true, Result: resA}) {
		t.Fatalf("release: %+v", out)
	}
	if out := pl.Cycle(CycleIn{MReady: true}); out != (CycleOut{SReady: true, MValid: true, Result: Result{Conn: 1, Kind: KindOpen}}) {
		t.Fatalf("b: %+v", out)
	}
	if out := pl.Cycle(CycleIn{MReady: true}); out != (CycleOut{SReady: true, MValid: true, Result: Result{Conn: 2, Kind: KindOpen}}) {
		t.Fatalf("c: %+v", out)
	}
	if out := pl.Cycle(CycleIn{MReady: true}); out != (CycleOut{SReady: true}) {
		t.Fatalf("drained: %+v", out)
	}
}

// rst empties both stages and reloads the LFSR; the table stays.
func TestPipelineReset(t *testing.T) {
	m, pl := cycleModel(t)
	pl.Cycle(CycleIn{SValid: true, Event: ev(0, KindOpen, 0), MReady: true})
	pl.Cycle(CycleIn{SValid: true, Event: ev(0, KindSend, 1), MReady: true})
	pl.Cycle(CycleIn{SValid: true, Event: ev(0, KindSend, 2), MReady: true})  // first send executes
	pl.Cycle(CycleIn{SValid: true, Event: ev(0, KindSend, 3), MReady: false}) // stalled: second send still in stage 1
	if m.LFSR() == defaultSeed {
		t.Fatal("setup: the first send did not draw")
	}
	before := m.Conn(0)
	pl.Reset()
	if m.LFSR() != defaultSeed {
		t.Fatal("Reset did not reload the LFSR")
	}
	checkConn(t, m, 0, before)
	for range 3 {
		if out := pl.Cycle(CycleIn{MReady: true}); out != (CycleOut{SReady: true}) {
			t.Fatalf("after reset: %+v", out)
		}
	}
	// The second send was dropped with stage 1 and the connection is
	// still open: the next send draws the seed's first value again.
	pl.Cycle(CycleIn{SValid: true, Event: ev(0, KindSend, 4), MReady: true})
	pl.Cycle(CycleIn{MReady: true})
	if out := pl.Cycle(CycleIn{MReady: true}); out.Result != sendRes(0, firstDraw16, true, false) {
		t.Fatalf("after reset: %+v", out)
	}
}

// randomCycles drives a pipeline with random valid/ready patterns and
// checks that the consumed results are, 1:1 and in order, the reference
// stepper applied to the accepted events, and that a stalled result holds.
func randomCycles(t *testing.T, pl *Pipeline, ref Stepper, cycles int, seed rng) {
	t.Helper()
	r := seed
	var now uint64
	var pending []Result // expected, not yet consumed
	var last CycleOut
	lastReady := true
	accepted, consumed := 0, 0
	validP, readyP := uint64(1+r.next()%4), uint64(1+r.next()%4)
	for c := range cycles {
		if c%1000 == 0 { // change the traffic pattern now and then
			validP, readyP = 1+r.next()%4, 1+r.next()%4
		}
		in := CycleIn{SValid: r.chance(validP, 4), Event: randomEvent(&r, &now), MReady: r.chance(readyP, 4)}
		out := pl.Cycle(in)
		if out.SReady != (!out.MValid || in.MReady) {
			t.Fatalf("cycle %d: SReady %v with MValid %v MReady %v", c, out.SReady, out.MValid, in.MReady)
		}
		// A valid result that was not consumed must still be there.
		if last.MValid && !lastReady && (!out.MValid || out.Result != last.Result) {
			t.Fatalf("cycle %d: stalled output changed: %+v -> %+v", c, last, out)
		}
		if out.MValid && in.MReady {
			if len(pending) == 0 {
				t.Fatalf("cycle %d: result %+v with no accepted event", c, out.Result)
			}
			if out.Result != pending[0] {
				t.Fatalf("cycle %d: result %d = %+v, want %+v", c, consumed, out.Result, pending[0])
			}
			pending = pending[1:]
			consumed++
		}
		if in.SValid && out.SReady {
			pending = append(pending, ref.Step(in.Event))
			accepted++
		}
		if len(pending) > 2 {
			t.Fatalf("cycle %d: %d events in flight, the pipeline holds 2", c, len(pending))
		}
		last, lastReady = out, in.MReady
	}
	if accepted-consumed != len(pending) || accepted < cycles/10 {
		t.Fatalf("accepted %d, consumed %d, pending %d", accepted, consumed, len(pending))
	}
}

func TestPipelineMatchesModel(t *testing.T) {
	p := invariantParams()
	m, _ := NewModel(p)
	ref, _ := NewModel(p)
	randomCycles(t, NewPipeline(m), ref, 300_000, 11)
}

func TestPipelineMatchesConfModel(t *testing.T) {
	p := DefaultConfParams()
	p.NumConn, p.ConnW, p.NumEntropies, p.EntW, p.ExploreW, p.ExploreInit = 4, 3, 5, 3, 3, 3
	m, _ := NewConfModel(p)
	ref, _ := NewConfModel(p)
	randomCycles(t, NewPipeline(m), ref, 300_000, 12)
}

func TestPipelineCycleDoesNotAllocate(t *testing.T) {
	m := newModel(t, nil)
	pl := NewPipeline(m)
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
// 4096 open connections) with random events and random back-pressure.
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
	pl := NewPipeline(m)
	i := 0
	for b.Loop() {
		pl.Cycle(ins[i&(ring-1)])
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
	i := 0
	for b.Loop() {
		m.Step(evs[i&(ring-1)])
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
