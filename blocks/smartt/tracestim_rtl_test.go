package smartt_test

import (
	"github.com/nicgen/nicgen/blocks/stim"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// SmarttRecorder wraps a controller of the closed-loop simulator and keeps
// every event it sees, so a scenario becomes a replayable stimulus.
type SmarttRecorder struct {
	Inner interface {
		Step(gsmartt.Event) gsmartt.Result
	}
	Events *[]gsmartt.Event
}

// Step records the event and passes it on.
func (r SmarttRecorder) Step(e gsmartt.Event) gsmartt.Result {
	*r.Events = append(*r.Events, e)
	return r.Inner.Step(e)
}

// smarttTrace replays recorded events in order, each held until accepted,
// with random idle gaps and random result backpressure.
type smarttTrace struct {
	p             smarttPorts
	events        []gsmartt.Event
	i             int
	valid         bool
	r             *stim.Rand
	pValid, ready stim.Threshold
}

// NewSmarttTraceStimulus replays events (a recorded scenario) through the
// block's stream ports; after the last one the source stays idle.
func NewSmarttTraceStimulus(d harness.Design, events []gsmartt.Event, pValid, pReady float64, seed uint64) func() harness.Stimulus {
	sp := newSmarttPorts(blockeq.NewPortMap(d))
	return func() harness.Stimulus {
		return &smarttTrace{p: sp, events: events, r: stim.New(seed), pValid: stim.ThresholdOf(pValid), ready: stim.ThresholdOf(pReady), i: -1}
	}
}

func (s *smarttTrace) Next(prevOut, in []uint64) {
	p := s.p
	if s.valid && prevOut != nil && prevOut[p.sReady] == 1 {
		s.valid = false
	}
	if !s.valid && s.i+1 < len(s.events) && s.r.Hit(s.pValid) {
		s.i++
		s.valid = true
	}
	var e gsmartt.Event
	if s.i >= 0 {
		e = s.events[s.i]
	}
	in[p.sValid] = blockeq.B2U(s.valid)
	in[p.sConn], in[p.sKind], in[p.sSize], in[p.sECN] = uint64(e.Conn), uint64(e.Kind), uint64(e.Size), blockeq.B2U(e.ECN)
	in[p.sRTT], in[p.sUnacked], in[p.sNow] = uint64(e.RTT), uint64(e.Unacked), e.Now
	in[p.mReady] = blockeq.B2U(s.r.Hit(s.ready))
}
