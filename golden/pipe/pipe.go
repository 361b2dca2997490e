// Package pipe is the cycle-level wrapper of nicgen's golden models: the
// pipelined per-connection shell shared by every block, written from its
// contract (docs/pipeline.md), not from the DSL. It adds only latency,
// stalls, backpressure and reset around a transaction-level Step.
//
// The shell, for a datapath of Depth stages:
//   - an input buffer of two events; s_event_ready is a register, 1 while
//     the buffer held at most one event after the last edge;
//   - the event at the head of the buffer issues when no event of the same
//     connection is in stages 1..Depth-1 (hazard) and fewer than Credits
//     events are issued and not yet taken from the result stream;
//   - an issued event passes Depth+3 stages, one per clock, never stalled
//     (ReadStages = 3 to read its connection's word, Depth to compute), and its result
//     enters a result buffer of Credits entries whose head drives the result
//     stream.
//
// Events pass the last stage one by one in issue order, which is
// acceptance order, and the RTL's forwarding makes each datapath start from
// the word its predecessors wrote, so the model executes an event (Step)
// when it leaves the last stage, where the RTL writes its word. An event
// that rst removes from the buffers or from stages 1..Depth+2 is never
// executed, as it is never written in the RTL; the event in the last stage
// during the rst cycle is written at that edge (the table has no reset),
// but its result is dropped with the result buffer.
package pipe

// Stepper is a transaction-level block model as the pipeline drives it.
type Stepper[E, R any] interface {
	// Step executes one accepted event against the state table.
	Step(E) R
	// Reset applies the rst input to the non-table state (an LFSR).
	Reset()
	// ConnKey is the connection id as the RTL compares it: the event's
	// connection truncated to the port width.
	ConnKey(E) uint64
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

// Credits is the size of the result buffer for a datapath of depth stages:
// enough for one event per clock with m_result_ready held high.
func Credits(depth int) int { return depth + ReadStages + 2 }

// ReadStages is the number of stages before the datapath: the block RAM
// read, its output register, the bank and snoop selection.
const ReadStages = 3

// Latency is the number of cycles from an event's acceptance to its result
// on the result stream, with no stall: accepted in cycle t, it issues from
// the input buffer in cycle t+1, is in stages 1..Depth+3 in cycles
// t+2..t+Depth+4 and at the head of the result buffer in cycle t+Depth+5.
func Latency(depth int) int { return depth + ReadStages + 2 }

type slot[E any] struct {
	valid bool
	key   uint64
	ev    E
}

// Pipeline is the cycle-level model around a Stepper.
type Pipeline[E, R any] struct {
	s       Stepper[E, R]
	depth   int
	credits int
	in      [2]E
	inN     int
	ready   bool
	stages  []slot[E] // stages[0] is stage 1
	occ     int       // issued and not yet taken from the result stream
	out     []R       // ring of credits entries
	outHead int
	outN    int
}

// New returns an empty pipeline of a datapath of depth stages around s; s
// is used as is (not reset).
func New[E, R any](s Stepper[E, R], depth int) *Pipeline[E, R] {
	if depth < 1 {
		depth = 1
	}
	p := &Pipeline[E, R]{s: s, depth: depth, credits: Credits(depth)}
	p.stages = make([]slot[E], depth+ReadStages)
	p.out = make([]R, p.credits)
	p.ready = true
	return p
}

// Depth is the number of datapath stages.
func (p *Pipeline[E, R]) Depth() int { return p.depth }

// Reset is a cycle with rst high: every buffer and stage empty, the
// stepper's non-table state reset. The state table keeps every word
// written, including the one the last stage writes at this edge; the
// events in the input buffer and in stages 1..Depth+2 are dropped unwritten.
func (p *Pipeline[E, R]) Reset() {
	var e E
	var r R
	if last := p.stages[len(p.stages)-1]; last.valid {
		p.s.Step(last.ev) // the write at the rst edge; the result is dropped
	}
	p.in = [2]E{e, e}
	p.inN, p.ready, p.occ, p.outHead, p.outN = 0, true, 0, 0, 0
	for i := range p.stages {
		p.stages[i] = slot[E]{}
	}
	for i := range p.out {
		p.out[i] = r
	}
	p.s.Reset()
}

// Cycle returns the output ports during one cycle with inputs in, then
// applies that cycle's rising edge.
func (p *Pipeline[E, R]) Cycle(in In[E]) Out[R] {
	out := Out[R]{SReady: p.ready, MValid: p.outN > 0}
	if out.MValid {
		out.Result = p.out[p.outHead]
	}
	pop := out.MValid && in.MReady
	issue := false
	var key uint64
	if p.inN > 0 && p.occ < p.credits {
		key = p.s.ConnKey(p.in[0])
		issue = true
		for i := 0; i < p.depth-1; i++ { // stages 1..depth-1
			if p.stages[i].valid && p.stages[i].key == key {
				issue = false
				break
			}
		}
	}
	// the edge: the last stage's result enters the result buffer
	if pop {
		p.outHead = (p.outHead + 1) % p.credits
		p.outN--
	}
	if last := p.stages[len(p.stages)-1]; last.valid {
		p.out[(p.outHead+p.outN)%p.credits] = p.s.Step(last.ev)
		p.outN++
	}
	copy(p.stages[1:], p.stages[:len(p.stages)-1])
	p.stages[0] = slot[E]{}
	if issue {
		p.stages[0] = slot[E]{valid: true, key: key, ev: p.in[0]}
		p.in[0] = p.in[1]
		p.inN--
		p.occ++
	}
	if pop {
		p.occ--
	}
	if out.SReady && in.SValid {
		p.in[p.inN] = in.Event
		p.inN++
	}
	p.ready = p.inN <= 1
	return out
}
