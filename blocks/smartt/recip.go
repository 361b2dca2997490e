package smartt

import (
	"fmt"

	"github.com/nicgen/nicgen/hdlgen"
)

// RecipTable is the reciprocal ROM of the contract (hdlgen.RecipTable).
func RecipTable(k int) []uint64 { return hdlgen.RecipTable(k) }

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
	e, t := hdlgen.RecipLogic(x.Expr, k, "", nil)
	m.Assign(eOut, e)
	m.Assign(tOut, t)
	return m
}

// newDivider is the contract's divider inside a block's datapath.
func newDivider(cut hdlgen.CutFunc, name string, x hdlgen.Expr, k int) hdlgen.RecipDivider {
	return hdlgen.NewRecipDivider(cut, name, x, k)
}
