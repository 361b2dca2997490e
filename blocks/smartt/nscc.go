package smartt

import (
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/hdlgen"
)

// nsccCore is the journal version's core cases and adjustment period
// (contract Section 6, steps 3 and 5-6). It returns the window before the
// clamp (one bit wider), the case, and the nscc-only fields; the key "_md"
// carries the MD-fired signal that resets FastIncrease.
func nsccCore(m *hdlgen.Module, p Params, d Derived, k knobs, st connpipe.Step, nowq, c, le hdlgen.Expr, divC hdlgen.RecipDivider,
	piInc, fiInc, qaFired, ackRun, early hdlgen.Expr) (hdlgen.Expr, hdlgen.Expr, map[string]hdlgen.Value) {
	cw, rw := p.cw(), p.RttW
	cur, ev := st.Cur, st.Event
	rtt, ecn, size := ev.F("rtt"), ev.F("ecn"), ev.F("size")

	// RTT EWMA with an arithmetic shift of the signed difference
	// (avg_rtt may be narrower than the RTT: it saturates, Section 6)
	//
	// avg + ((rtt - avg) >>> s) = (avg 2^s + rtt - avg) >> s, exactly
	// (avg is whole), and the three terms avg 2^s, rtt and ~avg (+1) are
	// summed by one carry chain after a carry-save row, instead of the
	// difference's chain and then the sum's: this was the slowest path of
	// nscc and of its control wrapper on the ECP5 (docs/benchmarks.md)
	curAvg := cur.F("avg_rtt").ZExt(rw)
	w := rw + p.AvgShift
	x := hdlgen.Cat(curAvg, cst(p.AvgShift, 0)).Named("avg_scaled")
	y := rtt.ZExt(w)
	z := curAvg.ZExt(w).Not().Named("avg_inv")
	row := x.Xor(y).Xor(z).Named("avg_row_sum")
	carry := x.And(y).Or(x.And(z)).Or(y.And(z)).Named("avg_row_carry")
	// the carries one place up, and the +1 of the two's complement in bit 0
	sum := row.Add(hdlgen.Cat(carry.Keep(w-2, 0), cst(1, 1))).Named("avg_sum")
	avgStored := st.Cut("avg_new", satTo(sum.Keep(w-1, p.AvgShift), p.avgW()).Named("avg_new"))
	avg := avgStored.ZExt(rw)

	// Multiplicative Decrease at most once per base RTT (S1 Eq. 1, S1:L577):
	// an MD or an adjustment stamps the end of the base RTT that follows it
	holdEnd := deadline(p, ev.F("now"), cst(bitsFor(d.BrttC), d.BrttC), "hold_end_next")
	trtt := k.trtt
	mdDue := passed(p, d, nowq, cur.F("md_end"), "md")
	mdOK := ecn.And(le.Not()).And(mdDue).And(avg.Gt(trtt)).Named("md_ok")
	divAvg := newDivider(st.Cut, "recip_avg", avg, p.K)
	excess := st.Cut("avg_excess", avg.Sub(trtt).Named("avg_excess")) // valid when avg > trtt
	frac := divAvg.Div(hdlgen.MulPieces(st.Cut, "md_cx", c, excess), "md_frac")
	red := hdlgen.MulPieces(st.Cut, "md_red_prod", frac, cst(17, d.MdGain))
	cut := st.Cut("md_cut", minSat(red.Keep(red.Width()-1, 16), cw, c.Shr(1)).Named("md_cut"))
	c2 := st.Cut("c_core", hdlgen.Mux(mdOK, c.Sub(cut), c).Named("c_core"))

	// increases: Fair Increase, or Proportional Increase then Fair Increase
	incs := st.Cut("incs", hdlgen.Mux(le, satAdd(piInc, fiInc), fiInc))
	increasing := ecn.Not()
	iw := p.incW()
	inc1 := hdlgen.Mux(increasing, satAdd(cur.F("inc"), satTo(incs, iw)), cur.F("inc")).Named("inc_acc")

	var coreC, incNext, recvNext, lastAdj hdlgen.Expr
	step := ackRun.And(early.Not()).Named("core_step")
	if p.AdjustPeriod {
		recv1 := counterAdd(p, "recv_no_wrap", cur.F("recv"), units(p, size, "recv_units")).Named("recv_sum")
		adjDue := passed(p, d, nowq, cur.F("adj_end"), "adj")
		// recv * unit > 8 MTU iff recv > floor(8 MTU / unit)
		// both tests from registers: fulfill selects in the inc, recv and
		// adj_end words and the window, a wide fanout
		recvOver := st.Cut("recv_over", recv1.Gt(cst(p.recvW(), 8*uint64(p.Net.MTU)>>uint(p.ByteShift))).Named("recv_over"))
		fulfill := recvOver.Or(st.Cut("adj_due", adjDue.Named("adj_due"))).Named("fulfill")
		inc1 = st.Cut("inc_acc", inc1) // only the adjustment period accumulates
		coreC = hdlgen.Mux(fulfill, c2.ZExt(cw+1).Add(inc1.ZExt(cw+1)), c2.ZExt(cw+1))
		incNext = hdlgen.Mux(qaFired, cst(iw, 0), hdlgen.Mux(step, hdlgen.Mux(fulfill, cst(iw, 0), inc1), cur.F("inc")))
		recvNext = hdlgen.Mux(qaFired, cst(p.recvW(), 0), hdlgen.Mux(step, hdlgen.Mux(fulfill, cst(p.recvW(), 0), recv1), cur.F("recv")))
		lastAdj = hdlgen.Mux(step.And(fulfill), holdEnd, cur.F("adj_end"))
	} else {
		coreC = c2.ZExt(cw + 1).Add(hdlgen.Mux(increasing, incs, cst(cw, 0)).ZExt(cw + 1))
		incNext = hdlgen.Mux(qaFired, cst(iw, 0), cur.F("inc"))
		recvNext = hdlgen.Mux(qaFired, cst(p.recvW(), 0), cur.F("recv"))
		lastAdj = cur.F("adj_end")
	}
	coreCase := hdlgen.Mux(ecn, hdlgen.Mux(mdOK, cst(3, CaseMD), cst(3, CaseNone)),
		hdlgen.Mux(le, cst(3, CaseMI), cst(3, CaseFI))).Named("core_case")
	mdFired := step.And(mdOK).Named("md_fired")
	return st.Cut("core_c", coreC.Named("core_c")), coreCase, map[string]hdlgen.Value{
		"avg_rtt": hdlgen.Mux(ackRun, avgStored, cur.F("avg_rtt")),
		"md_end":  hdlgen.Mux(mdFired, holdEnd, cur.F("md_end")),
		"inc":     incNext,
		"recv":    recvNext,
		"adj_end": lastAdj,
		"_md":     mdFired,
	}
}
