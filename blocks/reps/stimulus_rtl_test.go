package reps_test

import (
	"github.com/nicgen/nicgen/blocks/stim"

	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// Profile is a random event mix. Probabilities are per cycle (valid, ready)
// or per event (the rest).
type Profile struct {
	Name        string
	PValid      float64    // an idle source offers a new event
	PReady      float64    // the sink takes a result
	KindWeights [8]float64 // kinds 0..7; 5..7 are invalid kinds
	PECN        float64
	// Connection locality: the same connection as the previous event with
	// PSame, one of HotConns connections with PHot, else uniform in
	// [0, ConnSpan) (a span above the block's connection count yields
	// out-of-range errors).
	PSame, PHot float64
	HotConns    int
	ConnSpan    uint64
	EVSpan      uint64 // EVs carried by acks are uniform in [0, EVSpan)
	NowStart    uint64 // first timestamp (near the wrap to test it early)
	NowStepMax  uint64 // time advances uniformly by 0..NowStepMax per cycle
	// OpenFirst makes the first OpenFirst events open connections 0, 1, ...
	// in order: with random power-on memory contents (Verilator
	// --x-initial unique) a run is only defined once every connection it
	// touches was opened. Spans and counts are at most 2^32.
	OpenFirst uint64
	// Strides, when nonzero, replaces the locality: connections 0..k-1 in
	// turn, k = 1..Strides in phases (the hazard profile).
	Strides uint64
}

// eventStim generates events for the REPS stream shape.
type eventStim struct {
	p              streamPorts
	prof           Profile
	r              *stim.Rand
	kinds          stim.Kinds
	conns          stim.Locality
	cur            [7]uint64 // conn, kind, ecn, ev, valid, (unused), now
	opened         uint64
	pValid, pReady stim.Threshold
	pECN           stim.Threshold
}

// NewEventStimulus returns a stimulus factory for a design with the REPS
// event stream: every call gives the same sequence for the same seed.
func NewEventStimulus(d harness.Design, prof Profile, seed uint64) func() harness.Stimulus {
	sp := newStreamPorts(blockeq.NewPortMap(d))
	return func() harness.Stimulus {
		s := &eventStim{p: sp, prof: prof, r: stim.New(seed), kinds: stim.NewKinds(prof.KindWeights)}
		s.conns = stim.NewLocality(s.r, prof.HotConns, prof.ConnSpan, prof.PSame, prof.PHot)
		s.conns.Strides = prof.Strides
		s.cur[cNow] = prof.NowStart
		s.pValid, s.pReady, s.pECN = stim.ThresholdOf(prof.PValid), stim.ThresholdOf(prof.PReady), stim.ThresholdOf(prof.PECN)
		return s
	}
}

const (
	cConn = iota
	cKind
	cECN
	cEV
	cValid
	_
	cNow
)

func (s *eventStim) newEvent() {
	r, prof := s.r, &s.prof
	if s.opened < prof.OpenFirst {
		s.cur[cConn], s.cur[cKind], s.cur[cECN], s.cur[cEV] = s.opened, 0, 0, 0
		s.conns.Force(s.opened)
		s.opened++
		return
	}
	s.cur[cConn] = s.conns.Pick(r)
	s.cur[cKind] = s.kinds.Pick(r)
	s.cur[cECN] = blockeq.B2U(r.Hit(s.pECN))
	s.cur[cEV] = r.Below(prof.EVSpan)
}

func (s *eventStim) Next(prevOut, in []uint64) {
	p := s.p
	accepted := prevOut != nil && s.cur[cValid] == 1 && prevOut[p.sReady] == 1
	if s.cur[cValid] == 0 || accepted {
		s.cur[cValid] = blockeq.B2U(s.r.Hit(s.pValid))
		if s.cur[cValid] == 1 {
			s.newEvent()
		}
	}
	s.cur[cNow] += s.r.Below(s.prof.NowStepMax + 1)
	in[p.sValid] = s.cur[cValid]
	in[p.sConn] = s.cur[cConn]
	in[p.sKind] = s.cur[cKind]
	in[p.sECN] = s.cur[cECN]
	in[p.sEV] = s.cur[cEV]
	if p.sNow >= 0 {
		in[p.sNow] = s.cur[cNow]
	}
	in[p.mReady] = blockeq.B2U(s.r.Hit(s.pReady))
}
