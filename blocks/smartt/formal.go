package smartt

import (
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/hdlgen"
)

// Invariants of the SMaRTT blocks (docs/formal.md), built when
// Params.Formal.Invariants is set. Each has a broken variant, selected by
// Params.Formal.Break, whose proof must fail. The window properties hold
// only with ClampOnEarlyReturn: without it an early return leaves
// the window unclamped by design, and they are not declared.

// windowRange is 1 when a window c (2^-F bytes) lies in [MTU, MaxCwnd].
func windowRange(p Params, d Derived, c hdlgen.Expr) hdlgen.Expr {
	lo := cst(c.Width(), uint64(p.Net.MTU)<<uint(p.F))
	hi := cst(c.Width(), d.MaxCwnd<<uint(p.F))
	return c.Ge(lo).And(c.Le(hi))
}

// wordInvariants hold of every state word. A word is either all zero
// (the connection was never opened: the table starts zeroed) or written
// by an event, which leaves a window in [MTU, MaxCwnd] (open: InitCwnd,
// validated within it). An ack that QuickAdapt's bookkeeping ignores
// leaves the window as it found it, so without this invariant over the
// word read the window after such an ack could be anything. Broken: an
// early return (QuickAdapt or FastIncrease) without the clamp.
func wordInvariants(p Params, d Derived, word *hdlgen.Layout) []connpipe.Invariant {
	if !p.ClampOnEarlyReturn {
		return nil
	}
	return []connpipe.Invariant{
		{Name: "window_valid", Holds: func(w hdlgen.Record) hdlgen.Value {
			var all []hdlgen.Value
			for _, f := range word.Fields() {
				all = append(all, w.F(f.Name))
			}
			never := hdlgen.Cat(all...).IsZero() // the word is all zero
			return never.Or(windowRange(p, d, w.F("c")))
		}},
	}
}

// resultInvariants hold of every result beat: the window reported is in
// [MTU, MaxCwnd] bytes, unless the event was an error. Broken: the result
// reports the window before the event (0 for a connection never opened).
func resultInvariants(p Params, d Derived) []connpipe.Invariant {
	if !p.ClampOnEarlyReturn {
		return nil
	}
	return []connpipe.Invariant{
		{Name: "result_cwnd_in_range", Holds: func(r hdlgen.Record) hdlgen.Value {
			cwnd := r.F("cwnd")
			lo := cst(d.CwndW, uint64(p.Net.MTU))
			hi := cst(d.CwndW, d.MaxCwnd)
			return r.F("error").Or(cwnd.Ge(lo).And(cwnd.Le(hi)))
		}},
	}
}

// counterAdd is the saturating sum of a byte counter and a size; its
// exact sum is named <name>_sum, where the broken variant of property
// name (a wrapping counter, formal_jobs.go) takes its low bits.
func counterAdd(p Params, name string, a, b hdlgen.Expr) hdlgen.Expr {
	w := a.Width()
	sw := max(w, b.Width()) + 1
	sum := a.ZExt(sw).Add(b.ZExt(sw)).Named(name + "_sum")
	return hdlgen.Mux(sum.Slice(sw-1, w).Any(), hdlgen.Ones(w), sum.Trunc(w))
}

// datapathProperties relate the word an event writes to the word it read,
// on every edge where an event executes (st.Fire).
func datapathProperties(m *hdlgen.Module, p Params, d Derived, word *hdlgen.Layout, st connpipe.Step,
	newWord, nowq, winEndNext, qaFired, sizeU hdlgen.Expr) {
	cur := st.Cur
	next := func(name string) hdlgen.Expr { return word.Get(newWord, name) }
	isOpen := st.KindIs(KindOpen)
	event := st.Fire.And(isOpen.Not())

	// after every event but open the window is clamped: [MTU, MaxCwnd].
	// Broken: an early return without the clamp.
	if p.ClampOnEarlyReturn {
		m.Assert("window_in_range", event.Implies(windowRange(p, d, next("c"))))
	}
	// open sets InitCwnd. Broken: open sets MaxCwnd.
	m.Assert("window_open_init", st.Fire.And(isOpen).Implies(next("c").Eq(cst(p.cw(), d.InitCwnd<<uint(p.F)))))

	// byte counters saturate: an event never leaves one below the value it
	// read, except when a rule resets it to 0 (a new QuickAdapt window, a
	// QuickAdapt, a congested ack, an adjustment). A wrap would leave it
	// below and above 0. Broken: a wrapping sum.
	counters := []string{"acked", "count"}
	if p.Variant == NSCC && p.AdjustPeriod {
		counters = append(counters, "recv")
	}
	for _, name := range counters {
		after := next(name)
		m.Assert(name+"_no_wrap", event.Implies(after.IsZero().Or(after.Ge(cur.F(name)))))
	}

	// the bytes still to ignore only count down, by the units of the
	// event and not below 0, until a QuickAdapt that fires sets them to
	// the bytes in flight. Broken: a difference that wraps below 0.
	left, leftNext := cur.F("ignore_left"), next("ignore_left")
	lw := max(left.Width(), sizeU.Width()) + 1
	down := leftNext.IsZero().Or(leftNext.ZExt(lw).Add(sizeU.ZExt(lw)).Eq(left.ZExt(lw)))
	m.Assert("ignore_counts_down", event.And(qaFired.Not()).Implies(down))

	// QuickAdapt fires at most once per window: only when a window was
	// open (end != 0) and has ended (now at or after end), and it opens
	// the next one, ending a target RTT after now (to the nearest unit),
	// so a second QuickAdapt waits for that end. Broken: QuickAdapt fires
	// inside the window.
	end := cur.F("win_end")
	ended := end.Any().And(windowOpen(p, constKnobs(p, d), nowq, end, "").Not())
	moved := next("win_end").Eq(winEndNext)
	m.Assert("qa_window_ended", st.Fire.And(qaFired).Implies(ended.And(moved)))
}
