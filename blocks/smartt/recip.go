package smartt

import (
	"fmt"

	"github.com/nicgen/nicgen/hdlgen"
)

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

// Recip builds the module smartt_recip_w<W>_k<K>: a leading-one detector, a
// normalising mux and the ROM. For an input x of w bits it outputs e =
// floor(log2 x) (x = 0 reads as 1) and the table value t for the K bits
// below the leading one, so that 1/x ~ t * 2^-(K+1+e). One cycle, no
// divider: the hardware replaces every division by a variable of S0/S1.
func Recip(w, k int) *hdlgen.Module {
	m := hdlgen.NewModule(fmt.Sprintf("smartt_recip_w%d_k%d", w, k), fmt.Sprintf("Reciprocal of a %d-bit value for SMaRTT's divisions (docs/blocks/smartt.md, Section 3):\nleading-one detector, normaliser and a %d-entry ROM; combinational.", w, 1<<uint(k)))
	ew := hdlgen.BitsFor(uint64(w - 1))
	x := m.Input("x", w, "divisor (0 reads as 1)")
	eOut := m.Output("e", ew, "floor(log2 x)")
	tOut := m.Output("t", k+1, "reciprocal table value: 1/x ~ t * 2^-(K+1+e)")
	e, t := recipLogic(x.Expr, k, "", nil)
	m.Assign(eOut, e)
	m.Assign(tOut, t)
	return m
}

// cutFn ends a value's pipeline stage (connpipe.Step.Cut).
type cutFn func(name string, v hdlgen.Value) hdlgen.Expr

// recipLogic is the reciprocal of x: e = floor(log2 x) and the table
// value t, with a stage cut after the normaliser and two after the ROM. prefix
// names the wires; it is empty inside the module smartt_recip_w<W>, which
// has no pipeline (cut is not called).
func recipLogic(x hdlgen.Expr, k int, prefix string, cut cutFn) (e, t hdlgen.Expr) {
	w := x.Width()
	ew := hdlgen.BitsFor(uint64(w - 1))
	// leading one: the highest set bit wins
	e = hdlgen.Const(ew, 0)
	for i := 1; i < w; i++ {
		e = hdlgen.Mux(x.Bit(i), hdlgen.Const(ew, uint64(i)), e)
	}
	e = e.Named(prefix + "lead")
	// the K bits below the leading one, zero-filled when x is short
	var opts []hdlgen.Value
	for i := 0; i < w; i++ {
		var below hdlgen.Expr
		switch {
		case i >= k:
			below = x.Slice(i-1, i-k)
		case i == 0:
			below = hdlgen.Const(k, 0)
		default:
			below = hdlgen.Cat(x.Slice(i-1, 0), hdlgen.Const(k-i, 0))
		}
		opts = append(opts, below)
	}
	frac := hdlgen.Index(e, opts...).Named(prefix + "mantissa")
	if prefix != "" {
		e, frac = cut(prefix+"lead", e), cut(prefix+"mantissa", frac)
	}
	t = hdlgen.ROM(frac, k+1, RecipTable(k)).Named(prefix + "recip")
	if prefix != "" {
		// the ROM's register is the block RAM's read register, whose
		// clock-to-output (4.26 ns on an ECP5 DP16KD) leaves no room for
		// a product behind it: a second register in the fabric takes it
		t = cut(prefix+"t", cut(prefix+"recip", t))
	}
	return e, t
}

// divider is a reciprocal inside a block's datapath with the block-side
// shift: the logic of smartt_recip_w<W> in line, so that the pipeline can
// cut it (after the normaliser, after the ROM, after each product).
type divider struct {
	e, t hdlgen.Expr
	k    int
	xw   int
	cut  cutFn
}

func newDivider(cut cutFn, name string, x hdlgen.Expr, k int) divider {
	e, t := recipLogic(x, k, name+"_", cut)
	return divider{e: e, t: t, k: k, xw: x.Width(), cut: cut}
}

// div is the contract's div(n, x) = (n * T) >> (K + 1 + e), as wide as n
// (the quotient never exceeds n since x >= 1). The bits shifted out are
// dropped on purpose (truncation).
func (d divider) div(n hdlgen.Expr, name string) hdlgen.Expr {
	p := mul(d.cut, name+"_prod", n, d.t)
	w := n.Width()
	pw := p.Width()
	var opts []hdlgen.Value
	for e := 0; e < d.xw; e++ {
		lo := d.k + 1 + e
		hi := lo + w - 1
		switch {
		case lo >= pw:
			opts = append(opts, hdlgen.Const(w, 0))
		case hi >= pw:
			opts = append(opts, p.Keep(pw-1, lo).ZExt(w))
		default:
			opts = append(opts, p.Keep(hi, lo))
		}
	}
	return d.cut(name, hdlgen.Index(d.e, opts...).Named(name))
}
