package smartt

import (
	"fmt"
	"slices"

	"github.com/nicgen/nicgen/hdlgen"
)

// c returns an unsigned constant of the value's width.
func cst(w int, v uint64) hdlgen.Expr { return hdlgen.Const(w, v) }

// minU and maxU of two unsigned values of one width.
func minU(a, b hdlgen.Expr) hdlgen.Expr { return hdlgen.Mux(a.Lt(b), a, b) }
func maxU(a, b hdlgen.Expr) hdlgen.Expr { return hdlgen.Mux(a.Lt(b), b, a) }

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
	w := x.Width() + 1
	return x.ZExt(w).Add(cst(w, 1<<uint(p.ByteShift)-1)).Keep(w-1, p.ByteShift).Named(name)
}

// minSat is min(satTo(a, w), b) for b < 2^w: a saturates to all ones,
// which b never exceeds, so the saturation test (a's high bits) and the
// comparison of a's low bits with b are made side by side.
func minSat(a hdlgen.Expr, w int, b hdlgen.Expr) hdlgen.Expr {
	if a.Width() <= w {
		return minU(a.ZExt(w), b)
	}
	over := a.Slice(a.Width()-1, w).Any()
	lo := a.Trunc(w)
	return hdlgen.Mux(over.Or(b.Lt(lo)), b, lo)
}

// satAdd is a + b saturating at the width of a (b no wider than a).
func satAdd(a, b hdlgen.Expr) hdlgen.Expr { return a.AddSat(b.ZExt(a.Width())) }

// dspW is the widest unsigned operand of one hardware multiplier: an ECP5
// MULT18X18D (18 x 18) and the narrow port of a 7-series DSP48E1 (25 x 18).
const dspW = 18

// mul is the full product a*b (a.Width()+b.Width() bits, unsigned) ending
// its stage. Operands no wider than one multiplier make one multiplier and
// the register after it. Wider operands are cut into dspW-bit pieces: every
// partial product is one multiplier ending a stage of its own. A row (the
// pieces of b times one piece of a, or the pieces of a times b when b is
// one piece) is summed by one adder (rowSum), which ends the next stage
// when one operand is a single piece. When both
// are wider, each row ends a stage of its own, and the rows' shifted sum
// ends the stage after: one carry chain per stage after the multipliers,
// whose outputs may be placed far from the adders (docs/blocks/smartt.md,
// "Clock"). The product is exact either way.
func mul(cut cutFn, name string, a, b hdlgen.Expr) hdlgen.Expr {
	if (a.Width() <= dspW && b.Width() <= dspW) || a.Signed() || b.Signed() {
		return cut(name, a.MulX(b).Named(name))
	}
	w := a.Width() + b.Width()
	as, bs := pieces(a), pieces(b)
	shifted := func(x hdlgen.Expr, sh int) hdlgen.Expr {
		if sh > 0 {
			x = hdlgen.Cat(x, cst(sh, 0))
		}
		return x.ZExt(w)
	}
	pps := make([][]hdlgen.Expr, len(as))
	for i, x := range as {
		for j, y := range bs {
			pps[i] = append(pps[i], cut(fmt.Sprintf("%s_pp%d%d", name, i, j), x.MulX(y).Named(fmt.Sprintf("%s_pp%d%d", name, i, j))))
		}
	}
	if len(as) == 1 || len(bs) == 1 {
		// one row or one column: the partial products at 2^(dspW*k)
		var line []hdlgen.Expr
		for i := range as {
			line = append(line, pps[i]...)
		}
		return cut(name, rowSum(line).ZExt(w).Named(name))
	}
	rows := make([]hdlgen.Expr, len(as))
	for i := range as {
		rows[i] = shifted(rowSum(pps[i]), dspW*i)
	}
	var sum hdlgen.Expr
	for i, r := range rows {
		r = cut(fmt.Sprintf("%s_row%d", name, i), r.Named(fmt.Sprintf("%s_row%d", name, i)))
		if i == 0 {
			sum = r
		} else {
			sum = sum.Add(r)
		}
	}
	return cut(name, sum.Named(name))
}

// rowSum is the sum of pps[j] * 2^(dspW*j), partial products of at most
// 2*dspW bits each: those of even j do not overlap one another, nor do
// those of odd j, so each set is one concatenation and the sum is one
// adder, however many pieces there are.
func rowSum(pps []hdlgen.Expr) hdlgen.Expr {
	w := 0
	for j, pp := range pps {
		w = max(w, dspW*j+pp.Width())
	}
	packed := func(parity int) hdlgen.Expr {
		var parts []hdlgen.Value // least significant first
		at := 0
		for j := parity; j < len(pps); j += 2 {
			if gap := dspW*j - at; gap > 0 {
				parts = append(parts, cst(gap, 0))
			}
			parts = append(parts, pps[j])
			at = dspW*j + pps[j].Width()
		}
		if len(parts) == 0 {
			return cst(w, 0)
		}
		slices.Reverse(parts) // hdlgen.Cat takes the most significant first
		return hdlgen.Cat(parts...).ZExt(w)
	}
	if len(pps) == 1 {
		return pps[0]
	}
	// the sum fits in w bits (it is x * y for one piece x): no carry out
	return packed(0).Add(packed(1))
}

// pieces splits x into dspW-bit pieces, least significant first.
func pieces(x hdlgen.Expr) []hdlgen.Expr {
	var out []hdlgen.Expr
	for lo := 0; lo < x.Width(); lo += dspW {
		out = append(out, x.Slice(min(lo+dspW, x.Width())-1, lo))
	}
	return out
}
