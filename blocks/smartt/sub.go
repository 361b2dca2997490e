package smartt

import (
	"github.com/nicgen/nicgen/hdlgen"
)

func (p Params) cw() int { return p.Derive().CwndW + p.F }

// qaIn and qaOut are QuickAdapt's inputs and outputs (the ports of
// <variant>_qa).
type qaIn struct{ c, acked, trigger, end, nowq, endNext, unacked, extra hdlgen.Expr }
type qaOut struct{ fired, c, acked, ignore, trigger, end hdlgen.Expr }

// QuickAdapt builds <variant>_qa (S0 Alg. 2, S1 Alg. 2; contract Section 4):
// once per target RTT, after a trim (or, for nscc without trimming, a high
// RTT with few bytes acked), the window becomes the bytes acked in the last
// window, scaled by qa_scaling, and the in-flight bytes are ignored. The
// block's top computes the same logic in line (quickAdapt), where the
// pipeline may cut it; this module is what the sub-block equivalence
// proves against the golden function.
func QuickAdapt(p Params) *hdlgen.Module {
	d := p.Derive()
	cw, bw := p.cw(), p.cntW()
	m := hdlgen.NewModule(p.Variant.String()+"_qa", "QuickAdapt (S0 Algorithm 2, S1 Algorithm 2): combinational next-state function.\nBehaviour: docs/blocks/smartt.md, Section 4.")
	m.Note("qa_scaling = %d/65536, a window ends at most TrttH = %d units of %d ns ahead, MTU = %d", d.QaScale, d.TrttH, 1<<uint(p.StampShift), p.Net.MTU)
	m.Group("Current state")
	c := m.Input("c", cw, "window, 2^-F bytes")
	acked := m.Input("acked", bw, byteUnits(p)+" acked in this QuickAdapt window")
	trigger := m.Input("trigger", 1, "a trim (or timeout) asked for QuickAdapt")
	end := m.Input("win_end", p.StampW, "end of the window, "+stampUnits(p))
	m.Group("Event")
	nowq := m.Input("nowq", p.StampW, "now, "+stampUnits(p))
	endNext := m.Input("win_end_next", p.StampW, "end of a window that starts now: now plus the target RTT, to the nearest unit, "+stampUnits(p))
	unacked := m.Input("unacked", p.ByteW, "bytes in flight")
	var extra hdlgen.Expr = hdlgen.False()
	if p.Variant == NSCC {
		extra = m.Input("extra_trigger", 1, "delay-based trigger (nscc without trimming)").Expr
	}
	m.Group("Next state")
	fired := m.Output("fired", 1, "QuickAdapt set the window")
	cOut := m.Output("c_out", cw, "window after")
	ackedOut := m.Output("acked_out", bw, "acked after")
	ignoreOut := m.Output("ignore_out", bw, byteUnits(p)+" to ignore from now on when QuickAdapt fired (to_ignore - ignored)")
	triggerOut := m.Output("trigger_out", 1, "trigger after")
	endOut := m.Output("win_end_out", p.StampW, "window end after")
	o := quickAdapt(p, constKnobs(p, d), qaIn{c.Expr, acked.Expr, trigger.Expr, end.Expr, nowq.Expr, endNext.Expr, unacked.Expr, extra}, "", hdlgen.NoCut)
	m.Assign(fired, o.fired)
	m.Assign(cOut, o.c)
	m.Assign(triggerOut, o.trigger)
	m.Assign(ignoreOut, o.ignore)
	m.Assign(endOut, o.end)
	m.Assign(ackedOut, o.acked)
	return m
}

// quickAdapt is QuickAdapt's logic; prefix names its wires, and cut ends
// a stage after the window's product.
func quickAdapt(p Params, k knobs, in qaIn, prefix string, cut hdlgen.CutFunc) qaOut {
	cw, bw := p.cw(), p.cntW()
	// the window has ended unless its end lies 1..TrttH units ahead; with
	// ZeroStampExpired a 0 stamp is "never": long past
	// the decision ends a stage: the window's product and its clamp come
	// later anyway, and the word's QuickAdapt fields it selects are written
	// back at the end
	roll0 := windowOpen(p, k, in.nowq, in.end, prefix).Not().Named(prefix + "roll")
	asked := in.trigger.Or(in.extra).And(in.end.Any()).Named(prefix + "asked")
	fire := cut(prefix+"fire", roll0.And(asked).Named(prefix+"fire"))
	roll := cut(prefix+"roll", roll0)
	// acked counts units of 2^ByteShift bytes
	ackedBytes := in.acked
	if p.ByteShift > 0 {
		ackedBytes = hdlgen.Cat(in.acked, cst(p.ByteShift, 0)).Named(prefix + "acked_bytes")
	}
	// max(acked, MTU) from a register of its own: the multiplier's stage
	// holds the multiplier only
	base := cut(prefix+"base", hdlgen.MaxU(ackedBytes, cst(ackedBytes.Width(), uint64(p.Net.MTU))).Named(prefix+"base"))
	if p.Variant == Conf || p.Table {
		// smartt, and nscc with the run-time QA_SCALING (whose multiplier
		// takes both operands into its input registers): and again in the
		// fabric before the multiplier's input registers, a long route
		// away
		base = cut(prefix+"base_r", base)
	}
	scaled := hdlgen.MulPieces(cut, prefix+"scaled", base, k.qaScale)
	shift := 16 - p.F
	var qc hdlgen.Expr
	if shift+cw <= scaled.Width() {
		qc = scaled.Keep(shift+cw-1, shift)
	} else {
		qc = scaled.Keep(scaled.Width()-1, shift).ZExt(cw)
	}
	return qaOut{
		fired:   fire,
		c:       hdlgen.Mux(fire, qc, in.c),
		trigger: in.trigger.And(fire.Not()),
		// S0 Alg. 2 sets bytes_to_ignore = unacked and bytes_ignored = 0:
		// the word keeps their difference (docs/blocks/smartt.md Section 3)
		ignore: satTo(units(p, in.unacked, prefix+"unacked_units"), bw),
		end:    hdlgen.Mux(roll, in.endNext, in.end),
		acked:  hdlgen.Mux(roll, cst(bw, 0), in.acked),
	}
}

// fiIn and fiOut are FastIncrease's inputs and outputs (the ports of
// <variant>_fastinc).
type fiIn struct{ c, count, increase, size, rtt, ecn hdlgen.Expr }
type fiOut struct{ fired, c, count, increase hdlgen.Expr }

// FastIncrease builds <variant>_fastinc (S0 Alg. 3, S1 Alg. 3): after a
// window's worth of contiguous uncongested bytes, add k = 2 MTU per ACK.
// Like QuickAdapt, the top computes it in line (fastIncrease).
func FastIncrease(p Params) *hdlgen.Module {
	d := p.Derive()
	cw, bw := p.cw(), p.cntW()
	m := hdlgen.NewModule(p.Variant.String()+"_fastinc", "FastIncrease (S0 Algorithm 3, S1 Algorithm 3): combinational next-state function.\nBehaviour: docs/blocks/smartt.md, Section 4.")
	m.Note("rtt ~ brtt means rtt <= %d ns (A-9); step %d x 2^-%d bytes", d.FiRttMax, d.KFast, p.F)
	m.Group("Current state")
	c := m.Input("c", cw, "window, 2^-F bytes")
	count := m.Input("count", bw, "contiguous uncongested "+byteUnits(p))
	increase := m.Input("increase", 1, "FastIncrease active")
	m.Group("Event")
	size := m.Input("size", p.SizeW, "bytes acked")
	rtt := m.Input("rtt", p.RttW, "RTT, ns")
	ecn := m.Input("ecn", 1, "ECN echo")
	m.Group("Next state")
	fired := m.Output("fired", 1, "FastIncrease added to the window")
	cOut := m.Output("c_out", cw+1, "window after (one bit wider: the caller clamps)")
	countOut := m.Output("count_out", bw, "count after")
	incOut := m.Output("increase_out", 1, "increase after")
	o := fastIncrease(p, d, fiIn{c.Expr, count.Expr, increase.Expr, size.Expr, rtt.Expr, ecn.Expr}, "", hdlgen.NoCut)
	m.Assign(fired, o.fired)
	m.Assign(cOut, o.c)
	m.Assign(countOut, o.count)
	m.Assign(incOut, o.increase)
	return m
}

// fastIncrease is FastIncrease's logic; prefix names its wires, and cut
// ends a stage after the count and after the decision.
func fastIncrease(p Params, d Derived, in fiIn, prefix string, cut hdlgen.CutFunc) fiOut {
	cw, bw := p.cw(), p.cntW()
	good := in.rtt.Le(cst(p.RttW, d.FiRttMax)).And(in.ecn.Not()).Named(prefix + "uncongested")
	cnt := cut(prefix+"count_sum", counterAdd(p, prefix+"count_no_wrap", in.count, units(p, in.size, prefix+"size_units")).Named(prefix+"count_sum"))
	// count * unit > cwnd iff count > floor(cwnd / unit) = c >> (F + ByteShift)
	cwndUnits := in.c.Keep(cw-1, p.F+p.ByteShift)
	if p.ByteShift == 0 {
		cwndUnits = in.c.Slice(cw-1, p.F)
	}
	over := widen(cnt, max(bw, cwndUnits.Width())).Gt(widen(cwndUnits, max(bw, cwndUnits.Width())))
	fire := cut(prefix+"fire", good.And(over.Or(in.increase)).Named(prefix+"fire"))
	wide := in.c.ZExt(cw + 1)
	return fiOut{
		fired:    fire,
		c:        hdlgen.Mux(fire, wide.Add(cst(cw+1, d.KFast)), wide),
		count:    hdlgen.Mux(good, cnt, cst(bw, 0)),
		increase: fire,
	}
}

// WaitToDecrease builds smartt_wtd (S0:L316-318): an EWMA of ECN marks;
// the window may only decrease once a quarter of recent ACKs were marked.
func WaitToDecrease(p Params) *hdlgen.Module {
	d := p.Derive()
	m := hdlgen.NewModule("smartt_wtd", "Wait-to-Decrease (S0 Section 3.6.1): ECN EWMA gate, combinational.\nBehaviour: docs/blocks/smartt.md, Section 4.")
	m.Note("alpha = 2^-%d, threshold %d/4096", p.WtdShift, d.WtdThresh)
	avg := m.Input("avg", WtdW, "avg_wtd, Q0.12")
	ecn := m.Input("ecn", 1, "ECN echo of the ACK")
	avgOut := m.Output("avg_out", WtdW, "avg_wtd after the ACK")
	can := m.Output("can_decrease", 1, "avg_wtd after the ACK >= 0.25")
	step := uint64(1<<WtdW) >> uint(p.WtdShift)
	decayed := avg.ZExt(WtdW + 1).Sub(avg.Shr(p.WtdShift).ZExt(WtdW + 1)).Named("decayed")
	sum := decayed.Add(hdlgen.Mux(ecn, cst(WtdW+1, step), cst(WtdW+1, 0))).Named("sum")
	next := hdlgen.Mux(sum.Bit(WtdW), hdlgen.Ones(WtdW), sum.Trunc(WtdW)).Named("next")
	m.Assign(avgOut, next)
	// next >= threshold, decided on the decayed value beside the ECN add:
	// the sum saturates only above every threshold of WtdW bits, so
	// next >= T iff decayed + (ecn ? step : 0) >= T
	geAfterMark := hdlgen.True()
	if d.WtdThresh > step {
		geAfterMark = decayed.Ge(cst(WtdW+1, d.WtdThresh-step))
	}
	m.Assign(can, hdlgen.Mux(ecn, geAfterMark, decayed.Ge(cst(WtdW+1, d.WtdThresh))).Named("can"))
	return m
}
