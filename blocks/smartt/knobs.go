package smartt

import (
	"fmt"
	"math"

	"github.com/nicgen/nicgen/blocks/control"
	"github.com/nicgen/nicgen/hdlgen"
)

// knobs are the constants of the window's rules that a control wrapper
// sets at run time (docs/control.md): the target RTT and what the
// hardware derives from it, the Multiplicative Increase gain, and
// QuickAdapt's scaling. Without the table port the target RTT and the
// gain are Verilog parameters, which an integrator may override at
// instantiation, and QuickAdapt's scaling is the configuration's
// constant (paramKnobs).
type knobs struct {
	// runTime: the target is not a constant of the generator (a setting
	// or a parameter), so no value of it may be folded here
	runTime bool
	trtt    hdlgen.Expr // target RTT, ns (RttW bits)
	// trttC is the target RTT plus half a stamp unit, ns: a window that
	// starts at now ends at stamp (now + trttC) >> StampShift. trttQ is
	// the most units that end lies ahead of now's stamp, TrttH = ceil(trttC
	// / 2^StampShift); trttQConst its value when constant. trttQNeg is
	// 2^StampW - trttQ: the first now whose QuickAdapt window wraps (run
	// time only).
	trttC, trttQ, trttQNeg hdlgen.Expr
	trttQConst             uint64
	qaRtt                  hdlgen.Expr // QuickAdapt's delay threshold, ns (DelayQA only)
	kmi                    hdlgen.Expr // KMi, the Multiplicative Increase gain
	qaScale                hdlgen.Expr // qa_scaling, Q0.16 (17 bits)
}

// The run-time settings' names (PARAM_<name> in the control wrapper).
const (
	SetTargetRTT = "TARGET_RTT"
	SetMIGain    = "MI_GAIN"
	SetQAScaling = "QA_SCALING"
)

// Settings lists them.
var Settings = []string{SetTargetRTT, SetMIGain, SetQAScaling}

// constKnobs are the derived constants.
func constKnobs(p Params, d Derived) knobs {
	k := knobs{
		trtt:       cst(p.RttW, d.TrttNs),
		trttC:      cst(bitsFor(d.TrttC), d.TrttC),
		trttQ:      cst(p.StampW, d.TrttH),
		trttQConst: d.TrttH,
		kmi:        cst(bitsFor(d.KMi), d.KMi),
		qaScale:    cst(17, d.QaScale),
	}
	if p.Variant == NSCC && p.DelayQA {
		k.qaRtt = cst(p.RttW, d.QaRttNs)
	}
	return k
}

// newKnobs are the knobs of module m: run-time settings (hdlgen
// Module.Setting) with the table port, parameters without it.
func newKnobs(m *hdlgen.Module, p Params, d Derived) knobs {
	if !p.Table {
		return paramKnobs(m, p, d)
	}
	trtt, kmi := targetAndGain(m, p, d, true)
	qhi, qwhy := QAScaleMax(p)
	qa := m.Setting(SetQAScaling, 17, d.QaScale, "QuickAdapt's window scaling, Q0.16 (S0: 0.8, S1: 1.0)", true).
		Limit(1, qhi, qwhy)

	// each setting from a register of the block: the wrapper's register
	// lies a long route away, and a multiplier takes a register's input
	// into its own input register (an input port it cannot); a setting is
	// written while the block is idle (docs/control.md), so the clocks it
	// takes to arrive do not show
	held := func(s *hdlgen.Signal, name, doc string) hdlgen.Expr {
		r := m.Reg(name, s.Width(), doc, hdlgen.NoReset())
		m.Assign(r.Next, s)
		return r.Expr
	}
	trttR := held(trtt, "target_rtt", "TARGET_RTT, one clock after its input")
	kmiR := held(kmi, "mi_gain", "MI_GAIN, one clock after its input")
	qaR := held(qa, "qa_scaling", "QA_SCALING, one clock after its input")

	// the target plus half a unit, how far ahead its window's end lies
	// at most, and where its window wraps, from registers
	reg := func(name string, v hdlgen.Expr, doc string) hdlgen.Expr {
		r := m.Reg(name, v.Width(), doc, hdlgen.NoReset())
		m.Assign(r.Next, v)
		return r.Expr
	}
	c, q, neg, thr := fromTarget(p, trttR)
	k := knobs{runTime: true, trtt: trttR, kmi: kmiR, qaScale: qaR,
		trttC:    reg("trtt_c", c.Named("trtt_c_ns"), "TARGET_RTT plus half a stamp unit, ns: a window that starts at now ends at stamp (now + trtt_c) >> StampShift"),
		trttQ:    reg("trtt_q", q.Named("trtt_q_units"), "the most stamp units a window's end lies ahead of now, ceil(trtt_c / unit)"),
		trttQNeg: reg("trtt_q_neg", neg.Named("trtt_q_wrap"), "2^StampW - trtt_q: the first stamp whose QuickAdapt window wraps")}
	if thr != nil {
		k.qaRtt = reg("qa_rtt", thr.Named("qa_rtt_thr"), "QuickAdapt's delay threshold: base + 4 x (TARGET_RTT - base), ns")
	}
	return k
}

// paramKnobs are the knobs of a block without the table port: the target
// RTT and the gain are Verilog parameters (an integrator overriding the
// target overrides the gain with it: MI_GAIN_FOR), and what follows
// from the target is computed from its parameter, which synthesis folds
// to constants as it did the generator's. QuickAdapt's scaling stays the
// configuration's constant: nscc's 1.0 is a shift, and a parameter would
// make it a multiplier.
func paramKnobs(m *hdlgen.Module, p Params, d Derived) knobs {
	trtt, kmi := targetAndGain(m, p, d, false)
	c, q, neg, thr := fromTarget(p, trtt.Expr)
	k := knobs{runTime: true, trtt: trtt.Expr, trttC: c.Named("trtt_c_ns"), trttQ: q.Named("trtt_q_units"), trttQNeg: neg.Named("trtt_q_wrap"),
		kmi: kmi.Expr, qaScale: cst(17, d.QaScale)}
	if thr != nil {
		k.qaRtt = thr.Named("qa_rtt_thr")
	}
	return k
}

// targetAndGain declares TARGET_RTT and MI_GAIN: run-time settings, or
// parameters.
func targetAndGain(m *hdlgen.Module, p Params, d Derived, runTime bool) (trtt, kmi *hdlgen.Signal) {
	lo, hi, why := TargetRange(p)
	doc := "target RTT, ns (S0/S1: 1.5 x base RTT); the block takes it, and its stamp units and QuickAdapt threshold, within three clocks of a write"
	gdoc := fmt.Sprintf("Multiplicative Increase gain KMi = round(MTU x base_rtt / (target_rtt - base_rtt) x gamma x 2^%d)", 2*p.F)
	if !runTime {
		doc = "target RTT, ns (S0/S1: 1.5 x base RTT)"
		q := miGainQuotient(p)
		gdoc += fmt.Sprintf("; with TARGET_RTT overridden, override it with (%d + d/2) / d, d = TARGET_RTT - %d", q.Num, q.Off)
	}
	trtt = m.Setting(SetTargetRTT, p.RttW, d.TrttNs, doc, runTime).Limit(lo, hi, why)
	kmiW := bitsFor(d.KMi)
	kmi = m.Setting(SetMIGain, kmiW, d.KMi, gdoc, runTime).
		Limit(1, uint64(1)<<uint(kmiW)-1, fmt.Sprintf("the multiplier's %d bits, sized for the default", kmiW))
	return trtt, kmi
}

// fromTarget is what follows from the target RTT trtt (ns): the target
// plus half a stamp unit (c: a window's end is stamped from now + c), the
// most units that end lies ahead, ceil(c / unit), 2^StampW minus them
// (the first now whose QuickAdapt window wraps), and with nscc's DelayQA
// the QuickAdapt delay threshold base + 4 (target - base), else nil.
func fromTarget(p Params, trtt hdlgen.Expr) (c, q, neg hdlgen.Expr, thr *hdlgen.Expr) {
	unit := uint64(1) << uint(p.StampShift)
	c = trtt.ZExt(p.RttW + 1)
	if unit > 1 {
		c = c.Add(cst(p.RttW+1, unit/2))
	}
	up := c.ZExt(p.RttW + 2)
	if unit > 1 {
		up = up.Add(cst(p.RttW+2, unit-1))
	}
	q = up.Shr(p.StampShift)
	if q.Width() >= p.StampW {
		q = q.Keep(p.StampW-1, 0)
	} else {
		q = q.ZExt(p.StampW)
	}
	neg = cst(p.StampW, 0).Sub(q)
	if p.Variant == NSCC && p.DelayQA {
		// base + 4 (target - base) = 4 target - 3 base, below 2^RttW by
		// TARGET_RTT's range
		w := p.RttW + 2
		four := hdlgen.Cat(trtt, cst(2, 0))
		t := four.Sub(cst(w, 3*uint64(p.Net.BrttNs))).Keep(p.RttW-1, 0)
		thr = &t
	}
	return c, q, neg, thr
}

// TargetRange is the range of TARGET_RTT: above the base RTT (the gain's
// base / (target - base)), and small enough that a window's end lies
// less than half the stamp cycle ahead (the target plus half a unit at
// most 2^(StampW-1) - 1 units), it fits the RTT, and (with DelayQA) so
// does the QuickAdapt threshold base + 4 (target - base).
func TargetRange(p Params) (lo, hi uint64, why string) {
	brtt := uint64(p.Net.BrttNs)
	unit := uint64(1) << uint(p.StampShift)
	hi = uint64(1)<<uint(p.RttW) - 1
	why = fmt.Sprintf("above the base RTT %d ns; at most 2^%d - 1 (rtt_width)", brtt, p.RttW)
	if s := (uint64(1)<<uint(p.StampW-1)-1)*unit - unit/2; s < hi {
		hi, why = s, fmt.Sprintf("above the base RTT %d ns; its window's end below half the stamp cycle ahead: %d units of %d ns, less half a unit", brtt, uint64(1)<<uint(p.StampW-1)-1, unit)
	}
	if p.Variant == NSCC && p.DelayQA {
		if s := (uint64(1)<<uint(p.RttW) - 1 + 3*brtt) / 4; s < hi {
			hi, why = s, fmt.Sprintf("above the base RTT %d ns; the QuickAdapt threshold 4 x target - 3 x base below 2^%d", brtt, p.RttW)
		}
	}
	return brtt + 1, hi, why
}

// QAScaleMax is the largest QA_SCALING whose scaled window the
// hardware keeps exactly: the bytes acked (ByteW bits) times the scaling,
// shifted right by 16 - F, below 2^(window width) when the product is
// wider than the window.
func QAScaleMax(p Params) (uint64, string) {
	cw, shift := p.cw(), 16-p.F
	top := uint64(1)<<17 - 1
	if shift+cw >= p.ByteW+17 {
		return top, "17 bits: the scaled window always fits"
	}
	baseMax := uint64(1)<<uint(p.ByteW) - 1
	hi := min(top, (uint64(1)<<uint(shift+cw)-1)/baseMax)
	return hi, fmt.Sprintf("the scaled window of %d bytes acked stays within the window's %d bits", baseMax, cw)
}

// MIGain is KMi for a target RTT of trttNs ns, as Derive computes it at
// the configuration's target: round(MTU x base / (target - base) x gamma
// x 2^2F).
func MIGain(p Params, trttNs uint64) uint64 {
	brtt := float64(p.Net.BrttNs)
	return miGain(p, p.Derive().Gamma, brtt/(float64(trttNs)-brtt))
}

func miGain(p Params, gamma, mi float64) uint64 {
	return uint64(math.Round(float64(p.Net.MTU) * mi * gamma * math.Ldexp(1, 2*p.F)))
}

// miGainNum is MTU x base x gamma x 2^2F, rounded: KMi x (target - base).
func miGainNum(p Params) uint64 { return miGain(p, p.Derive().Gamma, float64(p.Net.BrttNs)) }

// MIGainFor is the header's MI_GAIN_FOR(target_ns) in integer arithmetic,
// (A + d / 2) / d with d = target - base and A = miGainNum: within 1 of
// MIGain (TestMIGainFor). The target must be above the base RTT.
func MIGainFor(p Params, trttNs uint64) uint64 {
	return miGainQuotient(p).Eval(trttNs, 0, math.MaxUint64)
}

// miGainQuotient is MI_GAIN as the control wrapper derives it from
// TARGET_RTT: (A + d/2) / d, d = target - base, A = miGainNum.
func miGainQuotient(p Params) control.Quotient {
	return control.Quotient{Setting: SetMIGain, From: SetTargetRTT, Num: miGainNum(p), Off: uint64(p.Net.BrttNs)}
}

// Macros are the control wrapper's helpers for software: MI_GAIN_FOR
// computes the gain that a write of TARGET_RTT sets (the wrapper derives
// it in hardware: control.Quotient).
func Macros(p Params) []control.Macro {
	b := uint64(p.Net.BrttNs)
	q := miGainQuotient(p)
	m := control.Macro{
		Name: "MI_GAIN_FOR(target_ns)",
		Body: fmt.Sprintf("((%dull + ((unsigned long long)(target_ns) - %dull) / 2ull) / ((unsigned long long)(target_ns) - %dull))", q.Num, q.Off, q.Off),
		Doc: fmt.Sprintf("the MI_GAIN that a write of TARGET_RTT = target_ns (above the base RTT, %d ns) sets: "+
			"MTU x base / (target - base) x gamma x 2^%d in integer arithmetic, within 1 of the float formula; the wrapper computes it itself "+
			"and clamps it into PARAM_MI_GAIN's range", b, 2*p.F),
		Derive: &q,
	}
	trtt := p.Derive().TrttNs
	for _, t := range []uint64{trtt, 2 * b, 10 * b} {
		m.Examples = append(m.Examples, control.Example{Call: fmt.Sprintf("MI_GAIN_FOR(%d)", t), Value: MIGainFor(p, t)})
	}
	return []control.Macro{m}
}
