package connpipe

import (
	"fmt"
	"slices"

	"github.com/nicgen/nicgen/hdlgen"
)

// Merge puts waiting slots between the input buffer and the issue
// (Spec.Merge; docs/pipeline.md, "Merge stage"): the head of the input
// buffer never waits for its connection. It moves into the arrival
// register, and from there into a slot, where it folds into the pending
// event of its connection when the block's rule allows it; events issue
// from the slots, oldest first among those whose connection is free,
// through the issue register into stage 1. Results carry the number of
// events merged (m_result_members).
type Merge struct {
	// Slots is the number of waiting slots (2..MaxSlots). The head moves
	// into the arrival register while a slot is free for it (two free
	// slots when the arrival register is full), so the input waits only
	// when the slots hold Slots - 1 pending events or more.
	Slots int
	// CountW is the width of m_result_members: a group closes at
	// 2^CountW - 1 members.
	CountW int
	// Fold is 1 when the arriving event b may fold into the pending event
	// a of its connection (a.Members events so far). Nil: nothing folds
	// (a block whose events must be answered one by one still gets the
	// slots, so that no connection blocks another). The shell never folds
	// a table operation or an event out of range, and never into a slot
	// that could issue in the cycle.
	Fold func(a, b MergeEvent) hdlgen.Expr
	// Combine is the merged event's fields: every event field but Sum.
	Combine func(a, b MergeEvent) hdlgen.Record
	// Sum, when set, names an event field the shell adds up over a
	// group's members, which folds only while the sum stays at most
	// SumCap (checked against the room each slot keeps, SumCap minus its
	// sum, so that no adder chains into another).
	Sum    string
	SumCap uint64
}

// MergeEvent is a pending or an arriving event as a merge rule sees it.
type MergeEvent struct {
	Kind    hdlgen.Expr
	Fields  hdlgen.Record
	Members hdlgen.Expr // events merged into it so far (CountW bits)
}

// MergeAssertions are the merge stage's own assertions (properties).
var MergeAssertions = slices.Concat(SlotAssertions, FoldCountAssertions)

// SlotAssertions are the merge stage's assertions whose broken variants
// (MergeMutants) fail with or without a merge rule: the smallest shell
// with slots shows that each can fail. FoldCountAssertions are the rest,
// whose broken variants miscount a fold: they need a merge rule.
var (
	SlotAssertions      = []string{"arrival_exact", "arrival_placed", "slot_age_order", "slot_cand_onehot", "slot_cand_ready", "slot_hazard_exact", "slot_order", "slot_succ_exact"}
	FoldCountAssertions = []string{"members_kept", "slots_used_exact"}
)

// FoldAssertions are the assertions a merging shell with a Fold rule adds,
// and SumAssertions those of one with a capped sum (Merge.Sum).
var (
	FoldAssertions = []string{"fold_by_rule"}
	SumAssertions  = []string{"arr_sum_exact", "slot_room_exact", "sum_kept"}
)

// MergeMutants are the broken variants of the merge stage's assertions,
// applied to the built design (hdlgen.Mutate): slot 0 blind to the
// hazard of the window's first group; slot 0 filled without its
// predecessors; slot 0 never told of a successor; slot 0 chosen while its
// connection is in flight; the head let into the arrival register while
// one slot is free, though the arrival register may take it.
func MergeMutants() map[string][]hdlgen.Mutation {
	isFalse := func(hdlgen.Expr, func(string) hdlgen.Expr) hdlgen.Expr { return hdlgen.False() }
	return map[string][]hdlgen.Mutation{
		"slot_hazard_exact": {{Node: "slot0_hazard0_ahead", With: isFalse}},
		"slot_order": {{Node: "slot0_pred_fill", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return hdlgen.Const(orig.Width(), 0)
		}}},
		"slot_succ_exact": {{Node: "slot0_succ_set", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("slot0_succ_reg")
		}}},
		"slot_cand_ready": {{Node: "slot0_eligible", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("slot0_valid_reg").And(get("slot0_issue").Not())
		}}},
		// the head enters while the slots are full
		"arrival_placed": {{Node: "head_leaves", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("in_valid_reg")
		}}},
		// a filled slot is not made the youngest
		"slot_age_order": {{Node: "slot0_older_fill", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return hdlgen.Const(orig.Width(), 0)
		}}},
		// every eligible slot is a candidate
		"slot_cand_onehot": {{Node: "slot1_cand_next", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("slot1_eligible")
		}}},
		// a fold is not counted
		"slots_used_exact": {{Node: "arr_folds_count", With: isFalse}},
		// the head takes no hit on the slot the arrival fills
		"arrival_exact": {{Node: "head_conn_is_arr", With: isFalse}},
		// an arrival that folds also fills slot 0 when it is the lowest
		// free one: it is counted twice
		"members_kept": {{Node: "slot0_fill", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("slot0_load")
		}}},
	}
}

// FoldMutants are the broken variants of a merging shell with a Fold
// rule: slot 0 folds the arrival of its connection whatever the rule says
// (across an ECN change or a barrier).
func FoldMutants() map[string][]hdlgen.Mutation {
	return map[string][]hdlgen.Mutation{
		"fold_by_rule": {{Node: "slot0_fold", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("arr_valid_reg").And(get("arr_hit_reg").Bit(0)).
				And(get("slot0_succ_reg").Not()).And(get("slot_cand_reg").Bit(0).Not())
		}}},
	}
}

// SumMutants are the broken variants of a merging shell with a capped sum
// (Merge.Sum): a filled slot's room ignores its first member.
func SumMutants(g *Merge) map[string][]hdlgen.Mutation {
	return map[string][]hdlgen.Mutation{
		"slot_room_exact": {{Node: "arr_room", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return hdlgen.Const(orig.Width(), g.SumCap)
		}}},
		// the sum computed ahead takes the head as kept, whatever the
		// input buffer loads into it
		"arr_sum_exact": {{Node: "arr_head_sum_ahead", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			v := get("in_" + g.Sum + "_reg").ZExt(orig.Width())
			return v.Add(v)
		}}},
		// a fold into slot 0 keeps the slot's sum, dropping the arrival's
		"sum_kept": {{Node: "slot0_sum_fold", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Operand(0)
		}}},
	}
}

// MaxSlots is the most waiting slots a merge stage has.
const MaxSlots = 32

// MembersField is the result field a merging shell adds: the events an
// issued event stands for.
const MembersField = "members"

// MergeCredits is the result buffer of a merging shell: one more than the
// plain shell's (Credits), for the issue register.
func MergeCredits(depth int) int { return Credits(depth) + 1 }

func (g *Merge) check(s Spec) error {
	switch {
	case g.Slots < 2 || g.Slots > MaxSlots:
		return fmt.Errorf("connpipe: %d merge slots: want 2..%d", g.Slots, MaxSlots)
	case g.CountW < 1 || g.CountW > 16:
		return fmt.Errorf("connpipe: members width %d: want 1..16", g.CountW)
	case g.Fold != nil && g.Combine == nil:
		return fmt.Errorf("connpipe: a merge rule with Fold needs Combine")
	case s.Refuse != nil && g.Fold != nil:
		return fmt.Errorf("connpipe: a merging shell with a Fold rule takes no Refuse rule (a refused event would need its own slot rule); without Fold, nothing folds and a refused event is answered at stage 1 as in the plain shell")
	case hasField(s.ResultFields, MembersField):
		return fmt.Errorf("connpipe: result field %q is the merging shell's own", MembersField)
	case g.Sum != "" && (g.Fold == nil || !hasField(s.EventFields, g.Sum)):
		return fmt.Errorf("connpipe: merge sum %q: not an event field, or no Fold", g.Sum)
	case g.Sum != "" && (g.SumCap == 0 || g.SumCap >= uint64(1)<<uint(min(fieldWidth(s.EventFields, g.Sum), 62))):
		return fmt.Errorf("connpipe: merge sum %q: cap %d must be 1 .. below 2^%d", g.Sum, g.SumCap, fieldWidth(s.EventFields, g.Sum))
	}
	return nil
}

// roomW is the width of a slot's room: the sum's field and the cap, and
// a sign bit (a first member above the cap leaves no room).
func (g *Merge) roomW(s Spec) int {
	return max(fieldWidth(s.EventFields, g.Sum), hdlgen.BitsFor(g.SumCap)) + 1
}

func fieldWidth(fs []Field, name string) int {
	for _, f := range fs {
		if f.Name == name {
			return f.Width
		}
	}
	return 0
}

// evRegs is an event held in registers: the input buffer's head and skid
// entries, the arrival and issue registers, a waiting slot.
type evRegs struct {
	valid      *hdlgen.Reg
	conn, kind *hdlgen.Reg
	op         *hdlgen.Reg // with Table
	fields     map[string]*hdlgen.Reg
}

// newEvRegs declares an event's registers, prefix_valid (reset to 0) and
// its fields.
func newEvRegs(m *hdlgen.Module, s Spec, prefix, doc string) evRegs {
	r := evRegs{fields: map[string]*hdlgen.Reg{}}
	r.valid = m.Reg(prefix+"_valid", 1, doc+" holds an event", hdlgen.ResetTo(0))
	r.conn = m.Reg(prefix+"_conn", s.ConnW, doc+" connection id", hdlgen.NoReset())
	r.kind = m.Reg(prefix+"_kind", s.KindW, doc+" event kind", hdlgen.NoReset())
	if s.Table {
		r.op = m.Reg(prefix+"_op", OpW, doc+" table operation (0: an event)", hdlgen.NoReset())
	}
	for _, f := range s.EventFields {
		r.fields[f.Name] = m.Reg(prefix+"_"+f.Name, f.Width, doc+" "+f.Name, hdlgen.NoReset())
	}
	return r
}

// record is the event's fields by name.
func (r evRegs) record(s Spec) hdlgen.Record {
	rec := hdlgen.NewRecord("the event")
	for _, f := range s.EventFields {
		rec.Set(f.Name, r.fields[f.Name].Expr)
	}
	return rec
}

// slot is one waiting slot of the merge stage.
type slot struct {
	evRegs
	count *hdlgen.Reg   // events folded into it
	pred  *hdlgen.Reg   // bit j: slot j holds an earlier event of its connection
	older *hdlgen.Reg   // bit j: slot j was filled before it
	succ  *hdlgen.Reg   // a later slot holds an event of its connection
	room  *hdlgen.Reg   // Merge.Sum: SumCap minus its sum
	haz   []*hdlgen.Reg // its connection is in the stages of hazard group g
}

// arrival is the arrival register: the event on its way from the input
// buffer into a slot, with what its placement needs compared a cycle
// ahead against the slots as they are now.
type arrival struct {
	evRegs
	hit    *hdlgen.Reg // bit i: slot i holds an event of its connection
	foldOK *hdlgen.Reg // bit i: it may fold into slot i's event (see update)
	// Merge.Sum: the head's sum plus its own, added a cycle ahead (the
	// head's next and the head, which the arrival register always loads),
	// so that the fold checks compare a register with a slot's room
	sumHead *hdlgen.Reg
}

// mergeUnit is the built merge stage: what the shell around it reads.
type mergeUnit struct {
	slots    []slot
	arr      arrival
	iss      evRegs        // the issue register: the event entering stage 1
	issN     *hdlgen.Reg   // its members
	cand     *hdlgen.Reg   // bit i: slot i is the one to issue, chosen a cycle ahead
	candAny  *hdlgen.Reg   // cand is not 0
	eligible []hdlgen.Expr // slot i may be the next candidate
	used     *hdlgen.Reg   // slots taken or promised: valid slots, and the arrival
	sel      []hdlgen.Expr // slot i issues in the cycle (one-hot)
	full     hdlgen.Expr   // no credit is left: the candidate waits
	issue    hdlgen.Expr   // a slot issues (the event enters the issue register)
	leave    hdlgen.Expr   // the input buffer's head moves into the arrival register
	// the arrival register's placement in the cycle
	fold, alloc []hdlgen.Expr
	spec        []hdlgen.Expr // slot i is the lowest free one: it loads the arrival (alloc: and keeps it)
	anyAlloc    hdlgen.Expr
	anyFold     hdlgen.Expr
	candNext    []hdlgen.Expr // the next cycle's candidate (one-hot)
	headEq      []hdlgen.Expr // slot i's connection is the head's
	arrAt       *hdlgen.Reg   // the arrival's place in the window's stages (hazards)
	head        evRegs        // the input buffer's head, which the arrival register loads
	inRange     func(evRegs) hdlgen.Expr
}

// newMergeUnit declares the merge stage's registers.
func newMergeUnit(m *hdlgen.Module, s Spec, groups int) *mergeUnit {
	g := s.Merge
	u := &mergeUnit{slots: make([]slot, g.Slots)}
	for i := range u.slots {
		pre, doc := fmt.Sprintf("slot%d", i), fmt.Sprintf("waiting slot %d", i)
		sl := slot{evRegs: newEvRegs(m, s, pre, doc)}
		sl.count = m.Reg(pre+"_members", g.CountW, doc+" events merged into it", hdlgen.NoReset())
		sl.pred = m.Reg(pre+"_pred", g.Slots, doc+": bit j, slot j holds an earlier event of the same connection", hdlgen.ResetTo(0))
		sl.older = m.Reg(pre+"_older", g.Slots, doc+": bit j, slot j was filled before it", hdlgen.NoReset())
		sl.succ = m.Reg(pre+"_succ", 1, doc+": a later slot holds an event of the same connection", hdlgen.NoReset())
		if g.Sum != "" {
			sl.room = m.Reg(pre+"_room", g.roomW(s), fmt.Sprintf("%s: %d minus its %s (top bit: below 0, nothing folds)", doc, g.SumCap, g.Sum), hdlgen.NoReset())
		}
		sl.haz = make([]*hdlgen.Reg, groups)
		for k := range sl.haz {
			sl.haz[k] = m.Reg(fmt.Sprintf("%s_hazard%d", pre, k), 1, fmt.Sprintf("%s: its connection is in hazard group %d's stages", doc, k), hdlgen.ResetTo(0))
		}
		u.slots[i] = sl
	}
	u.arr = arrival{evRegs: newEvRegs(m, s, "arr", "arrival register")}
	u.arr.hit = m.Reg("arr_hit", g.Slots, "bit i: slot i holds an event of the arrival's connection", hdlgen.NoReset())
	if g.Fold != nil {
		if g.Sum != "" {
			u.arr.sumHead = m.Reg("arr_head_sum", fieldWidth(s.EventFields, g.Sum)+1, fmt.Sprintf("the arrival register's %s plus the head's, added a cycle ahead", g.Sum), hdlgen.NoReset())
		}
		u.arr.foldOK = m.Reg("arr_fold_ok", g.Slots, "bit i: the arrival holds an event in range, and slot i's event, below the members' cap, folds it by the merge rule and within the sum's room", hdlgen.ResetTo(0))
	}
	u.used = m.Reg("slots_used", hdlgen.BitsFor(uint64(g.Slots)+1), "slots holding an event, and one more while the arrival register holds one", hdlgen.ResetTo(0))
	u.cand = m.Reg("slot_cand", g.Slots, "bit i: slot i issues in this cycle unless no credit is left (chosen in the cycle before)", hdlgen.ResetTo(0))
	u.candAny = m.Reg("slot_cand_any", 1, "slot_cand is not 0", hdlgen.ResetTo(0))
	u.iss = newEvRegs(m, s, "iss", "issue register")
	u.issN = m.Reg("iss_members", g.CountW, "issue register: events merged into the event", hdlgen.NoReset())
	return u
}

// decide computes the cycle's decisions from registers: the candidate
// chosen in the cycle before issues while a credit is left; the next
// candidate is the oldest slot, other than the one issuing, whose
// connection is free and whose predecessors issued; the arrival folds into
// its connection's youngest slot when the rule allows it and that slot
// does not issue now, else fills the lowest free slot; and the head moves
// into the arrival register when a slot is free for it.
func (u *mergeUnit) decide(s Spec, head evRegs, full hdlgen.Expr) {
	n := len(u.slots)
	u.full = full
	u.sel = make([]hdlgen.Expr, n)
	u.fold, u.alloc, u.spec = make([]hdlgen.Expr, n), make([]hdlgen.Expr, n), make([]hdlgen.Expr, n)
	for i := range u.slots {
		u.sel[i] = u.cand.Bit(i).And(full.Not()).Named(fmt.Sprintf("slot%d_issue", i))
	}
	// a candidate exists: kept in a register of its own, so that the
	// issue, which the occupancy counter and the stages wait for, is one
	// gate after registers
	u.issue = u.candAny.And(full.Not()).Named("issue")
	eligible := make([]hdlgen.Expr, n)
	u.eligible = eligible
	for i, x := range u.slots {
		e := x.valid.And(u.sel[i].Not()).And(x.pred.IsZero())
		for _, h := range x.haz {
			e = e.And(h.Not())
		}
		eligible[i] = e.Named(fmt.Sprintf("slot%d_eligible", i))
	}
	u.candNext = make([]hdlgen.Expr, n)
	for i, x := range u.slots {
		var beats []hdlgen.Expr
		for j := range u.slots {
			if j != i {
				beats = append(beats, eligible[j].And(x.older.Bit(j)))
			}
		}
		u.candNext[i] = eligible[i].And(orTree(beats).Not()).Named(fmt.Sprintf("slot%d_cand_next", i))
	}
	a := u.arr
	folds := []hdlgen.Expr{hdlgen.False()}
	for i, x := range u.slots {
		u.fold[i] = hdlgen.False()
		if s.Merge.Fold == nil {
			continue
		}
		// everything but the hit, the successor and the candidate was
		// decided a cycle ahead (arr_fold_ok, with the arrival's valid)
		ok := a.hit.Bit(i).And(a.foldOK.Bit(i)).And(x.succ.Not()).And(u.cand.Bit(i).Not())
		u.fold[i] = ok.Named(fmt.Sprintf("slot%d_fold", i))
		folds = append(folds, u.fold[i])
	}
	anyFold := orTree(folds).Named("arr_folds")
	u.anyFold = anyFold
	for i, x := range u.slots {
		// a lower slot is free: a balanced tree, not a chain over the slots
		lower := hdlgen.False()
		if i > 0 {
			var frees []hdlgen.Expr
			for _, y := range u.slots[:i] {
				frees = append(frees, y.valid.Not())
			}
			lower = orTree(frees)
		}
		// the lowest free slot takes the arrival's event, pred, order,
		// count, room and hazards whether it folds or not (a free slot's
		// registers mean nothing): only its valid bit waits for the fold
		u.spec[i] = a.valid.And(x.valid.Not()).And(lower.Not()).Named(fmt.Sprintf("slot%d_load", i))
		u.alloc[i] = u.spec[i].And(anyFold.Not()).Named(fmt.Sprintf("slot%d_fill", i))
	}
	u.anyAlloc = a.valid.And(anyFold.Not()).Named("arr_fills")
	// the head leaves while fewer than Slots slots are taken or promised
	// to the arrival (used): one free slot while the arrival register is
	// empty, two while it holds an event
	u.leave = head.valid.And(u.used.Lt(hdlgen.Const(u.used.Width(), uint64(len(u.slots))))).Named("head_leaves")
}

// update sets the registers' next state: an issued slot is freed (and
// leaves its successors' pred) and its event enters the issue register;
// the arrival folds into its slot or fills the one it was given, which
// becomes the youngest of every other; the head enters the arrival
// register with its comparisons against the slots as they will be.
func (u *mergeUnit) update(m *hdlgen.Module, s Spec, head evRegs, headInRange hdlgen.Expr, headNext func(name string, f func(hdlgen.Expr) hdlgen.Expr) hdlgen.Expr) {
	a := u.arr
	u.head = head
	selVec, specVec := catBits(u.sel), catBits(u.spec)
	validVec := catBits(regExprs(u.slots, func(x slot) hdlgen.Expr { return x.valid.Expr }))
	c := u.headChecks(s, head, headInRange)
	m.Comb("merge_slots", func(p *hdlgen.Process) {
		u.slotsNext(p, s, c, selVec, specVec, validVec)
		u.orderNext(p)
		// the arrival register: the head when it leaves, else empty
		p.Set(a.valid, u.leave)
		loadEv(p, s, a.evRegs, head)
		p.Set(a.hit, catBits(c.hit))
		if s.Merge.Fold != nil {
			p.Set(a.foldOK, catBits(c.foldOK))
		}
		if g := s.Merge; g.Sum != "" {
			// the head after the edge and the head now, which the arrival
			// register loads at the edge: one sum per value the head may
			// take, the input buffer's choice last
			w := a.sumHead.Width()
			now := head.fields[g.Sum].ZExt(w)
			p.Set(a.sumHead, headNext(g.Sum, func(v hdlgen.Expr) hdlgen.Expr { return v.ZExt(w).Add(now) }).Named("arr_head_sum_ahead"))
		}
	})
	u.issueReg(m, s)
}

// headChecks are the head's comparisons against the slots as they will
// be after the edge, which the arrival register keeps (arr_hit,
// arr_fold_ok), and the slots' events with the arrival folded in.
type headChecks struct {
	merged      []hdlgen.Record // slot i's event with the arrival folded into it
	hit, foldOK []hdlgen.Expr   // per slot, after the edge
	roomArr     hdlgen.Expr     // the arrival's room in a slot of its own
	rw          int             // the rooms' width
}

// headChecks compares the head with each slot for the next cycle. The
// fold checks are split into the rule's part and the sum's carry chains
// (fitsRoom, from registers), which gate last: a sum of three products, one per outcome
// of the slot at the edge (it loads the arrival, the arrival folds into
// it, it keeps its event), each selected beside its chain.
func (u *mergeUnit) headChecks(s Spec, head evRegs, headInRange hdlgen.Expr) headChecks {
	g := s.Merge
	a := u.arr
	arrEv := MergeEvent{Kind: a.kind.Expr, Fields: a.record(s), Members: hdlgen.Const(g.CountW, 1)}
	headEv := MergeEvent{Kind: head.kind.Expr, Fields: head.record(s), Members: hdlgen.Const(g.CountW, 1)}
	c := headChecks{merged: make([]hdlgen.Record, len(u.slots)), hit: make([]hdlgen.Expr, len(u.slots)), foldOK: make([]hdlgen.Expr, len(u.slots))}
	var ruleArr, fitsArr hdlgen.Expr
	fitsArr = hdlgen.True()
	if g.Fold != nil {
		ruleArr = u.leave.And(headInRange).And(g.Fold(arrEv, headEv))
		if g.CountW == 1 { // one member is the cap
			ruleArr = hdlgen.False()
		}
		if s.Table {
			ruleArr = ruleArr.And(a.op.IsZero())
		}
		ruleArr = ruleArr.Named("head_folds_arr")
	}
	var hSum, aSum hdlgen.Expr
	if g.Sum != "" {
		// the arrival's room in a slot of its own; whether the head fits
		// each slot's room, with or without the arrival folded in, each
		// by one carry chain from registers (fitsRoom: the head with the
		// arrival is the sum added a cycle ahead, sumHead)
		c.rw = g.roomW(s)
		rw := c.rw
		hSum, aSum = head.fields[g.Sum].Expr, a.fields[g.Sum].Expr
		c.roomArr = hdlgen.Const(rw, g.SumCap).Sub(aSum.ZExt(rw)).Named("arr_room")
		fitsArr = fitsRoom(rw, hdlgen.Const(rw, g.SumCap), a.sumHead.Expr)
	}
	sameArr := a.conn.Eq(head.conn).Named("head_conn_is_arr")
	u.headEq = make([]hdlgen.Expr, len(u.slots))
	capGrown := hdlgen.Const(g.CountW, (uint64(1)<<uint(g.CountW)-1)-1)
	for i, x := range u.slots {
		u.headEq[i] = x.conn.Eq(head.conn).Named(fmt.Sprintf("slot%d_head_conn", i))
		// a free slot that loads the arrival holds it after the edge unless
		// the arrival folds (the fold, the latest signal, gates last)
		c.hit[i] = hdlgen.Mux(u.spec[i], sameArr.And(u.anyFold.Not()), x.valid.And(u.sel[i].Not()).And(u.headEq[i]))
		c.foldOK[i] = hdlgen.False()
		if g.Fold == nil {
			continue
		}
		pend := MergeEvent{Kind: x.kind.Expr, Fields: x.record(s), Members: x.count.Expr}
		c.merged[i] = g.Combine(pend, arrEv)
		grown := MergeEvent{Kind: x.kind.Expr, Fields: c.merged[i], Members: x.count.Add(hdlgen.Const(g.CountW, 1))}
		// the rule, the members' cap, and with the table port no table
		// operation, for the slot's event after the edge: the grown one
		// or the pending one
		ruleGrown := g.Fold(grown, headEv).And(x.count.Ne(capGrown))
		rulePend := g.Fold(pend, headEv).And(x.count.Ne(hdlgen.Ones(g.CountW)))
		if s.Table {
			ruleGrown, rulePend = ruleGrown.And(x.op.IsZero()), rulePend.And(x.op.IsZero())
		}
		head := u.leave.And(headInRange).And(u.spec[i].Not())
		selGrown := head.And(u.fold[i]).And(ruleGrown)
		selPend := head.And(u.fold[i].Not()).And(rulePend)
		selArr := u.spec[i].And(ruleArr)
		fitsGrown, fitsPend := hdlgen.True(), hdlgen.True()
		if g.Sum != "" {
			// the arrival is within the room: the sums fit the field
			c.merged[i].Set(g.Sum, x.fields[g.Sum].Add(a.fields[g.Sum]).Named(fmt.Sprintf("slot%d_sum_fold", i)))
			fitsGrown = fitsRoom(c.rw, x.room.Expr, a.sumHead.Expr)
			fitsPend = fitsRoom(c.rw, x.room.Expr, hSum)
		}
		// (a slot that stays free has no hit: its fold check means nothing)
		c.foldOK[i] = selPend.Named(fmt.Sprintf("slot%d_keeps_folds", i)).And(fitsPend).
			Or(selArr.Named(fmt.Sprintf("slot%d_loads_folds", i)).And(fitsArr)).
			Or(selGrown.Named(fmt.Sprintf("slot%d_grows_folds", i)).And(fitsGrown))
	}
	return c
}

// slotsNext is the slots' next state: the issuing slot is freed and
// leaves its successors' pred; the arrival folds into its slot (the
// merged event, one more member, the room less its sum) or fills the one
// it was given, which becomes the youngest of every other.
func (u *mergeUnit) slotsNext(p *hdlgen.Process, s Spec, c headChecks, selVec, specVec, validVec hdlgen.Expr) {
	g, a := s.Merge, u.arr
	for i, x := range u.slots {
		p.Set(x.pred, x.pred.And(selVec.Not()))
		p.Set(x.older, x.older.And(specVec.Not()))
		p.Set(x.succ, x.succ.Or(u.anyAlloc.And(a.hit.Bit(i))).Named(fmt.Sprintf("slot%d_succ_set", i)))
		p.If(u.sel[i], func() { p.Set(x.valid, hdlgen.False()) })
		if g.Fold != nil {
			p.If(u.fold[i], func() {
				for _, f := range s.EventFields {
					p.Set(x.fields[f.Name], c.merged[i].F(f.Name))
				}
				p.Set(x.count, x.count.Add(hdlgen.Const(g.CountW, 1)))
				if g.Sum != "" {
					p.Set(x.room, x.room.Sub(a.fields[g.Sum].ZExt(c.rw)))
				}
			})
		}
		p.If(u.alloc[i], func() { p.Set(x.valid, hdlgen.True()) })
		p.If(u.spec[i], func() {
			loadEv(p, s, x.evRegs, a.evRegs)
			p.Set(x.count, hdlgen.Const(g.CountW, 1))
			p.Set(x.pred, a.hit.And(selVec.Not()).Named(fmt.Sprintf("slot%d_pred_fill", i)))
			p.Set(x.older, validVec.And(selVec.Not()).Named(fmt.Sprintf("slot%d_older_fill", i)))
			p.Set(x.succ, hdlgen.False())
			if g.Sum != "" {
				p.Set(x.room, c.roomArr)
			}
		})
	}
}

// orderNext is the next cycle's candidate, whether one exists, and the
// slots in use.
func (u *mergeUnit) orderNext(p *hdlgen.Process) {
	p.Set(u.cand, catBits(u.candNext))
	// some slot is eligible: then the oldest of them is the candidate
	// (slot_age_order), so this is the or of candNext without its
	// comparisons of age
	p.Set(u.candAny, orTree(u.eligible))
	// used: + the head entering the arrival register, - the slot
	// issuing, - the arrival folding (a fill moves its count from the
	// arrival to a slot)
	uw := u.used.Width()
	one, zero := hdlgen.Const(uw, 1), hdlgen.Const(uw, 0)
	// both outcomes of the fold counted beside it, the fold selecting
	// last (it is the latest of the three)
	base := u.used.Add(hdlgen.Mux(u.leave, one, zero)).Sub(hdlgen.Mux(u.issue, one, zero)).Named("slots_used_base")
	p.Set(u.used, hdlgen.Mux(u.anyFold.Named("arr_folds_count"), base.Sub(one), base))
}

// issued is what stage 1 takes from the merge stage: the issue register.
func (u *mergeUnit) issued(s Spec) issueSource {
	src := issueSource{conn: u.iss.conn.Expr, kind: u.iss.kind.Expr, fields: map[string]hdlgen.Expr{},
		issue: u.issue, leave: u.leave, enter1: u.iss.valid.Expr}
	if s.Table {
		src.op = u.iss.op.Expr
	}
	for _, f := range s.EventFields {
		src.fields[f.Name] = u.iss.fields[f.Name].Expr
	}
	return src
}

// nextConnIs is whether the issue register's connection after the edge,
// as a table address of aw bits, is addr: the issuing slot's, or 0 when
// none issues (the issue register loads 0 then).
func (u *mergeUnit) nextConnIs(addr hdlgen.Expr, aw int) hdlgen.Expr {
	terms := []hdlgen.Expr{u.issue.Not().And(addr.IsZero())}
	for i, x := range u.slots {
		terms = append(terms, u.sel[i].And(x.conn.Trunc(aw).Eq(addr)))
	}
	return orTree(terms)
}

// issueReg loads the issue register with the selected slot's event: an
// and-or of the slots by their one-hot select.
func (u *mergeUnit) issueReg(m *hdlgen.Module, s Spec) {
	pick := func(get func(slot) hdlgen.Expr) hdlgen.Expr {
		terms := make([]hdlgen.Expr, len(u.slots))
		for i, x := range u.slots {
			v := get(x)
			terms[i] = hdlgen.Mux(u.sel[i], v, hdlgen.Const(v.Width(), 0))
		}
		return orTree(terms)
	}
	m.Comb("merge_issue", func(p *hdlgen.Process) {
		p.Set(u.iss.valid, u.issue)
		p.Set(u.iss.conn, pick(func(x slot) hdlgen.Expr { return x.conn.Expr }))
		p.Set(u.iss.kind, pick(func(x slot) hdlgen.Expr { return x.kind.Expr }))
		if s.Table {
			p.Set(u.iss.op, pick(func(x slot) hdlgen.Expr { return x.op.Expr }))
		}
		for _, f := range s.EventFields {
			name := f.Name
			p.Set(u.iss.fields[name], pick(func(x slot) hdlgen.Expr { return x.fields[name].Expr }))
		}
		p.Set(u.issN, pick(func(x slot) hdlgen.Expr { return x.count.Expr }))
	})
}

// loadEv copies an event's registers into another's (not valid).
func loadEv(p *hdlgen.Process, s Spec, dst, src evRegs) {
	p.Set(dst.conn, src.conn)
	p.Set(dst.kind, src.kind)
	if s.Table {
		p.Set(dst.op, src.op)
	}
	for _, f := range s.EventFields {
		p.Set(dst.fields[f.Name], src.fields[f.Name])
	}
}

// hazards keeps, per slot and hazard group, whether the slot's connection
// will be in the group's stages after the edge. The stages are the issue
// register (1) and the shell's stages 1 .. depth-3 (2 .. depth-2), vValid
// and vConn in that order: stage j >= 2 will hold stage j-1's event, the
// issue register the selected slot's. A slot keeps its connection: the
// selected slot's is its own only when it is the slot's predecessor
// (slot_order), so that term is the pred bits, and the later stages are
// compared with the slot's connection. A slot filled at the edge takes the
// arrival's connection, whose place in every stage was compared when it
// entered the arrival register (arr_at), so that the fill, which selects
// last, chooses between registers and a few gates.
func (u *mergeUnit) hazards(m *hdlgen.Module, groups [][2]int, head evRegs, vValid, vConn []hdlgen.Expr) {
	a := u.arr
	// the window's stages 1..h-1 now are its stages 2..h after the edge
	h := groups[len(groups)-1][1]
	var arrAt *hdlgen.Reg
	var atNext hdlgen.Expr
	if h >= 2 {
		arrAt = m.Reg("arr_at", h-1, "bit j-1: the arrival's connection is in window stage j (1: the issue register, j: stage j-1)", hdlgen.NoReset())
		bits := make([]hdlgen.Expr, h-1)
		iss := make([]hdlgen.Expr, len(u.slots))
		for k := range u.slots {
			iss[k] = u.cand.Bit(k).And(u.headEq[k])
		}
		bits[0] = orTree(iss).And(u.full.Not())
		for j := 2; j <= h-1; j++ {
			bits[j-1] = vValid[j-2].And(vConn[j-2].Eq(head.conn))
		}
		atNext = catBits(bits)
	}
	next := make([][]hdlgen.Expr, len(u.slots))
	for i, x := range u.slots {
		next[i] = make([]hdlgen.Expr, len(groups))
		for g, gr := range groups {
			lo, hi := gr[0], gr[1]
			keep, fill := hdlgen.False(), hdlgen.False()
			if lo == 1 && hi >= 1 {
				// the candidate issues unless no credit is left: the
				// credit, which every slot's hazards read, gates last,
				// after the or of registers over the slots
				var keeps, fills []hdlgen.Expr
				for k := range u.slots {
					if k != i {
						keeps = append(keeps, u.cand.Bit(k).And(x.pred.Bit(k)))
						fills = append(fills, u.cand.Bit(k).And(a.hit.Bit(k)))
					}
				}
				keep = orTree(keeps).And(u.full.Not())
				fill = orTree(fills).And(u.full.Not())
			}
			for j := max(lo, 2); j <= hi; j++ {
				keep = keep.Or(vValid[j-2].And(vConn[j-2].Eq(x.conn)))
				fill = fill.Or(arrAt.Bit(j - 2))
			}
			next[i][g] = hdlgen.Mux(u.spec[i], fill, keep).Named(fmt.Sprintf("slot%d_hazard%d_ahead", i, g))
		}
	}
	u.arrAt = arrAt
	m.Comb("merge_hazards", func(p *hdlgen.Process) {
		for i, x := range u.slots {
			for g, r := range x.haz {
				p.Set(r, next[i][g])
			}
		}
		if arrAt != nil {
			p.Set(arrAt, atNext)
		}
	})
}

// properties asserts that every slot's hazard registers are the rule
// itself, group by group; that the slots of one connection are ordered
// (pred names older slots of the connection, and of two slots of one
// connection exactly one precedes the other); that succ says whether a
// younger slot of the connection exists; and that the arrival always has
// a place (a fold or a free slot).
func (u *mergeUnit) properties(m *hdlgen.Module, s Spec, groups [][2]int, vValid, vConn []hdlgen.Expr) {
	exact := hdlgen.True()
	for _, x := range u.slots {
		for g, gr := range groups {
			hz := hdlgen.False()
			for k := gr[0]; k <= gr[1]; k++ {
				hz = hz.Or(vValid[k-1].And(vConn[k-1].Eq(x.conn)))
			}
			exact = exact.And(x.valid.Implies(x.haz[g].Eq(hz)))
		}
	}
	m.Assert("slot_hazard_exact", exact)
	order, succ := hdlgen.True(), hdlgen.True()
	for i, x := range u.slots {
		younger := hdlgen.False()
		for j, y := range u.slots {
			if i == j {
				continue
			}
			same := x.valid.And(y.valid).And(x.conn.Eq(y.conn))
			// pred only names valid older slots of the connection
			order = order.And(x.valid.And(x.pred.Bit(j)).Implies(same.And(x.older.Bit(j))))
			// of two slots of one connection, one precedes the other
			order = order.And(same.Implies(x.pred.Bit(j).Xor(y.pred.Bit(i))))
			younger = younger.Or(same.And(y.pred.Bit(i)))
		}
		succ = succ.And(x.valid.Implies(x.succ.Eq(younger)))
	}
	m.Assert("slot_order", order)
	// the fill order is a strict order of the valid slots, so that at most
	// one candidate wins; the candidate is one slot at most; used counts
	// the valid slots and the arrival
	age := hdlgen.True()
	for i, x := range u.slots {
		for j, y := range u.slots {
			if i < j {
				age = age.And(x.valid.And(y.valid).Implies(x.older.Bit(j).Xor(y.older.Bit(i))))
			}
		}
	}
	m.Assert("slot_age_order", age)
	oneHot := hdlgen.True()
	for i := range u.slots {
		for j := i + 1; j < len(u.slots); j++ {
			oneHot = oneHot.And(u.cand.Bit(i).And(u.cand.Bit(j)).Not())
		}
	}
	m.Assert("slot_cand_onehot", oneHot.And(u.candAny.Eq(u.cand.Any())))
	uw := u.used.Width()
	count := hdlgen.Mux(u.arr.valid, hdlgen.Const(uw, 1), hdlgen.Const(uw, 0))
	for _, x := range u.slots {
		count = count.Add(hdlgen.Mux(x.valid, hdlgen.Const(uw, 1), hdlgen.Const(uw, 0)))
	}
	m.Assert("slots_used_exact", u.used.Eq(count))
	// the candidate chosen a cycle ahead can still issue: its slot holds
	// an event, with no predecessor, whose connection is not in flight
	cand := hdlgen.True()
	for i, x := range u.slots {
		free := x.valid.And(x.pred.IsZero())
		for _, h := range x.haz {
			free = free.And(h.Not())
		}
		cand = cand.And(u.cand.Bit(i).Implies(free))
	}
	m.Assert("slot_cand_ready", cand)
	m.Assert("slot_succ_exact", succ)
	free := hdlgen.False()
	for _, x := range u.slots {
		free = free.Or(x.valid.Not())
	}
	fold := hdlgen.False()
	for _, f := range u.fold {
		fold = fold.Or(f)
	}
	m.Assert("arrival_placed", u.arr.valid.Implies(fold.Or(free)))
	// what the arrival register compared a cycle ahead is what it holds
	a := u.arr
	arrExact := hdlgen.True()
	for i, x := range u.slots {
		arrExact = arrExact.And(a.hit.Bit(i).Eq(x.valid.And(x.conn.Eq(a.conn))))
	}
	if u.arrAt != nil {
		for j := 1; j <= u.arrAt.Width(); j++ {
			arrExact = arrExact.And(u.arrAt.Bit(j - 1).Eq(vValid[j-1].And(vConn[j-1].Eq(a.conn))))
		}
	}
	g := s.Merge
	if g.Fold != nil {
		for i, x := range u.slots {
			// only a slot of its connection matters
			arrExact = arrExact.And(a.hit.Bit(i).Implies(a.foldOK.Bit(i).Eq(u.mayFold(s, x))))
		}
	}
	if g.Fold != nil {
		// an empty arrival register folds nowhere
		arrExact = hdlgen.Mux(a.valid, arrExact, a.foldOK.IsZero())
	} else {
		arrExact = a.valid.Implies(arrExact)
	}
	m.Assert("arrival_exact", arrExact)
	if g.Fold != nil {
		u.foldProperty(m, s)
	}
	u.conservation(m, s)
	if g.Sum != "" {
		rw := g.roomW(s)
		room := hdlgen.True()
		for _, x := range u.slots {
			sum := x.room.Add(x.fields[g.Sum].ZExt(rw))
			room = room.And(x.valid.Implies(sum.EqC(g.SumCap)))
		}
		m.Assert("slot_room_exact", room)
		w := a.sumHead.Width()
		m.Assert("arr_sum_exact", a.sumHead.Eq(u.head.fields[g.Sum].ZExt(w).Add(a.fields[g.Sum].ZExt(w))))
	}
}

// foldProperty asserts that the arrival folds only where the block's
// rule allows it (fold_by_rule), stated from the slots and the arrival
// themselves rather than the fold checks compared a cycle ahead: into the
// youngest slot of its connection, whose event the rule folds it into
// (for nscc: two ACKs of one ECN echo, so never across a barrier or an
// ECN change), within the sum's room and the members' width.
func (u *mergeUnit) foldProperty(m *hdlgen.Module, s Spec) {
	a := u.arr
	byRule := hdlgen.True()
	for i, x := range u.slots {
		ok := x.valid.And(x.conn.Eq(a.conn)).And(x.succ.Not()).And(u.mayFold(s, x))
		byRule = byRule.And(u.fold[i].Implies(ok))
	}
	m.Assert("fold_by_rule", byRule)
}

// mayFold is, for the properties, whether the arrival may fold into slot
// x's event as they stand: the arrival in range, the slot below the
// members' cap and no table operation, the block's rule, and the sum
// within the slot's room (what arr_fold_ok decided a cycle ahead).
func (u *mergeUnit) mayFold(s Spec, x slot) hdlgen.Expr {
	g, a := s.Merge, u.arr
	arrEv := MergeEvent{Kind: a.kind.Expr, Fields: a.record(s), Members: hdlgen.Const(g.CountW, 1)}
	ok := u.inRange(a.evRegs).And(x.count.Ne(hdlgen.Ones(g.CountW))).
		And(g.Fold(MergeEvent{Kind: x.kind.Expr, Fields: x.record(s), Members: x.count.Expr}, arrEv))
	if g.Sum != "" {
		ok = ok.And(fitsRoom(g.roomW(s), x.room.Expr, a.fields[g.Sum].Expr))
	}
	if s.Table {
		ok = ok.And(x.op.IsZero())
	}
	return ok
}

// conservation asserts that the merge stage neither drops nor invents
// events (members_kept) nor, with Merge.Sum, bytes (sum_kept): a counter
// of the proof's own (built only with Formal.Invariants) adds what enters
// the arrival register and subtracts what leaves the issue register for
// stage 1, and equals, modulo its width, what the arrival register, the
// slots and the issue register hold.
func (u *mergeUnit) conservation(m *hdlgen.Module, s Spec) {
	g, a := s.Merge, u.arr
	kept := func(name string, w int, in, arr, iss hdlgen.Expr, slot func(slot) hdlgen.Expr) {
		held := m.Reg("formal_"+name+"_held", w, "proof only: "+name+" entered the merge stage and not yet left it (modulo 2^width)", hdlgen.ResetTo(0))
		zero := hdlgen.Const(w, 0)
		m.Comb("formal_"+name, func(p *hdlgen.Process) {
			p.Set(held, held.Add(hdlgen.Mux(u.leave, in.ZExt(w), zero)).Sub(hdlgen.Mux(u.iss.valid, iss.ZExt(w), zero)))
		})
		sum := hdlgen.Mux(a.valid, arr.ZExt(w), zero).Add(hdlgen.Mux(u.iss.valid, iss.ZExt(w), zero))
		for _, x := range u.slots {
			sum = sum.Add(hdlgen.Mux(x.valid, slot(x).ZExt(w), zero))
		}
		m.Assert(name+"_kept", held.Eq(sum))
	}
	cw := g.CountW + hdlgen.BitsFor(uint64(len(u.slots))+2)
	one := hdlgen.Const(1, 1)
	kept("members", cw, one, one, u.issN.Expr, func(x slot) hdlgen.Expr { return x.count.Expr })
	if g.Sum != "" {
		sw := fieldWidth(s.EventFields, g.Sum) + hdlgen.BitsFor(uint64(len(u.slots))+2)
		kept("sum", sw, u.head.fields[g.Sum].Expr, a.fields[g.Sum].Expr, u.iss.fields[g.Sum].Expr, func(x slot) hdlgen.Expr { return x.fields[g.Sum].Expr })
	}
}

// mergeInRange is whether the head may fold: its kind and connection are
// in range (NUM_CONN with the table port) and it is no table operation.
func mergeInRange(s Spec, head evRegs, numConn func() *hdlgen.Signal) hdlgen.Expr {
	return inRange(s, head, numConn).Named("head_in_range")
}

// inRange is whether the event of ev may fold (mergeInRange), unnamed.
func inRange(s Spec, head evRegs, numConn func() *hdlgen.Signal) hdlgen.Expr {
	in := hdlgen.True()
	if uint64(s.NumKinds) < uint64(1)<<uint(s.KindW) {
		in = head.kind.Lt(hdlgen.Const(s.KindW, uint64(s.NumKinds)))
	}
	switch pw := hdlgen.BitsFor(uint64(s.NumConn)); {
	case s.Table && pw <= s.ConnW:
		in = in.And(head.conn.Lt(numConn().ZExt(s.ConnW)))
	case s.Table:
		in = in.And(head.conn.ZExt(pw).Lt(numConn()))
	case s.ConnW < 63 && uint64(s.NumConn) < uint64(1)<<uint(s.ConnW):
		in = in.And(head.conn.Lt(hdlgen.Const(s.ConnW, uint64(s.NumConn))))
	}
	if s.Table {
		in = in.And(head.op.IsZero())
	}
	return in
}

// fitsRoom is 1 when x is at most room, a two's complement value of rw
// bits (negative: nothing fits): x + ~room < 0, since ~room is
// -(room + 1). One carry chain: a comparison of two registers would map
// to a tree of LUTs. Where x would be a sum of two values, it is added a
// cycle ahead (the arrival register's sumHead), so that no chain feeds
// another.
func fitsRoom(rw int, room, x hdlgen.Expr) hdlgen.Expr {
	n := rw + 2
	t := room.Not().SExt(n).AsUnsigned().Add(x.ZExt(n))
	return t.Keep(n-1, n-1)
}

// catBits is the bits b[0] (lsb) .. b[n-1] as one value.
func catBits(b []hdlgen.Expr) hdlgen.Expr {
	parts := make([]hdlgen.Value, len(b))
	for i := range b {
		parts[len(b)-1-i] = b[i]
	}
	return hdlgen.Cat(parts...)
}

func regExprs(sl []slot, get func(slot) hdlgen.Expr) []hdlgen.Expr {
	out := make([]hdlgen.Expr, len(sl))
	for i, x := range sl {
		out[i] = get(x)
	}
	return out
}
