// Package snyder holds the golden pieces of the Snyder thesis (seed S3,
// ALGORITHMS.md sections 7.1 to 7.4) that the swift and hpcc blocks of
// issue 12 are built from, written from the thesis's text, never from a
// DSL block: Swift's flow-based scaling (Eqs. 3.2 and 3.3) in float64 and
// in the fixed point the hardware will use, Variable Additive Increase
// (Algorithms 1 and 2), and the Sampling Frequency decrease with its fluid
// model (Section 4.1.2).
package snyder

import (
	"fmt"
	"math"

	"github.com/nicgen/nicgen/golden/fixed"
	"math/bits"
)

// FBSParams are Swift's flow-based scaling parameters (S3 Table 3.1).
type FBSParams struct {
	RangeNs float64 // fs_range: 5 x base delay = 25 us
	MinWin  float64 // fs_min_cwnd: 0.1 packets
	MaxWin  float64 // fs_max_cwnd: 50 packets (100 in the datacenter runs)
}

// DefaultFBS is Table 3.1's setting for the small topology.
func DefaultFBS() FBSParams { return FBSParams{RangeNs: 25_000, MinWin: 0.1, MaxWin: 50} }

// AlphaBeta is Eq. 3.3: alpha = fs_range / (1/sqrt(min) - 1/sqrt(max)),
// beta = -alpha / sqrt(max), in ns.
func (p FBSParams) AlphaBeta() (alpha, beta float64) {
	alpha = p.RangeNs / (1/math.Sqrt(p.MinWin) - 1/math.Sqrt(p.MaxWin))
	return alpha, -alpha / math.Sqrt(p.MaxWin)
}

// FBS is Eq. 3.2, fbs = max(0, min(alpha/sqrt(cwnd) + beta, fs_range)):
// the min's missing bound is fs_range, as in Swift. cwnd in
// packets, fbs in ns.
func (p FBSParams) FBS(cwnd float64) float64 {
	a, b := p.AlphaBeta()
	return math.Max(0, math.Min(a/math.Sqrt(cwnd)+b, p.RangeNs))
}

// FBSFixed is flow-based scaling as the hardware computes it: the window
// is an unsigned number of 2^-FracW packets, 1/sqrt(cwnd) comes from a
// table of 2^TableBits entries of 1/sqrt(m) for the window's mantissa m in
// [1, 4) (the window normalised by an even power of two, so that the
// square root of the power is a shift), each the value at its bucket's
// middle rounded to OutW bits; alpha is an integer of 2^-AlphaFrac ns.
// The product is shifted down (truncated) to ns, beta subtracted and the
// result clamped to [0, fs_range]. Its error against FBS is measured by
// TestFBSFixedError and stated in the block's doc.
type FBSFixed struct {
	p                        FBSParams
	FracW, TableBits, OutW   int
	AlphaFrac                int
	alphaFx, betaNs, rangeNs uint64
	table                    []uint64
}

// NewFBSFixed builds the table; fracW must be even (the square root of
// 2^-fracW is a shift).
func NewFBSFixed(p FBSParams, fracW, tableBits, outW, alphaFrac int) (*FBSFixed, error) {
	switch {
	case fracW < 0 || fracW > 24 || fracW%2 != 0:
		return nil, fmt.Errorf("fbs: %d fraction bits of the window: want an even number 0..24", fracW)
	case tableBits < 3 || tableBits > 14 || outW < 4 || outW > 24 || alphaFrac < 0 || alphaFrac > 16:
		return nil, fmt.Errorf("fbs: table of 2^%d entries of %d bits, alpha with %d fraction bits: want 3..14, 4..24 and 0..16", tableBits, outW, alphaFrac)
	case !(p.MinWin > 0 && p.MaxWin > p.MinWin && p.RangeNs > 0 && p.RangeNs < 1e9):
		return nil, fmt.Errorf("fbs: fs_min_cwnd %g, fs_max_cwnd %g, fs_range %g ns: want 0 < min < max and a range below 1 s", p.MinWin, p.MaxWin, p.RangeNs)
	}
	a, b := p.AlphaBeta()
	f := &FBSFixed{p: p, FracW: fracW, TableBits: tableBits, OutW: outW, AlphaFrac: alphaFrac,
		alphaFx: uint64(math.Round(math.Ldexp(a, alphaFrac))), betaNs: uint64(math.Round(-b)), rangeNs: uint64(math.Round(p.RangeNs)),
		table: fixed.RsqrtTable(tableBits, outW)}
	return f, nil
}

// ErrorBound bounds |FBS(x) - FBSParams.FBS(x 2^-FracW)| in ns: the
// table's half bucket moves 1/sqrt(m) by at most 2^-TableBits of itself
// (at m = 1), its rounding by 2^-(OutW+1) of 2^0 more, on a term alpha /
// sqrt(cwnd) that is at most fs_range - beta where fbs is not clamped;
// the truncation to ns adds up to 1 and beta's rounding 0.5.
func (f *FBSFixed) ErrorBound() float64 {
	_, b := f.p.AlphaBeta()
	return (f.p.RangeNs-b)*(math.Ldexp(1, -f.TableBits)+math.Ldexp(1, -f.OutW)) + 1.5
}

// Table is the ROM's contents (for the block and its datasheet).
func (f *FBSFixed) Table() []uint64 { return f.table }

// Rsqrt is 1/sqrt(x 2^-FracW) as r x 2^-shift (x > 0): the table entry of
// the mantissa and the shift that the mantissa's exponent gives.
func (f *FBSFixed) Rsqrt(x uint64) (r uint64, shift int) {
	l := bits.Len64(x)
	e := (l - 1) / 2 // x = m 4^e, m in [1, 4)
	// the top TableBits bits of x below its even-aligned top: x's bits
	// 2e+1 .. 2e+2-TableBits
	var idx uint64
	if d := 2*e + 2 - f.TableBits; d >= 0 {
		idx = x >> uint(d)
	} else {
		idx = x << uint(-d)
	}
	// 1/sqrt(x 2^-F) = (1/sqrt(m)) 2^(F/2 - e) = table 2^(-OutW + F/2 - e)
	return f.table[idx], f.OutW - f.FracW/2 + e
}

// FBS is fbs in whole ns for a window of x 2^-FracW packets; a window of
// 0 reads as the smallest one (fbs is then fs_range).
func (f *FBSFixed) FBS(x uint64) uint64 {
	if x == 0 {
		return f.rangeNs
	}
	r, shift := f.Rsqrt(x)
	hi, lo := bits.Mul64(f.alphaFx, r)
	s := shift + f.AlphaFrac
	var t uint64
	switch {
	case s >= 64:
		t = hi >> uint(s-64)
	case s > 0:
		t = lo>>uint(s) | hi<<uint(64-s)
		if hi>>uint(s) != 0 {
			t = math.MaxUint64 // beyond any range: clamped below
		}
	default:
		t = lo << uint(-s)
		if hi != 0 || lo>>uint(64+s) != 0 {
			t = math.MaxUint64
		}
	}
	if t <= f.betaNs {
		return 0
	}
	return min(t-f.betaNs, f.rangeNs)
}
