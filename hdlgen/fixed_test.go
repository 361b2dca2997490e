package hdlgen

import (
	"fmt"
	"strings"
	"testing"
)

// The Go reference of the fixed-point operations, written from the
// definitions in the Rounding doc comments with int64 arithmetic. A golden
// model mirrors exactly these lines.

// refRescale moves v from f+d to f fraction bits (d < 0 adds bits).
func refRescale(v int64, d int, r Rounding) int64 {
	switch {
	case d <= 0:
		return v << uint(-d)
	case r == Truncate:
		return v >> uint(d) // arithmetic: toward minus infinity
	default:
		return (v + int64(1)<<uint(d-1)) >> uint(d)
	}
}

func refSat(v int64, width int, signed bool) int64 {
	if signed {
		return clamp(v, -(int64(1) << uint(width-1)), int64(1)<<uint(width-1)-1)
	}
	return clamp(v, 0, int64(1)<<uint(width)-1)
}

// fixedCase is one output of the fixed-point module: the DSL value built
// from the 6-bit inputs x and y, and its Go reference on their values.
type fixedCase struct {
	name  string
	width int
	build func(x, y Expr) Fixed
	ref   func(x, y int64) int64
}

// fixedCases exercises every operation on both signednesses: x has 3
// fraction bits and y 2, so a product has 5.
func fixedCases(signed bool) []fixedCase {
	in := func(e Expr) Expr {
		if signed {
			return e.AsSigned()
		}
		return e
	}
	fx := func(x Expr) Fixed { return FixedOf(in(x), 3) }
	fy := func(y Expr) Fixed { return FixedOf(in(y), 2) }
	konst, k := FixedConst(6, 5, 0.8, RoundHalfUp), int64(26) // 0.8 * 32 = 25.6 rounds to 26
	if signed {
		konst, k = SFixedConst(6, 5, -0.8, RoundHalfUp), -26 // -25.6 + 0.5 = -25.1, floor -26
	}
	sat := func(v int64, w int) int64 { return refSat(v, w, signed) }
	cases := []fixedCase{
		{"mul_exact", 12, func(x, y Expr) Fixed { return fx(x).MulExact(fy(y)) }, func(x, y int64) int64 { return x * y }},
		{"mul_trunc", 9, func(x, y Expr) Fixed { return fx(x).MulExact(fy(y)).Rescale(2, Truncate) }, func(x, y int64) int64 { return refRescale(x*y, 3, Truncate) }},
		{"mul_rhu", 10, func(x, y Expr) Fixed { return fx(x).MulExact(fy(y)).Rescale(2, RoundHalfUp) }, func(x, y int64) int64 { return refRescale(x*y, 3, RoundHalfUp) }},
		{"mul_up", 14, func(x, y Expr) Fixed { return fx(x).MulExact(fy(y)).Rescale(7, Truncate) }, func(x, y int64) int64 { return refRescale(x*y, -2, Truncate) }},
		{"mulsat_t", 6, func(x, y Expr) Fixed { return fx(x).MulSat(fy(y), 6, 3, Truncate) }, func(x, y int64) int64 { return sat(refRescale(x*y, 2, Truncate), 6) }},
		{"mulsat_r", 6, func(x, y Expr) Fixed { return fx(x).MulSat(fy(y), 6, 3, RoundHalfUp) }, func(x, y int64) int64 { return sat(refRescale(x*y, 2, RoundHalfUp), 6) }},
		{"mulsat_r4", 4, func(x, y Expr) Fixed { return fx(x).MulSat(fy(y), 4, 1, RoundHalfUp) }, func(x, y int64) int64 { return sat(refRescale(x*y, 4, RoundHalfUp), 4) }},
		{"mulwrap_t", 6, func(x, y Expr) Fixed { return fx(x).MulWrap(fy(y), 6, 3, Truncate) }, func(x, y int64) int64 { return refRescale(x*y, 2, Truncate) }},
		{"mulwrap_r", 6, func(x, y Expr) Fixed { return fx(x).MulWrap(fy(y), 6, 3, RoundHalfUp) }, func(x, y int64) int64 { return refRescale(x*y, 2, RoundHalfUp) }},
		{"mul_const", 6, func(x, y Expr) Fixed { return fx(x).MulSat(konst, 6, 3, RoundHalfUp) }, func(x, y int64) int64 { return sat(refRescale(x*k, 5, RoundHalfUp), 6) }},
		{"add", 7, func(x, y Expr) Fixed { return fx(x).AddFixed(FixedOf(in(y), 3)) }, func(x, y int64) int64 { return x + y }},
		{"add_mixed_width", 7, func(x, y Expr) Fixed { return fx(x).AddFixed(FixedOf(in(y).Trunc(4), 3)) }, func(x, y int64) int64 {
			y4 := y & 15
			if signed {
				y4 = s4(uint64(y))
			}
			return x + y4
		}},
		{"sub", 7, func(x, y Expr) Fixed { return fx(x).SubFixed(FixedOf(in(y), 3)) }, func(x, y int64) int64 { return x - y }},
		// dropping as many fraction bits as the value has, or more
		{"drop_all_t", 1, func(x, y Expr) Fixed { return FixedOf(in(x), 6).Rescale(0, Truncate) }, func(x, y int64) int64 { return refRescale(x, 6, Truncate) }},
		{"drop_all_r", 2, func(x, y Expr) Fixed { return FixedOf(in(x), 6).Rescale(0, RoundHalfUp) }, func(x, y int64) int64 { return refRescale(x, 6, RoundHalfUp) }},
		{"drop_more_r", 2, func(x, y Expr) Fixed { return FixedOf(in(y), 8).Rescale(1, RoundHalfUp) }, func(x, y int64) int64 { return refRescale(y, 7, RoundHalfUp) }},
		{"drop_one_r", 6, func(x, y Expr) Fixed { return FixedOf(in(y), 2).Rescale(1, RoundHalfUp) }, func(x, y int64) int64 { return refRescale(y, 1, RoundHalfUp) }},
		{"sat_narrow", 4, func(x, y Expr) Fixed { return fx(x).SatTo(4) }, func(x, y int64) int64 { return sat(x, 4) }},
		{"sat_wide", 8, func(x, y Expr) Fixed { return fx(x).SatTo(8) }, func(x, y int64) int64 { return x }},
		{"wrap_narrow", 4, func(x, y Expr) Fixed { return fy(y).WrapTo(4) }, func(x, y int64) int64 { return y }},
		{"wrap_wide", 9, func(x, y Expr) Fixed { return fy(y).WrapTo(9) }, func(x, y int64) int64 { return y }},
	}
	return cases
}

func fixedModule() *Module {
	m := NewModule("hdlgen_fixed", "Fixed-point operations on 6-bit operands (semantics test).")
	x := m.Input("x", 6, "3 fraction bits")
	y := m.Input("y", 6, "2 fraction bits")
	for _, signed := range []bool{false, true} {
		prefix := "u_"
		if signed {
			prefix = "s_"
		}
		for _, c := range fixedCases(signed) {
			v := c.build(x.Expr, y.Expr)
			if v.Signed() != (signed || c.name == "sub") {
				v = Fixed{v.Raw().failAt(v.Width(), "%s%s: signedness %v", prefix, c.name, v.Signed()), v.Frac()}
			}
			m.Assign(m.Output(prefix+c.name, c.width, ""), v.Raw())
		}
	}
	return m
}

func TestFixedSemantics(t *testing.T) {
	t.Parallel()
	var vectors [][]uint64
	for x := uint64(0); x < 64; x++ {
		for y := uint64(0); y < 64; y++ {
			vectors = append(vectors, []uint64{x, y})
		}
	}
	got := simulate(t, fixedModule(), vectors)
	value := func(raw uint64, signed bool) int64 {
		if signed {
			return int64(raw<<58) >> 58
		}
		return int64(raw)
	}
	var problems []string
	failures, checked := 0, 0
	for i, v := range vectors {
		j := 0
		for _, signed := range []bool{false, true} {
			x, y := value(v[0], signed), value(v[1], signed)
			for _, c := range fixedCases(signed) {
				want := uint64(c.ref(x, y)) & mask(c.width)
				checked++
				if got[i][j] != want {
					failures++
					if len(problems) < 12 {
						problems = append(problems, fmt.Sprintf("signed %v, x = %d (%g), y = %d (%g): %s = %#x, Go reference %#x",
							signed, x, float64(x)/8, y, float64(y)/4, c.name, got[i][j], want))
					}
				}
				j++
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d results differ from the Go reference; first ones:\n%s", failures, checked, strings.Join(problems, "\n"))
	}
}

// TestRoundingDocExamples pins the examples of the Rounding doc comments.
func TestRoundingDocExamples(t *testing.T) {
	for _, c := range []struct {
		v    int64 // with one fraction bit
		r    Rounding
		want int64
	}{
		{-5, Truncate, -3}, {-1, Truncate, -1}, {5, Truncate, 2},
		{5, RoundHalfUp, 3}, {-5, RoundHalfUp, -2},
	} {
		if got := refRescale(c.v, 1, c.r); got != c.want {
			t.Errorf("%v of %g: %d, the doc says %d", c.r, float64(c.v)/2, got, c.want)
		}
	}
	if got := refRescale(-11, 2, RoundHalfUp); got != -3 { // -2.75
		t.Errorf("RoundHalfUp of -2.75: %d, the doc says -3", got)
	}
}

func TestFixedConst(t *testing.T) {
	for _, c := range []struct {
		width, frac int
		v           float64
		r           Rounding
		signed      bool
		want        uint64
	}{
		{6, 5, 0.8, RoundHalfUp, false, 26},
		{6, 5, 0.8, Truncate, false, 25},
		{8, 4, 2.53125, RoundHalfUp, false, 41},  // 40.5 rounds up
		{8, 4, 2.53125, Truncate, false, 40},     // 40.5 drops the half
		{6, 5, -0.8, RoundHalfUp, true, 64 - 26}, // -25.1 floors to -26
		{6, 5, -0.8, Truncate, true, 64 - 26},    // -25.6 floors to -26
		{8, 4, -2.53125, RoundHalfUp, true, 256 - 40},
		{8, 4, -2.53125, Truncate, true, 256 - 41},
		{4, 0, 7.4, RoundHalfUp, true, 7},
		{4, 0, -8, Truncate, true, 8},
		{64, 0, 18446744073709549568, Truncate, false, 18446744073709549568}, // largest float64 below 2^64
		{64, 1, -1, Truncate, true, ^uint64(1)},
	} {
		f := FixedConst(c.width, c.frac, c.v, c.r)
		if c.signed {
			f = SFixedConst(c.width, c.frac, c.v, c.r)
		}
		n := f.Raw().n
		if n.err != "" || n.op != opConst || n.value != c.want || n.width != c.width || n.signed != c.signed || f.Frac() != c.frac {
			t.Errorf("FixedConst(%d, %d, %g, %v) signed %v: value %d width %d signed %v frac %d err %q; want value %d",
				c.width, c.frac, c.v, c.r, c.signed, n.value, n.width, n.signed, f.Frac(), n.err, c.want)
		}
	}
}

// TestFixedErrors checks that each misuse is reported at the line of the
// block that made it, with the exact message.
func TestFixedErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(m *Module, x, y *Signal, at *Loc) Expr
		msg   string
	}{
		{"add_frac", func(m *Module, x, y *Signal, at *Loc) Expr {
			*at = nextLine()
			return FixedOf(x.Expr, 3).AddFixed(FixedOf(y.Expr, 2)).Raw()
		}, "AddFixed of values with 3 and 2 fraction bits (Rescale one first)"},
		{"sub_sign", func(m *Module, x, y *Signal, at *Loc) Expr {
			*at = nextLine()
			return FixedOf(x.Expr, 3).SubFixed(FixedOf(y.AsSigned(), 3)).Raw()
		}, "SubFixed of signed and unsigned values (use AsSigned or AsUnsigned)"},
		{"mul_sign", func(m *Module, x, y *Signal, at *Loc) Expr {
			*at = nextLine()
			return FixedOf(x.Expr, 3).MulExact(FixedOf(y.AsSigned(), 3)).Raw()
		}, "MulX of signed and unsigned values (use AsSigned or AsUnsigned)"},
		{"const_range", func(m *Module, x, y *Signal, at *Loc) Expr {
			*at = nextLine()
			return FixedOf(x.Expr, 3).MulExact(FixedConst(4, 2, 4.0, Truncate)).Raw()
		}, "fixed-point constant 4 rounds to 16/2^2, outside the unsigned 4-bit range"},
		{"const_negative", func(m *Module, x, y *Signal, at *Loc) Expr {
			*at = nextLine()
			return FixedOf(x.Expr, 3).MulExact(FixedConst(4, 2, -0.25, Truncate)).Raw()
		}, "fixed-point constant -0.25 rounds to -1/2^2, outside the unsigned 4-bit range"},
		{"const_signed_range", func(m *Module, x, y *Signal, at *Loc) Expr {
			*at = nextLine()
			return FixedOf(x.AsSigned(), 3).MulExact(SFixedConst(4, 2, 1.875, RoundHalfUp)).Raw()
		}, "fixed-point constant 1.875 rounds to 8/2^2, outside the signed 4-bit range"},
		{"compare_frac", func(m *Module, x, y *Signal, at *Loc) Expr {
			*at = nextLine()
			return FixedOf(x.Expr, 4).Lt(FixedOf(y.Expr, 2))
		}, "Lt of values with 4 and 2 fraction bits (Rescale one first)"},
		{"mux_frac", func(m *Module, x, y *Signal, at *Loc) Expr {
			*at = nextLine()
			return FixedMux(x.Bit(0), FixedOf(x.Expr, 4), FixedOf(y.Expr, 2)).Raw()
		}, "FixedMux of values with 4 and 2 fraction bits (Rescale one first)"},
		{"mux_width", func(m *Module, x, y *Signal, at *Loc) Expr {
			*at = nextLine()
			return FixedMux(x.Bit(0), FixedOf(x.Expr, 2), FixedOf(y.Trunc(5), 2)).Raw()
		}, "FixedMux of 6-bit and 5-bit values (SatTo or WrapTo one first)"},
		{"zero_fixed", func(m *Module, x, y *Signal, at *Loc) Expr {
			m.Assign(m.Output("x_out", 6, ""), x)
			*at = nextLine()
			return Fixed{}.Raw()
		}, "a zero Fixed: make fixed-point values with FixedOf, FixedConst or SFixedConst"},
		{"negative_frac", func(m *Module, x, y *Signal, at *Loc) Expr {
			*at = nextLine()
			return FixedOf(x.Expr, 3).Rescale(-1, Truncate).Raw()
		}, "Rescale to -1 fraction bits (must be at least 0)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := NewModule("fixed_bad", "")
			x := m.Input("x", 6, "")
			y := m.Input("y", 6, "")
			var at Loc
			e := c.build(m, x, y, &at)
			m.Assign(m.Output("out", e.Width(), ""), e)
			m.Assign(m.Output("y_out", 6, ""), y) // y is read whatever the case
			_, err := elaborateNoPanic(t, m)
			want := fmt.Sprintf("%s: widths: module fixed_bad: %s", at, c.msg)
			if err == nil || err.Error() != want {
				t.Errorf("error:\n%v\nwant:\n%s", err, want)
			}
		})
	}
}

// Fixed is not a Value: a fixed-point value goes into plain logic only
// through Raw, never by accident (a Q4 value added to a Q2 Expr).
func TestFixedIsNotAValue(t *testing.T) {
	var v any = FixedOf(Const(4, 1), 2)
	if _, ok := v.(Value); ok {
		t.Error("Fixed implements Value: it can be mixed with plain values")
	}
}

// Comparisons and the multiplexer of values of one format.
func TestFixedCompareAndMux(t *testing.T) {
	m := NewModule("fixed_cmp", "")
	x := m.Input("x", 6, "")
	y := m.Input("y", 4, "")
	a, b := FixedOf(x.Expr, 2), FixedOf(y.Expr, 2)
	m.Assign(m.Output("lt", 1, ""), a.Lt(b))
	m.Assign(m.Output("eq", 1, ""), a.Eq(b))
	m.Assign(m.Output("mx", 6, ""), FixedMux(a.Lt(b), a, b.SatTo(6)).Raw())
	var vectors [][]uint64
	for i := uint64(0); i < 64; i++ {
		for j := uint64(0); j < 16; j++ {
			vectors = append(vectors, []uint64{i, j})
		}
	}
	got := simulate(t, m, vectors)
	for k, v := range vectors {
		lt, eq, mx := got[k][0], got[k][1], got[k][2]
		wantMx := v[1]
		if v[0] >= v[1] {
			wantMx = v[1]
		}
		if v[0] < v[1] {
			wantMx = v[0]
		}
		if lt != b2u(v[0] < v[1]) || eq != b2u(v[0] == v[1]) || mx != wantMx {
			t.Fatalf("x=%d y=%d: lt %d eq %d mx %d", v[0], v[1], lt, eq, mx)
		}
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
