package hdlgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// opInputs are the ports of the operator module; opValues holds the input
// values of one vector in the same order.
type opInputs struct{ a, b, c, amt, sel, isel, n, t1, t2 *Signal }

type opValues struct{ a, b, c, amt, sel, isel, n, t1, t2 uint64 }

func (v opValues) slice() []uint64 {
	return []uint64{v.a, v.b, v.c, v.amt, v.sel, v.isel, v.n, v.t1, v.t2}
}

// opCase is one output of the operator module: the DSL expression and, next
// to it, what it must mean, in plain Go integer arithmetic.
type opCase struct {
	name  string
	width int
	build func(in opInputs) Expr
	ref   func(v opValues) int64 // the exact result; the test keeps its low width bits
}

func s8(x uint64) int64 { return int64(int8(x)) }

func s4(x uint64) int64 { return int64(x<<60) >> 60 }

func clamp(v, lo, hi int64) int64 { return max(lo, min(hi, v)) }

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// serialAfter is RFC 1982 "a later than b" on 8-bit timestamps, written
// from the definition rather than from the hardware's subtraction.
func serialAfter(a, b uint64) bool {
	return (a < b && b-a > 128) || (a > b && a-b < 128)
}

var opCases = []opCase{
	// unsigned arithmetic
	{"add", 8, func(in opInputs) Expr { return in.a.Add(in.b) }, func(v opValues) int64 { return int64(v.a + v.b) }},
	{"add_const", 8, func(in opInputs) Expr { return in.a.Add(Const(8, 200)) }, func(v opValues) int64 { return int64(v.a + 200) }},
	{"sub", 8, func(in opInputs) Expr { return in.a.Sub(in.b) }, func(v opValues) int64 { return int64(v.a) - int64(v.b) }},
	{"mul", 8, func(in opInputs) Expr { return in.a.Mul(in.b) }, func(v opValues) int64 { return int64(v.a * v.b) }},
	{"addx", 9, func(in opInputs) Expr { return in.a.AddX(in.b) }, func(v opValues) int64 { return int64(v.a + v.b) }},
	{"subx", 9, func(in opInputs) Expr { return in.a.SubX(in.b) }, func(v opValues) int64 { return int64(v.a) - int64(v.b) }},
	{"mulx", 16, func(in opInputs) Expr { return in.a.MulX(in.b) }, func(v opValues) int64 { return int64(v.a * v.b) }},
	{"mulx_8x4", 12, func(in opInputs) Expr { return in.a.MulX(in.n) }, func(v opValues) int64 { return int64(v.a * v.n) }},
	{"addsat", 8, func(in opInputs) Expr { return in.a.AddSat(in.b) }, func(v opValues) int64 { return min(int64(v.a+v.b), 255) }},
	{"subsat", 8, func(in opInputs) Expr { return in.a.SubSat(in.b) }, func(v opValues) int64 { return max(int64(v.a)-int64(v.b), 0) }},
	{"addsat4", 4, func(in opInputs) Expr { return in.n.AddSat(in.amt) }, func(v opValues) int64 { return min(int64(v.n+v.amt), 15) }},
	// signed arithmetic
	{"saddx", 9, func(in opInputs) Expr { return in.a.AsSigned().AddX(in.b.AsSigned()) }, func(v opValues) int64 { return s8(v.a) + s8(v.b) }},
	{"ssubx", 9, func(in opInputs) Expr { return in.a.AsSigned().SubX(in.b.AsSigned()) }, func(v opValues) int64 { return s8(v.a) - s8(v.b) }},
	{"smulx", 16, func(in opInputs) Expr { return in.a.AsSigned().MulX(in.b.AsSigned()) }, func(v opValues) int64 { return s8(v.a) * s8(v.b) }},
	{"smulx_8x4", 12, func(in opInputs) Expr { return in.a.AsSigned().MulX(in.n.AsSigned()) }, func(v opValues) int64 { return s8(v.a) * s4(v.n) }},
	{"saddsat", 8, func(in opInputs) Expr { return in.a.AsSigned().AddSat(in.b.AsSigned()) }, func(v opValues) int64 { return clamp(s8(v.a)+s8(v.b), -128, 127) }},
	{"ssubsat", 8, func(in opInputs) Expr { return in.a.AsSigned().SubSat(in.b.AsSigned()) }, func(v opValues) int64 { return clamp(s8(v.a)-s8(v.b), -128, 127) }},
	{"ssubsat4", 4, func(in opInputs) Expr { return in.n.AsSigned().SubSat(in.amt.AsSigned()) }, func(v opValues) int64 { return clamp(s4(v.n)-s4(v.amt), -8, 7) }},
	// bitwise and reductions
	{"and", 8, func(in opInputs) Expr { return in.a.And(in.b) }, func(v opValues) int64 { return int64(v.a & v.b) }},
	{"or", 8, func(in opInputs) Expr { return in.a.Or(in.c) }, func(v opValues) int64 { return int64(v.a | v.c) }},
	{"xor", 8, func(in opInputs) Expr { return in.b.Xor(in.c) }, func(v opValues) int64 { return int64(v.b ^ v.c) }},
	{"not", 8, func(in opInputs) Expr { return in.c.Not() }, func(v opValues) int64 { return int64(^v.c) }},
	{"any", 1, func(in opInputs) Expr { return in.c.Any() }, func(v opValues) int64 { return b2i(v.c != 0) }},
	{"all", 1, func(in opInputs) Expr { return in.c.All() }, func(v opValues) int64 { return b2i(v.c == 0xff) }},
	{"iszero", 1, func(in opInputs) Expr { return in.b.IsZero() }, func(v opValues) int64 { return b2i(v.b == 0) }},
	// comparisons
	{"eq", 1, func(in opInputs) Expr { return in.a.Eq(in.b) }, func(v opValues) int64 { return b2i(v.a == v.b) }},
	{"ne", 1, func(in opInputs) Expr { return in.a.Ne(in.b) }, func(v opValues) int64 { return b2i(v.a != v.b) }},
	{"eqc", 1, func(in opInputs) Expr { return in.c.EqC(0x5a) }, func(v opValues) int64 { return b2i(v.c == 0x5a) }},
	{"lt", 1, func(in opInputs) Expr { return in.a.Lt(in.b) }, func(v opValues) int64 { return b2i(v.a < v.b) }},
	{"le", 1, func(in opInputs) Expr { return in.a.Le(in.b) }, func(v opValues) int64 { return b2i(v.a <= v.b) }},
	{"gt", 1, func(in opInputs) Expr { return in.a.Gt(in.b) }, func(v opValues) int64 { return b2i(v.a > v.b) }},
	{"ge", 1, func(in opInputs) Expr { return in.a.Ge(in.b) }, func(v opValues) int64 { return b2i(v.a >= v.b) }},
	{"slt", 1, func(in opInputs) Expr { return in.a.AsSigned().Lt(in.b.AsSigned()) }, func(v opValues) int64 { return b2i(s8(v.a) < s8(v.b)) }},
	{"sle", 1, func(in opInputs) Expr { return in.a.AsSigned().Le(in.b.AsSigned()) }, func(v opValues) int64 { return b2i(s8(v.a) <= s8(v.b)) }},
	{"sgt", 1, func(in opInputs) Expr { return in.a.AsSigned().Gt(in.b.AsSigned()) }, func(v opValues) int64 { return b2i(s8(v.a) > s8(v.b)) }},
	{"sge", 1, func(in opInputs) Expr { return in.a.AsSigned().Ge(in.b.AsSigned()) }, func(v opValues) int64 { return b2i(s8(v.a) >= s8(v.b)) }},
	{"slt_const", 1, func(in opInputs) Expr { return in.c.AsSigned().Lt(SConst(8, -3)) }, func(v opValues) int64 { return b2i(s8(v.c) < -3) }},
	// shifts
	{"shl3", 8, func(in opInputs) Expr { return in.a.Shl(3) }, func(v opValues) int64 { return int64(v.a << 3) }},
	{"shr3", 8, func(in opInputs) Expr { return in.a.Shr(3) }, func(v opValues) int64 { return int64(v.a >> 3) }},
	{"sshl3", 8, func(in opInputs) Expr { return in.b.AsSigned().Shl(3) }, func(v opValues) int64 { return s8(v.b) << 3 }},
	{"sshr3", 8, func(in opInputs) Expr { return in.b.AsSigned().Shr(3) }, func(v opValues) int64 { return s8(v.b) >> 3 }},
	{"shlv", 8, func(in opInputs) Expr { return in.a.ShlV(in.amt) }, func(v opValues) int64 { return int64(v.a << v.amt) }},
	{"shrv", 8, func(in opInputs) Expr { return in.a.ShrV(in.amt) }, func(v opValues) int64 { return int64(v.a >> v.amt) }},
	{"sshlv", 8, func(in opInputs) Expr { return in.b.AsSigned().ShlV(in.amt) }, func(v opValues) int64 { return s8(v.b) << v.amt }},
	{"sshrv", 8, func(in opInputs) Expr { return in.b.AsSigned().ShrV(in.amt) }, func(v opValues) int64 { return s8(v.b) >> v.amt }},
	// selection
	{"mux", 8, func(in opInputs) Expr { return Mux(in.sel, in.a, in.b) }, func(v opValues) int64 {
		if v.sel == 1 {
			return int64(v.a)
		}
		return int64(v.b)
	}},
	{"index", 8, func(in opInputs) Expr { return Index(in.isel, in.a, in.b, in.c) }, func(v opValues) int64 {
		return int64([]uint64{v.a, v.b, v.c, v.c}[v.isel]) // beyond the options: the last one
	}},
	{"index_signed", 4, func(in opInputs) Expr {
		return Index(in.sel, in.n.AsSigned(), in.amt.AsSigned()).Shr(1)
	}, func(v opValues) int64 {
		if v.sel == 1 {
			return s4(v.amt) >> 1
		}
		return s4(v.n) >> 1
	}},
	// width changes
	{"cat", 13, func(in opInputs) Expr { return Cat(in.a, in.n, in.sel) }, func(v opValues) int64 { return int64(v.a<<5 | v.n<<1 | v.sel) }},
	{"slice", 5, func(in opInputs) Expr { return in.a.Slice(6, 2) }, func(v opValues) int64 { return int64(v.a >> 2) }},
	{"bit", 1, func(in opInputs) Expr { return in.b.Bit(7) }, func(v opValues) int64 { return int64(v.b >> 7) }},
	{"trunc", 3, func(in opInputs) Expr { return in.c.Trunc(3) }, func(v opValues) int64 { return int64(v.c) }},
	{"zext", 8, func(in opInputs) Expr { return in.n.ZExt(8) }, func(v opValues) int64 { return int64(v.n) }},
	{"sext", 8, func(in opInputs) Expr { return in.n.SExt(8) }, func(v opValues) int64 { return s4(v.n) }},
	{"sext_signed", 11, func(in opInputs) Expr { return in.amt.AsSigned().SExt(11) }, func(v opValues) int64 { return s4(v.amt) }},
	{"const_slice", 4, func(in opInputs) Expr { return SConst(8, -3).AsUnsigned().Slice(5, 2) }, func(v opValues) int64 { return int64(uint8(0xfd) >> 2) }},
	// wrapping timestamps
	{"after", 1, func(in opInputs) Expr { return After(in.t1, in.t2) }, func(v opValues) int64 { return b2i(serialAfter(v.t1, v.t2)) }},
	{"at_or_after", 1, func(in opInputs) Expr { return AtOrAfter(in.t1, in.t2) }, func(v opValues) int64 {
		return b2i(v.t1 == v.t2 || serialAfter(v.t1, v.t2))
	}},
}

// opModule exposes every case of opCases as an output.
func opModule() *Module {
	m := NewModule("hdlgen_ops", "Every operator of the DSL, one output each (semantics test).")
	in := opInputs{
		a:    m.Input("a", 8, ""),
		b:    m.Input("b", 8, ""),
		c:    m.Input("c", 8, ""),
		amt:  m.Input("amt", 4, "shift amount"),
		sel:  m.Input("sel", 1, ""),
		isel: m.Input("isel", 2, ""),
		n:    m.Input("n", 4, ""),
		t1:   m.Input("t1", 8, "timestamp"),
		t2:   m.Input("t2", 8, "timestamp"),
	}
	for _, c := range opCases {
		m.Assign(m.Output("y_"+c.name, c.width, ""), c.build(in))
	}
	return m
}

// corner8 are the 8-bit values where carries, signs and saturation change.
var corner8 = []uint64{0, 1, 2, 0x3f, 0x40, 0x41, 0x7e, 0x7f, 0x80, 0x81, 0xbf, 0xc0, 0xfe, 0xff}

// opVectors are every pair of corner values, every shift amount and select,
// timestamps on both sides of the wrap, then random values: n vectors.
func opVectors(n int) []opValues {
	rng := rand.New(rand.NewPCG(1982, 2005))
	random := func() opValues {
		return opValues{
			a: rng.Uint64N(256), b: rng.Uint64N(256), c: rng.Uint64N(256),
			amt: rng.Uint64N(16), sel: rng.Uint64N(2), isel: rng.Uint64N(4), n: rng.Uint64N(16),
			t1: rng.Uint64N(256), t2: rng.Uint64N(256),
		}
	}
	var vs []opValues
	for i, a := range corner8 {
		for j, b := range corner8 {
			v := random()
			v.a, v.b, v.c = a, b, corner8[(i+j)%len(corner8)]
			v.amt = uint64(i+j) % 16
			v.n, v.isel, v.sel = uint64(i)%16, uint64(j)%4, uint64(i+j)%2
			vs = append(vs, v)
		}
	}
	for amt := uint64(0); amt < 16; amt++ {
		for _, b := range corner8 {
			v := random()
			v.amt, v.b, v.a = amt, b, b
			vs = append(vs, v)
		}
	}
	// t1 = t2 + k across the wrap of the counter, k in -130..130
	for _, t2 := range []uint64{0, 1, 0x7f, 0x80, 0xfe, 0xff, 0x3c} {
		for k := int64(-130); k <= 130; k++ {
			v := random()
			v.t2, v.t1 = t2, uint64(int64(t2)+k)&0xff
			vs = append(vs, v)
		}
	}
	for len(vs) < n {
		vs = append(vs, random())
	}
	return vs
}

func TestOperatorSemantics(t *testing.T) {
	t.Parallel()
	const n = 20000
	vs := opVectors(n)
	vectors := make([][]uint64, len(vs))
	for i, v := range vs {
		vectors[i] = v.slice()
	}
	got := simulate(t, opModule(), vectors)
	var problems []string
	failures := 0
	for i, v := range vs {
		for j, c := range opCases {
			want := uint64(c.ref(v)) & mask(c.width)
			if got[i][j] != want {
				failures++
				if len(problems) < 12 {
					problems = append(problems, fmt.Sprintf("vector %d %+v: y_%s = %#x, Go reference %#x", i, v, c.name, got[i][j], want))
				}
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d results differ from the Go reference; first ones:\n%s", failures, len(vs)*len(opCases), strings.Join(problems, "\n"))
	}
}

// TestSerialAfterReference checks the reference itself against the meaning
// of After: t1 = t2 + k is after t2 exactly when 0 < k < 128.
func TestSerialAfterReference(t *testing.T) {
	for t2 := uint64(0); t2 < 256; t2++ {
		for k := int64(-127); k <= 127; k++ {
			t1 := uint64(int64(t2)+k) & 0xff
			if serialAfter(t1, t2) != (k > 0) {
				t.Fatalf("serialAfter(%d, %d) with k = %d", t1, t2, k)
			}
		}
	}
}

// A comparison that one constant operand decides (below 0, above the
// width's largest value) is emitted as that constant, so the Verilog
// lints clean (Verilator -Wall: CMPCONST, UNSIGNED) and still computes
// what the DSL says: every 2-bit x, simulated.
func TestConstantComparisonsFold(t *testing.T) {
	t.Parallel()
	m := NewModule("hdlgen_cmpconst", "Comparisons decided by a constant operand.")
	x := m.Input("x", 2, "")
	zero, top := Const(2, 0), Const(2, 3)
	for name, e := range map[string]Expr{
		"lt_zero": x.Expr.Lt(zero), "top_lt": top.Lt(x.Expr), "gt_top": x.Expr.Gt(top), "zero_gt": zero.Gt(x.Expr),
		"zero_le": zero.Le(x.Expr), "le_top": x.Expr.Le(top), "ge_zero": x.Expr.Ge(zero), "top_ge": top.Ge(x.Expr),
		"lt_two": x.Expr.Lt(Const(2, 2)),
	} {
		m.Assign(m.Output(name, 1, ""), e)
	}
	var vectors [][]uint64
	for v := uint64(0); v < 4; v++ {
		vectors = append(vectors, []uint64{v})
	}
	got := simulate(t, m, vectors)
	var outs []string
	for _, p := range m.Ports() {
		if !p.IsInput() {
			outs = append(outs, p.Name())
		}
	}
	want := map[string]func(v uint64) bool{
		"lt_zero": func(uint64) bool { return false }, "top_lt": func(uint64) bool { return false },
		"gt_top": func(uint64) bool { return false }, "zero_gt": func(uint64) bool { return false },
		"zero_le": func(uint64) bool { return true }, "le_top": func(uint64) bool { return true },
		"ge_zero": func(uint64) bool { return true }, "top_ge": func(uint64) bool { return true },
		"lt_two": func(v uint64) bool { return v < 2 },
	}
	for i, v := range vectors {
		for j, name := range outs {
			if (got[i][j] == 1) != want[name](v[0]) {
				t.Errorf("x = %d: %s = %d", v[0], name, got[i][j])
			}
		}
	}
}
