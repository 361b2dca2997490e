package hdlgen

import (
	"fmt"
	"math/big"
	"math/bits"
	"slices"
)

// DSPWidth is the widest unsigned operand of one hardware multiplier: an
// ECP5 MULT18X18D (18 x 18) and the narrow port of a 7-series DSP48E1
// (25 x 18).
const DSPWidth = 18

// CutFunc ends a value's pipeline stage (Pipeline.Cut, or a block's own
// wrapper of it); NoCut ends none, for a combinational module.
type CutFunc func(name string, v Value) Expr

// NoCut is the CutFunc of a datapath without a pipeline: v itself.
func NoCut(_ string, v Value) Expr { return Cat(v) }

// MulPieces is the full product a*b (a.Width()+b.Width() bits, unsigned)
// ending its stage. Operands no wider than one multiplier make one
// multiplier and the register after it. Wider operands are cut into
// DSPWidth-bit pieces: every partial product is one multiplier ending a
// stage of its own. A row (the pieces of b times one piece of a, or the
// pieces of a times b when b is one piece) is summed by one adder
// (rowSum), which ends the next stage when one operand is a single piece.
// When both are wider, each row ends a stage of its own, and the rows'
// shifted sum ends the stage after: one carry chain per stage after the
// multipliers, whose outputs may be placed far from the adders. The
// product is exact either way.
func MulPieces(cut CutFunc, name string, a, b Expr) Expr {
	if (a.Width() <= DSPWidth && b.Width() <= DSPWidth) || a.Signed() || b.Signed() {
		return cut(name, a.MulX(b).Named(name))
	}
	w := a.Width() + b.Width()
	as, bs := pieces(a), pieces(b)
	shifted := func(x Expr, sh int) Expr {
		if sh > 0 {
			x = Cat(x, Const(sh, 0))
		}
		return x.ZExt(w)
	}
	pps := make([][]Expr, len(as))
	for i, x := range as {
		for j, y := range bs {
			pps[i] = append(pps[i], cut(fmt.Sprintf("%s_pp%d%d", name, i, j), x.MulX(y).Named(fmt.Sprintf("%s_pp%d%d", name, i, j))))
		}
	}
	if len(as) == 1 || len(bs) == 1 {
		// one row or one column: the partial products at 2^(DSPWidth*k)
		var line []Expr
		for i := range as {
			line = append(line, pps[i]...)
		}
		return cut(name, rowSum(line).ZExt(w).Named(name))
	}
	rows := make([]Expr, len(as))
	for i := range as {
		rows[i] = shifted(rowSum(pps[i]), DSPWidth*i)
	}
	var sum Expr
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

// rowSum is the sum of pps[j] * 2^(DSPWidth*j), partial products of at
// most 2*DSPWidth bits each: those of even j do not overlap one another,
// nor do those of odd j, so each set is one concatenation and the sum is
// one adder, however many pieces there are.
func rowSum(pps []Expr) Expr {
	w := 0
	for j, pp := range pps {
		w = max(w, DSPWidth*j+pp.Width())
	}
	packed := func(parity int) Expr {
		var parts []Value // least significant first
		at := 0
		for j := parity; j < len(pps); j += 2 {
			if gap := DSPWidth*j - at; gap > 0 {
				parts = append(parts, Const(gap, 0))
			}
			parts = append(parts, pps[j])
			at = DSPWidth*j + pps[j].Width()
		}
		if len(parts) == 0 {
			return Const(w, 0)
		}
		slices.Reverse(parts) // Cat takes the most significant first
		return Cat(parts...).ZExt(w)
	}
	if len(pps) == 1 {
		return pps[0]
	}
	// the sum fits in w bits (it is x * y for one piece x): no carry out
	return packed(0).Add(packed(1))
}

// pieces splits x into DSPWidth-bit pieces, least significant first.
func pieces(x Expr) []Expr {
	var out []Expr
	for lo := 0; lo < x.Width(); lo += DSPWidth {
		out = append(out, x.Slice(min(lo+DSPWidth, x.Width())-1, lo))
	}
	return out
}

// DivConstPlan is how DivConst divides an n-bit value by d: drop the
// Shift low bits (d's factors of two), multiply by Mul, and keep the
// product's bits from Post up. For every x below 2^n,
// floor(x / d) = ((x >> Shift) * Mul) >> Post.
type DivConstPlan struct {
	Shift int
	Mul   uint64
	Post  int
	Width int // bits of the quotient: enough for (2^n - 1) / d
}

// PlanDivConst finds the multiplier of a division of an n-bit unsigned
// value by the constant d >= 1. With x' = x >> t for d = d' * 2^t (d' odd)
// and n' = n - t, it takes the smallest s for which m = ceil(2^(n'+s)/d')
// exceeds 2^(n'+s)/d' by e/d' with e = m*d' - 2^(n'+s) <= 2^s. Then
// x'*m / 2^(n'+s) = x'/d' + x'*e / (d' * 2^(n'+s)), and the second term is
// below 2^n' * 2^s / (d' * 2^(n'+s)) = 1/d', while x'/d' is at most
// (d'-1)/d' above its floor, so the floor is floor(x'/d') = floor(x/d).
// s = ceil(log2 d') always qualifies (e < d' <= 2^s); m then has at most
// n'+1 bits, which must be at most 64.
func PlanDivConst(n int, d uint64) (DivConstPlan, error) {
	if d == 0 {
		return DivConstPlan{}, fmt.Errorf("division by the constant 0")
	}
	if n < 1 || n > 64 {
		return DivConstPlan{}, fmt.Errorf("division of a %d-bit value: want 1..64 bits", n)
	}
	q := BitsFor(mask(n) / d)
	t := bits.TrailingZeros64(d)
	if t >= n {
		return DivConstPlan{Shift: n, Mul: 0, Post: 0, Width: q}, nil // the quotient is 0
	}
	odd, np := d>>uint(t), n-t
	if odd == 1 {
		return DivConstPlan{Shift: t, Mul: 1, Post: 0, Width: q}, nil
	}
	one := big.NewInt(1)
	bd := new(big.Int).SetUint64(odd)
	for s := 0; ; s++ {
		pow := new(big.Int).Lsh(one, uint(np+s))
		m := new(big.Int).Add(pow, new(big.Int).Sub(bd, one))
		m.Quo(m, bd) // ceil(2^(n'+s) / d')
		e := new(big.Int).Sub(new(big.Int).Mul(m, bd), pow)
		if e.Cmp(new(big.Int).Lsh(one, uint(s))) <= 0 {
			if m.BitLen() > 64 {
				return DivConstPlan{}, fmt.Errorf("division of a %d-bit value by %d needs a %d-bit multiplier: want at most 64", n, d, m.BitLen())
			}
			return DivConstPlan{Shift: t, Mul: m.Uint64(), Post: np + s, Width: q}, nil
		}
	}
}

// DivConst is floor(x / d) for an unsigned x and a constant d >= 1, as a
// product by a constant (PlanDivConst, exact for every x of its width)
// whose multipliers end their stages as MulPieces places them, and whose
// shift is wiring. The quotient is PlanDivConst's Width bits wide.
func DivConst(cut CutFunc, name string, x Expr, d uint64) Expr {
	if x.Signed() {
		return x.failAt(x.Width(), "DivConst of a signed value (use AsUnsigned)")
	}
	pl, err := PlanDivConst(x.Width(), d)
	if err != nil {
		return x.failAt(x.Width(), "DivConst: %v", err)
	}
	if pl.Shift >= x.Width() {
		return Const(pl.Width, 0)
	}
	xs := x
	if pl.Shift > 0 {
		xs = x.Keep(x.Width()-1, pl.Shift) // the remainder's bits: dropped on purpose
	}
	if pl.Mul == 1 {
		return xs.Trunc(pl.Width)
	}
	prod := MulPieces(cut, name+"_prod", xs, Const(BitsFor(pl.Mul), pl.Mul))
	// the bits below Post are the fraction, those above the quotient 0
	return prod.Keep(pl.Post+pl.Width-1, pl.Post).Named(name)
}
