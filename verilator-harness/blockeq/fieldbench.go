package blockeq

import (
	"github.com/nicgen/nicgen/golden/pipe"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"slices"
)

// A field bench serves a family whose golden model converts to and from
// the block's field values (its descriptor's event and result fields, in
// order): the ports by field name, the golden pipeline behind the harness
// and a stimulus that draws whole events (onerc_host, irl_tokens).

// fieldPorts are the harness indices of a block's handshake and of its
// event and result fields.
type fieldPorts struct {
	sValid, mReady, sReady, mValid int
	in, out                        []int // by event fields, result fields
	members                        int   // m_result_members (-1 without wait slots)
	errAt                          int   // the error among the result fields (-1: none)
}

func newFieldPorts(hd harness.Design, events, results []string) (fieldPorts, error) {
	pm := newPortMap(hd)
	p := fieldPorts{sValid: pm.inIdx("s_event_valid"), mReady: pm.inIdx("m_result_ready"),
		sReady: pm.outIdx("s_event_ready"), mValid: pm.outIdx("m_result_valid"),
		members: pm.outIdx("m_result_members"), errAt: slices.Index(results, "error")}
	for _, f := range events {
		p.in = append(p.in, pm.inIdx("s_event_"+f))
	}
	for _, f := range results {
		p.out = append(p.out, pm.outIdx("m_result_"+f))
	}
	return p, pm.must(append(prefixed("s_event_", events), prefixed("m_result_", results)...)...)
}

func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// fieldRef is the golden pipeline as the harness's reference: eventOf
// makes the golden event of the event fields, values writes a result's
// fields, count records a taken result in the coverage.
type fieldRef[E, R any] struct {
	p       fieldPorts
	pipe    *pipe.Pipeline[E, R]
	newPipe func() *pipe.Pipeline[E, R]
	eventOf func([]uint64) E
	values  func(*R, []uint64)
	count   func(*R)
	v, res  []uint64
}

func (r *fieldRef[E, R]) Reset() { r.pipe = r.newPipe() }

func (r *fieldRef[E, R]) Cycle(in, out []uint64) {
	p := r.p
	if r.v == nil {
		r.v, r.res = make([]uint64, len(p.in)), make([]uint64, len(p.out))
	}
	for i, j := range p.in {
		r.v[i] = in[j]
	}
	*r.pipe.Input() = r.eventOf(r.v)
	mReady := in[p.mReady] == 1
	sReady, mValid, res := r.pipe.CyclePorts(in[p.sValid] == 1, mReady)
	out[p.sReady], out[p.mValid] = b2u(sReady), b2u(mValid)
	r.values(res, r.res)
	for i, j := range p.out {
		out[j] = r.res[i]
	}
	setMembers(out, p.members, p.errAt >= 0 && r.res[p.errAt] == 1)
	if mValid && mReady {
		r.count(res)
	}
}

// fieldStim offers the events draw makes, under the handshake.
type fieldStim struct {
	p    fieldPorts
	draw func() []uint64
	h    handshake
	v    []uint64
}

func (s *fieldStim) Next(prevOut, in []uint64) {
	if s.h.step(prevOut, in) || s.v == nil {
		s.v = s.draw()
	}
	for i, j := range s.p.in {
		in[j] = s.v[i]
	}
}
