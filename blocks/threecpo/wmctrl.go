// Package threecpo holds the blocks of 3CPO, the Snyder thesis's chapter
// 6 (seed S3): wm_ctrl, watermark control (Algorithm 6 with the
// multicast-to-unicast conversion and FBS) per watermark instance.
// Behaviour and arithmetic: docs/blocks/3cpo.md; the golden model is
// golden/threecpo (WMFx, WMTable).
package threecpo

import (
	"fmt"
	"github.com/nicgen/nicgen/blocks/block"

	"github.com/nicgen/nicgen/blocks/connpipe"
	gthreecpo "github.com/nicgen/nicgen/golden/threecpo"
	"github.com/nicgen/nicgen/hdlgen"
)

// WMCtrlParams configure wm_ctrl: the golden model's parameters, the
// table, the pipeline's depth and the proofs' properties.
type WMCtrlParams struct {
	gthreecpo.WMFxParams
	connpipe.Core
	NumConn int // watermark instances (a GPU's request and response watermarks are two)
	ConnW   int // bits of the instance id
	// WaitSlots is the waiting slots in front of the datapath
	// (block.WaitSlotsAttr); 0: the plain shell.
	WaitSlots int
}

// wm_ctrl's event kinds (golden/threecpo WMKind).
const (
	WMKindW    = 2
	WMNumKinds = int(gthreecpo.WMNumKinds)
)

// WMKindNames names the kinds.
var WMKindNames = []string{"open", "probe", "matched"}

// DefaultWMCtrlParams is the thesis's controller (golden/threecpo
// DefaultWMFx) on 4096 instances.
func DefaultWMCtrlParams() WMCtrlParams {
	p := WMCtrlParams{WMFxParams: gthreecpo.DefaultWMFx(), NumConn: 4096, ConnW: 16}
	p.Depth = connpipe.MustDepth(NeededWMCtrlDepth(p))
	return p
}

// WMW is the width of a watermark: F fraction bits over WMMax.
func (p WMCtrlParams) WMW() int { return p.F + hdlgen.BitsFor(uint64(p.WMMax)) }

// top is WMMax in 2^-F.
func (p WMCtrlParams) top() uint64 { return uint64(p.WMMax) << uint(p.F) }

// WMCtrlWordLayout is the per-instance word: the watermark, the last
// RTT's watermark equivalent and the RTT's matched tokens.
func WMCtrlWordLayout(p WMCtrlParams) *hdlgen.Layout {
	return hdlgen.NewLayout("wm_ctrl_word").
		Field("wm", p.WMW(), fmt.Sprintf("watermark, 2^-%d", p.F)).
		Field("eq", p.WMW(), fmt.Sprintf("the last RTT's watermark equivalent, 2^-%d", p.F)).
		Field("gd", p.GDW, "tokens multicast matching consumed this RTT (saturating)")
}

// WMCtrlEventFields are the event's fields after conn and kind.
func WMCtrlEventFields(p WMCtrlParams) []connpipe.Field {
	return []connpipe.Field{
		{Name: "lat", Width: p.LatW, Doc: "probe: the probe packet's latency, cycles"},
		{Name: "rtt_end", Width: 1, Doc: "probe: an RTT ended with this probe (Algorithm 6 lines 3-25)"},
		{Name: "tokens", Width: p.GDW, Doc: "matched: tokens consumed by multicast matching"},
	}
}

// NeededWMCtrlDepth is the number of datapath stages wm_ctrl's cuts reach.
func NeededWMCtrlDepth(p WMCtrlParams) (int, error) {
	return connpipe.NeededDepth(p, connpipe.MaxDepth, WMCtrl)
}

// fbs16 is WMFx.FBS16 of x: the leading one's pair e2 selects the
// table's index (x's RsqrtBits bits below bit 2 e2 + 2) and the shift;
// alpha x 1/sqrt(m) >> (16 - F/2 + e2) is taken from 1 + beta and the
// result clamped to [0.05, 1], all in 2^-16.
func fbs16(st connpipe.Step, p WMCtrlParams, w *gthreecpo.WMFx, x hdlgen.Expr) hdlgen.Expr {
	const floor, one = 3277, 65536
	e2, idx := hdlgen.RsqrtIndex(st.Cut, "fbs", x, p.RsqrtBits)
	n2 := (x.Width() + 1) / 2
	r := hdlgen.ROM(idx, 17, w.RsqrtTable()).Named("fbs_rsqrt")
	r = st.Cut("fbs_r", st.Cut("fbs_rsqrt", r))
	alpha, beta := w.AlphaBeta16()
	prod := hdlgen.MulPieces(st.Cut, "fbs_prod", hdlgen.Const(hdlgen.BitsFor(alpha), alpha), r)
	lo0 := 16 - p.F/2
	tw := prod.Width() - lo0
	t := st.Cut("fbs_t", hdlgen.ShrVar(st.Cut, "fbs_t", prod, lo0, e2, n2, tw))
	cw := max(tw, hdlgen.BitsFor(one+beta)) + 1
	tz := t.ZExt(cw)
	// the two comparisons and the difference side by side, the selection
	// in the next stage
	low := st.Cut("fbs_low", tz.Gt(hdlgen.Const(cw, one+beta-floor)).Named("fbs_low"))
	high := st.Cut("fbs_high", tz.Lt(hdlgen.Const(cw, beta)).Named("fbs_high"))
	v := st.Cut("fbs_raw", hdlgen.Const(cw, one+beta).Sub(tz).Keep(16, 0).Named("fbs_raw"))
	return st.Cut("fbs", hdlgen.Mux(low, hdlgen.Const(17, floor), hdlgen.Mux(high, hdlgen.Const(17, one), v)).Named("fbs"))
}

// WMCtrl builds the wm_ctrl top: per instance, a probe runs Algorithm 6
// (at an RTT's end the watermark equivalent of the RTT's matched tokens
// raises the watermark by its growth, and a congested probe decreases it
// by fbs x md x (wm - equivalent); a calm probe adds AI), a matched event
// adds to the RTT's tokens (docs/blocks/3cpo.md).
func WMCtrl(p WMCtrlParams) (*hdlgen.Module, error) {
	w, err := gthreecpo.NewWMFx(p.WMFxParams)
	if err != nil {
		return nil, err
	}
	m := hdlgen.NewModule("wm_ctrl", "3CPO watermark control (S3 Algorithm 6, section 6.2) per watermark instance in block RAM,\npipelined shell (docs/pipeline.md). Behaviour: docs/blocks/3cpo.md.")
	m.Note("NumConn = %d, ConnW = %d; WM_MAX %d, WM_MIN %d, in 2^-%d; thresholds %d and %d cycles, base md %d/65536, AI %d",
		p.NumConn, p.ConnW, p.WMMax, p.WMMin, p.F, p.LatThresh, p.MaxLatThresh, p.BaseMD16, p.AI)
	m.Note("LatW %d, GDW %d, K %d, RsqrtBits %d, line 18 as the else of line 12: %v", p.LatW, p.GDW, p.K, p.RsqrtBits, p.ElseOfLine12)
	word := WMCtrlWordLayout(p)
	ww := p.WMW()
	top := p.top()
	minWM := uint64(p.WMMin) << uint(p.F)
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: WMKindW, NumKinds: WMNumKinds, KindNames: WMKindNames,
		EventFields: WMCtrlEventFields(p),
		ResultFields: []connpipe.Field{
			{Name: "wm", Width: ww, Doc: fmt.Sprintf("the watermark after the event, 2^-%d", p.F)},
			{Name: "eq", Width: ww, Doc: fmt.Sprintf("the last RTT's watermark equivalent after the event, 2^-%d", p.F)},
			{Name: "decreased", Width: 1, Doc: "the watermark fell"},
		},
		Word: word, Core: p.Core, Merge: block.Waiting(p.WaitSlots),
	}
	if p.Formal.Invariants {
		// a word no open wrote is all zero (the proofs start from a
		// zeroed table); a matched event on it echoes its watermark 0
		valid := func(v hdlgen.Expr) hdlgen.Value {
			return v.IsZero().Or(v.Ge(hdlgen.Const(ww, minWM)).And(v.Le(hdlgen.Const(ww, top))))
		}
		spec.ResultInvariants = []connpipe.Invariant{{Name: "result_wm_in_range", Holds: func(r hdlgen.Record) hdlgen.Value {
			return r.F("error").Or(valid(r.F("wm")))
		}}}
		spec.WordInvariants = []connpipe.Invariant{
			{Name: "wm_valid", Holds: func(r hdlgen.Record) hdlgen.Value { return valid(r.F("wm")) }},
			{Name: "eq_le_max", Holds: func(r hdlgen.Record) hdlgen.Value { return r.F("eq").Le(hdlgen.Const(ww, top)) }},
		}
	}
	err = connpipe.Build(m, spec, func(st connpipe.Step) connpipe.Outcome {
		isOpen, isProbe := st.KindIs(int(gthreecpo.WMOpen)), st.KindIs(int(gthreecpo.WMProbe))
		lat, rttEnd, tok := st.Event.F("lat"), st.Event.F("rtt_end"), st.Event.F("tokens")
		wm, last, gd := st.Cur.F("wm"), st.Cur.F("eq"), st.Cur.F("gd")
		c := func(v uint64) hdlgen.Expr { return hdlgen.Const(ww, v) }

		// matched: the RTT's tokens, saturating
		gw := p.GDW
		gsum := gd.ZExt(gw + 1).Add(tok.ZExt(gw + 1)).Named("gd_sum")
		gdAdd := hdlgen.Mux(gsum.Bit(gw), hdlgen.Const(gw, uint64(1)<<uint(gw)-1), gsum.Keep(gw-1, 0)).Named("gd_add")

		// md in 2^-16 from the latency (lines 1-2), a constant division
		lw := p.LatW
		span := uint64(p.MaxLatThresh - p.LatThresh)
		calm := lat.Le(hdlgen.Const(lw, uint64(p.LatThresh))).Named("lat_le_thresh")
		full := lat.Ge(hdlgen.Const(lw, uint64(p.MaxLatThresh))).Named("lat_ge_max")
		sw := hdlgen.BitsFor(span)
		above := lat.Sub(hdlgen.Const(lw, uint64(p.LatThresh))).Keep(sw-1, 0).Named("lat_above")
		mdNum := hdlgen.MulPieces(st.Cut, "md_num", above, hdlgen.Const(hdlgen.BitsFor(uint64(p.BaseMD16)), uint64(p.BaseMD16)))
		mdQ := hdlgen.DivConst(st.Cut, "md_q", mdNum, span)
		mdRamp := mdQ.ZExt(max(mdQ.Width(), 16)).Keep(15, 0)
		md := st.Cut("md", hdlgen.Mux(calm, hdlgen.Const(16, 0), hdlgen.Mux(full, hdlgen.Const(16, uint64(p.BaseMD16)), mdRamp)).Named("md"))
		congested := calm.Not().Named("congested")
		below := lat.Lt(hdlgen.Const(lw, uint64(p.LatThresh))).Named("lat_below")

		// the watermark equivalent WMMax gd 2^F / lat (line 10)
		num := hdlgen.MulPieces(st.Cut, "eq_num", gd, hdlgen.Const(hdlgen.BitsFor(uint64(p.WMMax)), uint64(p.WMMax)))
		numF := num
		if p.F > 0 {
			numF = hdlgen.Cat(num, hdlgen.Const(p.F, 0))
		}
		div := hdlgen.NewRecipDivider(st.Cut, "recip_lat", lat, p.K)
		q := div.Div(numF, "eq_q")
		qw := q.Width()
		eqBig := q.Gt(hdlgen.Const(qw, top)).Named("eq_capped")
		eq := st.Cut("eq", hdlgen.Mux(eqBig, c(top), q.Keep(ww-1, 0)).Named("eq"))

		// lines 12-14: the growth of the equivalent raises the watermark
		grew := eq.Gt(last).Named("eq_grew")
		delta := st.Cut("delta", eq.Sub(last).Named("delta"))
		wsum := st.Cut("wm_sum", wm.ZExt(ww+1).Add(delta.ZExt(ww+1)).Named("wm_sum"))
		wCap := st.Cut("wm_sum_capped", wsum.Gt(hdlgen.Const(ww+1, top)).Named("wm_sum_capped"))
		wm1 := st.Cut("wm1", hdlgen.Mux(grew, hdlgen.Mux(wCap, c(top), wsum.Keep(ww-1, 0)), wm).Named("wm1"))

		// line 15's test, and which decrease applies (line 18 as chosen)
		wmd := hdlgen.MulPieces(st.Cut, "wm_md", wm1, md)
		wmdS := wmd.Keep(wmd.Width()-1, 16).ZExt(ww + 1)
		small := delta.ZExt(ww + 1).Lt(wmdS).Named("delta_small")
		branch := grew.And(small)
		if p.ElseOfLine12 {
			branch = branch.Or(grew.Not())
		}
		doDec := st.Cut("do_dec", rttEnd.And(congested).And(branch).And(wm1.Gt(eq)).Named("do_dec"))

		// lines 16-17 / 19-20: wm -= fbs(x) md x, x = wm - equivalent
		x := st.Cut("x", wm1.Sub(eq).Named("x"))
		f := fbs16(st, p, w, x)
		fm := hdlgen.MulPieces(st.Cut, "fbs_md", f, md)
		decP := hdlgen.MulPieces(st.Cut, "dec_prod", fm, x)
		dec := st.Cut("dec", decP.Keep(32+ww-1, 32).Named("dec"))
		wm2 := st.Cut("wm2", hdlgen.Mux(doDec, wm1.Sub(dec), wm1).Named("wm2"))
		wmR := hdlgen.Mux(rttEnd, wm2, wm).Named("wm_rtt")

		// lines 26-28: AI on a calm probe, then the bounds
		asum := st.Cut("ai_sum", wmR.ZExt(ww+1).Add(hdlgen.Const(ww+1, uint64(p.AI)<<uint(p.F))).Named("ai_sum"))
		aCap := asum.Gt(hdlgen.Const(ww+1, top)).Named("ai_capped")
		wm3 := st.Cut("wm3", hdlgen.Mux(below, hdlgen.Mux(aCap, c(top), asum.Keep(ww-1, 0)), wmR).Named("wm3"))
		// (above WM_MAX only from a word no open wrote; the golden model
		// clamps it too)
		wm4 := st.Cut("wm_next", hdlgen.Mux(wm3.Lt(c(minWM)), c(minWM), hdlgen.Mux(wm3.Gt(c(top)), c(top), wm3)).Named("wm_next"))

		probeWM := wm4
		probeEq := hdlgen.Mux(rttEnd, eq, last).Named("eq_next")
		probeGd := hdlgen.Mux(rttEnd, hdlgen.Const(gw, 0), gd).Named("gd_next")
		newWM := hdlgen.Mux(isProbe, probeWM, wm).Named("new_wm")
		newEq := hdlgen.Mux(isProbe, probeEq, last).Named("new_eq")
		newGd := hdlgen.Mux(isProbe, probeGd, gdAdd).Named("new_gd")
		open := map[string]hdlgen.Value{"wm": c(top), "eq": c(0), "gd": hdlgen.Const(gw, 0)}
		return connpipe.Outcome{
			Word: hdlgen.Mux(isOpen, word.Pack(open), word.Pack(map[string]hdlgen.Value{"wm": newWM, "eq": newEq, "gd": newGd})),
			Result: map[string]hdlgen.Value{
				"wm":        hdlgen.Mux(isOpen, c(top), newWM),
				"eq":        hdlgen.Mux(isOpen, c(0), newEq),
				"decreased": isProbe.And(wm4.Lt(wm)),
			},
		}
	})
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}
