package control

import (
	"fmt"
	"strings"

	"github.com/nicgen/nicgen/hdlgen"
)

// derivation is the hardware of one Quotient: a long divider that runs
// after a taken write of its input setting and writes its result into
// the derived setting's register.
type derivation struct {
	q     Quotient
	to    setting
	start hdlgen.Expr // the apply cycle of a taken write of q.From
	busy  hdlgen.Expr // the division runs (start excluded)
	done  hdlgen.Expr // its last cycle: value is written, the response follows
	value hdlgen.Expr // the quotient clamped into the setting's range
}

// deriveSettings builds the dividers of the macros' Quotients.
//
// After the apply cycle of a write of From that is taken, the divider
// takes d = From - Off (from the register, which now holds the value),
// then the dividend Num + floor(d/2), then one quotient bit per clock,
// most significant first, by restoring division: the remainder, shifted
// left with the dividend's next bit, loses d when it is at least d. The
// remainder is below d, so it needs d's bits. Then the quotient is
// clamped into the derived setting's range and written. A write of From
// is answered in that last cycle's next: N + 3 clocks later than other
// writes, N the dividend's bits.
func deriveSettings(m *hdlgen.Module, macros []Macro, sets []setting, ok map[string]hdlgen.Expr, wrAt func(int) hdlgen.Expr) ([]derivation, error) {
	byName := map[string]setting{}
	for _, st := range sets {
		byName[st.name] = st
	}
	var out []derivation
	for _, mc := range macros {
		q := mc.Derive
		if q == nil {
			continue
		}
		from, okF := byName[q.From]
		to, okT := byName[q.Setting]
		if !okF || !okT {
			return nil, fmt.Errorf("control: macro %s derives %s from %s, which are not both settings of the block", mc.Name, q.Setting, q.From)
		}
		fLo, fHi, _ := from.sig.ParamRange()
		if fLo <= q.Off {
			return nil, fmt.Errorf("control: macro %s divides by %s - %d, which its range %d..%d lets be zero", mc.Name, q.From, q.Off, fLo, fHi)
		}
		dMax := fHi - q.Off
		dW := hdlgen.BitsFor(dMax)
		if q.Num > ^uint64(0)-dMax/2 {
			return nil, fmt.Errorf("control: macro %s: the dividend %d + %d does not fit 64 bits", mc.Name, q.Num, dMax/2)
		}
		nW := hdlgen.BitsFor(q.Num + dMax/2)
		out = append(out, divider(m, q, from, to, dW, nW, func() hdlgen.Expr { return wrAt(from.off).And(ok[from.name]) }))
	}
	return out, nil
}

// divider builds one derivation: a serial divider of nW quotient bits
// and a dW-bit divisor, started by a taken write of q.From (start), its
// quotient clamped into q.Setting's range.
func divider(m *hdlgen.Module, q *Quotient, from, to setting, dW, nW int, startOf func() hdlgen.Expr) derivation {
	lo, hi, _ := to.sig.ParamRange()
	pre := "derive_" + strings.ToLower(q.Setting)
	what := fmt.Sprintf("%s from %s", q.Setting, q.From)

	// cnt counts the clocks left: nW+2 loads d, nW+1 the dividend,
	// nW..1 the quotient's bits
	cW := hdlgen.BitsFor(uint64(nW + 2))
	cnt := m.Reg(pre+"_count", cW, "clocks left of the division of "+what, hdlgen.ResetTo(0))
	doneR := m.Reg(pre+"_done", 1, "the quotient of "+what+" is complete: it is written in this cycle", hdlgen.ResetTo(0))
	dR := m.Reg(pre+"_d", dW, what+": the divisor "+q.From+fmt.Sprintf(" - %d", q.Off), hdlgen.NoReset())
	nR := m.Reg(pre+"_n", nW, what+": the dividend's bits not yet taken, at the top", hdlgen.NoReset())
	rR := m.Reg(pre+"_r", dW, what+": the remainder (below the divisor)", hdlgen.NoReset())
	qR := m.Reg(pre+"_q", nW, what+": the quotient's bits so far", hdlgen.NoReset())

	start := startOf().Named(pre + "_start")
	// the step: the remainder with the dividend's next bit, and whether
	// the divisor goes into it
	r2 := hdlgen.Cat(rR, nR.Bit(nW-1)).Named(pre + "_shifted")
	fits := r2.Ge(dR.ZExt(dW + 1)).Named(pre + "_fits")
	rNext := hdlgen.Mux(fits, r2.Sub(dR.ZExt(dW+1)), r2).Keep(dW-1, 0)
	var qNext hdlgen.Expr
	if nW > 1 {
		qNext = hdlgen.Cat(qR.Slice(nW-2, 0), fits)
	} else {
		qNext = fits
	}
	var nNext hdlgen.Expr = nR.Shl(1)
	// the divisor from the register (From's range keeps it above Off
	// and below 2^dW); the dividend Num + floor(d / 2)
	fromV := from.reg.Expr
	if fromV.Width() < dW {
		fromV = fromV.ZExt(dW)
	}
	dIn := fromV.Sub(hdlgen.Const(fromV.Width(), q.Off))
	if dIn.Width() > dW {
		dIn = dIn.Keep(dW-1, 0)
	}
	half := dR.Expr
	if dW > 1 {
		half = dR.Shr(1)
	} else {
		half = hdlgen.Const(1, 0)
	}
	nIn := hdlgen.Const(nW, q.Num).Add(half.ZExt(nW))
	m.Comb(pre, func(p *hdlgen.Process) {
		p.Set(doneR, cnt.Expr.EqC(1))
		p.If(start, func() {
			p.Set(cnt, hdlgen.Const(cW, uint64(nW+2)))
		}).ElseIf(cnt.Expr.Any(), func() {
			p.Set(cnt, cnt.Sub(hdlgen.Const(cW, 1)))
			p.If(cnt.Expr.EqC(uint64(nW+2)), func() {
				p.Set(dR, dIn)
			}).ElseIf(cnt.Expr.EqC(uint64(nW+1)), func() {
				p.Set(nR, nIn)
				p.Set(rR, hdlgen.Const(dW, 0))
			}).Else(func() {
				p.Set(nR, nNext)
				p.Set(rR, rNext)
				p.Set(qR, qNext)
			})
		})
	})
	// the quotient into the setting's range (no wider than 64 bits)
	qv := qR.Expr
	var val hdlgen.Expr
	if hi < uint64(1)<<uint(min(nW, 63)) || nW > 63 {
		val = hdlgen.Mux(qv.Gt(hdlgen.Const(nW, hi)), hdlgen.Const(nW, hi), qv)
	} else {
		val = qv
	}
	if lo > 0 {
		val = hdlgen.Mux(qv.Lt(hdlgen.Const(nW, lo)), hdlgen.Const(nW, lo), val)
	}
	tw := to.reg.Width()
	switch {
	case val.Width() > tw:
		val = val.Keep(tw-1, 0) // the clamp keeps it below 2^tw
	case val.Width() < tw:
		val = val.ZExt(tw)
	}
	return derivation{
		q: *q, to: to, start: start,
		busy:  cnt.Expr.Any().Or(doneR).Named(pre + "_busy"),
		done:  doneR.Expr,
		value: val.Named(pre + "_value"),
	}
}
