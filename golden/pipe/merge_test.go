package pipe_test

import (
	"testing"

	"github.com/nicgen/nicgen/golden/pipe"
)

// The merging shell's contract (docs/pipeline.md, "Merge stage") checked
// with the toy block: an event whose Val is below 1000 is mergeable and
// folds by adding its Val (the sums here stay below 1000), one of 1000 or
// more is a barrier. The toy's
// word then holds the sum of the merged Vals, so a member lost, doubled or
// folded out of order changes the words.

type toyMerger struct{}

func (toyMerger) Fold(p *toyEvent, _ int, e *toyEvent) bool {
	if p.Val >= 1000 || e.Val >= 1000 {
		return false
	}
	p.Val += e.Val
	return true
}

func (toyMerger) Members(r *toyResult, n int) { r.Members = n }

// mrun offers evs back to back (an event offered again until taken), the
// results always taken, and returns the results and the cycles each came
// in, and the cycles s_event_ready was low while an event waited.
func mrun(t *testing.T, p *pipe.Pipeline[toyEvent, toyResult], evs []toyEvent) (res []toyResult, at []int, stalls int) {
	t.Helper()
	sent, members := 0, 0
	for c := 0; c < 100*len(evs)+100 && members < len(evs); c++ {
		in := toyIn{SValid: sent < len(evs), MReady: true}
		if in.SValid {
			in.Event = evs[sent]
		}
		out := p.Cycle(in)
		if in.SValid && out.SReady {
			sent++
		} else if in.SValid {
			stalls++
		}
		if out.MValid {
			res, at = append(res, out.Result), append(at, c)
			members += max(out.Result.Members, 1) // the plain shell leaves it 0
		}
	}
	if members != len(evs) {
		t.Fatalf("%d events, results stand for %d", len(evs), members)
	}
	return res, at, stalls
}

func mergeToy(depth, slots int) *pipe.Pipeline[toyEvent, toyResult] {
	return pipe.NewMerging[toyEvent, toyResult](&toy{}, depth, slots, 255, toyMerger{})
}

// One connection on every cycle at depth 4. Event 0, accepted in cycle 0,
// is in the arrival register in cycle 1, fills slot 0 at the edge of cycle
// 2, is chosen in cycle 3 and issues in cycle 4. Event 1 is placed in
// cycle 3 and folds into slot 0, which does not issue then; event 2 is
// placed in cycle 4, when slot 0 issues, and fills slot 1. The group in
// slot 1 is in the issue register in cycle 5 and in stage 1 in cycle 6,
// the window (the issue register and stages 1..depth-3); slot 1 is chosen
// in cycle 7 and issues in cycle 8, depth cycles after slot 0, with events
// 2..5 (placed in cycles 4..7). Every later group is 4 events, one group
// per 4 cycles: the input never waits.
func TestMergeOneConnection(t *testing.T) {
	const d = 4
	evs := make([]toyEvent, 41)
	for i := range evs {
		evs[i] = toyEvent{Conn: 7, Val: uint32(i%7 + 1)}
	}
	res, at, stalls := mrun(t, mergeToy(d, 4), evs)
	if stalls != 0 {
		t.Errorf("the input waited %d cycles", stalls)
	}
	want := []int{2}
	for len(want) < 10 {
		want = append(want, 4)
	}
	want = append(want, 3) // 2 + 9 x 4 + 3 = 41
	if len(res) != len(want) {
		t.Fatalf("%d results, want %d", len(res), len(want))
	}
	// the reference: the toy stepped once per group with the group's sum
	ref, next := &toy{}, 0
	for i, r := range res {
		if r.Members != want[i] {
			t.Errorf("result %d stands for %d events, want %d", i, r.Members, want[i])
		}
		sum := uint32(0)
		for _, e := range evs[next : next+want[i]] {
			sum += e.Val
		}
		next += want[i]
		if w := ref.Step(toyEvent{Conn: 7, Val: sum}); r.Word != w.Word || r.Seq != w.Seq {
			t.Errorf("result %d: word %d seq %d, want %d %d", i, r.Word, r.Seq, w.Word, w.Seq)
		}
	}
	// issued in cycle 4, in the issue register in cycle 5, in stage k in
	// cycle 5+k, in the result buffer's head in cycle 5 + (d+readStages) +
	// 1: four cycles more than the plain shell
	if at[0] != latency(d)+4 || pipe.MergingLatency(d) != latency(d)+4 {
		t.Errorf("first result in cycle %d (MergingLatency %d), want %d", at[0], pipe.MergingLatency(d), latency(d)+4)
	}
	if at[1]-at[0] != 4 || at[2]-at[1] != d {
		t.Errorf("results in cycles %v: the second group issues 4 cycles after the first, then one every %d", at[:3], d)
	}
}

// A barrier closes the group and issues alone, and the group after it
// starts anew; nothing folds into a barrier.
func TestMergeBarrier(t *testing.T) {
	const d = 6
	vals := []uint32{1, 2, 3, 2000, 4, 5, 3000, 3001, 6}
	var evs []toyEvent
	for _, v := range vals {
		evs = append(evs, toyEvent{Conn: 2, Val: v})
	}
	res, _, _ := mrun(t, mergeToy(d, 4), evs)
	// 2 folds into 1 before 1 issues; 3 arrives as 1 issues and starts a
	// group; 2000 waits alone; 4 and 5 fold behind it; 3000 and 3001
	// alone; 6 alone
	want := [][]uint32{{1, 2}, {3}, {2000}, {4, 5}, {3000}, {3001}, {6}}
	if len(res) != len(want) {
		t.Fatalf("%d results %v, want %d groups", len(res), res, len(want))
	}
	ref := &toy{}
	for i, g := range want {
		sum := uint32(0)
		for _, v := range g {
			sum += v
		}
		w := ref.Step(toyEvent{Conn: 2, Val: sum})
		if res[i].Members != len(g) || res[i].Word != w.Word {
			t.Errorf("result %d: %d members, word %d; want %d members (%v), word %d", i, res[i].Members, res[i].Word, len(g), g, w.Word)
		}
	}
}

// A busy connection blocks no other: X's second event waits D cycles for
// its first, and Y's event, behind it in the input, issues two cycles
// after X's first (it was accepted one cycle later, and the slot X1 left
// is not free until the edge), so Y's result comes before X's second.
func TestMergeNoHeadOfLineBlocking(t *testing.T) {
	const d = 8
	evs := []toyEvent{{Conn: 1, Val: 1000}, {Conn: 1, Val: 1001}, {Conn: 2, Val: 1002}}
	res, at, _ := mrun(t, mergeToy(d, 4), evs)
	if len(res) != 3 || res[0].Conn != 1 || res[1].Conn != 2 || res[2].Conn != 1 {
		t.Fatalf("results %v: want connections 1, 2, 1", res)
	}
	// X1 issues in cycle 2, X2 fills a slot in cycle 2 and issues in
	// cycle 2+d; Y1 fills a slot in cycle 3 and issues in cycle 4
	if at[1]-at[0] != 2 || at[2]-at[0] != d {
		t.Errorf("results in cycles %v: want Y 2 cycles after X1 and X2 %d after X1", at, d)
	}
	// the same load in the plain shell keeps Y behind X2
	res, _, _ = mrun(t, pipe.New[toyEvent, toyResult](&toy{}, d), evs)
	if res[1].Conn != 1 {
		t.Errorf("the plain shell answered %v: want connections in acceptance order", res)
	}
}

// With every slot holding a barrier of the busy connection, the head
// stays and the input buffer fills: s_event_ready falls, nothing is lost,
// and every event is answered in its connection's order.
func TestMergeSlotsFull(t *testing.T) {
	const d = 8
	var evs []toyEvent
	for i := 0; i < 12; i++ {
		evs = append(evs, toyEvent{Conn: 5, Val: uint32(1000 + i)})
	}
	res, _, stalls := mrun(t, mergeToy(d, 2), evs)
	if stalls == 0 {
		t.Error("12 barriers of one connection through 2 slots never filled the input")
	}
	for i, r := range res {
		if r.Members != 1 || r.Seq != uint64(i+1) {
			t.Errorf("result %d: members %d seq %d", i, r.Members, r.Seq)
		}
	}
}

// With no contention (every event its own connection) every result
// stands for one event, in acceptance order, one per cycle.
func TestMergeNoContention(t *testing.T) {
	const d = 5
	var evs []toyEvent
	for i := 0; i < 16; i++ {
		evs = append(evs, toyEvent{Conn: uint32(i), Val: uint32(i)})
	}
	res, at, stalls := mrun(t, mergeToy(d, 4), evs)
	if stalls != 0 {
		t.Errorf("the input waited %d cycles", stalls)
	}
	for i, r := range res {
		if r.Members != 1 || r.Conn != uint32(i) {
			t.Errorf("result %d: connection %d, %d members", i, r.Conn, r.Members)
		}
		if at[i] != at[0]+i {
			t.Errorf("result %d in cycle %d, want %d", i, at[i], at[0]+i)
		}
	}
}

// The waiting shell (NewWaiting, no merge rule): mergeable events of a
// busy connection are each answered alone, in their connection's order,
// and another connection's event passes them.
func TestWaitingNeverMerges(t *testing.T) {
	const d = 8
	evs := []toyEvent{{Conn: 1, Val: 1}, {Conn: 1, Val: 2}, {Conn: 1, Val: 3}, {Conn: 2, Val: 4}}
	p := pipe.NewWaiting[toyEvent, toyResult](&toy{}, d, 4, func(r *toyResult, n int) { r.Members = n })
	res, _, _ := mrun(t, p, evs)
	if len(res) != 4 {
		t.Fatalf("%d results for 4 events: %v", len(res), res)
	}
	// each result is its connection's next event alone: the toy's word
	// takes that event's Val only
	var conns []uint32
	next, word := map[uint32]int{}, map[uint32]uint64{}
	for _, r := range res {
		conns = append(conns, r.Conn)
		var vals []uint32
		for _, e := range evs {
			if e.Conn == r.Conn {
				vals = append(vals, e.Val)
			}
		}
		want := word[r.Conn]*1_000_003 + uint64(vals[next[r.Conn]]) + r.Seq
		next[r.Conn]++
		word[r.Conn] = want
		if r.Members != 1 || r.Word != want {
			t.Errorf("result %+v: want one member and word %d (the connection's event %d alone)", r, want, next[r.Conn])
		}
	}
	if conns[1] != 2 {
		t.Errorf("results on connections %v: want connection 2's event second, past connection 1's waiting ones", conns)
	}
}
