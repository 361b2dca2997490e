package pipe

// The merging shell (docs/pipeline.md, "Merge stage"), written from its
// contract:
//
//   - The input buffer's head moves into the arrival register when a slot
//     is free for it: one free slot while the arrival register is empty,
//     two while it holds an event (that one may take one).
//   - The arrival is placed in the next cycle, always: it folds into its
//     connection's youngest slot when that slot does not issue in the cycle,
//     holds fewer than MaxMembers events and the block's rule
//     (Merger.Fold) allows it; otherwise it fills the lowest-numbered slot
//     that was free at the start of the cycle.
//   - The slot to issue is chosen a cycle ahead: the candidate for the
//     next cycle is, of the slots other than the one issuing now, the one
//     filled first among those whose connection is not in the issue
//     register or in stages 1..Depth-3 and of whose connection no older
//     slot holds an event (so that two events of a connection enter stage
//     1 at least Depth cycles apart, as in the plain shell). The candidate issues while fewer than the
//     credits (Credits + 1) events are issued and not yet taken: it enters
//     the issue register, and its slot is free after the edge.
//   - The issue register enters stage 1 at the next edge; from there on
//     the event runs through the stages as in the plain shell, and its
//     result carries the number of events merged into it
//     (Merger.Members).
//
// The model keeps the issue register as a stage of its stage ring, in
// front of stage 1: Depth+4 stages, the first Depth-2 of them the hazard
// window.

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

	// the arrival register
	arrValid bool
	arr      E
	arrKey   uint64

	// slots
	valid   []bool
	ev      []E
	members []int
	key     []uint64
	seq     []uint64 // fill order
	nextSeq uint64
	cand    int // the slot chosen to issue in this cycle, or -1

	// the stages' events and member counts, by the stage ring's slot
	stageEv      []E
	stageMembers []int
}

// NewMerging returns an empty merging pipeline of a datapath of depth
// stages around s, with slots waiting slots and groups of at most
// maxMembers events, merged by rule.
func NewMerging[E, R any](s Stepper[E, R], depth, slots, maxMembers int, rule Merger[E, R]) *Pipeline[E, R] {
	p := New(s, depth)
	// the issue register is one more stage, and one more credit
	n := depth + ReadStages + 1
	p.inStage, p.stageEv, p.key = make([]bool, n), make([]uint64, n), make([]uint64, n)
	p.credits = MergeCredits(depth)
	p.out = make([]R, p.credits)
	p.mg = &mergeState[E, R]{rule: rule, maxMembers: maxMembers,
		valid: make([]bool, slots), ev: make([]E, slots), members: make([]int, slots),
		key: make([]uint64, slots), seq: make([]uint64, slots),
		stageEv: make([]E, n), stageMembers: make([]int, n), cand: -1}
	return p
}

// MergingLatency is the cycles from acceptance to the result with no
// stall in a merging shell: four more than the plain shell's, the cycles
// the event spends in the arrival register, in its slot before and after
// it is chosen, and in the issue register.
func MergingLatency(depth int) int { return Latency(depth) + 4 }

// MergeCredits is the result buffer of a merging shell: one more than
// the plain shell's, for the issue register.
func MergeCredits(depth int) int { return Credits(depth) + 1 }

// inFlight is whether an event of connection key is in the issue
// register or stages 1..depth-3: the first depth-2 stages of the ring.
func (p *Pipeline[E, R]) inFlight(key uint64) bool {
	n := len(p.inStage)
	for i, j := 0, p.top; i < p.depth-2; i++ {
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
	// the candidate issues while a credit is left; the next candidate is
	// the oldest other slot that can issue
	ns := len(g.valid)
	sel := -1
	if g.cand >= 0 && p.occ < p.credits {
		sel = g.cand
	}
	next := -1
	for i := 0; i < ns; i++ {
		if !g.valid[i] || i == sel || p.inFlight(g.key[i]) {
			continue
		}
		first := true
		for j := 0; j < ns; j++ {
			if j != i && g.valid[j] && g.key[j] == g.key[i] && g.seq[j] < g.seq[i] {
				first = false
				break
			}
		}
		if first && (next < 0 || g.seq[i] < g.seq[next]) {
			next = i
		}
	}
	// the arrival: folded into its connection's youngest slot, or into the
	// lowest slot free at the start of the cycle
	fill, free := -1, 0
	for i := 0; i < ns; i++ {
		if !g.valid[i] {
			free++
		}
	}
	if g.arrValid {
		young := -1
		for i := 0; i < ns; i++ {
			if g.valid[i] && g.key[i] == g.arrKey && (young < 0 || g.seq[i] > g.seq[young]) {
				young = i
			}
		}
		if young >= 0 && young != g.cand && g.members[young] < g.maxMembers && g.rule.Fold(&g.ev[young], g.members[young], &g.arr) {
			g.members[young]++
		} else {
			for i := 0; i < ns; i++ {
				if !g.valid[i] {
					fill = i
					break
				}
			}
			if fill < 0 {
				panic("pipe: the arrival found no free slot")
			}
		}
	}
	// the head moves into the arrival register while a slot is free for it
	leave := p.issued < p.accepted && (free >= 2 || free >= 1 && !g.arrValid)
	// the edge: the last stage's result enters the result buffer
	l := p.edgeOut(pop)
	if p.inStage[l] {
		r := p.pushOut()
		p.s.StepTo(&g.stageEv[l], r)
		g.rule.Members(r, g.stageMembers[l])
	}
	p.top = l
	p.inStage[l] = sel >= 0
	if sel >= 0 {
		g.stageEv[l], g.stageMembers[l], p.key[l] = g.ev[sel], g.members[sel], g.key[sel]
		g.valid[sel] = false
		p.occ++
	}
	if fill >= 0 {
		g.valid[fill], g.ev[fill], g.members[fill] = true, g.arr, 1
		g.key[fill], g.seq[fill] = g.arrKey, g.nextSeq
		g.nextSeq++
	}
	g.cand = next
	g.arrValid = leave
	if leave {
		h := &p.evs[p.issued&p.evMask]
		g.arr, g.arrKey = *h, p.s.ConnKey(h)
		p.issued++
	}
	return p.finish(pop, sValid && sReady, mValid, head)
}

// MaxSlots is the most waiting slots of a merging shell (the RTL's
// connpipe.MaxSlots).
const MaxSlots = 32

// waiting is the merge rule of a shell whose events are answered one by
// one: nothing folds, and each result stands for its own event.
type waiting[E, R any] struct{ members func(r *R, n int) }

func (waiting[E, R]) Fold(*E, int, *E) bool { return false }

func (w waiting[E, R]) Members(r *R, n int) {
	if w.members != nil {
		w.members(r, n)
	}
}

// NewWaiting is the merging shell with no merge rule (connpipe.Merge with
// no Fold): its slots let every connection's events pass a busy
// connection's, and every group has one member. members, when set, writes
// the result's member count (1, 0 on an error result).
func NewWaiting[E, R any](s Stepper[E, R], depth, slots int, members func(r *R, n int)) *Pipeline[E, R] {
	return NewMerging[E, R](s, depth, slots, 1, waiting[E, R]{members})
}

// NewShell is the golden shell of a block with wait slots (the block's
// wait_slots, connpipe.Merge without Fold): the merging shell with no
// merge rule when slots > 0 (NewWaiting), else the plain shell (New).
func NewShell[E, R any](s Stepper[E, R], depth, slots int, members func(r *R, n int)) *Pipeline[E, R] {
	if slots > 0 {
		return NewWaiting[E, R](s, depth, slots, members)
	}
	return New[E, R](s, depth)
}
