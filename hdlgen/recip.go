package hdlgen

// RecipTable is the reciprocal ROM of the contract: for every m in
// [2^K, 2^(K+1)), T = floor(2^(2K+2) / (2m + 1)), the reciprocal of the
// middle of m's interval, K+1 bits.
func RecipTable(k int) []uint64 {
	t := make([]uint64, 1<<uint(k))
	for i := range t {
		m := uint64(1)<<uint(k) + uint64(i)
		t[i] = (uint64(1) << uint(2*k+2)) / (2*m + 1)
	}
	return t
}

// RecipLogic is the reciprocal of x: e = floor(log2 x) and the table
// value t, with a stage cut after the normaliser and two after the ROM. prefix
// names the wires; it is empty inside the module smartt_recip_w<W>, which
// has no pipeline (cut is not called).
func RecipLogic(x Expr, k int, prefix string, cut CutFunc) (e, t Expr) {
	w := x.Width()
	ew := BitsFor(uint64(w - 1))
	// leading one: the highest set bit wins, found by halves (a tree of
	// log2(w) levels, not a chain of w)
	_, e = LeadingOne(x, 0, 1<<uint(ew))
	e = e.Named(prefix + "lead")
	if prefix != "" {
		e = cut(prefix+"lead", e)
	}
	// the K bits below the leading one, zero-filled when x is short
	var opts []Value
	for i := 0; i < w; i++ {
		var below Expr
		switch {
		case i >= k:
			below = x.Slice(i-1, i-k)
		case i == 0:
			below = Const(k, 0)
		default:
			below = Cat(x.Slice(i-1, 0), Const(k-i, 0))
		}
		opts = append(opts, below)
	}
	frac := Index(e, opts...).Named(prefix + "mantissa")
	if prefix != "" {
		frac = cut(prefix+"mantissa", frac)
	}
	t = ROM(frac, k+1, RecipTable(k)).Named(prefix + "recip")
	if prefix != "" {
		// the ROM's register is the block RAM's read register, whose
		// clock-to-output (4.26 ns on an ECP5 DP16KD) leaves no room for
		// a product behind it: a second register in the fabric takes it
		t = cut(prefix+"t", cut(prefix+"recip", t))
	}
	return e, t
}

// LeadingOne of the n bits of x from bit lo (n a power of two; bits past
// x's width read as 0): whether any is set, and the index of the highest
// set one relative to lo (0 when none is), log2(n) bits.
func LeadingOne(x Expr, lo, n int) (any, idx Expr) {
	if n == 1 {
		if lo >= x.Width() {
			return False(), Expr{}
		}
		return x.Bit(lo), Expr{}
	}
	h := n / 2
	anyHi, hi := LeadingOne(x, lo+h, h)
	anyLo, low := LeadingOne(x, lo, h)
	if h == 1 {
		return anyHi.Or(anyLo), anyHi
	}
	return anyHi.Or(anyLo), Cat(anyHi, Mux(anyHi, hi, low))
}

// RecipDivider is a reciprocal inside a block's datapath with the block-side
// shift: the logic of smartt_recip_w<W> in line, so that the pipeline can
// cut it (after the normaliser, after the ROM, after each product).
type RecipDivider struct {
	e, t Expr
	k    int
	xw   int
	cut  CutFunc
}

func NewRecipDivider(cut CutFunc, name string, x Expr, k int) RecipDivider {
	e, t := RecipLogic(x, k, name+"_", cut)
	return RecipDivider{e: e, t: t, k: k, xw: x.Width(), cut: cut}
}

// Div is the contract's div(n, x) = (n * T) >> (K + 1 + e), as wide as n
// (the quotient never exceeds n since x >= 1). The bits shifted out are
// dropped on purpose (truncation).
func (d RecipDivider) Div(n Expr, name string) Expr {
	p := MulPieces(d.cut, name+"_prod", n, d.t)
	return d.cut(name, ShrVar(d.cut, name, p, d.k+1, d.e, d.xw, n.Width()))
}

// ShrVar is bits [lo0+e, lo0+e+w) of p (0 past p's top) for e < n: the
// contract's truncating shift. Up to 8 values of e make one 8:1 selection;
// more are shifted in two steps, by e's high bits to a register (w+7 bits
// wide) and then by its low three, so that each step is one selection of at
// most eight words.
func ShrVar(cut CutFunc, name string, p Expr, lo0 int, e Expr, n, w int) Expr {
	bitsOf := func(v Expr, lo, w int) Expr {
		vw := v.Width()
		switch {
		case lo >= vw:
			return Const(w, 0)
		case lo+w-1 >= vw:
			return v.Keep(vw-1, lo).ZExt(w)
		default:
			return v.Keep(lo+w-1, lo)
		}
	}
	if e.Width() <= 3 {
		var opts []Value
		for i := 0; i < n; i++ {
			opts = append(opts, bitsOf(p, lo0+i, w))
		}
		return Index(e, opts...).Named(name)
	}
	var coarse []Value
	for i := 0; i*8 < n; i++ {
		coarse = append(coarse, bitsOf(p, lo0+8*i, w+7))
	}
	q := cut(name+"_coarse", Index(e.Slice(e.Width()-1, 3), coarse...).Named(name+"_coarse"))
	var fine []Value
	for i := 0; i < 8; i++ {
		fine = append(fine, bitsOf(q, i, w))
	}
	return Index(e.Slice(2, 0), fine...).Named(name)
}

// BitsAt is bits [lo, lo+w) of v, zero past either end.
func BitsAt(v Expr, lo, w int) Expr {
	vw := v.Width()
	var parts []Value
	for i := lo + w - 1; i >= lo; i-- {
		if i < 0 || i >= vw {
			parts = append(parts, False())
		} else {
			parts = append(parts, v.Bit(i))
		}
	}
	return Cat(parts...)
}

// RsqrtIndex is the address of a table of 1/sqrt(m) over the mantissa
// m in [1, 4) of x = m 4^pair: pair = floor(floor(log2 x) / 2), the
// leading one's pair of bits, and idx, the tableBits bits of x below bit
// 2 pair + 2 (zero-filled when x is short), each ending a stage (a
// leading-one tree and a wide selection in one stage are too slow for a
// NIC clock). The names are prefix_pair and prefix_idx.
func RsqrtIndex(cut CutFunc, prefix string, x Expr, tableBits int) (pair, idx Expr) {
	xw := x.Width()
	ew := BitsFor(uint64(xw - 1))
	_, e := LeadingOne(x, 0, 1<<uint(ew))
	pair = cut(prefix+"_pair", e.Keep(ew-1, 1).Named(prefix+"_pair"))
	var opts []Value
	for j := 0; j < (xw+1)/2; j++ {
		opts = append(opts, BitsAt(x, 2*j+2-tableBits, tableBits))
	}
	idx = cut(prefix+"_idx", Index(pair, opts...).Named(prefix+"_idx"))
	return pair, idx
}
