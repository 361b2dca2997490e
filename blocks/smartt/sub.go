package smartt

import (
	"github.com/nicgen/nicgen/hdlgen"
)

func (p Params) cw() int { return p.Derive().CwndW + p.F }

// QuickAdapt builds <variant>_qa (S0 Alg. 2, S1 Alg. 2; contract Section 4):
// once per target RTT, after a trim (or, for nscc without trimming, a high
// RTT with few bytes acked), the window becomes the bytes acked in the last
// window, scaled by qa_scaling, and the in-flight bytes are ignored.
func QuickAdapt(p Params) *hdlgen.Module {
	d := p.Derive()
	cw, bw := p.cw(), p.cntW()
	m := hdlgen.NewModule(p.Variant.String()+"_qa", "QuickAdapt (S0 Algorithm 2, S1 Algorithm 2): combinational next-state function.\nBehaviour: docs/blocks/smartt.md, Section 4.")
	m.Note("qa_scaling = %d/65536, TrttQ = %d x 16 ns, MTU = %d", d.QaScale, d.TrttQ, p.Net.MTU)
	m.Group("Current state")
	c := m.Input("c", cw, "window, 2^-F bytes")
	acked := m.Input("acked", bw, byteUnits(p)+" acked in this QuickAdapt window")
	trigger := m.Input("trigger", 1, "a trim (or timeout) asked for QuickAdapt")
	end := m.Input("win_end", p.StampW, "end of the window, "+stampUnits(p))
	m.Group("Event")
	nowq := m.Input("nowq", p.StampW, "now, "+stampUnits(p))
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

	// the window has ended unless its end lies 1..TrttQ units ahead; with
	// ZeroStampExpired a 0 stamp is "never": long past
	roll := windowOpen(p, d, nowq.Expr, end.Expr).Not().Named("roll")
	asked := trigger.Or(extra).And(end.Any()).Named("asked")
	fire := roll.And(asked).Named("fire")
	// acked counts units of 2^ByteShift bytes
	ackedBytes := acked.Expr
	if p.ByteShift > 0 {
		ackedBytes = hdlgen.Cat(acked, cst(p.ByteShift, 0)).Named("acked_bytes")
	}
	base := maxU(ackedBytes, cst(ackedBytes.Width(), uint64(p.Net.MTU)))
	scaled := base.MulX(cst(17, d.QaScale)).Named("scaled")
	shift := 16 - p.F
	var qc hdlgen.Expr
	if shift+cw <= scaled.Width() {
		qc = scaled.Keep(shift+cw-1, shift)
	} else {
		qc = scaled.Keep(scaled.Width()-1, shift).ZExt(cw)
	}
	m.Assign(fired, fire)
	m.Assign(cOut, hdlgen.Mux(fire, qc, c))
	m.Assign(triggerOut, trigger.And(fire.Not()))
	// S0 Alg. 2 sets bytes_to_ignore = unacked and bytes_ignored = 0: the
	// word keeps their difference (docs/blocks/smartt.md Section 3)
	m.Assign(ignoreOut, satTo(units(p, unacked.Expr, "unacked_units"), bw))
	m.Assign(endOut, hdlgen.Mux(roll, nowq.Add(cst(p.StampW, d.TrttQ)), end))
	m.Assign(ackedOut, hdlgen.Mux(roll, cst(bw, 0), acked))
	return m
}

// FastIncrease builds <variant>_fastinc (S0 Alg. 3, S1 Alg. 3): after a
// window's worth of contiguous uncongested bytes, add k = 2 MTU per ACK.
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

	good := rtt.Le(cst(p.RttW, d.FiRttMax)).And(ecn.Not()).Named("uncongested")
	cnt := counterAdd(p, "count_no_wrap", count.Expr, units(p, size.Expr, "size_units")).Named("count_sum")
	// count * unit > cwnd iff count > floor(cwnd / unit) = c >> (F + ByteShift)
	cwndUnits := c.Keep(cw-1, p.F+p.ByteShift)
	if p.ByteShift == 0 {
		cwndUnits = c.Slice(cw-1, p.F)
	}
	over := widen(cnt, max(bw, cwndUnits.Width())).Gt(widen(cwndUnits, max(bw, cwndUnits.Width())))
	fire := good.And(over.Or(increase)).Named("fire")
	wide := c.ZExt(cw + 1)
	m.Assign(fired, fire)
	m.Assign(cOut, hdlgen.Mux(fire, wide.Add(cst(cw+1, d.KFast)), wide))
	m.Assign(countOut, hdlgen.Mux(good, cnt, cst(bw, 0)))
	m.Assign(incOut, fire)
	return m
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
	decayed := avg.ZExt(WtdW + 1).Sub(avg.Shr(p.WtdShift).ZExt(WtdW + 1))
	sum := decayed.Add(hdlgen.Mux(ecn, cst(WtdW+1, step), cst(WtdW+1, 0))).Named("sum")
	next := hdlgen.Mux(sum.Bit(WtdW), hdlgen.Ones(WtdW), sum.Trunc(WtdW)).Named("next")
	m.Assign(avgOut, next)
	m.Assign(can, next.Ge(cst(WtdW, d.WtdThresh)))
	return m
}
