package hdlgen

import (
	"fmt"
	"math"
)

// Fixed is a fixed-point value: the integer held by Expr, scaled by
// 2^-Frac. Signedness comes from the Expr (two's complement when signed).
// Operations on Fixed values are exact unless they say otherwise: products
// and sums grow, and every loss of precision (Rescale to fewer fraction
// bits) or of range (SatTo, WrapTo) is asked for by name. They are built
// from the primitive operations only, so the checks and the emitter treat
// them like any other logic.
//
// Fixed is a type of its own, not an Expr: it has only the operations
// below, each of which checks the formats it combines (adding a value of 4
// fraction bits to one of 2 is an error at the line that does it, as is
// comparing or choosing between them). Raw reads the integer underneath,
// which gives the format up on purpose.
type Fixed struct {
	e    Expr
	frac int // number of fraction bits, at least 0
}

// Raw is the integer underneath (the value times 2^Frac): for the ports,
// registers and state words that hold a fixed-point value as bits.
func (x Fixed) Raw() Expr { return x.valid() }

// Frac is the number of fraction bits.
func (x Fixed) Frac() int { return x.frac }

// Width is the number of bits.
func (x Fixed) Width() int { return x.valid().Width() }

// Signed reports whether the value is two's complement.
func (x Fixed) Signed() bool { return x.valid().n.signed }

// valid is the integer, or an error for the zero Fixed (not made by
// FixedOf or a constant).
func (x Fixed) valid() Expr {
	if x.e.n == nil {
		return Const(1, 0).fail("a zero Fixed: make fixed-point values with FixedOf, FixedConst or SFixedConst")
	}
	return x.e
}

// Rounding says how Rescale turns a value into one with fewer fraction
// bits. Golden models must mirror it bit for bit; both modes are defined on
// the exact two's complement value, with no special case for the sign. In
// the Go forms below, v is the integer before rescaling (the value times
// 2^frac) and d the number of fraction bits dropped.
type Rounding int

const (
	// Truncate drops the extra fraction bits: the result is the largest
	// representable value not above the exact one (rounding toward minus
	// infinity, floor). A negative value therefore moves away from zero:
	// with one fraction bit dropped, -2.5 becomes -3 and -0.5 becomes -1,
	// while 2.5 becomes 2. In Go: v >> d on an int64 (arithmetic shift).
	Truncate Rounding = iota
	// RoundHalfUp adds half a result LSB and then truncates: the nearest
	// representable value, ties going toward plus infinity. It is not
	// symmetric about zero: 2.5 becomes 3 but -2.5 becomes -2, and -2.75
	// becomes -3. In Go: (v + 1<<(d-1)) >> d on an int64.
	RoundHalfUp
)

func (r Rounding) String() string {
	switch r {
	case Truncate:
		return "Truncate"
	case RoundHalfUp:
		return "RoundHalfUp"
	}
	return fmt.Sprintf("Rounding(%d)", int(r))
}

// FixedOf reads e as a fixed-point value with frac fraction bits.
func FixedOf(e Expr, frac int) Fixed {
	if frac < 0 {
		return Fixed{e.failAt(e.Width(), "fixed-point value with %d fraction bits (must be at least 0)", frac), 0}
	}
	return Fixed{e, frac}
}

// FixedConst is the unsigned fixed-point constant v rounded by r (see
// Rounding) to frac fraction bits, in width bits. The rounding is computed
// in Go on the exact float64 value. A value that is negative or does not
// fit after rounding is an error at the caller's line.
func FixedConst(width, frac int, v float64, r Rounding) Fixed {
	return fixedConst(width, frac, v, r, false)
}

// SFixedConst is the signed (two's complement) fixed-point constant v
// rounded by r to frac fraction bits, in width bits. A value that does not
// fit after rounding is an error at the caller's line.
func SFixedConst(width, frac int, v float64, r Rounding) Fixed {
	return fixedConst(width, frac, v, r, true)
}

func fixedConst(width, frac int, v float64, r Rounding, signed bool) Fixed {
	c := Const(max(min(width, 64), 1), 0)
	if signed {
		c = SConst(max(min(width, 64), 1), 0)
	}
	bad := func(format string, a ...any) Fixed {
		return Fixed{c.fail(format, a...), max(frac, 0)}
	}
	if width < 1 || width > 64 {
		return bad("fixed-point constant width %d out of range 1..64", width)
	}
	if frac < 0 {
		return bad("fixed-point constant with %d fraction bits", frac)
	}
	scaled := math.Ldexp(v, frac) // exact: a power-of-two scaling
	switch r {
	case Truncate:
		scaled = math.Floor(scaled)
	case RoundHalfUp:
		scaled = math.Floor(scaled + 0.5)
	default:
		return bad("unknown rounding %v", r)
	}
	lo, hi := 0.0, math.Ldexp(1, width) // the range is [lo, hi)
	if signed {
		lo, hi = -math.Ldexp(1, width-1), math.Ldexp(1, width-1)
	}
	if math.IsNaN(scaled) || scaled < lo || scaled >= hi {
		kind := "unsigned"
		if signed {
			kind = "signed"
		}
		return bad("fixed-point constant %g rounds to %g/2^%d, outside the %s %d-bit range", v, scaled, frac, kind, width)
	}
	if signed {
		c.n.value = uint64(int64(scaled)) & mask(width)
	} else if scaled >= math.Ldexp(1, 63) {
		c.n.value = uint64(scaled-math.Ldexp(1, 63)) | 1<<63
	} else {
		c.n.value = uint64(scaled)
	}
	return Fixed{c, frac}
}

// Named gives the value a wire name, keeping its scaling.
func (x Fixed) Named(name string) Fixed { return Fixed{x.valid().Named(name), x.frac} }

// withSign gives e the signedness of x (slices and concatenations are
// unsigned).
func (x Fixed) withSign(e Expr) Expr {
	if x.Signed() {
		return e.AsSigned()
	}
	return e.AsUnsigned()
}

// Rescale changes the number of fraction bits to frac. More fraction bits
// append zeros (exact, r is not used). Fewer fraction bits round by r, and
// the result is as wide as it must be to hold every rounded value, so it
// never overflows: with d bits dropped from a w-bit value it is w-d bits
// wide for Truncate and w-d+1 for RoundHalfUp (whose carry can reach a new
// top bit: unsigned 1.5 with one fraction bit rounds to 2); when d >= w,
// 1 and 2 bits. Narrow it afterwards with SatTo or WrapTo. The dropped bits
// are discarded with Keep.
func (x Fixed) Rescale(frac int, r Rounding) Fixed {
	e := x.valid()
	w := e.Width()
	switch {
	case frac < 0:
		return Fixed{e.failAt(w, "Rescale to %d fraction bits (must be at least 0)", frac), x.frac}
	case r != Truncate && r != RoundHalfUp:
		return Fixed{e.failAt(w, "Rescale with unknown rounding %v", r), frac}
	case frac == x.frac:
		return x
	case frac > x.frac:
		d := frac - x.frac
		return Fixed{x.withSign(Cat(e.AsUnsigned(), Const(d, 0))), frac}
	}
	d := x.frac - frac
	if w <= d { // make room for the integer part the shift leaves behind
		e = e.extend(d + 1)
		w = d + 1
	}
	q := x.withSign(e.Keep(w-1, d))
	if r == Truncate {
		return Fixed{q, frac}
	}
	// floor((v + 2^(d-1)) / 2^d) is floor(v / 2^d) plus the first dropped bit
	carry := x.withSign(e.Bit(d - 1).ZExt(w - d + 1))
	return Fixed{q.extend(w - d + 1).Add(carry), frac}
}

// SatTo narrows (or widens) to width bits, keeping the fraction bits and
// clamping a value outside the new range to its nearest end: the largest
// or the smallest representable value (0 for unsigned).
func (x Fixed) SatTo(width int) Fixed {
	e := x.valid()
	w := e.Width()
	switch {
	case width < 1:
		return Fixed{e.failAt(1, "SatTo %d bits", width), x.frac}
	case width >= w:
		return Fixed{e.extend(width), x.frac}
	}
	if !x.Signed() {
		over := e.Slice(w-1, width).Any()
		return Fixed{Mux(over, Ones(width), e.Trunc(width)), x.frac}
	}
	// fits when the dropped bits and the new sign bit are all equal
	top := e.Slice(w-1, width-1)
	fits := top.All().Or(top.IsZero())
	maxV := SConst(width, (int64(1)<<uint(width-1))-1)
	minV := SConst(width, -(int64(1) << uint(width-1)))
	if width == 64 {
		maxV, minV = SConst(64, math.MaxInt64), SConst(64, math.MinInt64)
	}
	return Fixed{Mux(fits, e.Trunc(width), Mux(e.Bit(w-1), minV, maxV)), x.frac}
}

// WrapTo narrows (or widens) to width bits, keeping the fraction bits and
// dropping the high bits: the two's complement wrap-around of Trunc, asked
// for on purpose.
func (x Fixed) WrapTo(width int) Fixed {
	e := x.valid()
	w := e.Width()
	switch {
	case width < 1:
		return Fixed{e.failAt(1, "WrapTo %d bits", width), x.frac}
	case width >= w:
		return Fixed{e.extend(width), x.frac}
	}
	return Fixed{x.withSign(e.Keep(width-1, 0)), x.frac}
}

// MulExact is the exact product: as wide as both operands together, with
// the fraction bits of both. The operands may differ in width and scaling,
// not in signedness.
func (x Fixed) MulExact(o Fixed) Fixed {
	return Fixed{x.valid().MulX(o.valid()), x.frac + o.frac}
}

// MulSat is the product rounded by r to frac fraction bits and then
// clamped to width bits (see Rescale and SatTo).
func (x Fixed) MulSat(o Fixed, width, frac int, r Rounding) Fixed {
	return x.MulExact(o).Rescale(frac, r).SatTo(width)
}

// MulWrap is the product rounded by r to frac fraction bits and then
// wrapped to width bits (see Rescale and WrapTo).
func (x Fixed) MulWrap(o Fixed, width, frac int, r Rounding) Fixed {
	return x.MulExact(o).Rescale(frac, r).WrapTo(width)
}

// AddFixed is the exact sum of values with the same fraction bits and
// signedness: one bit wider than the wider operand.
func (x Fixed) AddFixed(o Fixed) Fixed {
	if msg := fixedOperands("AddFixed", x, o); msg != "" {
		return Fixed{x.valid().failAt(max(x.Width(), o.Width())+1, "%s", msg), x.frac}
	}
	w := max(x.Width(), o.Width())
	return Fixed{x.valid().extend(w).AddX(o.valid().extend(w)), x.frac}
}

// SubFixed is the exact difference of values with the same fraction bits
// and signedness: one bit wider than the wider operand, and signed.
func (x Fixed) SubFixed(o Fixed) Fixed {
	if msg := fixedOperands("SubFixed", x, o); msg != "" {
		return Fixed{x.valid().failAt(max(x.Width(), o.Width())+1, "%s", msg), x.frac}
	}
	w := max(x.Width(), o.Width())
	return Fixed{x.valid().extend(w).SubX(o.valid().extend(w)), x.frac}
}

func fixedOperands(what string, x, o Fixed) string {
	if x.frac != o.frac {
		return fmt.Sprintf("%s of values with %d and %d fraction bits (Rescale one first)", what, x.frac, o.frac)
	}
	if x.Signed() != o.Signed() {
		return fmt.Sprintf("%s of signed and unsigned values (use AsSigned or AsUnsigned)", what)
	}
	return ""
}

// cmp compares values of one format.
func (x Fixed) cmp(what string, o Fixed, f func(a, b Expr) Expr) Expr {
	if msg := fixedOperands(what, x, o); msg != "" {
		return x.valid().failAt(1, "%s", msg)
	}
	w := max(x.Width(), o.Width())
	return f(x.valid().extend(w), o.valid().extend(w))
}

// Lt, Le, Gt, Ge and Eq compare values with the same fraction bits and
// signedness (of any widths).
func (x Fixed) Lt(o Fixed) Expr { return x.cmp("Lt", o, func(a, b Expr) Expr { return a.Lt(b) }) }

// Le is x <= o.
func (x Fixed) Le(o Fixed) Expr { return x.cmp("Le", o, func(a, b Expr) Expr { return a.Le(b) }) }

// Gt is x > o.
func (x Fixed) Gt(o Fixed) Expr { return x.cmp("Gt", o, func(a, b Expr) Expr { return a.Gt(b) }) }

// Ge is x >= o.
func (x Fixed) Ge(o Fixed) Expr { return x.cmp("Ge", o, func(a, b Expr) Expr { return a.Ge(b) }) }

// Eq is x == o.
func (x Fixed) Eq(o Fixed) Expr { return x.cmp("Eq", o, func(a, b Expr) Expr { return a.Eq(b) }) }

// FixedMux is sel ? a : b for values of one format: the same fraction
// bits, signedness and width.
func FixedMux(sel Value, a, b Fixed) Fixed {
	if msg := fixedOperands("FixedMux", a, b); msg != "" {
		return Fixed{a.valid().failAt(a.Width(), "%s", msg), a.frac}
	}
	if a.Width() != b.Width() {
		return Fixed{a.valid().failAt(a.Width(), "FixedMux of %d-bit and %d-bit values (SatTo or WrapTo one first)", a.Width(), b.Width()), a.frac}
	}
	return Fixed{Mux(sel, a.valid(), b.valid()), a.frac}
}
