package reps

import (
	"slices"
	"testing"
)

// randomEvent draws a stimulus event biased towards the interesting cases:
// mostly sends and acks, enough timeouts to freeze often, a few opens and
// errors (conn 4..7 with ConnW 3, kinds 5..7), and a now that advances by
// 0..40 ticks so that TimeW = 10 wraps every ~50 events.
func randomEvent(r *rng, now *uint64) Event {
	*now += r.next() % 41
	e := Event{Conn: uint32(r.next() % 8), EV: uint32(r.next()), ECN: r.chance(1, 4), Now: *now}
	if !r.chance(15, 16) { // conns 4..7 are errors: keep them rare
		e.Conn %= 4
	}
	switch x := r.next() % 100; {
	case x < 2:
		e.Kind = KindOpen
	case x < 40:
		e.Kind = KindSend
	case x < 75:
		e.Kind = KindAck
	case x < 83:
		e.Kind = KindNack
	case x < 97:
		e.Kind = KindTimeout
	default:
		e.Kind = Kind(5 + r.next()%3)
	}
	return e
}

func invariantParams() Params {
	return Params{
		NumConn: 4, ConnW: 3, N: 4, EVW: 6, HeadW: 2, CountW: 3, TimeW: 10, ExploreW: 3,
		ExploreInit: 3, ExploreAfterFreeze: 2, FreezeTime: 200, LFSRSeed: 0x1234567,
	}
}

// checkInvariant checks the doc's invariant on one word: the valid entries
// are exactly the num_valid entries before head; head < N; num_valid <= N.
// A frozen word also has explore == 0 (freeze is entered only at 0 and
// explore reloads only when leaving it), which is what makes "never
// explore while frozen" hold.
func checkInvariant(p Params, s State) string {
	n := uint32(p.N)
	if s.Head >= n || s.NumValid > n {
		return "head or num_valid out of range"
	}
	for i := range n {
		// Distance from i forward to head, 1..N.
		d := (s.Head + n - i - 1) % n
		if want := d < s.NumValid; s.Valid[i] != want {
			return "valid bits are not the num_valid entries before head"
		}
	}
	if s.Frozen && s.Explore != 0 {
		return "frozen while exploring"
	}
	if s.Explore > uint32(max(p.ExploreInit, p.ExploreAfterFreeze)) {
		return "explore above its reload values"
	}
	return ""
}

func stateEqual(a, b State) bool {
	return slices.Equal(a.EV, b.EV) && slices.Equal(a.Valid, b.Valid) && a.Head == b.Head &&
		a.NumValid == b.NumValid && a.ExitFreeze == b.ExitFreeze && a.Frozen == b.Frozen && a.Explore == b.Explore
}

// TestInvariantRandom runs ~1e6 random events on N = 4, NumConn = 4 and
// checks the invariants after every event, that the table model and the
// pure Step agree exactly, and the rules about results and the LFSR.
func TestInvariantRandom(t *testing.T) {
	events := 1_000_000
	if testing.Short() {
		events = 100_000
	}
	p := invariantParams()
	m, err := NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	var shadow [4]State
	shadowLFSR := LFSR(p.LFSRSeed)
	r := rng(1)
	var now uint64
	var frozenSends, replays, fullOverwrites, exits, recycled, explored int
	for i := range events {
		e := randomEvent(&r, &now)
		before := m.LFSR()
		var prev State
		if e.Conn < 4 {
			prev = shadow[e.Conn]
		}
		res := m.Step(e)

		// The pure step on a shadow table must agree bit for bit.
		var pres Result
		if e.Conn < 4 {
			shadow[e.Conn], pres = Step(p, shadow[e.Conn], &shadowLFSR, e)
		} else {
			_, pres = Step(p, State{}, &shadowLFSR, e)
		}
		if res != pres || m.LFSR() != shadowLFSR {
			t.Fatalf("event %d %+v: model %+v, pure %+v", i, e, res, pres)
		}
		if e.Conn >= 4 || e.Kind > KindTimeout {
			if !res.Error || res != (Result{Conn: e.Conn, Kind: e.Kind, Error: true}) || m.LFSR() != before {
				t.Fatalf("event %d %+v: bad error handling %+v", i, e, res)
			}
			continue
		}
		s := m.Conn(e.Conn)
		if !stateEqual(s, shadow[e.Conn]) {
			t.Fatalf("event %d %+v: model %+v, pure %+v", i, e, s, shadow[e.Conn])
		}
		if msg := checkInvariant(p, s); msg != "" {
			t.Fatalf("event %d %+v: %s: %+v", i, e, msg, s)
		}
		// The LFSR moves iff a send explored, by EVW steps.
		moved := m.LFSR() != before
		if moved != res.Explored {
			t.Fatalf("event %d %+v: LFSR moved %v, explored %v", i, e, moved, res.Explored)
		}
		if e.Kind != KindSend && (res.EV != 0 || res.Explored) {
			t.Fatalf("event %d %+v: non-send result %+v", i, e, res)
		}
		if res.Frozen != s.Frozen {
			t.Fatalf("event %d: result frozen %v, word %v", i, res.Frozen, s.Frozen)
		}
		// A send cannot enter freezing, so a frozen send result means the
		// word was frozen throughout: it must not explore (S4:L59).
		if e.Kind == KindSend && res.Frozen {
			frozenSends++
			if res.Explored {
				t.Fatalf("event %d: frozen send explored", i)
			}
			if prev.NumValid == 0 {
				replays++
			}
		}
		if e.Kind == KindAck && !e.ECN && prev.NumValid == 4 {
			fullOverwrites++
		}
		if prev.Frozen && !s.Frozen && e.Kind != KindOpen {
			exits++
		}
		if e.Kind == KindSend && !res.Explored && !res.Frozen {
			recycled++
		}
		if res.Explored {
			explored++
		}
	}
	// The stimulus must have reached every rule, or the test proves little.
	for name, n := range map[string]int{"frozen sends": frozenSends, "replays": replays,
		"full overwrites": fullOverwrites, "freeze exits": exits, "recycled": recycled, "explored": explored} {
		if n < events/1000 {
			t.Errorf("only %d %s in %d events", n, name, events)
		}
	}
	t.Logf("frozen sends %d (replays %d), full overwrites %d, exits %d, recycled %d, explored %d",
		frozenSends, replays, fullOverwrites, exits, recycled, explored)
}
