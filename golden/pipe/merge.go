package pipe

// The merging shell (docs/pipeline.md, "Merge stage"), written from its
// contract:
//
//   - The input buffer's head never waits for its connection. In each
//     cycle it moves into a waiting slot: it folds into the pending event
//     of its connection's youngest slot when that slot cannot issue in the
//     cycle, holds fewer than MaxMembers events and the block's rule
//     (Merger.Fold) allows it; otherwise it fills the lowest-numbered slot
//     that was free at the start of the cycle. With no such slot it stays.
//   - A slot can issue when fewer than Credits events are issued and not
//     yet taken, no event of its connection is in stages 1..Depth-1, and
//     no older slot holds an event of its connection. Of those, the one
//     filled first issues; it enters stage 1 and its slot is free after
//     the edge.
//   - The issued event runs through the stages as in the plain shell, and
//     its result carries the number of events merged into it
//     (Merger.Members).

// Merger is a block's merge rule as the merging shell applies it.
type Merger[E, R any] interface {
	// Fold merges the arriving event e into p, the pending event of e's
	// connection standing for members events, when the block's rule
	// allows it, and reports whether it did; it leaves p alone when not.
	// It refuses an event the RTL never folds: a kind or a connection out
	// of range, a table operation.
	Fold(p *E, members int, e *E) bool
	// Members writes into r the number of events its issued event stood
	// for (0 on an error result, whose fields are all 0).
	Members(r *R, n int)
}

// mergeState is the merging shell's state beside the plain pipeline's.
type mergeState[E, R any] struct {
	rule       Merger[E, R]
	maxMembers int

	// slots
	valid   []bool
	ev      []E
	members []int
	key     []uint64
	seq     []uint64 // fill order
	nextSeq uint64

	// the stages' events and member counts, by the stage ring's slot
	stageEv      []E
	stageMembers []int
}

// NewMerging returns an empty merging pipeline of a datapath of depth
// stages around s, with slots waiting slots and groups of at most
// maxMembers events, merged by rule.
func NewMerging[E, R any](s Stepper[E, R], depth, slots, maxMembers int, rule Merger[E, R]) *Pipeline[E, R] {
	p := New(s, depth)
	n := len(p.inStage)
	p.mg = &mergeState[E, R]{rule: rule, maxMembers: maxMembers,
		valid: make([]bool, slots), ev: make([]E, slots), members: make([]int, slots),
		key: make([]uint64, slots), seq: make([]uint64, slots),
		stageEv: make([]E, n), stageMembers: make([]int, n)}
	return p
}

// MergingLatency is the cycles from acceptance to the result with no
// stall in a merging shell: one more than the plain shell's, the cycle the
// event spends in its slot.
func MergingLatency(depth int) int { return Latency(depth) + 1 }

// inFlight is whether an event of connection key is in stages 1..depth-1.
func (p *Pipeline[E, R]) inFlight(key uint64) bool {
	n := len(p.inStage)
	for i, j := 0, p.top; i < p.depth-1; i++ {
		if p.inStage[j] && p.key[j] == key {
			return true
		}
		if j++; j == n {
			j = 0
		}
	}
	return false
}

// cycleMerge is CyclePorts of a merging shell.
func (p *Pipeline[E, R]) cycleMerge(sValid, mReady bool) (sReady, mValid bool, res *R) {
	g := p.mg
	sReady, mValid, res = p.ready, p.outN > 0, &p.zero
	head := p.outHead
	pop := mValid && mReady
	// the slots that can issue, and the oldest of them
	ns := len(g.valid)
	sel := -1
	var canIssue [MaxSlots]bool
	if p.occ < p.credits {
		for i := 0; i < ns; i++ {
			if !g.valid[i] || p.inFlight(g.key[i]) {
				continue
			}
			first := true
			for j := 0; j < ns; j++ {
				if j != i && g.valid[j] && g.key[j] == g.key[i] && g.seq[j] < g.seq[i] {
					first = false
					break
				}
			}
			if canIssue[i] = first; first && (sel < 0 || g.seq[i] < g.seq[sel]) {
				sel = i
			}
		}
	}
	// the head: folded into its connection's youngest slot, or into the
	// lowest free one (free at the start of the cycle)
	leave, fill := false, -1
	if p.issued < p.accepted {
		h := &p.evs[p.issued&p.evMask]
		hk := p.s.ConnKey(h)
		young := -1
		for i := 0; i < ns; i++ {
			if g.valid[i] && g.key[i] == hk && (young < 0 || g.seq[i] > g.seq[young]) {
				young = i
			}
		}
		if young >= 0 && !canIssue[young] && g.members[young] < g.maxMembers && g.rule.Fold(&g.ev[young], g.members[young], h) {
			g.members[young]++
			leave = true
		} else {
			for i := 0; i < ns; i++ {
				if !g.valid[i] {
					fill = i
					break
				}
			}
			leave = fill >= 0
		}
	}
	// the edge: the last stage's result enters the result buffer
	if pop {
		if p.outHead++; p.outHead == p.credits {
			p.outHead = 0
		}
		p.outN--
	}
	l := p.last()
	if p.inStage[l] {
		slot := p.outHead + p.outN
		if slot >= p.credits {
			slot -= p.credits
		}
		p.s.StepTo(&g.stageEv[l], &p.out[slot])
		g.rule.Members(&p.out[slot], g.stageMembers[l])
		p.outN++
	}
	p.top = l
	p.inStage[l] = sel >= 0
	if sel >= 0 {
		g.stageEv[l], g.stageMembers[l], p.key[l] = g.ev[sel], g.members[sel], g.key[sel]
		g.valid[sel] = false
		p.occ++
	}
	if fill >= 0 {
		h := &p.evs[p.issued&p.evMask]
		g.valid[fill], g.ev[fill], g.members[fill] = true, *h, 1
		g.key[fill], g.seq[fill] = p.s.ConnKey(h), g.nextSeq
		g.nextSeq++
	}
	if leave {
		p.issued++
	}
	if pop {
		p.occ--
	}
	if sReady && sValid {
		p.accepted++
	}
	p.ready = p.accepted-p.issued <= 1
	if mValid {
		res = &p.out[head]
	}
	return sReady, mValid, res
}

// MaxSlots is the most waiting slots of a merging shell (the RTL's
// connpipe.MaxSlots).
const MaxSlots = 32
