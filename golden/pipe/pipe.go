// Package pipe is the cycle-level wrapper of nicgen's golden models: the
// two-stage pipeline shared by every per-connection block (stage 1 holds the
// accepted event while the RTL reads its connection's word, a result
// register drives the result stream). It adds only latency, backpressure
// and reset around a transaction-level Step; the RTL's same-connection
// forwarding is not modelled, since events execute one by one in
// acceptance order, which is what forwarding makes the RTL do.
package pipe

// Stepper is a transaction-level block model as the pipeline drives it.
type Stepper[E, R any] interface {
	// Step executes one accepted event against the state table.
	Step(E) R
	// Reset applies the rst input to the non-table state (an LFSR).
	Reset()
}

// In holds a block's input ports during one clock cycle.
type In[E any] struct {
	SValid bool // s_event_valid
	Event  E    // s_event_* data
	MReady bool // m_result_ready
}

// Out holds a block's output ports during one clock cycle.
type Out[R any] struct {
	SReady bool // s_event_ready
	MValid bool // m_result_valid
	Result R    // m_result_* data; zero while MValid is false
}

// Pipeline is the cycle-level model around a Stepper.
type Pipeline[E, R any] struct {
	s        Stepper[E, R]
	s1Valid  bool
	s1       E
	resValid bool
	res      R
}

// New returns an empty pipeline around s; s is used as is (not reset).
func New[E, R any](s Stepper[E, R]) *Pipeline[E, R] { return &Pipeline[E, R]{s: s} }

// Reset is a cycle with rst high: both stages empty, the stepper's
// non-table state reset. The state table is untouched.
func (p *Pipeline[E, R]) Reset() {
	var e E
	var r R
	p.s1Valid, p.resValid, p.s1, p.res = false, false, e, r
	p.s.Reset()
}

// Cycle returns the output ports during one cycle with inputs in, then
// applies that cycle's rising edge. s_event_ready is combinational:
// !m_result_valid || m_result_ready; nothing moves on other cycles.
func (p *Pipeline[E, R]) Cycle(in In[E]) Out[R] {
	out := Out[R]{SReady: !p.resValid || in.MReady, MValid: p.resValid}
	if p.resValid {
		out.Result = p.res
	}
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
