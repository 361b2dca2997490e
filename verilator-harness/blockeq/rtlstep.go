package blockeq

import (
	"fmt"

	harness "github.com/nicgen/nicgen/verilator-harness"
)

// RTLStepper runs one event at a time through a Verilated block of the
// pipelined shell: it offers the event's fields on s_event_*, clocks the
// model until the result leaves m_result_*, and returns the result's
// fields. The fields are named by their ports without the prefix.
type RTLStepper struct {
	m       *harness.Model
	p       genericPorts
	inAt    []int // harness input of event field i
	outAt   []int // harness output of result field k
	in, out []uint64
	Cycles  int64
}

// NewRTLStepper resets the model and maps the named fields to its ports.
func NewRTLStepper(m *harness.Model, d harness.Design, in, out []string) (*RTLStepper, error) {
	p, err := newGenericPorts(d)
	if err != nil {
		return nil, err
	}
	pm := NewPortMap(d)
	s := &RTLStepper{m: m, p: p, in: make([]uint64, len(m.Inputs())), out: make([]uint64, len(m.Outputs()))}
	for _, f := range in {
		i := pm.In("s_event_" + f)
		if i < 0 {
			return nil, fmt.Errorf("blockeq: %s has no input s_event_%s", d.Top, f)
		}
		s.inAt = append(s.inAt, i)
	}
	for _, f := range out {
		i := pm.Out("m_result_" + f)
		if i < 0 {
			return nil, fmt.Errorf("blockeq: %s has no output m_result_%s", d.Top, f)
		}
		s.outAt = append(s.outAt, i)
	}
	m.Reset(2)
	return s, nil
}

// Step runs the event ev (fields in the order given to NewRTLStepper) and
// writes the result's fields to res.
func (s *RTLStepper) Step(ev, res []uint64) {
	for i := range s.in {
		s.in[i] = 0
	}
	s.in[s.p.sValid], s.in[s.p.mReady] = 1, 1
	for i, j := range s.inAt {
		s.in[j] = ev[i]
	}
	for {
		s.m.Step(s.in, s.out, 1)
		s.Cycles++
		if s.out[s.p.sReady] == 1 {
			s.in[s.p.sValid] = 0 // accepted
		}
		if s.out[s.p.mValid] == 1 {
			for k, j := range s.outAt {
				res[k] = s.out[j]
			}
			return
		}
	}
}

// Built is a Verilated block and its design.
type Built struct {
	Model  *harness.Model
	Design harness.Design
}
