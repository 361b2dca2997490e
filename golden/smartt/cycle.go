package smartt

// Pipeline is the cycle-level wrapper of the block, the shell of
// docs/blocks/reps.md "Cycle behaviour" that smartt shares (contract
// Section 1): stage 1 holds the accepted event while the RTL reads the
// connection's word, and a result register drives m_result_*.
// s_event_ready = !m_result_valid || m_result_ready, and an event accepted
// at cycle t without a stall has its result valid during cycle t+2. The
// RTL's same-connection forwarding is not modelled: the events execute one
// by one in acceptance order, which is what forwarding makes the RTL do.
type Pipeline struct {
	s        Stepper
	s1Valid  bool
	s1       Event
	resValid bool
	res      Result
}

// NewPipeline returns an empty pipeline around s; s is used as is.
func NewPipeline(s Stepper) *Pipeline { return &Pipeline{s: s} }

// Reset is a cycle with rst high: both stages empty. The state table is
// untouched.
func (p *Pipeline) Reset() {
	p.s1Valid, p.resValid = false, false
	p.s1, p.res = Event{}, Result{}
	p.s.Reset()
}

// Cycle returns the output ports during one cycle with inputs in, then
// applies that cycle's rising edge.
func (p *Pipeline) Cycle(in CycleIn) CycleOut {
	// Outputs during the cycle; s_event_ready is combinational.
	out := CycleOut{SReady: !p.resValid || in.MReady, MValid: p.resValid}
	if p.resValid {
		out.Result = p.res
	}
	// Edge: nothing moves unless this is an advance cycle.
	if out.SReady {
		if p.s1Valid {
			p.res = p.s.Step(p.s1)
		}
		p.resValid = p.s1Valid
		p.s1Valid = in.SValid
		p.s1 = in.Event
	}
	return out
}
