package reps_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/nicgen/nicgen/blocks/reps"
	goldenreps "github.com/nicgen/nicgen/golden/reps"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// scenario builds a directed event sequence on one connection.
type scenario struct {
	events []ScriptEvent
	now    uint64
}

func (s *scenario) ev(conn uint32, kind goldenreps.Kind, ecn bool, ev uint32, dt uint64) *scenario {
	s.now += dt
	s.events = append(s.events, ScriptEvent{Event: goldenreps.Event{Conn: conn, Kind: kind, ECN: ecn, EV: ev, Now: s.now}})
	return s
}

func (s *scenario) repeat(n int, conn uint32, kind goldenreps.Kind) *scenario {
	for i := 0; i < n; i++ {
		s.ev(conn, kind, false, 0, 1)
	}
	return s
}

// repsScenarios are the behaviours of docs/blocks/reps.md, each as a
// sequence of back-to-back events on the small stress configuration
// (N = 4, ExploreInit = 3, ExploreAfterFreeze = 2, FreezeTime = 3000,
// 16-bit time starting 2000 ticks before the wrap).
func repsScenarios() map[string][]ScriptEvent {
	const c, d = 5, 9
	start := uint64(1<<16) - 2000
	mk := func() *scenario { return &scenario{now: start} }
	out := map[string][]ScriptEvent{}
	// S4:L49: the first ExploreInit sends explore; with nothing cached the
	// next one explores too
	out["explore after open"] = mk().ev(c, goldenreps.KindOpen, false, 0, 0).repeat(5, c, goldenreps.KindSend).events
	// S4:L51: unmarked ACKs are cached and reused oldest first; marked ones are dropped
	s := mk().ev(c, goldenreps.KindOpen, false, 0, 0).repeat(3, c, goldenreps.KindSend)
	s.ev(c, goldenreps.KindAck, false, 11, 1).ev(c, goldenreps.KindAck, true, 99, 1).ev(c, goldenreps.KindAck, false, 12, 1).ev(c, goldenreps.KindAck, false, 13, 1)
	out["recycle fifo, ecn discarded"] = s.repeat(4, c, goldenreps.KindSend).events
	// a full buffer overwrites its oldest valid entry
	s = mk().ev(c, goldenreps.KindOpen, false, 0, 0).repeat(3, c, goldenreps.KindSend)
	for i := uint32(0); i < 6; i++ {
		s.ev(c, goldenreps.KindAck, false, 100+i, 1)
	}
	out["overwrite when full"] = s.repeat(6, c, goldenreps.KindSend).events
	// S4:L52-63: a timeout while exploring does not freeze; after it, it
	// does; frozen sends replay the buffer and never explore; time passing
	// the exit (across the 16-bit wrap) ends freezing and reloads exploration
	s = mk().ev(c, goldenreps.KindOpen, false, 0, 0).ev(c, goldenreps.KindTimeout, false, 0, 1).repeat(3, c, goldenreps.KindSend)
	s.ev(c, goldenreps.KindAck, false, 21, 1).ev(c, goldenreps.KindAck, false, 22, 1)
	s.ev(c, goldenreps.KindTimeout, false, 0, 1).repeat(7, c, goldenreps.KindSend)
	s.ev(c, goldenreps.KindAck, false, 23, 1).repeat(3, c, goldenreps.KindSend)
	s.ev(c, goldenreps.KindNack, false, 0, 3000).repeat(4, c, goldenreps.KindSend)
	out["freeze, replay, exit across wrap"] = s.events
	// errors leave the state untouched; interleaved with a second connection
	s = mk().ev(c, goldenreps.KindOpen, false, 0, 0).ev(d, goldenreps.KindOpen, false, 0, 0).repeat(3, c, goldenreps.KindSend)
	s.ev(c, goldenreps.KindAck, false, 31, 0).ev(200, goldenreps.KindOpen, false, 0, 0).ev(c, 5, false, 0, 0).ev(c, 7, false, 0, 0)
	s.ev(d, goldenreps.KindSend, false, 0, 0).ev(c, goldenreps.KindSend, false, 0, 0).ev(c, goldenreps.KindSend, false, 0, 0)
	out["errors and two connections"] = s.events
	return out
}

func TestRepsDirected(t *testing.T) {
	t.Parallel()
	p := stressParams()
	m, err := reps.Paper(p)
	model, hd := blockeq.Build(t, m, err)
	for name, events := range repsScenarios() {
		for _, pReady := range []float64{1, 0.5} {
			// with gaps between events too, so that stage 1 and the
			// forwarding register see empty slots
			for _, gap := range []int{0, 2} {
				evs := append([]ScriptEvent(nil), events...)
				for i := range evs {
					evs[i].Gap = gap
				}
				label := fmt.Sprintf("%s ready=%.1f gap=%d", name, pReady, gap)
				ref, err := RepsReference(hd, p.Golden(), nil)
				if err != nil {
					t.Fatal(err)
				}
				n := int64(len(evs)*(gap+1)*4 + 16)
				if _, err := harness.Run(context.Background(), model, ref, NewScriptStimulus(hd, evs, pReady, 3), harness.RunOptions{Cycles: n, Label: label, WaveDir: t.TempDir()}); err != nil {
					t.Errorf("%s: %v", label, err)
				}
			}
		}
	}
}

// TestRepsDirectedResults pins what the directed sequences produce in the
// golden model, worked out by hand from S4 and docs/blocks/reps.md, so the
// directed RTL runs above compare against known-right behaviour.
func TestRepsDirectedResults(t *testing.T) {
	t.Parallel()
	p := stressParams().Golden()
	run := func(evs []ScriptEvent) []goldenreps.Result {
		m, err := goldenreps.NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		var rs []goldenreps.Result
		for _, e := range evs {
			rs = append(rs, m.Step(e.Event))
		}
		return rs
	}
	sc := repsScenarios()
	sends := func(rs []goldenreps.Result) (evs []uint32, explored []bool) {
		for _, r := range rs {
			if r.Kind == goldenreps.KindSend {
				evs, explored = append(evs, r.EV), append(explored, r.Explored)
			}
		}
		return
	}
	_, ex := sends(run(sc["explore after open"]))
	if fmt.Sprint(ex) != "[true true true true true]" {
		t.Errorf("explore after open: explored %v", ex)
	}
	evs, ex := sends(run(sc["recycle fifo, ecn discarded"]))
	if fmt.Sprint(evs[3:6]) != "[11 12 13]" || fmt.Sprint(ex[3:]) != "[false false false true]" {
		t.Errorf("fifo: evs %v explored %v", evs, ex)
	}
	evs, _ = sends(run(sc["overwrite when full"]))
	if fmt.Sprint(evs[3:7]) != "[102 103 104 105]" {
		t.Errorf("overwrite: evs %v, want the newest four oldest first", evs)
	}
	rs := run(sc["freeze, replay, exit across wrap"])
	if rs[1].Frozen {
		t.Errorf("a timeout while exploring froze the connection")
	}
	if !rs[7].Frozen {
		t.Errorf("a timeout after exploration did not freeze")
	}
	evs, ex = sends(rs[8:15])
	// 21 and 22 are valid and taken first; then entries 2, 3, 0, 1 are
	// replayed from head (never written: 0, 0; then 21, 22), never exploring
	if fmt.Sprint(evs) != "[21 22 0 0 21 22 0]" || fmt.Sprint(ex) != "[false false false false false false false]" {
		t.Errorf("frozen sends: evs %v explored %v", evs, ex)
	}
	// after the exit, ExploreAfterFreeze = 2 sends explore, and the next
	// ones explore too because the buffer holds nothing valid
	last := rs[len(rs)-5:]
	if last[0].Frozen || !last[1].Explored || !last[2].Explored || !last[3].Explored || last[4].Frozen {
		t.Errorf("freeze exit: %+v", last)
	}
	rs = run(sc["errors and two connections"])
	errs := 0
	for _, r := range rs {
		if r.Error {
			errs++
		}
	}
	if errs != 3 {
		t.Errorf("%d errors, want 3 (connection 200 of 64, kinds 5 and 7)", errs)
	}
}
