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
	// StepTo executes one accepted event against the state table and
	// writes its result to r. e and r are only valid during the call. (The
	// pointers are for speed: Go copies a struct of more than four fields
	// through memory, and a copy of fields just written stalls the CPU.)
	StepTo(e *E, r *R)
	// Reset applies the rst input to the non-table state (an LFSR).
	Reset()
	// ConnKey is the connection id as the RTL compares it: the event's
	// connection truncated to the port width.
	ConnKey(e *E) uint64
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

// Pipeline is the cycle-level model around a Stepper.
//
// An accepted event is stored once, in a ring indexed by its acceptance
// number, and never moves: the input buffer is the accepted events not yet
// issued, and the stages hold acceptance numbers in a ring of their own
// whose start rotates by one each clock.
type Pipeline[E, R any] struct {
	s       Stepper[E, R]
	depth   int
	credits int
	ready   bool

	evs      []E    // accepted events, event a at evs[a&evMask]
	evMask   uint64 // len(evs) - 1
	accepted uint64 // events accepted so far
	issued   uint64 // events issued so far: the input buffer is issued..accepted-1

	// stage k (1-based) is slot (top + k - 1) mod len(inStage)
	inStage []bool
	stageEv []uint64 // acceptance number of the event in the stage
	key     []uint64 // its connection as the hazard unit compares it
	top     int

	occ     int // issued and not yet taken from the result stream
	out     []R // ring of credits entries
	outHead int
	outN    int
	zero    R

	mg *mergeState[E, R] // a merging shell's slots (NewMerging)
}

// New returns an empty pipeline of a datapath of depth stages around s; s
// is used as is (not reset).
func New[E, R any](s Stepper[E, R], depth int) *Pipeline[E, R] {
	if depth < 1 {
		depth = 1
	}
	n := depth + ReadStages
	p := &Pipeline[E, R]{s: s, depth: depth, credits: Credits(depth), ready: true}
	// alive at once: n events in the stages, two in the input buffer and
	// the slot the next event is written to
	size := 1
	for size < n+3 {
		size <<= 1
	}
	p.evs, p.evMask = make([]E, size), uint64(size-1)
	p.inStage, p.stageEv, p.key = make([]bool, n), make([]uint64, n), make([]uint64, n)
	p.out = make([]R, p.credits)
	return p
}

// Depth is the number of datapath stages.
func (p *Pipeline[E, R]) Depth() int { return p.depth }

// last is the slot of the last stage.
func (p *Pipeline[E, R]) last() int {
	if p.top == 0 {
		return len(p.inStage) - 1
	}
	return p.top - 1
}

// Reset is a cycle with rst high: every buffer and stage empty, the
// stepper's non-table state reset. The state table keeps every word
// written, including the one the last stage writes at this edge; the
// events in the input buffer and in stages 1..Depth+2 are dropped unwritten.
func (p *Pipeline[E, R]) Reset() {
	if l := p.last(); p.inStage[l] {
		var r R
		if p.mg != nil {
			p.s.StepTo(&p.mg.stageEv[l], &r)
		} else {
			p.s.StepTo(&p.evs[p.stageEv[l]&p.evMask], &r) // the write at the rst edge; the result is dropped
		}
	}
	if p.mg != nil {
		clear(p.mg.valid)
		p.mg.arrValid, p.mg.cand = false, -1
	}
	p.issued = p.accepted
	p.ready, p.occ, p.outHead, p.outN, p.top = true, 0, 0, 0, 0
	clear(p.inStage)
	clear(p.out)
	p.s.Reset()
}

// Idle is whether the shell holds no event: none in its input buffer,
// arrival register, slots or stages, and no result waiting to be taken.
func (p *Pipeline[E, R]) Idle() bool {
	if p.accepted != p.issued || p.occ != 0 {
		return false
	}
	if g := p.mg; g != nil {
		if g.arrValid {
			return false
		}
		for _, v := range g.valid {
			if v {
				return false
			}
		}
	}
	return true
}

// Input is where the caller writes the s_event_* data of the next Cycle,
// in place (CyclePorts does not copy it). It is valid until that call.
func (p *Pipeline[E, R]) Input() *E { return &p.evs[p.accepted&p.evMask] }

// Cycle returns the output ports during one cycle with inputs in, then
// applies that cycle's rising edge.
func (p *Pipeline[E, R]) Cycle(in In[E]) Out[R] {
	*p.Input() = in.Event
	ready, valid, res := p.CyclePorts(in.SValid, in.MReady)
	return Out[R]{SReady: ready, MValid: valid, Result: *res}
}

// CyclePorts is Cycle with the event already written to Input(): it
// returns s_event_ready, m_result_valid and the m_result_* data during
// the cycle (a zero R while m_result_valid is 0), then applies the edge.
// The result is valid until the next call.
func (p *Pipeline[E, R]) CyclePorts(sValid, mReady bool) (sReady, mValid bool, res *R) {
	if p.mg != nil {
		return p.cycleMerge(sValid, mReady)
	}
	sReady, mValid, res = p.ready, p.outN > 0, &p.zero
	head := p.outHead
	pop := mValid && mReady
	issue := false
	var key uint64
	n := len(p.inStage)
	if p.issued < p.accepted && p.occ < p.credits {
		key = p.s.ConnKey(&p.evs[p.issued&p.evMask])
		issue = true
		for i, j := 0, p.top; i < p.depth-1; i++ { // stages 1..depth-1
			if p.inStage[j] && p.key[j] == key {
				issue = false
				break
			}
			if j++; j == n {
				j = 0
			}
		}
	}
	// the edge: the last stage's result enters the result buffer
	l := p.edgeOut(pop)
	if p.inStage[l] {
		p.s.StepTo(&p.evs[p.stageEv[l]&p.evMask], p.pushOut())
	}
	// every stage moves down one: the last slot becomes stage 1
	p.top = l
	p.inStage[l] = issue
	if issue {
		p.stageEv[l], p.key[l] = p.issued, key
		p.issued++
		p.occ++
	}
	return p.finish(pop, sValid && sReady, mValid, head)
}

// edgeOut begins a cycle's edge at the result buffer: a pop frees the
// head's entry; it returns the last stage's slot of the stage ring.
func (p *Pipeline[E, R]) edgeOut(pop bool) int {
	if pop {
		if p.outHead++; p.outHead == p.credits {
			p.outHead = 0
		}
		p.outN--
	}
	return p.last()
}

// pushOut is the result buffer's next free entry, taken: the last stage
// writes its result there.
func (p *Pipeline[E, R]) pushOut() *R {
	slot := p.outHead + p.outN
	if slot >= p.credits {
		slot -= p.credits
	}
	p.outN++
	return &p.out[slot]
}

// finish ends a cycle's edge: a result taken returns its credit, an
// accepted event enters the input buffer, s_event_ready is set for the
// next cycle; it returns the cycle's outputs, the result buffer's head
// shown before the edge (a pop leaves its slot untouched until a later
// result fills it).
func (p *Pipeline[E, R]) finish(pop, accept, mValid bool, head int) (sReady, valid bool, res *R) {
	sReady = p.ready
	if pop {
		p.occ--
	}
	if accept {
		p.accepted++
	}
	p.ready = p.accepted-p.issued <= 1
	res = &p.zero
	if mValid {
		res = &p.out[head]
	}
	return sReady, mValid, res
}

// Peek returns the output ports of the coming cycle without applying its
// edge: s_event_ready, m_result_valid and the head's result (a zero R
// while m_result_valid is 0). Both are registers in the shell, so a
// composition of shells decides its handshakes from them before any
// shell's edge. The result is valid until the next CyclePorts.
func (p *Pipeline[E, R]) Peek() (sReady, mValid bool, res *R) {
	if p.outN == 0 {
		return p.ready, false, &p.zero
	}
	return p.ready, true, &p.out[p.outHead]
}
