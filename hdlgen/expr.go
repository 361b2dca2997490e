package hdlgen

import (
	"fmt"
	"math/bits"
)

// op is a primitive IR operation. Composite operations (saturating add,
// widening multiply, fixed-point rounding, serial comparison) are built from
// these by the builder functions, so the emitter and the checks only know
// the primitives.
type op int

const (
	opConst op = iota
	opSig      // a reference to a declared signal
	opAdd      // wrap: operands and result of one width
	opSub      // wrap
	opMul      // wrap
	opAnd
	opOr
	opXor
	opNot
	opRedOr
	opRedAnd
	opEq
	opNe
	opLt
	opLe
	opShlC // shift by a constant
	opShrC // logical, or arithmetic when the operand is signed
	opShlV // shift by a variable amount
	opShrV
	opSlice
	opConcat
	opMux   // args: sel, then, else
	opIndex // args: sel, then the options in order: options[sel]
	opCast  // reinterpretation of signedness: no hardware, no name
	opROM   // args: address; a constant table read combinationally
)

var opNames = map[op]string{
	opConst: "const", opSig: "signal", opAdd: "add", opSub: "sub", opMul: "mul",
	opAnd: "and", opOr: "or", opXor: "xor", opNot: "not", opRedOr: "reduce-or",
	opRedAnd: "reduce-and", opEq: "==", opNe: "!=", opLt: "<", opLe: "<=",
	opShlC: "<<", opShrC: ">>", opShlV: "<<", opShrV: ">>", opSlice: "slice",
	opConcat: "concat", opMux: "mux", opIndex: "index", opCast: "cast", opROM: "rom",
}

// node is one IR value. Its width is computed at construction so that the
// builder can go on after a mistake; the mistake itself is kept in err and
// reported by the width pass with the node's Go location.
type node struct {
	op     op
	width  int
	signed bool
	args   []*node
	value  uint64 // opConst
	sig    *Signal
	hi, lo int // opSlice; lo is also the shift amount of opShlC/opShrC
	loc    Loc
	err    string   // a width or signedness error found at construction
	drop   bool     // opSlice: the operand's other bits are discarded on purpose
	rom    []uint64 // opROM: the table, indexed by the address
	name   string   // set by Named or the naming pass
	user   bool     // name given by the designer
}

// Value is anything that can be read as a hardware value: an Expr, or a
// declared signal (ports, registers, wires, variables) which embeds one.
type Value interface {
	node() *node
}

// Expr is a hardware value of a fixed width. Operations never change widths
// silently: mixing widths is an error, and every widening, narrowing or
// saturation is spelled out.
type Expr struct{ n *node }

func (e Expr) node() *node { return e.n }

// Width is the number of bits of the value.
func (e Expr) Width() int { return e.n.width }

// Signed reports whether arithmetic and comparisons treat the value as two's complement.
func (e Expr) Signed() bool { return e.n.signed }

func mk(o op, width int, signed bool, args ...*node) Expr {
	return Expr{&node{op: o, width: width, signed: signed, args: args, loc: callerLoc()}}
}

func (e Expr) fail(format string, a ...any) Expr {
	if e.n.err == "" {
		e.n.err = fmt.Sprintf(format, a...)
	}
	return e
}

// failAt reports a misuse of e on a new node created at the caller's line.
// Recording it on e itself would blame the line that created e (for a
// signal, its declaration) and lose the message if e already had one.
// The node takes the width the designer asked for, so that the values built
// on it do not add errors of their own.
func (e Expr) failAt(width int, format string, a ...any) Expr {
	r := mk(opConcat, max(width, 1), e.n.signed, e.n)
	return r.fail(format, a...)
}

// Const is an unsigned constant of the given width.
func Const(width int, value uint64) Expr {
	e := mk(opConst, width, false)
	e.n.value = value
	if width < 1 || width > 64 {
		return e.fail("constant width %d out of range 1..64", width)
	}
	if width < 64 && value>>uint(width) != 0 {
		return e.fail("constant %d does not fit in %d bits", value, width)
	}
	return e
}

// SConst is a signed two's complement constant of the given width.
func SConst(width int, value int64) Expr {
	e := mk(opConst, width, true)
	if width < 1 || width > 64 {
		return e.fail("constant width %d out of range 1..64", width)
	}
	min, max := -(int64(1) << uint(width-1)), (int64(1)<<uint(width-1))-1
	if width < 64 && (value < min || value > max) {
		return e.fail("signed constant %d does not fit in %d bits", value, width)
	}
	e.n.value = uint64(value) & mask(width)
	return e
}

// True and False are 1-bit constants.
func True() Expr  { return Const(1, 1) }
func False() Expr { return Const(1, 0) }

func mask(width int) uint64 {
	if width >= 64 {
		return ^uint64(0)
	}
	return (uint64(1) << uint(width)) - 1
}

// BitsFor is the number of bits needed to hold every value in 0..max.
func BitsFor(max uint64) int {
	if max == 0 {
		return 1
	}
	return bits.Len64(max)
}

// ---- binary arithmetic ------------------------------------------------------

// mismatch describes why operands a and b (in the designer's order) cannot
// be combined by what, or is empty when they can.
func mismatch(what string, a, b *node) string {
	if a.width != b.width {
		return fmt.Sprintf("%s of %d-bit and %d-bit values: widths must match (use ZExt, SExt or Trunc)", what, a.width, b.width)
	}
	if a.signed != b.signed {
		return fmt.Sprintf("%s of signed and unsigned values (use AsSigned or AsUnsigned)", what)
	}
	return ""
}

func (e Expr) binSame(o op, other Value, what string) Expr {
	b := other.node()
	r := mk(o, e.n.width, e.n.signed, e.n, b)
	if msg := mismatch(what, e.n, b); msg != "" {
		return r.fail("%s", msg)
	}
	return r
}

// Add is a wrapping sum: both operands and the result have one width.
func (e Expr) Add(o Value) Expr { return e.binSame(opAdd, o, "Add") }

// Sub is a wrapping difference.
func (e Expr) Sub(o Value) Expr { return e.binSame(opSub, o, "Sub") }

// Mul is a wrapping product (the low bits only).
func (e Expr) Mul(o Value) Expr { return e.binSame(opMul, o, "Mul") }

// AddX is the exact sum, one bit wider than the operands (which, as for
// Add, have one width and one signedness).
func (e Expr) AddX(o Value) Expr { return e.addX(o, "AddX") }

func (e Expr) addX(o Value, what string) Expr {
	b := Expr{o.node()}
	w := e.n.width + 1
	if msg := mismatch(what, e.n, b.n); msg != "" {
		return mk(opAdd, w, e.n.signed, e.n, b.n).fail("%s", msg)
	}
	return e.extend(w).Add(b.extend(w))
}

// SubX is the exact difference, one bit wider. For unsigned operands the
// result is signed so that a negative difference is representable.
func (e Expr) SubX(o Value) Expr { return e.subX(o, "SubX") }

func (e Expr) subX(o Value, what string) Expr {
	b := Expr{o.node()}
	w := e.n.width + 1
	if msg := mismatch(what, e.n, b.n); msg != "" {
		return mk(opSub, w, true, e.n, b.n).fail("%s", msg)
	}
	return e.extend(w).AsSigned().Sub(b.extend(w).AsSigned())
}

// MulX is the exact product, as wide as both operands together. The
// operands may differ in width but not in signedness.
func (e Expr) MulX(o Value) Expr {
	b := Expr{o.node()}
	w := e.n.width + b.n.width
	if e.n.signed != b.n.signed {
		return mk(opMul, w, e.n.signed, e.n, b.n).fail("MulX of signed and unsigned values (use AsSigned or AsUnsigned)")
	}
	return e.extend(w).Mul(b.extend(w))
}

// AddSat is the sum clamped to the range of the operand width.
func (e Expr) AddSat(o Value) Expr {
	w := e.n.width
	s := e.addX(o, "AddSat")
	if s.n.err != "" {
		return s
	}
	if e.n.signed {
		return saturateSigned(s, w)
	}
	return Mux(s.Bit(w), Ones(w), s.Trunc(w))
}

// SubSat is the difference clamped to the range of the operand width
// (0 for an unsigned difference that would go negative).
func (e Expr) SubSat(o Value) Expr {
	w := e.n.width
	d := e.subX(o, "SubSat")
	if d.n.err != "" {
		return d
	}
	if e.n.signed {
		return saturateSigned(d, w)
	}
	return Mux(d.Bit(w), Const(w, 0), d.Trunc(w).AsUnsigned())
}

// saturateSigned narrows a signed (w+1)-bit value to w bits with clamping.
func saturateSigned(s Expr, w int) Expr {
	top, sign := s.Bit(w), s.Bit(w-1)
	overflow := top.Xor(sign)
	max := SConst(w, (int64(1)<<uint(w-1))-1)
	min := SConst(w, -(int64(1) << uint(w-1)))
	return Mux(overflow, Mux(top, min, max), s.Trunc(w))
}

// Ones is the all-ones unsigned constant of a width (widths up to 64).
func Ones(width int) Expr { return Const(width, mask(width)) }

// ---- bitwise ------------------------------------------------------------------

// And, Or and Xor are bitwise over operands of one width.
func (e Expr) And(o Value) Expr { return e.binSame(opAnd, o, "And") }
func (e Expr) Or(o Value) Expr  { return e.binSame(opOr, o, "Or") }
func (e Expr) Xor(o Value) Expr { return e.binSame(opXor, o, "Xor") }

// Not is the bitwise complement.
func (e Expr) Not() Expr { return mk(opNot, e.n.width, e.n.signed, e.n) }

// Any is 1 when some bit is 1 (reduction or).
func (e Expr) Any() Expr { return mk(opRedOr, 1, false, e.n) }

// All is 1 when every bit is 1 (reduction and).
func (e Expr) All() Expr { return mk(opRedAnd, 1, false, e.n) }

// IsZero is 1 when every bit is 0.
func (e Expr) IsZero() Expr { return e.Any().Not() }

// ---- comparisons ----------------------------------------------------------------

// compare builds x o y; first and second are the operands in the order the
// designer wrote them, for the message.
func compare(o op, x, y *node, what string, first, second *node) Expr {
	r := mk(o, 1, false, x, y)
	if msg := mismatch(what, first, second); msg != "" {
		return r.fail("%s", msg)
	}
	if v, ok := constCompare(o, x, y); ok {
		return Const(1, v)
	}
	return r
}

// constCompare is the value of an unsigned x < y (opLt) or x <= y (opLe)
// that one constant operand decides whatever the other holds: below 0,
// above the width's largest value. Verilator -Wall rejects such a
// comparison (CMPCONST, UNSIGNED); a block reaches one at the edges of
// its parameters' ranges (an n of one bit against 1, a floor of 0).
func constCompare(o op, x, y *node) (uint64, bool) {
	if x.signed || y.signed || (o != opLt && o != opLe) {
		return 0, false
	}
	top := ^uint64(0) >> (64 - x.width)
	isConst := func(n *node, v uint64) bool { return n.op == opConst && n.value == v }
	switch {
	case o == opLt && (isConst(y, 0) || isConst(x, top)):
		return 0, true // x < 0, top < y
	case o == opLe && (isConst(x, 0) || isConst(y, top)):
		return 1, true // 0 <= y, x <= top
	}
	return 0, false
}

func (e Expr) cmp(o op, other Value, what string) Expr {
	return compare(o, e.n, other.node(), what, e.n, other.node())
}

// Eq, Ne, Lt, Le, Gt and Ge compare values of one width and signedness.
func (e Expr) Eq(o Value) Expr { return e.cmp(opEq, o, "Eq") }
func (e Expr) Ne(o Value) Expr { return e.cmp(opNe, o, "Ne") }
func (e Expr) Lt(o Value) Expr { return e.cmp(opLt, o, "Lt") }
func (e Expr) Le(o Value) Expr { return e.cmp(opLe, o, "Le") }
func (e Expr) Gt(o Value) Expr { return compare(opLt, o.node(), e.n, "Gt", e.n, o.node()) }
func (e Expr) Ge(o Value) Expr { return compare(opLe, o.node(), e.n, "Ge", e.n, o.node()) }

// EqC compares with an unsigned constant of the same width.
func (e Expr) EqC(v uint64) Expr { return e.Eq(Const(e.n.width, v)) }

// ---- shifts ---------------------------------------------------------------------

// Shl shifts left by a constant, keeping the width (high bits are lost).
func (e Expr) Shl(n int) Expr {
	r := mk(opShlC, e.n.width, e.n.signed, e.n)
	r.n.lo = n
	if n < 0 || n >= e.n.width {
		return r.fail("Shl by %d of a %d-bit value", n, e.n.width)
	}
	return r
}

// Shr shifts right by a constant: logical for unsigned, arithmetic for signed.
func (e Expr) Shr(n int) Expr {
	r := mk(opShrC, e.n.width, e.n.signed, e.n)
	r.n.lo = n
	if n < 0 || n >= e.n.width {
		return r.fail("Shr by %d of a %d-bit value", n, e.n.width)
	}
	return r
}

// ShlV and ShrV shift by an unsigned variable amount.
func (e Expr) ShlV(amount Value) Expr {
	r := mk(opShlV, e.n.width, e.n.signed, e.n, amount.node())
	if amount.node().signed {
		return r.fail("shift amount must be unsigned")
	}
	return r
}
func (e Expr) ShrV(amount Value) Expr {
	r := mk(opShrV, e.n.width, e.n.signed, e.n, amount.node())
	if amount.node().signed {
		return r.fail("shift amount must be unsigned")
	}
	return r
}

// ---- width changes --------------------------------------------------------------

// Slice is bits hi..lo inclusive, unsigned.
func (e Expr) Slice(hi, lo int) Expr {
	r := mk(opSlice, hi-lo+1, false, e.n)
	r.n.hi, r.n.lo = hi, lo
	if lo < 0 || hi < lo || hi >= e.n.width {
		r.n.width = 1
		return r.fail("Slice [%d:%d] of a %d-bit value", hi, lo, e.n.width)
	}
	base := e.n
	for base.op == opCast { // a cast has no wire: look at what it names
		base = base.args[0]
	}
	if base.op == opConst && base.err == "" { // fold: Verilog has no slice of a literal
		c := Const(hi-lo+1, (base.value>>uint(lo))&mask(hi-lo+1))
		c.n.loc = r.n.loc
		return c
	}
	if lo == 0 && hi == e.n.width-1 && !e.n.signed {
		return e
	}
	return r
}

// Keep is Slice(hi, lo) that discards the operand's other bits on purpose
// (rounding, explicit wrap-around, the top bit of a difference): the usage
// check counts them as read, and the emitter reads them into the module's
// _unused wire, which Verilator's -Wall accepts by its name. Use Slice when
// the other bits are read elsewhere or should be reported if they are not.
func (e Expr) Keep(hi, lo int) Expr {
	r := e.Slice(hi, lo)
	if r.n != e.n && r.n.op == opSlice && r.n.err == "" { // not a fold or the whole of e
		r.n.drop = true
	}
	return r
}

// Bit is bit i as a 1-bit value.
func (e Expr) Bit(i int) Expr { return e.Slice(i, i) }

// Trunc keeps the low width bits: the explicit form of wrap-around narrowing.
func (e Expr) Trunc(width int) Expr {
	if width > e.n.width || width < 1 {
		return e.failAt(width, "Trunc to %d bits of a %d-bit value", width, e.n.width)
	}
	r := e.Slice(width-1, 0)
	if e.n.signed {
		return r.AsSigned()
	}
	return r
}

// ZExt zero-extends to width bits.
func (e Expr) ZExt(width int) Expr {
	if width == e.n.width {
		return e
	}
	if width < e.n.width {
		return e.failAt(width, "ZExt to %d bits of a %d-bit value", width, e.n.width)
	}
	if e.n.op == opConst && !e.n.signed && width <= 64 && e.n.err == "" {
		return Const(width, e.n.value)
	}
	r := Cat(Const(width-e.n.width, 0), e)
	if e.n.signed {
		r = r.fail("ZExt of a signed value (use SExt, or AsUnsigned first)")
	}
	return r
}

// SExt sign-extends to width bits; the result is signed (also when width
// is the operand's own).
func (e Expr) SExt(width int) Expr {
	if width == e.n.width {
		return e.AsSigned()
	}
	if width < e.n.width {
		return e.failAt(width, "SExt to %d bits of a %d-bit value", width, e.n.width)
	}
	ext := width - e.n.width
	sign := e.Bit(e.n.width - 1)
	parts := make([]Value, 0, ext+1)
	for i := 0; i < ext; i++ {
		parts = append(parts, sign)
	}
	parts = append(parts, e.AsUnsigned())
	return Cat(parts...).AsSigned()
}

// extend widens by the operand's own signedness.
func (e Expr) extend(width int) Expr {
	if e.n.signed {
		return e.SExt(width)
	}
	return e.ZExt(width)
}

// AsSigned reinterprets the bits as two's complement.
func (e Expr) AsSigned() Expr {
	if e.n.signed {
		return e
	}
	return mk(opCast, e.n.width, true, e.n)
}

// AsUnsigned reinterprets the bits as unsigned.
func (e Expr) AsUnsigned() Expr {
	if !e.n.signed {
		return e
	}
	return mk(opCast, e.n.width, false, e.n)
}

// Cat concatenates, most significant part first (as Verilog {a, b}).
func Cat(parts ...Value) Expr {
	w := 0
	args := make([]*node, len(parts))
	for i, p := range parts {
		args[i] = p.node()
		w += args[i].width
	}
	r := mk(opConcat, w, false, args...)
	if len(parts) == 0 {
		r.n.width = 1
		return r.fail("Cat of nothing")
	}
	return r
}

// Mux is sel ? then : otherwise.
func Mux(sel, then, otherwise Value) Expr {
	s, t, f := sel.node(), then.node(), otherwise.node()
	r := mk(opMux, t.width, t.signed, s, t, f)
	if s.width != 1 {
		return r.fail("Mux select is %d bits, must be 1", s.width)
	}
	if t.width != f.width || t.signed != f.signed {
		return r.fail("Mux arms of %d and %d bits (signed %v/%v) must match", t.width, f.width, t.signed, f.signed)
	}
	return r
}

// MinU is the smaller of two unsigned values of one width: a comparison
// and a select.
func MinU(a, b Expr) Expr { return Mux(a.Lt(b), a, b) }

// MaxU is the larger of two unsigned values of one width.
func MaxU(a, b Expr) Expr { return Mux(a.Lt(b), b, a) }

// Index selects options[sel]; a sel beyond the options gives the last one.
func Index(sel Value, options ...Value) Expr {
	args := []*node{sel.node()}
	for _, o := range options {
		args = append(args, o.node())
	}
	if len(options) == 0 {
		return mk(opIndex, 1, false, args...).fail("Index with no options")
	}
	first := options[0].node()
	r := mk(opIndex, first.width, first.signed, args...)
	for _, o := range options[1:] {
		if o.node().width != first.width || o.node().signed != first.signed {
			return r.fail("Index options of %d and %d bits must match", first.width, o.node().width)
		}
	}
	if sel.node().signed {
		return r.fail("Index select must be unsigned")
	}
	if uint64(len(options)) > uint64(1)<<uint(min(sel.node().width, 63)) {
		return r.fail("Index with %d options needs more than %d select bits", len(options), sel.node().width)
	}
	return r
}

// Named gives the value a readable wire name in the generated Verilog.
func (e Expr) Named(name string) Expr {
	if e.n.op == opSig || e.n.op == opConst || e.n.op == opCast || e.n.name != "" {
		// references, literals and casts have no wire of their own, and a
		// node keeps its first name: give the name to a copy wire instead
		w := mk(opConcat, e.n.width, e.n.signed, e.n)
		w.n.name, w.n.user = name, true
		return w
	}
	e.n.name, e.n.user = name, true
	return e
}

// ---- wrap-safe timestamps -------------------------------------------------------

// After is serial-number arithmetic on wrapping timestamps (RFC 1982): a is
// strictly later than b when a != b and (a - b) mod 2^w lies in the lower
// half of the range. Valid while the true distance is below 2^(w-1).
func After(a, b Value) Expr {
	x, y := Expr{a.node()}, Expr{b.node()}
	d := x.AsUnsigned().Sub(y.AsUnsigned())
	// a != b is compared beside the subtraction, not from its result, so
	// the equality does not wait for the carry chain
	return x.AsUnsigned().Ne(y.AsUnsigned()).And(d.Keep(d.Width()-1, d.Width()-1).Not())
}

// AtOrAfter is After or equal.
func AtOrAfter(a, b Value) Expr {
	x, y := Expr{a.node()}, Expr{b.node()}
	d := x.AsUnsigned().Sub(y.AsUnsigned())
	// only the top bit of the difference matters: the others are dropped
	// on purpose (the usage check would otherwise report them)
	return d.Keep(d.Width()-1, d.Width()-1).Not()
}
