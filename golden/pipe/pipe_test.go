package pipe_test

import (
	"testing"

	"github.com/nicgen/nicgen/golden/pipe"
)

// The tests here check golden/pipe against docs/pipeline.md with a toy
// block: a table of 16 words (a 4-bit connection port, so that connections
// 3 and 19 are the same connection to the hazard unit) and one global
// counter that rst clears, standing in for the REPS LFSR. Every step
// depends on the connection's latest word and on the counter, so a result
// computed from a stale word, out of order, twice or not at all shows.

const keyBits = 4

type toyEvent struct {
	Conn uint32
	Val  uint32
}

type toyResult struct {
	Conn    uint32
	Word    uint64
	Seq     uint64
	Members int // a merging shell's count (merge_test.go)
}

type toy struct {
	table [1 << keyBits]uint64
	seq   uint64
}

func (m *toy) ConnKey(e *toyEvent) uint64 { return uint64(e.Conn) & (1<<keyBits - 1) }

func (m *toy) StepTo(e *toyEvent, r *toyResult) { *r = m.Step(*e) }

func (m *toy) Step(e toyEvent) toyResult {
	k := m.ConnKey(&e)
	m.seq++
	m.table[k] = m.table[k]*1_000_003 + uint64(e.Val) + m.seq
	return toyResult{Conn: uint32(k), Word: m.table[k], Seq: m.seq}
}

func (m *toy) Reset() { m.seq = 0 }

type (
	toyIn  = pipe.In[toyEvent]
	toyOut = pipe.Out[toyResult]
)

// readStages is the contract's number of stages before the datapath: the
// block RAM read, its output register, the bank and snoop selection. An
// issued event passes readStages+D stages, the last one being stage
// readStages+D.
const readStages = 3

// latency is the contract's latency with no stall: accepted in cycle t, an
// event issues in t+1, is in stages 1..D+readStages in cycles
// t+2..t+D+readStages+1 and its result is at the head of the result buffer
// in cycle t+D+readStages+2.
func latency(d int) int { return d + readStages + 2 }

// credits is the contract's bound on events issued and not yet taken: one
// event per clock with m_result_ready high keeps the events issued in the
// last D+readStages+1 cycles (the oldest is being taken, and still counts)
// in flight when the next one issues, so that one must be allowed too.
func credits(d int) int { return d + readStages + 2 }

// contract is docs/pipeline.md "Cycle contract" restated per event rather
// than per register: each event records the cycle it was accepted in and
// the cycle it issued in (an event that issues in cycle i is in stage k
// during cycle i+k), and everything else is read off those numbers.
type contract struct {
	d   int
	now int // the current cycle
	evs []*ctEvent
	ref *toy // the state table as the RTL's block RAM holds it

	creditStalls, hazardStalls int // cycles the head waited, by cause
}

type ctEvent struct {
	e        toyEvent
	key      uint64
	accepted int
	issued   int // -1 while in the input buffer
	written  bool
	res      toyResult
}

func newContract(d int) *contract { return &contract{d: d, ref: &toy{}} }

// stage is the stage an issued event is in during the current cycle.
func (c *contract) stage(x *ctEvent) int { return c.now - x.issued }

// write applies the write of the event in the last stage (stage
// D+readStages) at
// the coming edge: "the last stage writes the new word", and the datapath
// started from the connection's latest word, so the transaction-level step
// at that moment is what the RTL computes.
func (c *contract) write() {
	for _, x := range c.evs {
		if x.issued >= 0 && !x.written && c.stage(x) == c.d+readStages {
			x.res, x.written = c.ref.Step(x.e), true
		}
	}
}

func (c *contract) cycle(in toyIn) toyOut {
	var out toyOut
	// s_event_ready: the buffer held at most one event after the last edge.
	buffered := 0
	for _, x := range c.evs {
		if x.issued < 0 {
			buffered++
		}
	}
	out.SReady = buffered <= 1
	// The result buffer's head: the oldest event not yet taken, once its
	// result entered the buffer (at its write edge).
	var head *ctEvent
	if len(c.evs) > 0 && c.evs[0].written {
		head = c.evs[0]
		out.MValid, out.Result = true, head.res
	}
	// Issue: the buffer's head (the oldest unissued event), unless an event
	// of its connection is in stages 1..D-1 or credits(D) events are issued
	// and not yet taken.
	var issue *ctEvent
	inFlight := 0
	for _, x := range c.evs {
		if x.issued >= 0 {
			inFlight++
		} else if issue == nil {
			issue = x
		}
	}
	if issue != nil && inFlight >= credits(c.d) {
		issue = nil
		c.creditStalls++
	}
	for _, x := range c.evs {
		if issue != nil && x.issued >= 0 && x.key == issue.key && c.stage(x) >= 1 && c.stage(x) <= c.d-1 {
			issue = nil
			c.hazardStalls++
		}
	}
	// The edge.
	c.write()
	if head != nil && in.MReady {
		c.evs = c.evs[1:]
	}
	if issue != nil {
		issue.issued = c.now
	}
	if in.SValid && out.SReady {
		c.evs = append(c.evs, &ctEvent{e: in.Event, key: uint64(in.Event.Conn) & (1<<keyBits - 1), accepted: c.now, issued: -1})
	}
	c.now++
	return out
}

// reset is a cycle with rst high: the buffers and the stages empty. The
// block RAM has no reset, so the last stage's write at that edge happens
// (the RTL's write enable is the stage's valid bit, which rst clears only
// at the edge); no other event in flight is ever written.
func (c *contract) reset() {
	c.write()
	c.evs = nil
	c.ref.Reset()
	c.now++
}

func TestFigures(t *testing.T) {
	if pipe.ReadStages != readStages {
		t.Errorf("ReadStages %d, want %d", pipe.ReadStages, readStages)
	}
	for d := 1; d <= 8; d++ {
		if pipe.Latency(d) != latency(d) || pipe.Credits(d) != credits(d) {
			t.Errorf("depth %d: Latency %d, Credits %d, want %d and %d", d, pipe.Latency(d), pipe.Credits(d), latency(d), credits(d))
		}
	}
	for _, d := range []int{0, -3} {
		if got := pipe.New[toyEvent, toyResult](&toy{}, d).Depth(); got != 1 {
			t.Errorf("New(depth %d).Depth() = %d, want 1", d, got)
		}
	}
}

// TestMatchesContract drives the pipeline and the contract with the same
// random traffic (a few connections, so the hazard unit works, and phases
// of steady source, steady sink, long back-pressure and rare resets) and
// compares the ports every cycle and the tables at the end.
func TestMatchesContract(t *testing.T) {
	for d := 1; d <= 6; d++ {
		m := &toy{}
		pl := pipe.New[toyEvent, toyResult](m, d)
		ct := newContract(d)
		r := uint64(d) * 0x9E3779B97F4A7C15
		next := func() uint64 { // xorshift64*
			r ^= r >> 12
			r ^= r << 25
			r ^= r >> 27
			return r * 2685821657736338717
		}
		var validP, readyP, conns uint64
		resets, stalls := 0, 0
		for c := range 200_000 {
			if c%500 == 0 {
				validP, readyP, conns = next()%5, next()%5, 1+next()%20
			}
			if next()%3000 == 0 {
				pl.Reset()
				ct.reset()
				resets++
				continue
			}
			in := toyIn{
				SValid: next()%4 < validP,
				Event:  toyEvent{Conn: uint32(next() % conns), Val: uint32(next())},
				MReady: next()%4 < readyP,
			}
			got, want := pl.Cycle(in), ct.cycle(in)
			if got != want {
				t.Fatalf("depth %d cycle %d (after %d resets), in %+v:\n got %+v\nwant %+v", d, c, resets, in, got, want)
			}
			if !got.SReady {
				stalls++
			}
		}
		if m.table != ct.ref.table || m.seq != ct.ref.seq {
			t.Fatalf("depth %d: tables differ at the end:\n got %v %d\nwant %v %d", d, m.table, m.seq, ct.ref.table, ct.ref.seq)
		}
		if resets == 0 || stalls == 0 || ct.creditStalls == 0 || (d > 1 && ct.hazardStalls == 0) {
			t.Fatalf("depth %d: weak stimulus: %d resets, %d not-ready cycles, %d credit and %d hazard stalls", d, resets, stalls, ct.creditStalls, ct.hazardStalls)
		}
		t.Logf("depth %d: %d resets, %d not-ready cycles, %d credit and %d hazard stalls", d, resets, stalls, ct.creditStalls, ct.hazardStalls)
	}
}

// TestResetDropsUnwrittenEvents: rst in the middle of a stream of events of
// distinct connections (accepted in cycle k, issued in k+1, in the last
// stage, D+readStages, in cycle k+1+D+readStages): the events up to the one
// in the last stage are written, the later ones (stages
// 1..D+readStages-1 and the input buffer) are not, the counter is cleared
// and nothing comes out of the emptied result buffer.
func TestResetDropsUnwrittenEvents(t *testing.T) {
	for d := 1; d <= 5; d++ {
		m := &toy{}
		pl := pipe.New[toyEvent, toyResult](m, d)
		const n = 12
		r := 2 + 1 + d + readStages // reset cycle: event 2 is in the last stage
		for c := range r {
			out := pl.Cycle(toyIn{SValid: true, Event: toyEvent{Conn: uint32(c), Val: 1}, MReady: true})
			if !out.SReady || out.MValid != (c >= latency(d)) {
				t.Fatalf("depth %d cycle %d: %+v", d, c, out)
			}
		}
		pl.Reset()
		if m.seq != 0 {
			t.Fatalf("depth %d: counter %d after reset", d, m.seq)
		}
		for k := range uint32(n) {
			want := uint64(0)
			if k <= 2 {
				want = uint64(1 + k + 1) // 0*1_000_003 + Val + seq
			}
			if m.table[k] != want {
				t.Fatalf("depth %d: word %d = %d after reset, want %d", d, k, m.table[k], want)
			}
		}
		for c := range latency(d) + 2 {
			if out := pl.Cycle(toyIn{MReady: true}); out != (toyOut{SReady: true}) {
				t.Fatalf("depth %d: cycle %d after reset: %+v", d, c, out)
			}
		}
	}
}
