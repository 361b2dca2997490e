package reps

import (
	"errors"
	"fmt"
)

// MaxN is the largest buffer the model supports: the valid bits of a word
// are kept in one uint64 so that Model.Step does not allocate.
const MaxN = 64

// Params are the parameters of the reps block (docs/blocks/reps.md).
type Params struct {
	NumConn  int // connections in the state table
	Depth    int // datapath stages of the RTL shell (golden/pipe); 0 reads as 1
	ConnW    int // width of s_event_conn
	N        int // buffer entries per connection
	EVW      int // width of an EV
	HeadW    int // width of head
	CountW   int // width of num_valid
	TimeW    int // width of now and exit_freeze
	ExploreW int // width of explore

	ExploreInit        uint64 // explore after open
	ExploreAfterFreeze uint64 // explore after a freeze exit
	FreezeTime         uint64 // freeze duration in now ticks
	LFSRSeed           uint32 // LFSR value after reset; nonzero
	ClearOnFreezeExit  bool   // htsim: drop the buffer on freeze exit
}

// DefaultParams returns the defaults of docs/blocks/reps.md: S4 Table 1
// widths (S4:L74), N = 8, ExploreInit = the BDP of the default network in
// packets (210), a 10 ms freeze in 1 ns ticks.
func DefaultParams() Params {
	return Params{
		NumConn:            4096,
		ConnW:              16,
		N:                  8,
		EVW:                16,
		HeadW:              8,
		CountW:             8,
		TimeW:              32,
		ExploreW:           8,
		ExploreInit:        210,
		ExploreAfterFreeze: 210,
		FreezeTime:         10_000_000,
		LFSRSeed:           0xACE12D3B,
		ClearOnFreezeExit:  false,
	}
}

// checkWidth reports a width outside lo..hi.
func checkWidth(name string, w, lo, hi int) error {
	if w < lo || w > hi {
		return fmt.Errorf("%s = %d: must be in %d..%d", name, w, lo, hi)
	}
	return nil
}

// checkFits reports a value that a w-bit field cannot hold (no saturation:
// a silently clipped parameter would hide a configuration mistake).
func checkFits(name string, v uint64, fieldName string, w int) error {
	if w < 64 && v > mask64(w) {
		return fmt.Errorf("%s = %d does not fit %s = %d bits", name, v, fieldName, w)
	}
	return nil
}

// checkNumConn reports a table size the conn port cannot address.
func checkNumConn(numConn, connW int) error {
	if numConn < 1 {
		return fmt.Errorf("NumConn = %d: must be >= 1", numConn)
	}
	if connW >= 1 && connW <= 32 && uint64(numConn) > uint64(1)<<connW {
		return fmt.Errorf("NumConn = %d exceeds 2^ConnW = 2^%d", numConn, connW)
	}
	return nil
}

// Validate reports every parameter the block cannot implement as specified.
func (p Params) Validate() error {
	errs := []error{
		checkWidth("ConnW", p.ConnW, 1, 32),
		checkNumConn(p.NumConn, p.ConnW),
		checkWidth("EVW", p.EVW, 1, 32),
		checkWidth("HeadW", p.HeadW, 1, 32),
		checkWidth("CountW", p.CountW, 1, 32),
		checkWidth("TimeW", p.TimeW, 1, 63),
		checkWidth("ExploreW", p.ExploreW, 1, 32),
	}
	if p.N < 1 || p.N > MaxN {
		errs = append(errs, fmt.Errorf("N = %d: must be in 1..%d", p.N, MaxN))
	} else {
		// head is an index 0..N-1 and num_valid a count 0..N.
		if p.HeadW >= 1 && p.HeadW <= 32 {
			errs = append(errs, checkFits("N-1", uint64(p.N-1), "HeadW", p.HeadW))
		}
		if p.CountW >= 1 && p.CountW <= 32 {
			errs = append(errs, checkFits("N", uint64(p.N), "CountW", p.CountW))
		}
	}
	if p.ExploreW >= 1 && p.ExploreW <= 32 {
		errs = append(errs,
			checkFits("ExploreInit", p.ExploreInit, "ExploreW", p.ExploreW),
			checkFits("ExploreAfterFreeze", p.ExploreAfterFreeze, "ExploreW", p.ExploreW))
	}
	// after() looks at bit TimeW-1 of the difference, so a freeze of
	// 2^(TimeW-1) ticks or more would read as already expired.
	if p.TimeW >= 1 && p.TimeW <= 63 && p.FreezeTime >= uint64(1)<<(p.TimeW-1) {
		errs = append(errs, fmt.Errorf("FreezeTime = %d: must be < 2^(TimeW-1) = %d",
			p.FreezeTime, uint64(1)<<(p.TimeW-1)))
	}
	if p.LFSRSeed == 0 {
		errs = append(errs, errors.New("LFSRSeed must be nonzero (the LFSR would stay 0)"))
	}
	return errors.Join(errs...)
}

// State is one connection's word (S4 Table 1). EV and Valid have N entries;
// the zero State (nil slices) reads as a never-opened, all-zero word.
type State struct {
	EV         []uint32 // buf<i>_ev
	Valid      []bool   // buf<i>_valid
	Head       uint32   // next entry to write; frozen-mode replay pointer
	NumValid   uint32   // numberOfValidEVs
	ExitFreeze uint64   // exitFreezingMode
	Frozen     bool     // isFreezingMode
	Explore    uint32   // exploreCounter
}

// word is State without slices: the Model's table keeps the EVs in a flat
// array and the valid bits as a mask, so a step touches no heap.
type word struct {
	exit     uint64
	valid    uint64 // bit i = buf<i>_valid
	head     uint32
	numValid uint32
	explore  uint32
	frozen   bool
}

// pack converts a State into a word and a fresh EV array of length n.
// Entries missing from short slices read as zero (the zero State).
func (s State) pack(n int) (word, []uint32) {
	if len(s.EV) > n || len(s.Valid) > n {
		panic(fmt.Sprintf("reps: State has %d EVs and %d valid bits, N = %d", len(s.EV), len(s.Valid), n))
	}
	w := word{exit: s.ExitFreeze, head: s.Head, numValid: s.NumValid, explore: s.Explore, frozen: s.Frozen}
	for i, v := range s.Valid {
		if v {
			w.valid |= 1 << i
		}
	}
	evs := make([]uint32, n)
	copy(evs, s.EV)
	return w, evs
}

// state converts a word and its EVs back into a State with its own slices.
func (w *word) state(evs []uint32) State {
	s := State{
		EV:         append([]uint32(nil), evs...),
		Valid:      make([]bool, len(evs)),
		Head:       w.head,
		NumValid:   w.numValid,
		ExitFreeze: w.exit,
		Frozen:     w.frozen,
		Explore:    w.explore,
	}
	for i := range s.Valid {
		s.Valid[i] = w.valid>>i&1 == 1
	}
	return s
}

// truncate reads an event through the port widths.
func (p *Params) truncate(e *Event) {
	e.Conn &= mask32(p.ConnW)
	e.Kind &= kindMask
	e.EV &= mask32(p.EVW)
	e.Now &= mask64(p.TimeW)
}

// reject implements step 1: an error result when the event names no
// connection or no kind. All data fields but conn and kind are 0.
func reject(numConn int, e *Event, r *Result) bool {
	if uint64(e.Conn) >= uint64(numConn) || e.Kind > KindTimeout {
		*r = Result{Conn: e.Conn, Kind: e.Kind, Error: true}
		return true
	}
	return false
}

// after is serial-number arithmetic on TimeW bits: a is strictly later than
// b when they differ and (a-b) mod 2^TimeW is in the lower half.
func (p *Params) after(a, b uint64) bool {
	d := (a - b) & mask64(p.TimeW)
	return d != 0 && d>>(p.TimeW-1)&1 == 0
}

// Step executes one event on one connection's word, steps 1..8 of
// docs/blocks/reps.md. It is pure apart from lfsr, which advances by EVW
// steps on each exploring send: the returned State owns new slices and s is
// not modified. p must satisfy Validate and s must be a word that Step can
// produce (Head < N); lfsr is only used, and must only be non-nil, when a
// send draws.
func Step(p Params, s State, lfsr *LFSR, e Event) (State, Result) {
	w, evs := s.pack(p.N)
	p.truncate(&e)
	var r Result
	if !reject(p.NumConn, &e, &r) {
		p.exec(&w, evs, lfsr, &e, &r)
	}
	return w.state(evs), r
}

// exec is steps 2..8 on a word already known to exist, in place. Both Step
// and Model.Step use it, so the pure and the table model cannot drift.
func (p *Params) exec(w *word, evs []uint32, lfsr *LFSR, e *Event, r *Result) {
	// field by field: a composite literal would be built aside and copied
	r.Conn, r.Kind, r.EV, r.Explored, r.Frozen, r.Error = e.Conn, e.Kind, 0, false, false, false

	// 2. open: a fresh word that explores first (S4:L49, "new connection").
	if e.Kind == KindOpen {
		*w = word{explore: uint32(p.ExploreInit)}
		clear(evs)
		return
	}

	// 3. lazy freeze exit: leave after a fixed time and re-explore (S4:L64).
	if w.frozen && p.after(e.Now, w.exit) {
		w.frozen = false
		w.explore = uint32(p.ExploreAfterFreeze)
		if p.ClearOnFreezeExit {
			w.valid, w.head, w.numValid = 0, 0, 0
		}
	}

	n := uint32(p.N)
	switch e.Kind {
	case KindTimeout:
		// 4. a timeout is the failure heuristic (S4:L55); not while
		// exploring, whose losses say nothing about the cached paths.
		if !w.frozen && w.explore == 0 {
			w.frozen = true
			w.exit = (e.Now + p.FreezeTime) & mask64(p.TimeW)
		}

	case KindAck:
		// 5. an unmarked ack caches its EV as valid; a marked one is
		// discarded (S4:L51). Writing over a valid entry only happens
		// when all N are valid, so num_valid then stays N.
		if !e.ECN {
			bit := uint64(1) << w.head
			if w.valid&bit == 0 {
				w.numValid = (w.numValid + 1) & mask32(p.CountW)
			}
			w.valid |= bit
			evs[w.head] = e.EV
			w.head = next(w.head, n)
		}

	case KindNack:
		// 6. a trimmed packet gives no path verdict: nothing to do.

	case KindSend:
		// 7. the first rule that applies.
		switch {
		case w.explore > 0:
			// warm-up: random EVs like OPS (S4:L49).
			r.EV = lfsr.Draw(p.EVW)
			r.Explored = true
			w.explore--
		case w.numValid > 0:
			// reuse the oldest valid EV and clear its bit (S4:L51).
			i := w.head + n - w.numValid
			if i >= n {
				i -= n
			}
			r.EV = evs[i]
			w.valid &^= 1 << i
			w.numValid--
		case w.frozen:
			// frozen: never explore, replay the buffer even if invalid
			// (S4:L59, L62); head is the replay pointer (A-13 choice).
			r.EV = evs[w.head]
			w.head = next(w.head, n)
		default:
			// nothing cached: explore (S4:L51, "Otherwise").
			r.EV = lfsr.Draw(p.EVW)
			r.Explored = true
		}
	}

	// 8.
	r.Frozen = w.frozen
}

// next is (i + 1) mod n for i < n, without a division.
func next(i, n uint32) uint32 {
	i++
	if i == n {
		return 0
	}
	return i
}

// pageBits sets the table page size. The table is paged so that a block
// with a huge NumConn (up to 2^32) costs memory only for the connections
// the stimulus touches.
const (
	pageBits = 12
	pageSize = 1 << pageBits
)

type page struct {
	words [pageSize]word
	evs   []uint32 // pageSize*N, connection c's EVs at (c%pageSize)*N
}

// Model is the reps block at transaction level: the state table and the
// global LFSR. Its zero-initialised table matches the RTL's.
type Model struct {
	p     Params
	lfsr  LFSR
	pages []*page
}

// NewModel validates p and returns a model with an all-zero table and the
// LFSR at its seed.
func NewModel(p Params) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("reps: %w", err)
	}
	return &Model{
		p:     p,
		lfsr:  LFSR(p.LFSRSeed),
		pages: make([]*page, (uint64(p.NumConn)+pageSize-1)>>pageBits),
	}, nil
}

// Params returns the model's parameters.
func (m *Model) Params() Params { return m.p }

// Retune replaces the parameters that the hardware may take at run time
// (its control registers): the freezing duration and the exploration
// counts after open and after freezing. Every later event uses them; the
// table and the LFSR are untouched.
func (m *Model) Retune(freezeTime, exploreInit, exploreAfterFreeze uint64) error {
	q := m.p
	q.FreezeTime, q.ExploreInit, q.ExploreAfterFreeze = freezeTime, exploreInit, exploreAfterFreeze
	if err := q.Validate(); err != nil {
		return fmt.Errorf("reps: %w", err)
	}
	m.p = q
	return nil
}

// ClearTable makes every connection's state all-zero, as before its first
// event, and leaves the LFSR alone.
func (m *Model) ClearTable() { m.pages = make([]*page, len(m.pages)) }

// LFSR returns the current LFSR state.
func (m *Model) LFSR() LFSR { return m.lfsr }

// Reset models the block's rst input: the LFSR reloads its seed. The state
// table is deliberately untouched, as in the RTL.
func (m *Model) Reset() { m.lfsr = LFSR(m.p.LFSRSeed) }

// lookup returns connection c's word and EVs, allocating its page on first
// use (a fresh page is all zero, like a never-written RAM word).
func (m *Model) lookup(c uint32) (*word, []uint32) {
	pg := m.pages[c>>pageBits]
	if pg == nil {
		pg = &page{evs: make([]uint32, pageSize*m.p.N)}
		m.pages[c>>pageBits] = pg
	}
	i := int(c & (pageSize - 1))
	return &pg.words[i], pg.evs[i*m.p.N : (i+1)*m.p.N]
}

// Step executes one event against the table, as the block does for each
// accepted event in acceptance order.
func (m *Model) Step(e Event) Result {
	var r Result
	m.StepTo(&e, &r)
	return r
}

// StepTo is Step through pointers, as the pipeline calls it.
func (m *Model) StepTo(ev *Event, r *Result) {
	e := *ev
	m.p.truncate(&e)
	if reject(m.p.NumConn, &e, r) {
		return
	}
	w, evs := m.lookup(e.Conn)
	m.p.exec(w, evs, &m.lfsr, &e, r)
}

// Conn returns a copy of connection c's word. It panics if c >= NumConn.
func (m *Model) Conn(c uint32) State {
	if uint64(c) >= uint64(m.p.NumConn) {
		panic(fmt.Sprintf("reps: Conn(%d) with NumConn = %d", c, m.p.NumConn))
	}
	if m.pages[c>>pageBits] == nil {
		var w word
		return w.state(make([]uint32, m.p.N))
	}
	w, evs := m.lookup(c)
	return w.state(evs)
}
