package reps

import (
	"strings"
	"testing"
)

// Seed references: S0 = shared/seeds/000_*.txt, Algorithm 4 at S0:L291-309.

func newConf(t *testing.T, mod func(*ConfParams)) *ConfModel {
	t.Helper()
	p := DefaultConfParams()
	if mod != nil {
		mod(&p)
	}
	m, err := NewConfModel(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func confStep(t *testing.T, m *ConfModel, e Event, want Result) {
	t.Helper()
	if got := m.Step(e); got != want {
		t.Fatalf("Step(%+v) = %+v, want %+v", e, got, want)
	}
}

func TestConfValidate(t *testing.T) {
	if err := DefaultConfParams().Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		mod  func(*ConfParams)
		want string
	}{
		{"ent0", func(p *ConfParams) { p.NumEntropies = 0 }, "NumEntropies = 0"},
		{"entw-small", func(p *ConfParams) { p.NumEntropies = 257 }, "EntW = 8"},
		{"entw-evw", func(p *ConfParams) { p.EVW = 4 }, "EntW = 8"},
		{"explore", func(p *ConfParams) { p.ExploreW = 7 }, "ExploreInit = 210"},
		{"numconn", func(p *ConfParams) { p.ConnW = 8; p.NumConn = 257 }, "NumConn = 257"},
	}
	for _, c := range cases {
		p := DefaultConfParams()
		c.mod(&p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v, want an error containing %q", c.name, err, c.want)
		}
		if _, err := NewConfModel(p); err == nil {
			t.Errorf("%s: NewConfModel accepted invalid params", c.name)
		}
	}
	ok := DefaultConfParams()
	ok.NumEntropies, ok.EntW = 1, 1
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
}

func confSend(c, v uint32, explored bool) Result {
	return Result{Conn: c, Kind: KindSend, EV: v, Explored: explored}
}

// S0:L297: the first bdp of sends explore entropies sequentially 0, 1, 2, ...
// and explore_left stops them after ExploreInit sends; then the
// cached entropy (0 after open, S0:L294) is used.
func TestConfSequentialExploration(t *testing.T) {
	m := newConf(t, nil)
	confStep(t, m, ev(9, KindOpen, 0), Result{Conn: 9, Kind: KindOpen})
	if s := m.Conn(9); s != (ConfState{ExploreLeft: 210}) {
		t.Fatalf("after open: %+v", s)
	}
	for i := range uint32(210) {
		confStep(t, m, ev(9, KindSend, 0), confSend(9, i, true))
	}
	if s := m.Conn(9); s != (ConfState{Next: 210}) {
		t.Fatalf("after exploration: %+v", s)
	}
	confStep(t, m, ev(9, KindSend, 0), confSend(9, 0, false))
	confStep(t, m, ev(9, KindSend, 0), confSend(9, 0, false))
}

// S0:L305: a marked ack sets cached_entropy = next_entropy++ (the old
// value, C post-increment); S0:L307: an unmarked one caches the ack's
// entropy (its low EntW bits).
func TestConfAcks(t *testing.T) {
	m := newConf(t, func(p *ConfParams) { p.ExploreInit = 3 })
	m.Step(ev(0, KindOpen, 0))
	for i := range uint32(3) {
		confStep(t, m, ev(0, KindSend, 0), confSend(0, i, true))
	}
	confStep(t, m, ecnAck(0, 1, 0), Result{Conn: 0, Kind: KindAck})
	if s := m.Conn(0); s != (ConfState{Next: 4, Cached: 3}) {
		t.Fatalf("after marked ack: %+v, want cached 3 next 4", s)
	}
	confStep(t, m, ev(0, KindSend, 0), confSend(0, 3, false))
	confStep(t, m, ack(0, 0x1234, 0), Result{Conn: 0, Kind: KindAck})
	if s := m.Conn(0); s != (ConfState{Next: 4, Cached: 0x34}) {
		t.Fatalf("after unmarked ack: %+v, want cached 0x34", s)
	}
	confStep(t, m, ev(0, KindSend, 0), confSend(0, 0x34, false))
	// A marked ack during exploration also advances next_entropy, so the
	// exploration skips the entropy it took.
	m.Step(ev(1, KindOpen, 0))
	m.Step(ecnAck(1, 0, 0))
	confStep(t, m, ev(1, KindSend, 0), confSend(1, 1, true))
	if s := m.Conn(1); s != (ConfState{Next: 2, Cached: 0, ExploreLeft: 2}) {
		t.Fatalf("conn 1: %+v", s)
	}
}

// next_entropy wraps to 0 at NumEntropies (the "% num_entropies" of
// S0:L297, L305), whether exploration or a marked ack advances it.
func TestConfWrap(t *testing.T) {
	m := newConf(t, func(p *ConfParams) { p.NumEntropies = 5; p.EntW = 3; p.ExploreInit = 7 })
	m.Step(ev(0, KindOpen, 0))
	for _, v := range []uint32{0, 1, 2, 3, 4, 0, 1} {
		confStep(t, m, ev(0, KindSend, 0), confSend(0, v, true))
	}
	for _, want := range []ConfState{{Next: 3, Cached: 2}, {Next: 4, Cached: 3}, {Next: 0, Cached: 4}, {Next: 1, Cached: 0}} {
		m.Step(ecnAck(0, 0, 0))
		if s := m.Conn(0); s != want {
			t.Fatalf("after marked ack: %+v, want %+v", s, want)
		}
	}
	// An unmarked ack keeps the low EntW = 3 bits, even above NumEntropies.
	m.Step(ack(0, 0xF, 0))
	confStep(t, m, ev(0, KindSend, 0), confSend(0, 7, false))
}

// Doc reps_conf step 5: nack and timeout change nothing; frozen is never
// set; errors as for reps.
func TestConfOtherKindsAndErrors(t *testing.T) {
	m := newConf(t, func(p *ConfParams) { p.NumConn = 4 })
	m.Step(ev(2, KindOpen, 0))
	m.Step(ev(2, KindSend, 0))
	m.Step(ack(2, 0x77, 0))
	before := m.Conn(2)
	confStep(t, m, ev(2, KindNack, 5), Result{Conn: 2, Kind: KindNack})
	confStep(t, m, ev(2, KindTimeout, 6), Result{Conn: 2, Kind: KindTimeout})
	for _, e := range []Event{ev(4, KindSend, 0), ev(2, 5, 0), ev(2, 6, 0), ev(2, 7, 0)} {
		confStep(t, m, e, Result{Conn: e.Conn, Kind: e.Kind, Error: true})
		if s, _ := ConfStep(m.Params(), before, e); s != before {
			t.Fatalf("ConfStep(%+v) changed the word", e)
		}
	}
	if s := m.Conn(2); s != before {
		t.Fatalf("word changed: %+v -> %+v", before, s)
	}
	if s := m.Conn(3); s != (ConfState{}) {
		t.Fatalf("never-opened word: %+v", s)
	}
}

func TestConfPureMatchesModel(t *testing.T) {
	p := DefaultConfParams()
	p.NumEntropies, p.EntW, p.ExploreInit, p.NumConn = 5, 3, 3, 2
	m, _ := NewConfModel(p)
	var s [2]ConfState
	r := rng(7)
	for range 100000 {
		e := Event{Conn: uint32(r.next() % 3), Kind: Kind(r.next() % 8), ECN: r.next()%2 == 0, EV: uint32(r.next())}
		var pr Result
		if e.Conn < 2 {
			s[e.Conn], pr = ConfStep(p, s[e.Conn], e)
		} else {
			_, pr = ConfStep(p, ConfState{}, e)
		}
		if mr := m.Step(e); mr != pr {
			t.Fatalf("%+v: model %+v, pure %+v", e, mr, pr)
		}
		if pr.Frozen {
			t.Fatal("reps_conf result with Frozen set")
		}
	}
	for c := range uint32(2) {
		if m.Conn(c) != s[c] {
			t.Fatalf("conn %d: model %+v, pure %+v", c, m.Conn(c), s[c])
		}
	}
}
