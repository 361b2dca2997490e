// Package snyder holds the blocks of the Snyder thesis's chapters 3 and 4
// (seed S3): swift, Swift's window update with flow-based scaling and, as
// options, Variable Additive Increase and Sampling Frequency. Behaviour and
// arithmetic: docs/blocks/swift.md; the golden model is golden/snyder
// (SwiftFxModel).
package snyder

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/connpipe"
	gsnyder "github.com/nicgen/nicgen/golden/snyder"
	"github.com/nicgen/nicgen/hdlgen"
)

// SwiftParams configure swift: the golden model's parameters, the
// pipeline's depth and the proofs' properties.
type SwiftParams struct {
	gsnyder.SwiftFxParams
	connpipe.Core

	// MergeSlots is the merging shell's waiting slots (docs/pipeline.md,
	// "Merge stage"), where an ACK folds into its connection's pending ACK
	// (SwiftMergeRule); 0: the plain shell.
	MergeSlots int
}

// SwiftMergeRule is swift's merging shell (nil for the plain shell): its
// slots and the ACK merge rule of Falcon's rate-update engine (golden
// model gsnyder.SwiftAckMerger, written from the same contract,
// docs/blocks/swift.md "Merged ACKs"): an ACK folds into its connection's
// pending ACK while the acked counts' sum fits the acked port; the merged
// ACK's delay, hops and time are the last member's; an open is a barrier.
func SwiftMergeRule(p SwiftParams) *connpipe.Merge {
	if p.MergeSlots == 0 {
		return nil
	}
	return &connpipe.Merge{Slots: p.MergeSlots, CountW: gsnyder.MergeMembersW, Sum: "acked", SumCap: uint64(1)<<uint(p.AckW) - 1,
		Fold: func(a, b connpipe.MergeEvent) hdlgen.Expr {
			return a.Kind.EqC(uint64(gsnyder.SwiftAck)).And(b.Kind.EqC(uint64(gsnyder.SwiftAck)))
		},
		Combine: func(a, b connpipe.MergeEvent) hdlgen.Record {
			r := hdlgen.NewRecord("the merged ack").Set("delay", b.Fields.F("delay")).Set("hops", b.Fields.F("hops"))
			if p.UsesNow() {
				r.Set("now", b.Fields.F("now"))
			}
			return r
		},
	}
}

// SwiftGoldenPipeline is the golden cycle model of p's shell around m.
func SwiftGoldenPipeline(p SwiftParams, m *gsnyder.SwiftFxModel) *gsnyder.SwiftFxPipeline {
	if p.MergeSlots == 0 {
		return gsnyder.NewSwiftFxPipeline(m, p.Depth)
	}
	return gsnyder.NewSwiftFxMergingPipeline(m, p.Depth, p.MergeSlots)
}

// swift's event kinds (golden/snyder SwiftKind).
const (
	SwiftKindW    = 2
	SwiftNumKinds = int(gsnyder.SwiftNumKinds)
)

// SwiftKindNames names the kinds.
var SwiftKindNames = []string{"open", "ack"}

// DefaultSwiftParams is Table 3.1's Swift on 4096 connections, without
// VAI or SF (golden/snyder DefaultSwiftFx).
func DefaultSwiftParams() SwiftParams {
	g := gsnyder.DefaultSwiftFx()
	g.KindW = SwiftKindW
	p := SwiftParams{SwiftFxParams: g}
	p.Depth = connpipe.MustDepth(NeededSwiftDepth(p))
	return p
}

// Golden is the golden model's view of the parameters.
func (p SwiftParams) Golden() gsnyder.SwiftFxParams {
	g := p.SwiftFxParams
	g.KindW = SwiftKindW
	return g
}

// SwiftWordLayout is the per-connection word of swift: the window, then
// SF's reference and count or the time of the last decrease, then VAI's
// state when enabled.
func SwiftWordLayout(p SwiftParams) *hdlgen.Layout {
	cw := p.CwndW()
	l := hdlgen.NewLayout("swift_word").Field("cwnd", cw, fmt.Sprintf("congestion window, 2^-%d packets", p.FracW))
	if p.SF > 0 {
		l = l.Field("ref", cw, "SF: reference window that congested ACKs decrease from").
			Field("sf_acks", hdlgen.BitsFor(p.SF), "SF: congested ACKs since the reference moved (below SF)")
	} else {
		l = l.Field("last_dec", p.TimeW, "time of the last decrease, ns (wrapping)")
	}
	if v := p.VAI; v != nil {
		l = l.Field("ai", p.AIW(), fmt.Sprintf("VAI: the additive increase of this RTT, 2^-%d packets", p.FracW)).
			Field("bank", hdlgen.BitsFor(v.BankCap), "VAI: AI_Bank, tokens (at most Bank_Cap)").
			Field("damp", v.DampW, fmt.Sprintf("VAI: dampener, 2^-%d (saturating)", v.DampFrac)).
			Field("mc", p.DelayW, "VAI: the RTT's largest delay, ns").
			Field("cong", 1, "VAI: a congested ACK in this RTT").
			Field("rtt_start", p.TimeW, "VAI: start of the RTT, ns (wrapping)").
			Field("rtt_cwnd", cw, "VAI: the window when the RTT started")
	}
	return l
}

// SwiftEventFields are the event's fields after conn and kind: the time
// only where the block reads it (UsesNow), the ACK's delay, hops and
// packets.
func SwiftEventFields(p SwiftParams) []connpipe.Field {
	var f []connpipe.Field
	if p.UsesNow() {
		f = append(f, connpipe.Field{Name: "now", Width: p.TimeW, Doc: "time of the event, ns (wrapping)"})
	}
	return append(f,
		connpipe.Field{Name: "delay", Width: p.DelayW, Doc: "ack: the measured delay, ns"},
		connpipe.Field{Name: "hops", Width: p.HopW, Doc: "ack: hops of the path"},
		connpipe.Field{Name: "acked", Width: p.AckW, Doc: "ack: packets acknowledged"})
}

// NeededSwiftDepth is the number of datapath stages swift's cuts reach.
func NeededSwiftDepth(p SwiftParams) (int, error) {
	return connpipe.NeededDepth(p, connpipe.MaxDepth, Swift)
}

// cwndInRange is the invariant result_cwnd_in_range: a result's window is
// within [lo, hi] (an error's window is 0).
func cwndInRange(w int, lo, hi uint64) connpipe.Invariant {
	return connpipe.Invariant{Name: "result_cwnd_in_range", Holds: func(r hdlgen.Record) hdlgen.Value {
		c := r.F("cwnd")
		return r.F("error").Or(c.Ge(hdlgen.Const(w, lo)).And(c.Le(hdlgen.Const(w, hi))))
	}}
}

// umin and umax of two unsigned values of one width.
func umin(a, b hdlgen.Expr) hdlgen.Expr { return hdlgen.Mux(a.Lt(b), a, b) }
func umax(a, b hdlgen.Expr) hdlgen.Expr { return hdlgen.Mux(a.Lt(b), b, a) }

// fbs is flow-based scaling of the window x as golden/snyder FBSFixed
// computes it: the leading one's pair e2 = floor(floor(log2 x) / 2)
// selects the table's index (x's TableBits bits below bit 2 e2 + 2) and
// the shift, alpha x 1/sqrt(m) >> (OutW + AlphaFrac - FracW/2 + e2) is
// truncated to ns, beta taken off with a floor at 0 and the result
// clamped to fs_range; x = 0 reads fs_range.
func fbs(st connpipe.Step, p SwiftParams, f *gsnyder.FBSFixed, x hdlgen.Expr) hdlgen.Expr {
	// the pair's register, then the index's selection (a leading-one tree
	// and a 13:1 selection in one stage measured 8.5 ns in the model of
	// scripts/ecp5_paths.py)
	e2, idx := hdlgen.RsqrtIndex(st.Cut, "fbs", x, p.TableBits)
	n2 := (x.Width() + 1) / 2 // pairs of bits of x
	r := hdlgen.ROM(idx, p.OutW, f.Table()).Named("fbs_rsqrt")
	r = st.Cut("fbs_r", st.Cut("fbs_rsqrt", r))
	a, b := p.FBS.AlphaBeta()
	alpha := gsnyder.FixedOfFloat(a, p.AlphaFrac)
	beta := gsnyder.FixedOfFloat(-b, 0)
	rangeNs := gsnyder.FixedOfFloat(p.FBS.RangeNs, 0)
	prod := hdlgen.MulPieces(st.Cut, "fbs_prod", hdlgen.Const(hdlgen.BitsFor(alpha), alpha), r)
	lo0 := p.OutW + p.AlphaFrac - p.FracW/2
	tw := prod.Width() - lo0
	t := st.Cut("fbs_t", hdlgen.ShrVar(st.Cut, "fbs_t", prod, lo0, e2, n2, tw))
	rw := hdlgen.BitsFor(rangeNs)
	w := max(tw, hdlgen.BitsFor(beta), rw)
	tz := t.ZExt(w)
	above := tz.Gt(hdlgen.Const(w, beta)).Named("fbs_above")
	less := tz.Sub(hdlgen.Const(w, beta)).Named("fbs_less")
	over := less.Gt(hdlgen.Const(w, rangeNs)).Named("fbs_over")
	clamped := hdlgen.Mux(over, hdlgen.Const(rw, rangeNs), less.Keep(rw-1, 0))
	v := hdlgen.Mux(above, clamped, hdlgen.Const(rw, 0)).Named("fbs_ns")
	zero := st.Cut("cwnd_zero", x.IsZero().Named("cwnd_zero"))
	return st.Cut("fbs", hdlgen.Mux(zero, hdlgen.Const(rw, rangeNs), v).Named("fbs"))
}

// Swift builds the swift top: per connection, an ACK's delay against the
// target base + hops x per_hop + fbs(cwnd) decreases the window (once per
// RTT, or relative to SF's reference) or grows it by AI / cwnd per packet;
// VAI sets the AI per RTT from the largest delay (docs/blocks/swift.md).
func Swift(p SwiftParams) (*hdlgen.Module, error) {
	g := p.Golden()
	if err := gsnyder.ValidateSwiftFx(g); err != nil {
		return nil, err
	}
	f, _ := g.FBSFixed()
	m := hdlgen.NewModule("swift", "Swift's window update with flow-based scaling (S3 Eqs. 3.1-3.3), VAI and SF as options\n(S3 chapter 4), per connection in block RAM, pipelined shell (docs/pipeline.md).\nBehaviour: docs/blocks/swift.md.")
	m.Note("NumConn = %d, ConnW = %d, TimeW = %d, DelayW = %d, HopW = %d, AckW = %d; window %d.%d bits in [%d, %d], initial %d",
		p.NumConn, p.ConnW, p.TimeW, p.DelayW, p.HopW, p.AckW, p.IntW, p.FracW, p.MinCwnd, p.MaxCwnd, p.InitCwnd)
	m.Note("base %d ns, %d ns per hop, fs_range %g ns, fs %g..%g packets; beta %d, max_mdf %d (2^-%d); AI %d; K %d; SF %d; AlwaysAI %v; VAI %v",
		p.BaseNs, p.PerHopNs, p.FBS.RangeNs, p.FBS.MinWin, p.FBS.MaxWin, p.Beta, p.MaxMDF, p.MdfFrac, p.AI, p.K, p.SF, p.AlwaysAI, p.VAI != nil)
	word := SwiftWordLayout(p)
	cw, tgw := p.CwndW(), p.TargetW()
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: SwiftKindW, NumKinds: SwiftNumKinds, KindNames: SwiftKindNames,
		EventFields: SwiftEventFields(p),
		ResultFields: []connpipe.Field{
			{Name: "cwnd", Width: cw, Doc: fmt.Sprintf("the window after the event, 2^-%d packets", p.FracW)},
			{Name: "target", Width: tgw, Doc: "ack: the target delay, ns"},
			{Name: "congested", Width: 1, Doc: "ack: delay >= target"},
			{Name: "decreased", Width: 1, Doc: "ack: a decrease applied"},
		},
		Word: word, Core: p.Core,
	}
	if p.Formal.Invariants {
		spec.ResultInvariants = []connpipe.Invariant{
			cwndInRange(cw, p.MinCwnd, p.MaxCwnd),
			{Name: "decrease_when_congested", Holds: func(r hdlgen.Record) hdlgen.Value { return r.F("decreased").Implies(r.F("congested")) }},
		}
		if v := p.VAI; v != nil {
			spec.WordInvariants = append(spec.WordInvariants, connpipe.Invariant{Name: "bank_le_cap", Holds: func(r hdlgen.Record) hdlgen.Value {
				return r.F("bank").Le(hdlgen.Const(hdlgen.BitsFor(v.BankCap), v.BankCap))
			}})
		}
	}
	spec.Merge = SwiftMergeRule(p)
	err := connpipe.Build(m, spec, func(st connpipe.Step) connpipe.Outcome {
		isOpen := st.KindIs(int(gsnyder.SwiftOpen))
		delay, hops, acked := st.Event.F("delay"), st.Event.F("hops"), st.Event.F("acked")
		var now hdlgen.Expr
		if p.UsesNow() {
			now = st.Event.F("now")
		}
		cwnd := st.Cur.F("cwnd")

		// event-only: base + hops x per_hop, the delay's reciprocal
		var perHop []hdlgen.Value
		for h := uint64(0); h <= p.MaxHops(); h++ {
			perHop = append(perHop, hdlgen.Const(tgw, p.BaseNs+h*p.PerHopNs))
		}
		baseHops := st.Cut("base_hops", hdlgen.Index(hops, perHop...).Named("base_hops"))
		divD := hdlgen.NewRecipDivider(st.Cut, "recip_delay", delay, p.K)

		// the target and the congestion test
		fb := fbs(st, p, f, cwnd)
		target := st.Cut("target", baseHops.Add(fb.ZExt(tgw)).Named("target"))
		dw := max(p.DelayW, tgw)
		congested := st.Cut("congested", delay.ZExt(dw).Ge(target.ZExt(dw)).Named("congested"))

		// the decrease: mdf = min(div(beta (delay - target), delay), max_mdf)
		excess := st.Cut("excess", delay.ZExt(dw).Sub(target.ZExt(dw)).Keep(p.DelayW-1, 0).Named("excess"))
		bw := hdlgen.BitsFor(p.Beta)
		nb := hdlgen.MulPieces(st.Cut, "excess_beta", excess, hdlgen.Const(bw, p.Beta))
		q := divD.Div(nb, "mdf_q")
		mw := p.MdfFrac + 1
		qBig := q.ZExt(max(q.Width(), mw)).Gt(hdlgen.Const(max(q.Width(), mw), p.MaxMDF)).Named("mdf_capped")
		mdf := st.Cut("mdf", hdlgen.Mux(qBig, hdlgen.Const(mw, p.MaxMDF), q.ZExt(max(q.Width(), mw)).Keep(mw-1, 0)).Named("mdf"))
		factor := st.Cut("factor", hdlgen.Const(mw, uint64(1)<<uint(p.MdfFrac)).Sub(mdf).Named("factor"))
		var base hdlgen.Expr
		var sfEnd hdlgen.Expr
		if p.SF > 0 {
			base = st.Cur.F("ref")
		} else {
			base = cwnd
		}
		prod := hdlgen.MulPieces(st.Cut, "dec_prod", base, factor)
		dec := st.Cut("dec", prod.Keep(p.MdfFrac+cw-1, p.MdfFrac).Named("dec"))
		var doDec hdlgen.Expr
		if p.SF > 0 {
			doDec = congested.Named("do_dec")
			sw := hdlgen.BitsFor(p.SF)
			cnt := st.Cur.F("sf_acks").ZExt(sw + 1).Add(hdlgen.Const(sw+1, 1)).Named("sf_count")
			sfEnd = congested.And(cnt.Ge(hdlgen.Const(sw+1, p.SF))).Named("sf_end")
		} else {
			since := st.Cut("since_dec", now.Sub(st.Cur.F("last_dec")).Named("since_dec"))
			doDec = congested.And(since.Ge(delay.ZExt(p.TimeW))).Named("do_dec")
		}

		// the increase: ai x acked, divided by the window from one packet on
		var ai hdlgen.Expr
		if p.VAI != nil {
			ai = st.Cur.F("ai")
		} else {
			ai = hdlgen.Const(p.AIW(), p.AI)
		}
		n := hdlgen.MulPieces(st.Cut, "ai_acked", ai, acked)
		nw := n.Width()
		recE, recT := hdlgen.RecipLogic(cwnd, p.K, "recip_cwnd_", st.Cut)
		ew := recE.Width()
		sub := recE.ZExt(ew + 1).Sub(hdlgen.Const(ew+1, uint64(p.FracW))).Named("cwnd_lead_int")
		eInt := sub.Keep(hdlgen.BitsFor(uint64(max(p.IntW-1, 1)))-1, 0)
		incP := hdlgen.MulPieces(st.Cut, "inc_prod", n, recT)
		inc := st.Cut("inc_div", hdlgen.ShrVar(st.Cut, "inc_div", incP, p.K+1, eInt, p.IntW, nw))
		onePkt := cwnd.Ge(hdlgen.Const(cw, uint64(1)<<uint(p.FracW))).Named("cwnd_ge_one")
		incr := hdlgen.Mux(onePkt, inc, n).Named("incr")
		doInc := congested.Not()
		if p.AlwaysAI {
			doInc = hdlgen.True()
		}
		sw := max(cw, nw) + 1
		kept := hdlgen.Mux(doDec, dec, cwnd).ZExt(sw)
		sum := st.Cut("sum", kept.Add(hdlgen.Mux(doInc, incr, hdlgen.Const(nw, 0)).ZExt(sw)).Named("sum"))
		low := sum.Lt(hdlgen.Const(sw, p.MinCwnd)).Named("below_min")
		high := sum.Gt(hdlgen.Const(sw, p.MaxCwnd)).Named("above_max")
		next := st.Cut("next_cwnd", hdlgen.Mux(low, hdlgen.Const(cw, p.MinCwnd), hdlgen.Mux(high, hdlgen.Const(cw, p.MaxCwnd), sum.Keep(cw-1, 0))).Named("next_cwnd"))

		fields := map[string]hdlgen.Value{"cwnd": next}
		open := map[string]hdlgen.Value{"cwnd": hdlgen.Const(cw, p.InitCwnd)}
		if p.SF > 0 {
			sw := hdlgen.BitsFor(p.SF)
			cnt := st.Cur.F("sf_acks").Add(hdlgen.Const(sw, 1)).Named("sf_next")
			fields["ref"] = hdlgen.Mux(congested.Not(), next, hdlgen.Mux(sfEnd, dec, st.Cur.F("ref")))
			fields["sf_acks"] = hdlgen.Mux(congested.Not().Or(sfEnd), hdlgen.Const(sw, 0), cnt)
			open["ref"], open["sf_acks"] = hdlgen.Const(cw, p.InitCwnd), hdlgen.Const(sw, 0)
		} else {
			fields["last_dec"] = hdlgen.Mux(doDec, now, st.Cur.F("last_dec"))
			open["last_dec"] = now
		}
		if v := p.VAI; v != nil {
			vaiFields(st, p, v, delay, now, cwnd, congested, sfEnd, fields, open)
		}
		zero := func(w int) hdlgen.Expr { return hdlgen.Const(w, 0) }
		return connpipe.Outcome{
			Word: hdlgen.Mux(isOpen, word.Pack(open), word.Pack(fields)),
			Result: map[string]hdlgen.Value{
				"cwnd":      hdlgen.Mux(isOpen, hdlgen.Const(cw, p.InitCwnd), next),
				"target":    hdlgen.Mux(isOpen, zero(tgw), target),
				"congested": isOpen.Not().And(congested),
				"decreased": isOpen.Not().And(doDec),
			},
		}
	})
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}

// vaiFields is VAI's part of swift's new word: the RTT ends at the
// first ACK at least one delay after its start, the measured congestion is
// the delay (vaiCore).
func vaiFields(st connpipe.Step, p SwiftParams, v *gsnyder.VAIFx, delay, now, cwnd, congested, sfEnd hdlgen.Expr,
	fields, open map[string]hdlgen.Value) {
	rttEnd := st.Cut("vai_since", now.Sub(st.Cur.F("rtt_start")).Named("vai_since")).Ge(delay.ZExt(p.TimeW)).Named("vai_rtt_end")
	vaiCore(st, v, p.K, p.AI, p.AIW(), delay, congested, rttEnd, p.SF > 0, sfEnd, cwnd, fields, open)
	fields["rtt_start"] = hdlgen.Mux(rttEnd, now, st.Cur.F("rtt_start"))
	open["rtt_start"] = now
	open["rtt_cwnd"] = hdlgen.Const(p.CwndW(), p.InitCwnd)
}

// vaiCore is Variable Additive Increase in a block's word (fields bank,
// damp, ai, mc, cong and rtt_cwnd; golden/snyder VAIFx): the RTT's largest
// measured congestion and whether it was congested are kept; when rttEnd,
// Algorithm 1 runs on them, and Algorithm 2 then or at the end of an SF
// decrease period (sfEnd, when hasSF), once per ACK, spending the
// tokens at the RTT's end only when the window (cwnd, before the ACK) rose
// over the RTT. The new AI is stored for the next ACK.
func vaiCore(st connpipe.Step, v *gsnyder.VAIFx, k int, baseAI uint64, aiw int, measured, congested, rttEnd hdlgen.Expr, hasSF bool, sfEnd, cwnd hdlgen.Expr,
	fields, open map[string]hdlgen.Value) {
	bank, damp, mc, cong := st.Cur.F("bank"), st.Cur.F("damp"), st.Cur.F("mc"), st.Cur.F("cong")
	bkw, dw, mcw := hdlgen.BitsFor(v.BankCap), v.DampW, mc.Width()
	mc1 := umax(mc, measured).Named("vai_mc")
	cong1 := cong.Or(congested).Named("vai_cong")

	// Algorithm 1 on mc1
	over := mc1.Gt(hdlgen.Const(mcw, v.TokenThresh)).Named("vai_over")
	under := mc1.Lt(hdlgen.Const(mcw, v.TokenThresh)).Named("vai_under")
	gain := hdlgen.DivConst(st.Cut, "vai_gain", mc1, v.AIDiv)
	gw := max(gain.Width(), bkw) + 1
	gsum := gain.ZExt(gw).Add(bank.ZExt(gw)).Named("vai_gain_sum")
	gcap := gsum.Gt(hdlgen.Const(gw, v.BankCap)).Named("vai_bank_full")
	bankAdd := hdlgen.Mux(gcap, hdlgen.Const(bkw, v.BankCap), gsum.Keep(bkw-1, 0)).Named("vai_bank_add")
	scaled := mc1
	if v.DampFrac > 0 {
		scaled = hdlgen.Cat(mc1, hdlgen.Const(v.DampFrac, 0))
	}
	dinc := hdlgen.DivConst(st.Cut, "vai_damp_inc", scaled, v.TokenThresh)
	sw := max(dinc.Width(), dw) + 1
	dsum := dinc.ZExt(sw).Add(damp.ZExt(sw)).Named("vai_damp_sum")
	dmax := uint64(1)<<uint(dw) - 1
	dsat := hdlgen.Mux(dsum.Gt(hdlgen.Const(sw, dmax)), hdlgen.Const(dw, dmax), dsum.Keep(dw-1, 0)).Named("vai_damp_add")
	one := hdlgen.Const(dw, uint64(1)<<uint(v.DampFrac))
	ddec := hdlgen.Mux(damp.Ge(one), damp.Sub(one), hdlgen.Const(dw, 0)).Named("vai_damp_dec")
	bank0 := bank.IsZero()
	dampEnd := hdlgen.Mux(over, dsat, hdlgen.Mux(bank0, hdlgen.Mux(cong1.Not(), hdlgen.Const(dw, 0), hdlgen.Mux(under, ddec, damp)), damp)).Named("vai_damp_end")
	bankEnd := hdlgen.Mux(over, bankAdd, bank).Named("vai_bank_end")
	bank1 := st.Cut("vai_bank1", hdlgen.Mux(rttEnd, bankEnd, bank).Named("vai_bank1"))
	damp1 := st.Cut("vai_damp1", hdlgen.Mux(rttEnd, dampEnd, damp).Named("vai_damp1"))

	// Algorithm 2
	capW := max(bkw, hdlgen.BitsFor(v.AICap))
	tokens := umin(bank1.ZExt(capW), hdlgen.Const(capW, v.AICap)).Keep(hdlgen.BitsFor(v.AICap)-1, 0).Named("vai_tokens")
	dc := v.DampConst << uint(v.DampFrac)
	num := hdlgen.MulPieces(st.Cut, "vai_num", tokens, hdlgen.Const(hdlgen.BitsFor(dc<<uint(v.MultFrac)), dc<<uint(v.MultFrac)))
	xw := max(dw, hdlgen.BitsFor(dc)) + 1
	x := st.Cut("vai_divisor", damp1.ZExt(xw).Add(hdlgen.Const(xw, dc)).Named("vai_divisor"))
	divX := hdlgen.NewRecipDivider(st.Cut, "recip_vai", x, k)
	mult := divX.Div(num, "vai_mult")
	mw := max(mult.Width(), v.MultFrac+1)
	mult1 := umax(mult.ZExt(mw), hdlgen.Const(mw, uint64(1)<<uint(v.MultFrac))).Named("vai_mult1")
	aiP := hdlgen.MulPieces(st.Cut, "vai_ai_prod", mult1, hdlgen.Const(hdlgen.BitsFor(baseAI), baseAI))
	var aiNew hdlgen.Expr
	if aiP.Width()-v.MultFrac > aiw {
		aiNew = aiP.Keep(v.MultFrac+aiw-1, v.MultFrac) // mult1 x AI < 2^aiw (twice AI_Cap x AI)
	} else {
		aiNew = aiP.Keep(aiP.Width()-1, v.MultFrac).ZExt(aiw)
	}
	aiNew = st.Cut("vai_ai_new", aiNew.Named("vai_ai_new"))
	doIncr := rttEnd
	adjust := cwnd.Ge(st.Cur.F("rtt_cwnd"))
	if hasSF {
		doIncr = rttEnd.Or(sfEnd)
		adjust = hdlgen.Mux(rttEnd, adjust, hdlgen.True())
	}
	doIncr = doIncr.Named("vai_update")
	spend := doIncr.And(adjust).Named("vai_spend")
	fields["bank"] = hdlgen.Mux(spend, bank1.Sub(tokens.ZExt(bkw)), bank1)
	fields["damp"] = damp1
	fields["ai"] = hdlgen.Mux(doIncr, aiNew, st.Cur.F("ai"))
	fields["mc"] = hdlgen.Mux(rttEnd, hdlgen.Const(mcw, 0), mc1)
	fields["cong"] = rttEnd.Not().And(cong1)
	fields["rtt_cwnd"] = hdlgen.Mux(rttEnd, cwnd, st.Cur.F("rtt_cwnd"))
	open["ai"], open["bank"], open["damp"] = hdlgen.Const(aiw, baseAI), hdlgen.Const(bkw, 0), hdlgen.Const(dw, 0)
	open["mc"], open["cong"] = hdlgen.Const(mcw, 0), hdlgen.False()
}
