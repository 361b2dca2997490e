package smartt

import "testing"

// Cycle behaviour (contract Section 1, docs/blocks/reps.md "Cycle
// behaviour"): s_event_ready = !m_result_valid || m_result_ready; an event
// accepted at cycle t without a stall has its result valid during t+2.

func TestPipelineLatency(t *testing.T) {
	m := newModel(t, Conf, nil)
	pl := NewPipeline(m)
	open := openEv(1, 0)
	outs := []CycleOut{
		pl.Cycle(CycleIn{SValid: true, Event: open, MReady: true}), // t: accepted
		pl.Cycle(CycleIn{MReady: true}),                            // t+1: in stage 1
		pl.Cycle(CycleIn{MReady: true}),                            // t+2: result valid
		pl.Cycle(CycleIn{MReady: true}),                            // t+3: consumed
	}
	want := []CycleOut{
		{SReady: true},
		{SReady: true},
		{SReady: true, MValid: true, Result: res(1, KindOpen, 1_075_000, CaseNone)},
		{SReady: true},
	}
	for i := range want {
		if outs[i] != want[i] {
			t.Fatalf("cycle %d: %+v, want %+v", i, outs[i], want[i])
		}
	}
}

// One event per clock to the same connection: each sees the previous one's
// write (the RTL forwards it).
func TestPipelineBackToBackSameConn(t *testing.T) {
	m := newModel(t, Conf, initCwnd(mtu))
	pl := NewPipeline(m)
	in := []Event{openEv(3, 0), lossEv(3, KindNack, mtu, 0, 1), lossEv(3, KindNack, mtu, 0, 2), ackEv(3, mtu, 20_000, false, 0, 3)}
	ref := newModel(t, Conf, initCwnd(mtu))
	var want []Result
	for _, e := range in {
		want = append(want, ref.Step(e))
	}
	var got []Result
	for c := range len(in) + 2 {
		cin := CycleIn{MReady: true}
		if c < len(in) {
			cin.SValid, cin.Event = true, in[c]
		}
		out := pl.Cycle(cin)
		if !out.SReady || (c >= 2) != out.MValid {
			t.Fatalf("cycle %d: %+v", c, out)
		}
		if out.MValid {
			got = append(got, out.Result)
		}
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("result %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// FI from the MTU, c = 2^18: div(4096 * KFi, 2^18): m = 1024, T =
	// 2047, e = 18: (98,497,916,928 * 2047) >> 29 = 375,556 (exact
	// 375,739.7); c = 637,700 -> 9964 B.
	if got[3].Cwnd != 9964 {
		t.Fatalf("ack after two nacks: %+v", got[3])
	}
}

// With m_result_ready low and a valid result nothing moves: the result
// holds, s_event_ready is low and an offered event is not taken.
func TestPipelineBackpressure(t *testing.T) {
	m := newModel(t, NSCC, nil)
	pl := NewPipeline(m)
	a, b, c := openEv(0, 0), openEv(1, 0), openEv(2, 0)
	resA := res(0, KindOpen, 1_290_000, CaseNone)
	pl.Cycle(CycleIn{SValid: true, Event: a, MReady: false}) // a accepted
	pl.Cycle(CycleIn{SValid: true, Event: b, MReady: false}) // b accepted, a -> result
	for i := range 5 {
		if out := pl.Cycle(CycleIn{SValid: true, Event: c, MReady: false}); out != (CycleOut{SReady: false, MValid: true, Result: resA}) {
			t.Fatalf("stall cycle %d: %+v", i, out)
		}
	}
	if m.Conn(2).C != 0 {
		t.Fatal("a stalled event executed")
	}
	// Release: a consumed and c accepted in the same cycle.
	if out := pl.Cycle(CycleIn{SValid: true, Event: c, MReady: true}); out != (CycleOut{SReady: true, MValid: true, Result: resA}) {
		t.Fatalf("release: %+v", out)
	}
	for _, want := range []CycleOut{
		{SReady: true, MValid: true, Result: res(1, KindOpen, 1_290_000, CaseNone)},
		{SReady: true, MValid: true, Result: res(2, KindOpen, 1_290_000, CaseNone)},
		{SReady: true},
	} {
		if out := pl.Cycle(CycleIn{MReady: true}); out != want {
			t.Fatalf("drain: %+v, want %+v", out, want)
		}
	}
}

// rst empties both stages; the table stays.
func TestPipelineReset(t *testing.T) {
	m := newModel(t, Conf, nil)
	pl := NewPipeline(m)
	pl.Cycle(CycleIn{SValid: true, Event: openEv(0, 0), MReady: true})
	pl.Cycle(CycleIn{SValid: true, Event: lossEv(0, KindNack, mtu, 0, 1), MReady: true})
	pl.Cycle(CycleIn{MReady: false})                                                      // stall: open's result held, nack waits in stage 1
	pl.Cycle(CycleIn{SValid: true, Event: lossEv(0, KindNack, mtu, 0, 2), MReady: false}) // not accepted
	before := m.Conn(0)
	if before.C != 68_800_000 {
		t.Fatalf("the nack executed during the stall: %+v", before)
	}
	pl.Reset() // drops the nack in stage 1 and open's result
	checkConn(t, m, 0, before)
	for range 3 {
		if out := pl.Cycle(CycleIn{MReady: true}); out != (CycleOut{SReady: true}) {
			t.Fatalf("after reset: %+v", out)
		}
	}
	checkConn(t, m, 0, before)
}

// randomCycles drives a pipeline with random valid/ready patterns and
// checks that the consumed results are, 1:1 and in order, the reference
// model applied to the accepted events, and that a stalled result holds.
func randomCycles(t *testing.T, pl *Pipeline, ref Stepper, evs []Event, seed rng) {
	t.Helper()
	r := seed
	var pending []Result
	var last CycleOut
	lastReady := true
	next, consumed := 0, 0
	validP, readyP := 1+r.next()%4, 1+r.next()%4
	for c := 0; next < len(evs) || len(pending) > 0; c++ {
		if c%1000 == 0 {
			validP, readyP = 1+r.next()%4, 1+r.next()%4
		}
		in := CycleIn{MReady: r.chance(readyP, 4)}
		if next < len(evs) {
			in.SValid, in.Event = r.chance(validP, 4), evs[next]
		}
		out := pl.Cycle(in)
		if out.SReady != (!out.MValid || in.MReady) {
			t.Fatalf("cycle %d: SReady %v with MValid %v MReady %v", c, out.SReady, out.MValid, in.MReady)
		}
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
			next++
		}
		if len(pending) > 2 {
			t.Fatalf("cycle %d: %d events in flight, the pipeline holds 2", c, len(pending))
		}
		last, lastReady = out, in.MReady
		if c > 10*len(evs)+100 {
			t.Fatal("pipeline stuck")
		}
	}
}

func TestPipelineMatchesModel(t *testing.T) {
	for _, v := range []Variant{Conf, NSCC} {
		p := DefaultParams(v)
		evs := randomTrace(p, 4, 100_000, 21, wrapStart)
		m, _ := NewModel(p)
		ref, _ := NewModel(p)
		randomCycles(t, NewPipeline(m), ref, evs, 11)
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
			if s.C < d.MinC || s.C > d.MaxC || r.Cwnd != s.C>>6 || r.Fast != s.Increase || r.Cwnd >= 1<<d.CwndW {
				t.Fatalf("%s: %+v -> %+v %+v", v, e, r, s)
			}
			for _, f := range []uint32{s.Acked, s.Ignored, s.ToIgnore, s.Count, s.Recv} {
				if f > d.ByteMax {
					t.Fatalf("%s: counter over ByteW: %+v", v, s)
				}
			}
			if s.End > stampMask || s.LastMd > stampMask || s.LastAdj > stampMask || s.Inc > d.CMax || s.AvgRtt > d.RttMax {
				t.Fatalf("%s: field over its width: %+v", v, s)
			}
			if v == Conf && (s.AvgRtt|s.LastMd|s.Inc|s.Recv|s.LastAdj) != 0 || v == NSCC && s.AvgWtd != 0 {
				t.Fatalf("%s: other variant's fields used: %+v", v, s)
			}
		}
	}
}

func TestNoAllocations(t *testing.T) {
	for _, v := range []Variant{Conf, NSCC} {
		p := DefaultParams(v)
		m, _ := NewModel(p)
		pl := NewPipeline(m)
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

// BenchmarkPipelineCycle drives the pipeline (default parameters, 4096 open
// connections) with a random trace and random back-pressure (15/16 valid,
// 15/16 ready).
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
			pl := NewPipeline(m)
			i := 0
			for b.Loop() {
				pl.Cycle(ins[i&(ring-1)])
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
			i := 0
			for b.Loop() {
				m.Step(evs[i&(ring-1)])
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
