package reps

import (
	"reflect"
	"strings"
	"testing"
)

// Seed references: S4 = shared/seeds/004_*.txt (REPS paper), line numbers
// as printed by grep -n; "doc" = docs/blocks/reps.md.

// newModel returns a model with the default parameters changed by mod.
func newModel(t *testing.T, mod func(*Params)) *Model {
	t.Helper()
	p := DefaultParams()
	if mod != nil {
		mod(&p)
	}
	m, err := NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// small is a 4-entry buffer that explores once after open, twice after a
// freeze, and freezes for 500 ticks: short enough to reach every rule.
func small(p *Params) {
	p.N = 4
	p.ExploreInit = 1
	p.ExploreAfterFreeze = 2
	p.FreezeTime = 500
}

func ev(c uint32, k Kind, now uint64) Event { return Event{Conn: c, Kind: k, Now: now} }
func ack(c, v uint32, now uint64) Event     { return Event{Conn: c, Kind: KindAck, EV: v, Now: now} }
func ecnAck(c, v uint32, now uint64) Event {
	return Event{Conn: c, Kind: KindAck, EV: v, ECN: true, Now: now}
}

// step runs e and checks the result against want.
func step(t *testing.T, m *Model, e Event, want Result) {
	t.Helper()
	if got := m.Step(e); got != want {
		t.Fatalf("Step(%+v) = %+v, want %+v", e, got, want)
	}
}

func sendRes(c, v uint32, explored, frozen bool) Result {
	return Result{Conn: c, Kind: KindSend, EV: v, Explored: explored, Frozen: frozen}
}

func checkConn(t *testing.T, m *Model, c uint32, want State) {
	t.Helper()
	if got := m.Conn(c); !reflect.DeepEqual(got, want) {
		t.Fatalf("conn %d = %+v, want %+v", c, got, want)
	}
}

func TestDefaultParamsValid(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatal(err)
	}
	// S4 Table 1 (S4:L74): 8 x (16+1) + 8+8+32+1+8 = 193 bits.
	p := DefaultParams()
	if bits := p.N*(p.EVW+1) + p.HeadW + p.CountW + p.TimeW + 1 + p.ExploreW; bits != 193 {
		t.Fatalf("default word = %d bits, S4 Table 1 says 193", bits)
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Params)
		want string
	}{
		{"N0", func(p *Params) { p.N = 0 }, "N = 0"},
		{"N65", func(p *Params) { p.N = 65; p.HeadW = 8 }, "N = 65"},
		{"head", func(p *Params) { p.N = 9; p.HeadW = 3 }, "N-1 = 8 does not fit HeadW"},
		{"count", func(p *Params) { p.N = 8; p.CountW = 3 }, "N = 8 does not fit CountW"},
		{"exploreInit", func(p *Params) { p.ExploreInit = 256 }, "ExploreInit = 256"},
		{"exploreAfter", func(p *Params) { p.ExploreAfterFreeze = 300 }, "ExploreAfterFreeze = 300"},
		{"freeze", func(p *Params) { p.TimeW = 8; p.FreezeTime = 128 }, "FreezeTime = 128"},
		{"seed", func(p *Params) { p.LFSRSeed = 0 }, "LFSRSeed"},
		{"evw", func(p *Params) { p.EVW = 33 }, "EVW = 33"},
		{"timew", func(p *Params) { p.TimeW = 64 }, "TimeW = 64"},
		{"connw", func(p *Params) { p.ConnW = 33 }, "ConnW = 33"},
		{"numconn", func(p *Params) { p.ConnW = 4; p.NumConn = 17 }, "NumConn = 17"},
		{"numconn0", func(p *Params) { p.NumConn = 0 }, "NumConn = 0"},
	}
	for _, c := range cases {
		p := DefaultParams()
		c.mod(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v, want an error containing %q", c.name, err, c.want)
		}
		if _, err := NewModel(p); err == nil {
			t.Errorf("%s: NewModel accepted invalid params", c.name)
		}
	}
	// Boundaries that are legal.
	ok := DefaultParams()
	ok.N, ok.HeadW, ok.CountW = 64, 6, 7
	ok.ExploreInit, ok.ExploreAfterFreeze = 255, 0
	ok.TimeW, ok.FreezeTime = 8, 127
	ok.ConnW, ok.NumConn = 4, 16
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
}

// A never-opened word reads as all zero (doc, "rst").
func TestNeverOpenedIsZero(t *testing.T) {
	m := newModel(t, nil)
	checkConn(t, m, 4095, State{EV: make([]uint32, 8), Valid: make([]bool, 8)})
}

// Doc step 2: open resets every field and sets explore = ExploreInit.
func TestOpenInitialises(t *testing.T) {
	p := DefaultParams()
	dirty := State{
		EV:    []uint32{1, 2, 3, 4, 5, 6, 7, 8},
		Valid: []bool{true, true, true, true, true, true, true, true},
		Head:  3, NumValid: 8, ExitFreeze: 77, Frozen: true, Explore: 0,
	}
	keep := State{
		EV:    append([]uint32(nil), dirty.EV...),
		Valid: append([]bool(nil), dirty.Valid...),
		Head:  3, NumValid: 8, ExitFreeze: 77, Frozen: true,
	}
	l := LFSR(defaultSeed)
	got, r := Step(p, dirty, &l, ev(7, KindOpen, 5))
	want := State{EV: make([]uint32, 8), Valid: make([]bool, 8), Explore: 210}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("open: %+v, want %+v", got, want)
	}
	if r != (Result{Conn: 7, Kind: KindOpen}) {
		t.Fatalf("open result %+v", r)
	}
	if l != defaultSeed {
		t.Fatal("open moved the LFSR")
	}
	if !reflect.DeepEqual(dirty, keep) {
		t.Fatal("Step modified its input State")
	}
	// The output owns its slices: writing them leaves the input alone.
	got2, _ := Step(p, got, &l, ack(7, 9, 6))
	got2.EV[0], got2.Valid[0] = 1234, false
	if got.EV[0] != 0 || got.Valid[0] {
		t.Fatal("Step's output aliases its input")
	}
}

// S4:L49: the first BDP (ExploreInit) sends of a new connection explore
// random EVs; doc step 7 rule 1 decrements explore. The LFSR is global:
// two connections share one draw sequence (doc, "The LFSR").
func TestExploreThenRandom(t *testing.T) {
	m := newModel(t, nil)
	step(t, m, ev(1, KindOpen, 0), Result{Conn: 1, Kind: KindOpen})
	step(t, m, ev(2, KindOpen, 0), Result{Conn: 2, Kind: KindOpen})
	step(t, m, ev(1, KindSend, 1), sendRes(1, firstDraw16, true, false))
	step(t, m, ev(2, KindSend, 2), sendRes(2, secondDraw, true, false))
	step(t, m, ev(1, KindSend, 3), sendRes(1, thirdDraw, true, false))
	if got := m.Conn(1).Explore; got != 208 {
		t.Fatalf("explore after 2 sends = %d, want 210-2", got)
	}
	if got := m.Conn(2).Explore; got != 209 {
		t.Fatalf("explore after 1 send = %d, want 210-1", got)
	}

	ref := LFSR(after48)
	for i := 3; i <= 210; i++ {
		step(t, m, ev(1, KindSend, uint64(i)), sendRes(1, ref.Draw(16), true, false))
		if got := m.Conn(1).Explore; got != uint32(210-i) {
			t.Fatalf("explore after %d sends = %d", i, got)
		}
	}
	// 211th send: explore 0, nothing cached, not frozen: rule 4 draws
	// without touching the (zero) counter.
	step(t, m, ev(1, KindSend, 211), sendRes(1, ref.Draw(16), true, false))
	checkConn(t, m, 1, State{EV: make([]uint32, 8), Valid: make([]bool, 8)})
	if m.LFSR() != ref {
		t.Fatal("model LFSR diverged from the reference draws")
	}
}

// S4:L51: an unmarked ack caches its EV as valid; the next send reuses it
// (not explored) and clears its validity bit; then sends explore again.
func TestAckCachedThenReused(t *testing.T) {
	m := newModel(t, func(p *Params) { p.ExploreInit = 1 })
	step(t, m, ev(3, KindOpen, 0), Result{Conn: 3, Kind: KindOpen})
	step(t, m, ev(3, KindSend, 1), sendRes(3, firstDraw16, true, false))
	step(t, m, ack(3, 0x1234, 2), Result{Conn: 3, Kind: KindAck})
	want := State{EV: make([]uint32, 8), Valid: make([]bool, 8), Head: 1, NumValid: 1}
	want.EV[0], want.Valid[0] = 0x1234, true
	checkConn(t, m, 3, want)

	lfsr := m.LFSR()
	step(t, m, ev(3, KindSend, 3), sendRes(3, 0x1234, false, false))
	if m.LFSR() != lfsr {
		t.Fatal("a recycled send moved the LFSR")
	}
	want.Valid[0], want.NumValid = false, 0
	checkConn(t, m, 3, want)
	// Nothing valid: explore a random EV (S4:L51, "Otherwise").
	step(t, m, ev(3, KindSend, 4), sendRes(3, secondDraw, true, false))
	checkConn(t, m, 3, want)
}

// S4:L51: an ECN-marked ack's EV is discarded. Doc step 6: so is a nack's.
func TestMarkedAckAndNackDiscarded(t *testing.T) {
	m := newModel(t, func(p *Params) { p.ExploreInit = 0 })
	step(t, m, ev(0, KindOpen, 0), Result{Conn: 0, Kind: KindOpen})
	before := m.Conn(0)
	step(t, m, ecnAck(0, 0x55, 1), Result{Conn: 0, Kind: KindAck})
	step(t, m, Event{Conn: 0, Kind: KindNack, EV: 0x66, Now: 2}, Result{Conn: 0, Kind: KindNack})
	checkConn(t, m, 0, before)
	step(t, m, ev(0, KindSend, 3), sendRes(0, firstDraw16, true, false))
}

// S4:L51 "the oldest valid EV": acks and sends interleaved come out FIFO.
func TestOldestValidFirst(t *testing.T) {
	m := newModel(t, func(p *Params) { p.ExploreInit = 0 })
	step(t, m, ev(5, KindOpen, 0), Result{Conn: 5, Kind: KindOpen})
	m.Step(ack(5, 10, 1))
	m.Step(ack(5, 20, 2))
	step(t, m, ev(5, KindSend, 3), sendRes(5, 10, false, false)) // i = 2-2 = 0
	m.Step(ack(5, 30, 4))                                        // buf[2], head 3
	step(t, m, ev(5, KindSend, 5), sendRes(5, 20, false, false)) // i = 3-2 = 1
	step(t, m, ev(5, KindSend, 6), sendRes(5, 30, false, false)) // i = 3-1 = 2
	step(t, m, ev(5, KindSend, 7), sendRes(5, firstDraw16, true, false))
	want := State{EV: []uint32{10, 20, 30, 0, 0, 0, 0, 0}, Valid: make([]bool, 8), Head: 3}
	checkConn(t, m, 5, want)
}

// Doc step 5: with all N entries valid, an ack overwrites the oldest valid
// one (at head) and num_valid stays N.
func TestFullBufferOverwritesOldest(t *testing.T) {
	m := newModel(t, func(p *Params) { p.N = 4; p.ExploreInit = 0 })
	m.Step(ev(0, KindOpen, 0))
	for v := uint32(1); v <= 4; v++ {
		m.Step(ack(0, v, uint64(v)))
	}
	checkConn(t, m, 0, State{EV: []uint32{1, 2, 3, 4}, Valid: []bool{true, true, true, true}, Head: 0, NumValid: 4})
	m.Step(ack(0, 5, 5))
	m.Step(ack(0, 6, 6))
	checkConn(t, m, 0, State{EV: []uint32{5, 6, 3, 4}, Valid: []bool{true, true, true, true}, Head: 2, NumValid: 4})
	// Oldest first: i = (2-4) mod 4 = 2, then 3, 0, 1; 1 and 2 are gone.
	for _, v := range []uint32{3, 4, 5, 6} {
		step(t, m, ev(0, KindSend, 7), sendRes(0, v, false, false))
	}
	checkConn(t, m, 0, State{EV: []uint32{5, 6, 3, 4}, Valid: make([]bool, 4), Head: 2})
}

// Doc step 4 / A-13: a timeout while exploring does not freeze; one after
// exploration does, with exit = now + FreezeTime.
func TestTimeoutFreezesOnlyAfterExploration(t *testing.T) {
	m := newModel(t, func(p *Params) { p.ExploreInit = 2 })
	m.Step(ev(1, KindOpen, 0))
	step(t, m, ev(1, KindTimeout, 10), Result{Conn: 1, Kind: KindTimeout})
	m.Step(ev(1, KindSend, 11))
	step(t, m, ev(1, KindTimeout, 12), Result{Conn: 1, Kind: KindTimeout})
	if s := m.Conn(1); s.Frozen || s.Explore != 1 {
		t.Fatalf("timeout while exploring changed the word: %+v", s)
	}
	m.Step(ev(1, KindSend, 13))
	step(t, m, ev(1, KindTimeout, 1000), Result{Conn: 1, Kind: KindTimeout, Frozen: true})
	s := m.Conn(1)
	if !s.Frozen || s.ExitFreeze != 1000+10_000_000 {
		t.Fatalf("after timeout: %+v, want frozen with exit %d", s, 1000+10_000_000)
	}
	// A second timeout while frozen does not push the exit back.
	step(t, m, ev(1, KindTimeout, 2000), Result{Conn: 1, Kind: KindTimeout, Frozen: true})
	if got := m.Conn(1).ExitFreeze; got != 1000+10_000_000 {
		t.Fatalf("exit moved to %d", got)
	}
}

// exit_freeze is TimeW bits: now + FreezeTime wraps modulo 2^TimeW.
func TestFreezeExitTimeWraps(t *testing.T) {
	m := newModel(t, func(p *Params) { p.ExploreInit = 0 })
	m.Step(ev(0, KindOpen, 0))
	m.Step(ev(0, KindTimeout, 0xFFFF0000))
	// 0xFFFF0000 + 10_000_000 - 2^32 = 9_934_464.
	if got := m.Conn(0).ExitFreeze; got != 9_934_464 {
		t.Fatalf("exit = %d, want 9934464", got)
	}
	m8 := newModel(t, func(p *Params) { p.ExploreInit = 0; p.TimeW = 8; p.FreezeTime = 100 })
	m8.Step(ev(0, KindOpen, 0))
	m8.Step(ev(0, KindTimeout, 200)) // (200+100) mod 256 = 44
	if got := m8.Conn(0).ExitFreeze; got != 44 {
		t.Fatalf("exit = %d, want 44", got)
	}
}

// S4:L59 and L62: frozen with nothing valid, sends replay buf[head]
// round-robin whatever its validity and never explore (the LFSR stays put).
// Valid entries are still used first (rule 2 precedes rule 3). A never
// written entry replays as EV 0 (doc, choices).
func TestFrozenReplay(t *testing.T) {
	m := newModel(t, small)
	m.Step(ev(2, KindOpen, 0))
	step(t, m, ev(2, KindSend, 1), sendRes(2, firstDraw16, true, false))
	m.Step(ack(2, 11, 2))
	m.Step(ack(2, 22, 3))
	step(t, m, ev(2, KindTimeout, 1000), Result{Conn: 2, Kind: KindTimeout, Frozen: true})
	lfsr := m.LFSR()
	// head 2, num_valid 2: the valid ones first, then buf[2], buf[3], ...
	for i, v := range []uint32{11, 22, 0, 0, 11, 22, 0} {
		step(t, m, ev(2, KindSend, 1001+uint64(i)), sendRes(2, v, false, true))
	}
	if m.LFSR() != lfsr {
		t.Fatal("a frozen send moved the LFSR")
	}
	checkConn(t, m, 2, State{EV: []uint32{11, 22, 0, 0}, Valid: make([]bool, 4),
		Head: 3, ExitFreeze: 1500, Frozen: true})
}

// S4:L64 and doc step 3: the freeze ends lazily on the first event strictly
// after exit_freeze, any kind but open, and explore reloads.
func TestFreezeExit(t *testing.T) {
	for _, k := range []Kind{KindSend, KindAck, KindNack, KindTimeout} {
		m := newModel(t, small)
		m.Step(ev(0, KindOpen, 0))
		m.Step(ev(0, KindSend, 1))
		m.Step(ev(0, KindTimeout, 1000)) // exit 1500
		// Before and at exit_freeze: still frozen.
		for _, now := range []uint64{1200, 1500} {
			if r := m.Step(ev(0, KindNack, now)); !r.Frozen {
				t.Fatalf("%v: unfrozen at now %d", k, now)
			}
		}
		r := m.Step(Event{Conn: 0, Kind: k, EV: 9, Now: 1501})
		if r.Frozen {
			t.Fatalf("%v at 1501: still frozen", k)
		}
		s := m.Conn(0)
		wantExplore := uint32(2) // ExploreAfterFreeze
		if k == KindSend {
			wantExplore = 1 // the send itself explored
			if !r.Explored || r.EV != secondDraw {
				t.Fatalf("send at exit: %+v, want an explored draw", r)
			}
		}
		if s.Frozen || s.Explore != wantExplore {
			t.Fatalf("%v at exit: %+v", k, s)
		}
		if k == KindAck && (s.NumValid != 1 || s.EV[0] != 9) {
			t.Fatalf("ack at exit not cached: %+v", s)
		}
	}
}

// Doc steps 3 then 4: a timeout at the exit instant unfreezes first; with
// ExploreAfterFreeze = 0 it re-freezes at once with a new exit time
// (S4:L64 "re-enter the mode shortly afterward").
func TestTimeoutAtExit(t *testing.T) {
	for _, after := range []uint64{0, 2} {
		m := newModel(t, func(p *Params) { small(p); p.ExploreAfterFreeze = after })
		m.Step(ev(0, KindOpen, 0))
		m.Step(ev(0, KindSend, 1))
		m.Step(ev(0, KindTimeout, 1000))
		r := m.Step(ev(0, KindTimeout, 1501))
		s := m.Conn(0)
		if after == 0 && (!r.Frozen || s.ExitFreeze != 2001) {
			t.Fatalf("explore-after 0: %+v %+v, want re-frozen until 2001", r, s)
		}
		if after == 2 && (r.Frozen || s.Explore != 2) {
			t.Fatalf("explore-after 2: %+v %+v, want unfrozen and exploring", r, s)
		}
	}
}

// Doc step 3: after() is serial-number arithmetic on TimeW bits, so the
// freeze survives now wrapping across 2^32, and a now with bits above TimeW
// is read through the port.
func TestSerialWrapOfNow(t *testing.T) {
	m := newModel(t, func(p *Params) { p.ExploreInit = 0 })
	m.Step(ev(0, KindOpen, 0))
	m.Step(ev(0, KindTimeout, 0xFFFF0000)) // exit 9_934_464
	const exit = 9_934_464
	cases := []struct {
		now    uint64
		frozen bool
	}{
		{0xFFFFFFFF, true},   // before the wrap: exit is still ahead
		{0, true},            // wrapped, before exit
		{exit, true},         // equal is not after
		{1<<32 + exit, true}, // the same instant seen through 32 bits
		{exit + 1<<31, true}, // exactly half a circle: bit 31 set, not after
	}
	for _, c := range cases {
		if r := m.Step(ev(0, KindNack, c.now)); r.Frozen != c.frozen {
			t.Fatalf("now %#x: frozen = %v, want %v", c.now, r.Frozen, c.frozen)
		}
	}
	// exit + 2^31 - 1 is the latest "after"; exit + 1 the earliest. Use
	// fresh models as the first such event unfreezes.
	for _, now := range []uint64{exit + 1, exit + 1<<31 - 1, 1<<32 + exit + 1} {
		m := newModel(t, func(p *Params) { p.ExploreInit = 0 })
		m.Step(ev(0, KindOpen, 0))
		m.Step(ev(0, KindTimeout, 0xFFFF0000))
		if r := m.Step(ev(0, KindNack, now)); r.Frozen {
			t.Fatalf("now %#x: still frozen", now)
		}
	}
	// A timeout's now is truncated before the addition too.
	m.Step(ev(1, KindOpen, 0))
	m.Step(ev(1, KindTimeout, 1<<32+5))
	if got := m.Conn(1).ExitFreeze; got != 5+10_000_000 {
		t.Fatalf("exit = %d, want %d", got, 5+10_000_000)
	}
}

// Doc step 3 option: ClearOnFreezeExit drops valid bits, head and
// num_valid (htsim resetBuffer, ALGORITHMS.md 12.3); the EVs stay. The
// default keeps the buffer (ns-3).
func TestClearOnFreezeExit(t *testing.T) {
	run := func(clear bool) *Model {
		m := newModel(t, func(p *Params) { small(p); p.ExploreInit = 0; p.ClearOnFreezeExit = clear })
		m.Step(ev(0, KindOpen, 0))
		m.Step(ev(0, KindTimeout, 1000)) // frozen until 1500
		m.Step(ack(0, 11, 1001))
		m.Step(ack(0, 22, 1002))
		m.Step(ack(0, 33, 1003))
		step(t, m, ev(0, KindSend, 1004), sendRes(0, 11, false, true))
		step(t, m, ev(0, KindNack, 1501), Result{Conn: 0, Kind: KindNack})
		return m
	}
	checkConn(t, run(false), 0, State{EV: []uint32{11, 22, 33, 0}, Valid: []bool{false, true, true, false},
		Head: 3, NumValid: 2, ExitFreeze: 1500, Explore: 2})
	checkConn(t, run(true), 0, State{EV: []uint32{11, 22, 33, 0}, Valid: make([]bool, 4),
		Head: 0, NumValid: 0, ExitFreeze: 1500, Explore: 2})
}

// Doc step 1: conn >= NumConn or kind 5..7 gives an error result and
// leaves the table and the LFSR untouched.
func TestErrors(t *testing.T) {
	m := newModel(t, func(p *Params) { small(p); p.NumConn = 4; p.ExploreInit = 0 })
	m.Step(ev(1, KindOpen, 0))
	m.Step(ack(1, 7, 1))
	m.Step(ev(1, KindTimeout, 2)) // frozen
	before, lfsr := m.Conn(1), m.LFSR()
	bad := []Event{
		{Conn: 4, Kind: KindSend, Now: 3},
		{Conn: 0xFFFF, Kind: KindOpen, Now: 3},
		{Conn: 4, Kind: KindAck, EV: 5, Now: 3},
		{Conn: 1, Kind: 5, Now: 3},
		{Conn: 1, Kind: 6, EV: 3, ECN: true, Now: 3},
		{Conn: 1, Kind: 7, Now: 9999}, // would be after exit_freeze
	}
	for _, e := range bad {
		step(t, m, e, Result{Conn: e.Conn, Kind: e.Kind, Error: true})
		if s, _ := Step(m.Params(), before, nil, e); !reflect.DeepEqual(s, before) {
			t.Fatalf("pure Step(%+v) changed the word", e)
		}
	}
	checkConn(t, m, 1, before)
	if m.LFSR() != lfsr {
		t.Fatal("an error moved the LFSR")
	}
	for c := uint32(0); c < 4; c++ {
		if c != 1 {
			checkConn(t, m, c, State{EV: make([]uint32, 4), Valid: make([]bool, 4)})
		}
	}
}

// The model reads events through the port widths (Conn: ConnW, Kind: 3,
// EV: EVW), as the RTL does.
func TestPortWidthTruncation(t *testing.T) {
	m := newModel(t, func(p *Params) { p.ExploreInit = 0 })
	step(t, m, Event{Conn: 0x10001, Kind: KindOpen}, Result{Conn: 1, Kind: KindOpen})
	step(t, m, Event{Conn: 1, Kind: 8 + KindAck, EV: 0x12345}, Result{Conn: 1, Kind: KindAck})
	step(t, m, Event{Conn: 1, Kind: KindSend}, sendRes(1, 0x2345, false, false))
}

func TestPureStepMatchesModel(t *testing.T) {
	p := DefaultParams()
	p.N, p.ExploreInit, p.FreezeTime = 4, 2, 50
	m, _ := NewModel(p)
	var s State
	l := LFSR(p.LFSRSeed)
	evs := []Event{
		ev(0, KindOpen, 0), ev(0, KindSend, 1), ack(0, 4, 2), ev(0, KindSend, 3),
		ev(0, KindSend, 4), ev(0, KindTimeout, 5), ev(0, KindSend, 6), ev(0, KindSend, 7),
		ack(0, 9, 8), ev(0, KindTimeout, 9), ev(0, KindSend, 10), ev(0, KindSend, 60),
	}
	for _, e := range evs {
		var r Result
		s, r = Step(p, s, &l, e)
		if mr := m.Step(e); mr != r {
			t.Fatalf("%+v: model %+v, pure %+v", e, mr, r)
		}
		if !reflect.DeepEqual(m.Conn(0), s) {
			t.Fatalf("%+v: model %+v, pure %+v", e, m.Conn(0), s)
		}
	}
	if m.LFSR() != l {
		t.Fatal("LFSR diverged")
	}
}

func TestModelStepDoesNotAllocate(t *testing.T) {
	m := newModel(t, nil)
	for c := range uint32(4096) {
		m.Step(ev(c, KindOpen, 0))
	}
	i := uint32(0)
	allocs := testing.AllocsPerRun(10000, func() {
		i++
		m.Step(Event{Conn: i * 2654435761 % 4096, Kind: Kind(i % 5), EV: i, Now: uint64(i)})
	})
	if allocs != 0 {
		t.Fatalf("Model.Step allocates %v times per call", allocs)
	}
}

func TestModelResetReloadsLFSROnly(t *testing.T) {
	m := newModel(t, nil)
	m.Step(ev(0, KindOpen, 0))
	m.Step(ev(0, KindSend, 1))
	before := m.Conn(0)
	m.Reset()
	if m.LFSR() != defaultSeed {
		t.Fatal("Reset did not reload the seed")
	}
	checkConn(t, m, 0, before)
}
