package reps

import (
	"errors"
	"fmt"
	"math/bits"
)

// ConfParams are the parameters of the reps_conf block (S0 Algorithm 4).
type ConfParams struct {
	NumConn      int // connections in the state table
	Depth        int // datapath stages of the RTL shell (golden/pipe); 0 reads as 1
	ConnW        int // width of s_event_conn
	NumEntropies int // entropies explored, num_entropies (S0:L292)
	EVW          int // width of the EV ports
	EntW         int // width of next_entropy and cached_entropy
	ExploreW     int // width of explore_left

	ExploreInit uint64 // explore_left after open: min(BDP packets, NumEntropies)
}

// DefaultConfParams returns the defaults of docs/blocks/reps.md:
// 256 entropies (S0:L292) in 8 bits, and ExploreInit = min(210, 256) in 9.
func DefaultConfParams() ConfParams {
	return ConfParams{
		NumConn:      4096,
		ConnW:        16,
		NumEntropies: 256,
		EVW:          16,
		EntW:         8,
		ExploreW:     9,
		ExploreInit:  210,
	}
}

// Validate reports every parameter the block cannot implement as specified.
func (p ConfParams) Validate() error {
	errs := []error{
		checkWidth("ConnW", p.ConnW, 1, 32),
		checkNumConn(p.NumConn, p.ConnW),
		checkWidth("EVW", p.EVW, 1, 32),
		checkWidth("ExploreW", p.ExploreW, 1, 32),
	}
	if p.NumEntropies < 1 {
		errs = append(errs, fmt.Errorf("NumEntropies = %d: must be >= 1", p.NumEntropies))
	} else {
		// An entropy is an index 0..NumEntropies-1, zero-extended into an
		// EV, so it needs at least ceil(log2(NumEntropies)) bits (and at
		// least one: a zero-width field is not a register).
		need := max(1, bits.Len64(uint64(p.NumEntropies-1)))
		hi := 32
		if p.EVW >= 1 && p.EVW <= 32 {
			hi = p.EVW
		}
		if p.EntW < need || p.EntW > hi {
			errs = append(errs, fmt.Errorf("EntW = %d: must be in %d..%d (NumEntropies = %d, EVW = %d)",
				p.EntW, need, hi, p.NumEntropies, p.EVW))
		}
	}
	if p.ExploreW >= 1 && p.ExploreW <= 32 {
		errs = append(errs, checkFits("ExploreInit", p.ExploreInit, "ExploreW", p.ExploreW))
	}
	return errors.Join(errs...)
}

// ConfState is one connection's word.
type ConfState struct {
	Next        uint32 // next_entropy
	Cached      uint32 // cached_entropy
	ExploreLeft uint32 // explore_left: both "seqnum < bdp" and "not all tried"
}

// truncate reads an event through the port widths.
func (p *ConfParams) truncate(e *Event) {
	e.Conn &= mask32(p.ConnW)
	e.Kind &= kindMask
	e.EV &= mask32(p.EVW)
	// now is not used by reps_conf
}

// advance is next_entropy + 1, wrapping to 0 at NumEntropies: the
// "next_entropy++ % num_entropies" of S0:L297, L305.
func (p *ConfParams) advance(v uint32) uint32 {
	v++
	if uint64(v) == uint64(p.NumEntropies) {
		return 0
	}
	return v & mask32(p.EntW)
}

// ConfStep executes one event on one connection's word (docs/blocks/reps.md,
// reps_conf steps 1..6). p must satisfy Validate.
func ConfStep(p ConfParams, s ConfState, e Event) (ConfState, Result) {
	p.truncate(&e)
	var r Result
	if !reject(p.NumConn, &e, &r) {
		p.exec(&s, &e, &r)
	}
	return s, r
}

// exec is steps 2..6 in place, shared by ConfStep and ConfModel.Step.
func (p *ConfParams) exec(s *ConfState, e *Event, r *Result) {
	// field by field: a composite literal would be built aside and copied
	r.Conn, r.Kind, r.EV, r.Explored, r.Frozen, r.Error = e.Conn, e.Kind, 0, false, false, false
	switch e.Kind {
	case KindOpen:
		*s = ConfState{ExploreLeft: uint32(p.ExploreInit)} // S0:L293-294
	case KindSend:
		// S0:L296-299. The explored EV is the old next_entropy (C
		// post-increment, A-12).
		if s.ExploreLeft > 0 {
			r.EV = s.Next
			r.Explored = true
			s.Next = p.advance(s.Next)
			s.ExploreLeft--
		} else {
			r.EV = s.Cached
		}
	case KindAck:
		// S0:L304-307: a marked ack moves to a fresh entropy, even after
		// exploration; an unmarked one caches the entropy it echoes.
		if e.ECN {
			s.Cached = s.Next
			s.Next = p.advance(s.Next)
		} else {
			s.Cached = e.EV & mask32(p.EntW)
		}
	case KindNack, KindTimeout:
		// Algorithm 4 has no such event.
	}
}

const confPageSize = pageSize

// ConfModel is the reps_conf block at transaction level: the state table
// only (there is no LFSR). Results never have Frozen set.
type ConfModel struct {
	p     ConfParams
	pages []*[confPageSize]ConfState
}

// NewConfModel validates p and returns a model with an all-zero table.
func NewConfModel(p ConfParams) (*ConfModel, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("reps_conf: %w", err)
	}
	return &ConfModel{
		p:     p,
		pages: make([]*[confPageSize]ConfState, (uint64(p.NumConn)+confPageSize-1)>>pageBits),
	}, nil
}

// Params returns the model's parameters.
func (m *ConfModel) Params() ConfParams { return m.p }

// Retune replaces the exploration count after open, which the hardware
// may take at run time (its control registers); every later open uses it.
func (m *ConfModel) Retune(exploreInit uint64) error {
	q := m.p
	q.ExploreInit = exploreInit
	if err := q.Validate(); err != nil {
		return fmt.Errorf("reps_conf: %w", err)
	}
	m.p = q
	return nil
}

// Reset models rst: reps_conf has no state outside the table, which rst
// does not touch, so there is nothing to do.
func (m *ConfModel) Reset() {}

// ClearTable makes every connection's state all-zero, as before its first
// event; the settings stay as retuned.
func (m *ConfModel) ClearTable() { m.pages = make([]*[confPageSize]ConfState, len(m.pages)) }

// Step executes one event against the table.
func (m *ConfModel) Step(e Event) Result {
	var r Result
	m.StepTo(&e, &r)
	return r
}

// StepTo is Step through pointers, as the pipeline calls it.
func (m *ConfModel) StepTo(ev *Event, r *Result) {
	e := *ev
	m.p.truncate(&e)
	if reject(m.p.NumConn, &e, r) {
		return
	}
	pg := m.pages[e.Conn>>pageBits]
	if pg == nil {
		pg = new([confPageSize]ConfState)
		m.pages[e.Conn>>pageBits] = pg
	}
	m.p.exec(&pg[e.Conn&(confPageSize-1)], &e, r)
}

// Conn returns connection c's word. It panics if c >= NumConn.
func (m *ConfModel) Conn(c uint32) ConfState {
	if uint64(c) >= uint64(m.p.NumConn) {
		panic(fmt.Sprintf("reps_conf: Conn(%d) with NumConn = %d", c, m.p.NumConn))
	}
	if pg := m.pages[c>>pageBits]; pg != nil {
		return pg[c&(confPageSize-1)]
	}
	return ConfState{}
}
