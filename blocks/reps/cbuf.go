package reps

import (
	"fmt"

	"github.com/nicgen/nicgen/hdlgen"
)

// EntriesLayout is the buffer part of the per-connection word: N entries of
// {cachedEV, isValid} (S4 Table 1), entry 0 at bit 0.
func EntriesLayout(p Params) *hdlgen.Layout {
	l := hdlgen.NewLayout("reps_entries")
	for i := 0; i < p.N; i++ {
		l.Field(fmt.Sprintf("buf%d_ev", i), p.EVW, fmt.Sprintf("cachedEV of entry %d", i))
		l.Field(fmt.Sprintf("buf%d_valid", i), 1, fmt.Sprintf("isValid of entry %d: not used since it was added", i))
	}
	return l
}

// CircularBuffer is the module reps_cbuf: the REPS circular buffer of S4
// (S4:L51, Table 1) as a combinational next-state function, so a block can
// keep its state in a table and still apply one operation per clock.
//
// Per event it first clears (when clear: every valid bit, head and
// num_valid go to 0, the EVs stay), then adds (when add: the EV is written
// at head with its valid bit, head advances, num_valid counts it unless it
// overwrote a valid entry) or takes (when take: the oldest valid entry
// (head - num_valid) mod N is returned and invalidated; with none valid and
// replay set, entry head is returned whatever its validity and head
// advances; hit says whether an EV was returned).
func CircularBuffer(p Params) *hdlgen.Module {
	m := hdlgen.NewModule("reps_cbuf", "REPS circular buffer of recycled entropy values (S4 Section 3.1, Table 1).\nCombinational: current state in, next state and the taken EV out.")
	m.Note("N = %d entries, EVW = %d, HeadW = %d, CountW = %d", p.N, p.EVW, p.HeadW, p.CountW)
	lay := EntriesLayout(p)
	m.Group("Current state")
	curEntries := m.Input("cur_entries", lay.Width(), "entries {ev, valid} x N, entry 0 at bit 0")
	curHead := m.Input("cur_head", p.HeadW, "next entry to write; the frozen replay pointer")
	curCount := m.Input("cur_num_valid", p.CountW, "numberOfValidEVs")
	m.Group("Operation")
	var clear hdlgen.Expr
	if p.ClearOnFreezeExit {
		clear = m.Input("clear", 1, "invalidate every entry first (freeze exit, htsim resetBuffer)").Expr
	}
	add := m.Input("add", 1, "cache add_ev (an ACK without ECN)")
	addEV := m.Input("add_ev", p.EVW, "EV to cache")
	take := m.Input("take", 1, "take the oldest valid EV for a send")
	replay := m.Input("replay", 1, "frozen: with no valid EV, replay entry head")
	m.Group("Next state and result")
	nxtEntries := m.Output("nxt_entries", lay.Width(), "entries after the operation")
	nxtHead := m.Output("nxt_head", p.HeadW, "head after the operation")
	nxtCount := m.Output("nxt_num_valid", p.CountW, "num_valid after the operation")
	takeEV := m.Output("take_ev", p.EVW, "the EV taken (0 when hit is 0)")
	hit := m.Output("hit", 1, "take returned an EV")

	cur := lay.Unpack(curEntries, "cur")
	head, count := curHead.Expr, curCount.Expr
	valids := make([]hdlgen.Expr, p.N)
	for i := range valids {
		valids[i] = cur.F(fmt.Sprintf("buf%d_valid", i))
	}
	if p.ClearOnFreezeExit {
		head = hdlgen.Mux(clear, hdlgen.Const(p.HeadW, 0), head).Named("head0")
		count = hdlgen.Mux(clear, hdlgen.Const(p.CountW, 0), count).Named("count0")
		for i := range valids {
			valids[i] = valids[i].And(clear.Not()).Named(fmt.Sprintf("valid0_%d", i))
		}
	}
	idxW := hdlgen.BitsFor(uint64(p.N - 1))
	headIdx := head.Trunc(idxW).Named("head_idx")
	nextHead := hdlgen.Mux(head.EqC(uint64(p.N-1)), hdlgen.Const(p.HeadW, 0), head.Add(hdlgen.Const(p.HeadW, 1))).Named("head_inc")

	// oldest valid entry: (head - num_valid) mod N without a divider. Since
	// head < N and num_valid <= N <= 2^idxW, the difference fits idxW+1 bits
	// with its sign on top; a negative one wraps by adding N.
	dw := idxW + 1
	diff := head.Trunc(idxW).ZExt(dw).Sub(count.ZExt(max(p.CountW, dw)).Trunc(dw)).Named("oldest_diff")
	low := diff.Trunc(idxW)
	oldest := hdlgen.Mux(diff.Bit(idxW), low.Add(hdlgen.Const(idxW, uint64(p.N)&((1<<uint(idxW))-1))), low).Named("oldest_idx")
	anyValid := count.Any().Named("any_valid")

	evs := make([]hdlgen.Value, p.N)
	vs := make([]hdlgen.Value, p.N)
	for i := 0; i < p.N; i++ {
		evs[i], vs[i] = cur.F(fmt.Sprintf("buf%d_ev", i)), valids[i]
	}
	headWasValid := hdlgen.Index(headIdx, vs...).Named("head_was_valid")
	takeValid := take.And(anyValid).Named("take_valid")
	takeReplay := take.And(anyValid.Not()).And(replay).Named("take_replay")
	var taken hdlgen.Value = evs[0]
	if p.N > 1 { // with one entry there is nothing to select
		taken = hdlgen.Mux(takeValid, oldestEV(p, curHead.Expr, curCount.Expr, evs), hdlgen.Index(headIdx, evs...))
	}
	m.Assign(hit, takeValid.Or(takeReplay))
	m.Assign(takeEV, hdlgen.Mux(takeValid.Or(takeReplay), taken, hdlgen.Const(p.EVW, 0)))

	fields := map[string]hdlgen.Value{}
	for i := 0; i < p.N; i++ {
		atHead := headIdx.EqC(uint64(i))
		addHere := add.And(atHead).Named(fmt.Sprintf("add_here_%d", i))
		takeHere := takeValid.And(oldest.EqC(uint64(i))).Named(fmt.Sprintf("take_here_%d", i))
		fields[fmt.Sprintf("buf%d_ev", i)] = hdlgen.Mux(addHere, addEV, evs[i])
		fields[fmt.Sprintf("buf%d_valid", i)] = addHere.Or(valids[i].And(takeHere.Not()))
	}
	m.Assign(nxtEntries, lay.Pack(fields))

	one := hdlgen.Const(p.CountW, 1)
	countAfterAdd := hdlgen.Mux(headWasValid, count, count.Add(one))
	m.Assign(nxtCount, hdlgen.Mux(add, countAfterAdd, hdlgen.Mux(takeValid, count.Sub(one), count)))
	m.Assign(nxtHead, hdlgen.Mux(add.Or(takeReplay), nextHead, head))
	return m
}

// oldestEV is the EV of the oldest valid entry, (head - num_valid) mod N,
// selected without subtracting first: entry i is the oldest when (head -
// i) mod N, a function of head alone, equals num_valid mod N (N, a full
// buffer, reads as 0: the oldest is then entry head). The comparisons run
// side by side, and the EVs are ANDed with them and ORed: no carry chain
// lies between num_valid and the EV taken (the slowest path of uet_cc on
// the ECP5 ran through the subtraction). Only a take with a valid entry
// reads it, so head and num_valid are the word's, before a clear.
func oldestEV(p Params, head, count hdlgen.Expr, evs []hdlgen.Value) hdlgen.Expr {
	idxW := hdlgen.BitsFor(uint64(p.N - 1))
	var key hdlgen.Expr
	switch {
	case count.Width() < idxW:
		key = count.ZExt(idxW)
	case p.N&(p.N-1) == 0: // N = 2^idxW reads as 0 in idxW bits
		key = count.Trunc(idxW)
	default:
		key = hdlgen.Mux(count.EqC(uint64(p.N)), hdlgen.Const(idxW, 0), count.Trunc(idxW))
	}
	key = key.Named("oldest_key")
	h := head.Trunc(idxW)
	n := uint64(p.N)
	terms := make([]hdlgen.Expr, p.N)
	for i := range terms {
		// (head - i) mod N for head < N
		var back hdlgen.Expr
		if i == 0 {
			back = h
		} else {
			back = hdlgen.Mux(h.Ge(hdlgen.Const(idxW, uint64(i))), h.Sub(hdlgen.Const(idxW, uint64(i))),
				h.Add(hdlgen.Const(idxW, (n-uint64(i))&(1<<uint(idxW)-1))))
		}
		sel := back.Eq(key).Named(fmt.Sprintf("oldest_is_%d", i))
		terms[i] = hdlgen.Mux(sel, evs[i], hdlgen.Const(p.EVW, 0))
	}
	for len(terms) > 1 {
		var next []hdlgen.Expr
		for i := 0; i+1 < len(terms); i += 2 {
			next = append(next, terms[i].Or(terms[i+1]))
		}
		if len(terms)%2 == 1 {
			next = append(next, terms[len(terms)-1])
		}
		terms = next
	}
	return terms[0].Named("oldest_ev")
}
