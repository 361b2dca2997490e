package fixed

import (
	"math"
	"math/big"
	"testing"
)

// Hand-computed values of div (contract Section 3, "Reciprocal"), K = 10.
func TestDivKnown(t *testing.T) {
	cases := []struct {
		n, x, want uint64
		why        string
	}{
		// x = 1: e = 0, m = 1 << 10 = 1024, T = floor(2^22 / 2049) = 2047;
		// (2^20 * 2047) >> 11 = 2047 * 2^9.
		{1 << 20, 1, 1_048_064, "x=1"},
		// x = 0 divides by 1.
		{1 << 20, 0, 1_048_064, "x=0"},
		// x = 3: e = 1, m = 3 << 9 = 1536, T = floor(4194304 / 3073) = 1364
		// (3073 * 1364 = 4,191,572); (1000 * 1364) >> 12 = 1,364,000 / 4096
		// = 333.007 -> 333.
		{1000, 3, 333, "x=3"},
		// x = 63: m = 63 << 5 = 2016, T = floor(4194304 / 4033) = 1039
		// (4033 * 1039 = 4,190,287); (63 * 2^16 * 1039) >> 16 = 65,457, the
		// worst relative error of the ROM (65,536 exact, -1.205e-3).
		{63 << 16, 63, 65_457, "x=63"},
		// x = 1.5 * 2^40: e = 40, m = x >> 30 = 1536, T = 1364;
		// (3 * 2^50 * 1364) >> 51 = 2046 (exact 2048).
		{3 << 50, 3 << 39, 2046, "x wide"},
		// n * T above 2^64: (2^63 * 1364) >> 12 = 1364 * 2^51.
		{1 << 63, 3, 1364 << 51, "wide product"},
		// x = 2^20 (a window of 16,384 B in cwnd units): m = 1024,
		// T = 2047; (2^30 * 2047) >> 31 = 1023.5 -> 1023.
		{1 << 30, 1 << 20, 1023, "x=2^20"},
	}
	for _, c := range cases {
		if got := Div(c.n, c.x, 10); got != c.want {
			t.Errorf("%s: Div(%d, %d) = %d, want %d", c.why, c.n, c.x, got, c.want)
		}
	}
}

func TestRecipTable(t *testing.T) {
	tab := RecipTable(10)
	if len(tab) != 1024 {
		t.Fatalf("len = %d", len(tab))
	}
	// Entry 0: m = 1024, floor(2^22 / 2049) = 2047; entry 1023: m = 2047,
	// floor(4194304 / 4095) = 1024 (4095 * 1024 = 4,193,280).
	if tab[0] != 2047 || tab[1023] != 1024 {
		t.Fatalf("tab[0] = %d, tab[1023] = %d", tab[0], tab[1023])
	}
	for i, v := range tab {
		// K+1 bits, decreasing, and the value Div uses.
		if v >= 1<<11 || v <= 1<<10-1 || (i > 0 && v > tab[i-1]) {
			t.Fatalf("tab[%d] = %d", i, v)
		}
		x := uint64(1024 + i)
		if got := Div(1<<21, x, 10); got != uint64(v) {
			t.Fatalf("Div(2^21, %d) = %d, want the ROM entry %d", x, got, v)
		}
	}
}

// TestDivError is exhaustive over x in [1, 2^16) for a few n: div is
// within 2^-9 of the exact quotient, plus the floor. It also measures the
// worst relative error of the ROM alone (n large enough that the floor
// does not matter): 1.234 * 2^-10 at x = 63, so the contract's "below
// 2^-10" is not quite true (dividing by the middle of m's interval and
// flooring T both err low, up to 2^-11 + 2^-10 together).
func TestDivError(t *testing.T) {
	worst, worstX := 0.0, uint64(0)
	for _, n := range []uint64{1, 1000, 4096 << 6, 123_456_789_012, 1 << 50, math.MaxUint64} {
		nb := new(big.Float).SetUint64(n)
		for x := uint64(1); x < 1<<16; x++ {
			got := Div(n, x, 10)
			exact, _ := new(big.Float).Quo(nb, new(big.Float).SetUint64(x)).Float64()
			if math.Abs(float64(got)-exact) > exact/512+1 {
				t.Fatalf("Div(%d, %d) = %d, exact %.3f", n, x, got, exact)
			}
			if n == 1<<50 {
				if rel := math.Abs(float64(got)-exact) / exact; rel > worst {
					worst, worstX = rel, x
				}
			}
		}
	}
	t.Logf("worst relative error of div, K = 10: %.4g = %.4g * 2^-10 at x = %d", worst, worst*1024, worstX)
	if worst >= 1.0/512 || worstX != 63 {
		t.Fatalf("worst %.4g at %d", worst, worstX)
	}
}
