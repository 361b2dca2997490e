package reps_test

import (
	"github.com/nicgen/nicgen/blocks/stim"
	goldenreps "github.com/nicgen/nicgen/golden/reps"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// ScriptEvent is one event of a directed sequence, offered after Gap idle
// cycles.
type ScriptEvent struct {
	goldenreps.Event
	Gap int
}

// scriptStim plays a fixed list of events, each held until accepted, with
// the result sink ready with probability pReady (1: never stalls).
type scriptStim struct {
	p       streamPorts
	events  []ScriptEvent
	i       int
	wait    int
	pending bool // events[i] is waiting for its gap or its acceptance
	valid   bool
	r       *stim.Rand
	ready   stim.Threshold
}

// NewScriptStimulus returns a factory replaying events; after the last one
// the source stays idle.
func NewScriptStimulus(d harness.Design, events []ScriptEvent, pReady float64, seed uint64) func() harness.Stimulus {
	sp := newStreamPorts(blockeq.NewPortMap(d))
	return func() harness.Stimulus {
		return &scriptStim{p: sp, events: events, r: stim.New(seed), ready: stim.ThresholdOf(pReady), i: -1}
	}
}

func (s *scriptStim) Next(prevOut, in []uint64) {
	p := s.p
	if s.valid && prevOut != nil && prevOut[p.sReady] == 1 {
		s.valid, s.pending = false, false
	}
	if !s.valid {
		if !s.pending && s.i+1 < len(s.events) {
			s.i++
			s.wait, s.pending = s.events[s.i].Gap, true
		}
		if s.pending {
			if s.wait > 0 {
				s.wait--
			} else {
				s.valid = true
			}
		}
	}
	var e goldenreps.Event
	if s.i >= 0 {
		e = s.events[s.i].Event
	}
	in[p.sValid] = blockeq.B2U(s.valid)
	in[p.sConn] = uint64(e.Conn)
	in[p.sKind] = uint64(e.Kind)
	in[p.sECN] = blockeq.B2U(e.ECN)
	in[p.sEV] = uint64(e.EV)
	if p.sNow >= 0 {
		in[p.sNow] = e.Now
	}
	in[p.mReady] = blockeq.B2U(s.r.Hit(s.ready))
}
