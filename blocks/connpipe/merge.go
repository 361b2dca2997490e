package connpipe

import (
	"fmt"

	"github.com/nicgen/nicgen/hdlgen"
)

// Merge puts waiting slots between the input buffer and the issue
// (Spec.Merge; docs/pipeline.md, "Merge stage"): the head of the input
// buffer never waits for its connection. It moves into a slot, where it
// folds into the pending event of its connection when the block's rule
// allows it, and events issue from the slots, oldest first among those
// whose connection is free. Results carry the number of events merged
// (m_result_members).
type Merge struct {
	// Slots is the number of waiting slots (2..MaxSlots): the input waits
	// only when every slot holds a pending event and the head folds into
	// none.
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
	// Combine is the merged event's fields, every event field.
	Combine func(a, b MergeEvent) hdlgen.Record
}

// MergeEvent is a pending or an arriving event as a merge rule sees it.
type MergeEvent struct {
	Kind    hdlgen.Expr
	Fields  hdlgen.Record
	Members hdlgen.Expr // events merged into it so far (CountW bits)
}

// MaxSlots is the most waiting slots a merge stage has.
const MaxSlots = 32

// MembersField is the result field a merging shell adds: the events an
// issued event stands for.
const MembersField = "members"

func (g *Merge) check(s Spec) error {
	switch {
	case g.Slots < 2 || g.Slots > MaxSlots:
		return fmt.Errorf("connpipe: %d merge slots: want 2..%d", g.Slots, MaxSlots)
	case g.CountW < 1 || g.CountW > 16:
		return fmt.Errorf("connpipe: members width %d: want 1..16", g.CountW)
	case g.Fold != nil && g.Combine == nil:
		return fmt.Errorf("connpipe: a merge rule with Fold needs Combine")
	case s.Refuse != nil:
		return fmt.Errorf("connpipe: a merging shell takes no Refuse rule (a refused event would need its own slot rule)")
	case hasField(s.ResultFields, MembersField):
		return fmt.Errorf("connpipe: result field %q is the merging shell's own", MembersField)
	}
	return nil
}

// evRegs is an event held in registers: the input buffer's head and skid
// entries, a waiting slot.
type evRegs struct {
	valid      *hdlgen.Reg
	conn, kind *hdlgen.Reg
	op         *hdlgen.Reg // with Table
	fields     map[string]*hdlgen.Reg
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
	haz   []*hdlgen.Reg // its connection is in the stages of hazard group g
}

// mergeUnit is the built merge stage: what the shell around it reads.
type mergeUnit struct {
	slots []slot
	sel   []hdlgen.Expr // slot i issues in the cycle (one-hot)
	issue hdlgen.Expr   // a slot issues
	leave hdlgen.Expr   // the input buffer's head moves into a slot
	// the issued event (zero when none issues)
	conn, kind, op, count hdlgen.Expr
	fields                map[string]hdlgen.Expr
	// decisions of the cycle, for the slots' next state
	hit, fold, alloc []hdlgen.Expr
	merged           []hdlgen.Record // slot i's fields with the head folded in
}

// newSlots declares the slots' registers.
func newSlots(m *hdlgen.Module, s Spec, groups int) []slot {
	g := s.Merge
	out := make([]slot, g.Slots)
	for i := range out {
		pre := fmt.Sprintf("slot%d", i)
		doc := fmt.Sprintf("waiting slot %d", i)
		sl := slot{evRegs: evRegs{fields: map[string]*hdlgen.Reg{}}}
		sl.valid = m.Reg(pre+"_valid", 1, doc+" holds a pending event", hdlgen.ResetTo(0))
		sl.conn = m.Reg(pre+"_conn", s.ConnW, doc+" connection id", hdlgen.NoReset())
		sl.kind = m.Reg(pre+"_kind", s.KindW, doc+" event kind", hdlgen.NoReset())
		if s.Table {
			sl.op = m.Reg(pre+"_op", OpW, doc+" table operation (0: an event)", hdlgen.NoReset())
		}
		for _, f := range s.EventFields {
			sl.fields[f.Name] = m.Reg(pre+"_"+f.Name, f.Width, doc+" "+f.Name, hdlgen.NoReset())
		}
		sl.count = m.Reg(pre+"_members", g.CountW, doc+" events merged into it", hdlgen.NoReset())
		sl.pred = m.Reg(pre+"_pred", g.Slots, doc+": bit j, slot j holds an earlier event of the same connection", hdlgen.ResetTo(0))
		sl.older = m.Reg(pre+"_older", g.Slots, doc+": bit j, slot j was filled before it", hdlgen.NoReset())
		sl.haz = make([]*hdlgen.Reg, groups)
		for k := range sl.haz {
			sl.haz[k] = m.Reg(fmt.Sprintf("%s_hazard%d", pre, k), 1, fmt.Sprintf("%s: its connection is in hazard group %d's stages", doc, k), hdlgen.ResetTo(0))
		}
		out[i] = sl
	}
	return out
}

// mergeDecide computes the cycle's decisions from registers: which slot
// issues (the oldest whose connection is free and whose predecessors
// issued, while a credit is left), and where the head goes (folded into
// its connection's youngest slot when the rule allows and that slot
// cannot issue now, else into the lowest free slot).
func mergeDecide(s Spec, sl []slot, head evRegs, full, headInRange hdlgen.Expr) *mergeUnit {
	g := s.Merge
	n := len(sl)
	u := &mergeUnit{slots: sl, sel: make([]hdlgen.Expr, n), hit: make([]hdlgen.Expr, n),
		fold: make([]hdlgen.Expr, n), alloc: make([]hdlgen.Expr, n), merged: make([]hdlgen.Record, n)}
	ready := make([]hdlgen.Expr, n)
	for i, x := range sl {
		r := x.valid.And(x.pred.IsZero()).And(full.Not())
		for _, h := range x.haz {
			r = r.And(h.Not())
		}
		ready[i] = r.Named(fmt.Sprintf("slot%d_ready", i))
	}
	issue := hdlgen.False()
	for i, x := range sl {
		beaten := hdlgen.False()
		for j := range sl {
			if j != i {
				beaten = beaten.Or(ready[j].And(x.older.Bit(j)))
			}
		}
		u.sel[i] = ready[i].And(beaten.Not()).Named(fmt.Sprintf("slot%d_issue", i))
		issue = issue.Or(u.sel[i])
	}
	u.issue = issue.Named("issue")
	for i, x := range sl {
		u.hit[i] = x.valid.And(x.conn.Eq(head.conn)).Named(fmt.Sprintf("slot%d_hit", i))
	}
	headEv := MergeEvent{Kind: head.kind.Expr, Fields: head.record(s), Members: hdlgen.Const(g.CountW, 1)}
	foldable := head.valid.And(headInRange)
	if s.Table {
		foldable = foldable.And(head.op.IsZero())
	}
	anyFold := hdlgen.False()
	for i, x := range sl {
		u.fold[i] = hdlgen.False()
		if g.Fold == nil {
			continue
		}
		younger := hdlgen.False() // a later slot of the same connection
		for j, y := range sl {
			if j != i {
				younger = younger.Or(u.hit[j].And(y.pred.Bit(i)))
			}
		}
		pend := MergeEvent{Kind: x.kind.Expr, Fields: x.record(s), Members: x.count.Expr}
		ok := foldable.And(u.hit[i]).And(younger.Not()).And(ready[i].Not()).
			And(x.count.Ne(hdlgen.Ones(g.CountW))).And(g.Fold(pend, headEv))
		if s.Table {
			ok = ok.And(x.op.IsZero())
		}
		u.fold[i] = ok.Named(fmt.Sprintf("slot%d_fold", i))
		u.merged[i] = g.Combine(pend, headEv)
		anyFold = anyFold.Or(u.fold[i])
	}
	anyFold = anyFold.Named("head_folds")
	taken := hdlgen.False() // a lower slot is in use
	anyFree := hdlgen.False()
	for i, x := range sl {
		u.alloc[i] = head.valid.And(anyFold.Not()).And(x.valid.Not()).And(taken.Not()).Named(fmt.Sprintf("slot%d_alloc", i))
		taken = taken.Or(x.valid.Not())
		anyFree = anyFree.Or(x.valid.Not())
	}
	u.leave = head.valid.And(anyFold.Or(anyFree)).Named("head_leaves")
	return u
}

// mergeIssued is the event the selected slot issues: an and-or of the
// slots by their one-hot select.
func (u *mergeUnit) mergeIssued(s Spec) {
	pick := func(get func(slot) hdlgen.Expr) hdlgen.Expr {
		terms := make([]hdlgen.Expr, len(u.slots))
		for i, x := range u.slots {
			v := get(x)
			terms[i] = hdlgen.Mux(u.sel[i], v, hdlgen.Const(v.Width(), 0))
		}
		return orTree(terms)
	}
	u.conn = pick(func(x slot) hdlgen.Expr { return x.conn.Expr }).Named("issue_conn")
	u.kind = pick(func(x slot) hdlgen.Expr { return x.kind.Expr }).Named("issue_kind")
	if s.Table {
		u.op = pick(func(x slot) hdlgen.Expr { return x.op.Expr }).Named("issue_op")
	}
	u.count = pick(func(x slot) hdlgen.Expr { return x.count.Expr }).Named("issue_members")
	u.fields = map[string]hdlgen.Expr{}
	for _, f := range s.EventFields {
		name := f.Name
		u.fields[name] = pick(func(x slot) hdlgen.Expr { return x.fields[name].Expr }).Named("issue_" + name)
	}
}

// mergeUpdate sets the slots' next state: an issued slot is freed (and
// leaves its successors' pred), the head fills the slot it was given or
// folds into one, and a filled slot becomes the youngest of every other.
func (u *mergeUnit) mergeUpdate(m *hdlgen.Module, s Spec, head evRegs) {
	selVec := catBits(u.sel)
	allocVec := catBits(u.alloc)
	hitVec := catBits(u.hit)
	validVec := catBits(regExprs(u.slots, func(x slot) hdlgen.Expr { return x.valid.Expr }))
	m.Comb("merge_slots", func(p *hdlgen.Process) {
		for i, x := range u.slots {
			p.Set(x.pred, x.pred.And(selVec.Not()))
			p.Set(x.older, x.older.And(allocVec.Not()))
			p.If(u.sel[i], func() { p.Set(x.valid, hdlgen.False()) })
			if s.Merge.Fold != nil {
				p.If(u.fold[i], func() {
					for _, f := range s.EventFields {
						p.Set(x.fields[f.Name], u.merged[i].F(f.Name))
					}
					p.Set(x.count, x.count.Add(hdlgen.Const(s.Merge.CountW, 1)))
				})
			}
			p.If(u.alloc[i], func() {
				p.Set(x.valid, hdlgen.True())
				p.Set(x.conn, head.conn)
				p.Set(x.kind, head.kind)
				if s.Table {
					p.Set(x.op, head.op)
				}
				for _, f := range s.EventFields {
					p.Set(x.fields[f.Name], head.fields[f.Name])
				}
				p.Set(x.count, hdlgen.Const(s.Merge.CountW, 1))
				p.Set(x.pred, hitVec.And(selVec.Not()))
				p.Set(x.older, validVec.And(selVec.Not()))
			})
		}
	})
}

// mergeHazards keeps, per slot and hazard group, whether the slot's
// connection will be in the group's stages after the edge: stage j >= 2
// will hold stage j-1's event, stage 1 the issued slot's. A slot filled
// at the edge compares the head's connection; an issued slot's
// connection is compared through the slots' equalities, not through the
// issued event's mux.
func (u *mergeUnit) mergeHazards(m *hdlgen.Module, groups [][2]int, head evRegs, valid, conn []*hdlgen.Reg) {
	n := len(u.slots)
	next := make([][]hdlgen.Expr, n)
	for i, x := range u.slots {
		next[i] = make([]hdlgen.Expr, len(groups))
		for g, gr := range groups {
			a, b := gr[0], gr[1]
			keep, fill := hdlgen.False(), hdlgen.False()
			if a == 1 && b >= 1 {
				for k, y := range u.slots {
					if k == i {
						continue
					}
					keep = keep.Or(u.sel[k].And(y.conn.Eq(x.conn)))
					fill = fill.Or(u.sel[k].And(u.hit[k]))
				}
			}
			for j := max(a, 2); j <= b; j++ {
				keep = keep.Or(valid[j-2].And(conn[j-2].Eq(x.conn)))
				fill = fill.Or(valid[j-2].And(conn[j-2].Eq(head.conn)))
			}
			next[i][g] = hdlgen.Mux(u.alloc[i], fill, keep).Named(fmt.Sprintf("slot%d_hazard%d_ahead", i, g))
		}
	}
	m.Comb("merge_hazards", func(p *hdlgen.Process) {
		for i, x := range u.slots {
			for g, h := range x.haz {
				p.Set(h, next[i][g])
			}
		}
	})
}

// mergeExact asserts that every slot's hazard registers are the rule
// itself, group by group.
func (u *mergeUnit) mergeExact(m *hdlgen.Module, groups [][2]int, valid, conn []*hdlgen.Reg) {
	exact := hdlgen.True()
	for _, x := range u.slots {
		for g, gr := range groups {
			hz := hdlgen.False()
			for k := gr[0]; k <= gr[1]; k++ {
				hz = hz.Or(valid[k-1].And(conn[k-1].Eq(x.conn)))
			}
			exact = exact.And(x.valid.Implies(x.haz[g].Eq(hz)))
		}
	}
	m.Assert("slot_hazard_exact", exact)
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
