// Package fixed holds the fixed-point and random-number helpers that
// several golden models share, each written once from its contract: the
// reciprocal divider of SMaRTT's contract (Div, its ROM RecipTable), a
// 128-bit multiply-and-shift (MulShr), the 32-bit Galois LFSR of REPS
// (LFSR), which hpcc and 3CPO's token unit draw from too, and the 1/sqrt
// table of swift's flow-based scaling and 3CPO (RsqrtTable).
package fixed

import "math/bits"

// Div is the contract's div(n, x) with K = k index bits (docs/blocks/smartt.md,
// Section 3, "Reciprocal"): the one approximate division of the datapath, built from a
// leading-one detector, a shifter, a 2^k-entry ROM and a multiplier.
//
// With e = floor(log2 x), m is x normalised to k+1 bits (2^k <= m <
// 2^(k+1), truncating when x is wider), T = floor(2^(2k+2) / (2m + 1)) is
// the reciprocal of the middle of m's interval, and the result is
// (n * T) >> (k + 1 + e). x = 0 divides by 1. The product n * T is formed
// in 128 bits, so the result is exact for every n.
//
// The relative error against n / x is below 2^-9 plus the final floor: up
// to 2^-(k+1) from dividing by the middle of m's interval and up to 2^-k
// from the floor of T (TestDivError measures the worst case).
func Div(n, x uint64, k int) uint64 {
	m, e := Norm(x, k)
	t := (uint64(1) << (2*k + 2)) / (2*m + 1)
	return MulShr(n, t, uint(k+1+e))
}

// Norm is Div's normalisation of x (0 read as 1): m, x to k+1 bits
// (2^k <= m < 2^(k+1), truncated when x is wider), and e = floor(log2 x).
func Norm(x uint64, k int) (m uint64, e int) {
	if x == 0 {
		x = 1
	}
	e = bits.Len64(x) - 1
	if e >= k {
		return x >> (e - k), e
	}
	return x << (k - e), e
}

// recip is the ROM entry T for index i = m - 2^k, 0 <= i < 2^k.
func recip(i uint64, k int) uint64 {
	m := uint64(1)<<k + i
	return (uint64(1) << (2*k + 2)) / (2*m + 1)
}

// RecipTable returns the ROM of Div: entry i is floor(2^(2k+2) /
// (2(2^k + i) + 1)), a (k+1)-bit value, for i in [0, 2^k). k must be in
// 1..20 (the models' Validate).
func RecipTable(k int) []uint32 {
	t := make([]uint32, 1<<k)
	for i := range t {
		t[i] = uint32(recip(uint64(i), k))
	}
	return t
}

// MulShr is (a * b) >> s with the product formed in 128 bits (s < 128).
func MulShr(a, b uint64, s uint) uint64 {
	hi, lo := bits.Mul64(a, b)
	if s >= 64 {
		return hi >> (s - 64)
	}
	return lo>>s | hi<<(64-s)
}
