package smartt

import (
	"github.com/nicgen/nicgen/hdlgen"
)

// c returns an unsigned constant of the value's width.
func cst(w int, v uint64) hdlgen.Expr { return hdlgen.Const(w, v) }

// minU and maxU of two unsigned values of one width.

// widen zero-extends a to w bits (w >= its width).
func widen(a hdlgen.Expr, w int) hdlgen.Expr { return a.ZExt(w) }

// subFloor is a - min(a, b): a subtraction floored at 0.
func subFloor(a, b hdlgen.Expr) hdlgen.Expr { return a.SubSat(b) }

// satTo narrows an unsigned value to w bits, saturating.
func satTo(a hdlgen.Expr, w int) hdlgen.Expr {
	if a.Width() <= w {
		return a.ZExt(w)
	}
	over := a.Slice(a.Width()-1, w).Any()
	return hdlgen.Mux(over, hdlgen.Ones(w), a.Trunc(w))
}

// units is ceil(x / 2^ByteShift): what a packet of x bytes (or x bytes in
// flight) adds to the byte counters, which count units of 2^ByteShift
// bytes (contract Section 3); x itself when the unit is a byte.
func units(p Params, x hdlgen.Expr, name string) hdlgen.Expr {
	if p.ByteShift == 0 {
		return x
	}
	if p.ByteShift >= x.Width() { // a unit above x's largest value: ceil is 1 for any x > 0
		return x.Any().Named(name)
	}
	w := x.Width() + 1
	return x.ZExt(w).Add(cst(w, 1<<uint(p.ByteShift)-1)).Keep(w-1, p.ByteShift).Named(name)
}

// minSat is min(satTo(a, w), b) for b < 2^w: a saturates to all ones,
// which b never exceeds, so the saturation test (a's high bits) and the
// comparison of a's low bits with b are made side by side.
func minSat(a hdlgen.Expr, w int, b hdlgen.Expr) hdlgen.Expr {
	if a.Width() <= w {
		return hdlgen.MinU(a.ZExt(w), b)
	}
	over := a.Slice(a.Width()-1, w).Any()
	lo := a.Trunc(w)
	return hdlgen.Mux(over.Or(b.Lt(lo)), b, lo)
}

// satAdd is a + b saturating at the width of a (b no wider than a).
func satAdd(a, b hdlgen.Expr) hdlgen.Expr { return a.AddSat(b.ZExt(a.Width())) }
