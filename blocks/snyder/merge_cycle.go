package snyder

import (
	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/golden/pipe"
)

// mergeCycle is a block's merging shell (HPCCGoldenPipeline,
// SwiftGoldenPipeline with merge_slots) as a golden cycle-level model on
// fields (block.Desc.Cycle): the ACKs of a connection in flight fold
// together, so that a result depends on the timing of the events, which
// the transaction model in golden/pipe's plain shell cannot give.
type mergeCycle[E, R any] struct {
	event   []string // the golden model's event fields
	outputs []string // m_result_<field> of every result field, members last
	p       *pipe.Pipeline[E, R]
	eventOf func(in []uint64) E
	put     func(r *R, out []uint64) // the result's fields in outputs' order
}

// newMergeCycle is the cycle model of pipeline p, whose events are the
// fields event (eventOf reads them) and whose results are the fields
// result (put writes them).
func newMergeCycle[E, R any](event, result []string, p *pipe.Pipeline[E, R], eventOf func([]uint64) E, put func(*R, []uint64)) *mergeCycle[E, R] {
	m := &mergeCycle[E, R]{event: event, p: p, eventOf: eventOf, put: put}
	for _, f := range result {
		m.outputs = append(m.outputs, "m_result_"+f)
	}
	return m
}

func (m *mergeCycle[E, R]) Fields() ([]string, []string) { return m.event, m.outputs }

func (m *mergeCycle[E, R]) Cycle(sValid, mReady bool, in, out []uint64) (bool, bool) {
	*m.p.Input() = m.eventOf(in)
	sReady, mValid, res := m.p.CyclePorts(sValid, mReady)
	m.put(res, out) // a zero result while m_result_valid is 0
	return sReady, mValid
}

func (m *mergeCycle[E, R]) Reset() { m.p.Reset() }

var _ block.CycleModel = (*mergeCycle[int, int])(nil)
