package reps

// Stepper is a transaction-level block model as the pipeline drives it.
type Stepper interface {
	// Step executes one accepted event against the state table.
	Step(Event) Result
	// Reset applies the rst input to the non-table state (the LFSR).
	Reset()
}

var (
	_ Stepper = (*Model)(nil)
	_ Stepper = (*ConfModel)(nil)
)

// Pipeline is the cycle-level wrapper shared by both blocks ("Cycle
// behaviour" in docs/blocks/reps.md): stage 1 holds the accepted event while
// the RTL reads the connection's word, and a result register drives
// m_result_*. The RTL's same-connection forwarding is not modelled: the
// events execute one by one in acceptance order, which is what forwarding
// makes the RTL do.
type Pipeline struct {
	s        Stepper
	s1Valid  bool
	s1       Event
	resValid bool
	res      Result
}

// NewPipeline returns an empty pipeline around s. s is used as is: it is
// not reset.
func NewPipeline(s Stepper) *Pipeline { return &Pipeline{s: s} }

// Reset is a cycle with rst high: both stages empty and the stepper's
// LFSR back at its seed. The state table is untouched.
func (p *Pipeline) Reset() {
	p.s1Valid, p.resValid = false, false
	p.s1, p.res = Event{}, Result{}
	p.s.Reset()
}

// Cycle returns the output ports during one cycle with inputs in, then
// applies that cycle's rising edge.
func (p *Pipeline) Cycle(in CycleIn) CycleOut {
	// Outputs during the cycle: s_event_ready is combinational.
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
