package hdlgen

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

// divisors are constants of the kinds a datapath divides by: small odd
// and even ones, powers of two, periods in ticks (2000 = 2 us at 1 ns),
// and ones whose multiplier needs the largest shift.
var divisors = []uint64{1, 2, 3, 5, 7, 10, 64, 125, 641, 1000, 2000, 4096, 6700417, 1_000_000_007, 1 << 31}

// The plan is exact for every value of its width: all of them for 16 bits,
// the edges and random values for 32 bits, checked in Go from the plan's
// numbers against Go's division.
func TestPlanDivConstExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	for _, n := range []int{16, 32} {
		for _, d := range divisors {
			pl, err := PlanDivConst(n, d)
			if err != nil {
				t.Fatalf("%d bits / %d: %v", n, d, err)
			}
			check := func(x uint64) {
				hi, lo := bits.Mul64(x>>uint(pl.Shift), pl.Mul)
				got := lo >> uint(pl.Post)
				if pl.Post >= 64 {
					got = hi >> uint(pl.Post-64)
				} else if pl.Post > 0 {
					got |= hi << uint(64-pl.Post)
				}
				if pl.Shift >= n {
					got = 0
				}
				if got != x/d {
					t.Fatalf("%d bits / %d with %+v: x = %d gives %d, want %d", n, d, pl, x, got, x/d)
				}
				if BitsFor(x/d) > pl.Width {
					t.Fatalf("%d bits / %d: quotient %d does not fit %d bits", n, d, x/d, pl.Width)
				}
			}
			top := mask(n)
			if n == 16 {
				for x := uint64(0); x <= top; x++ {
					check(x)
				}
				continue
			}
			for k := uint64(0); k < 3000; k++ {
				check(k)
				check(top - k)
				check(k * d & top)
				check((k*d - 1) & top)
				check(rng.Uint64N(top + 1))
			}
		}
	}
	if _, err := PlanDivConst(64, 7); err == nil || !strings.Contains(err.Error(), "at most 64") {
		t.Errorf("a 64-bit division by 7 needs a 65-bit multiplier: got %v", err)
	}
	if _, err := PlanDivConst(8, 0); err == nil {
		t.Errorf("a division by 0 is planned")
	}
}

// The Verilog of DivConst, with the wide products cut into multiplier
// pieces as in a pipeline, divides exactly under Verilator.
func TestDivConstVerilog(t *testing.T) {
	t.Parallel()
	m := NewModule("hdlgen_divconst", "floor(x / d) for constant divisors (DivConst).")
	x := m.Input("x", 32, "dividend")
	for _, d := range divisors {
		q := DivConst(NoCut, fmt.Sprintf("q%d", d), x.Expr, d)
		pl, _ := PlanDivConst(32, d)
		if q.Width() != pl.Width {
			t.Fatalf("/%d: quotient of %d bits, plan says %d", d, q.Width(), pl.Width)
		}
		m.Assign(m.Output(fmt.Sprintf("y%d", d), q.Width(), ""), q)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	var vectors [][]uint64
	for k := uint64(0); k < 200; k++ {
		vectors = append(vectors, []uint64{k}, []uint64{mask(32) - k}, []uint64{(k * 2000) & mask(32)}, []uint64{(k*2000 - 1) & mask(32)})
	}
	for len(vectors) < 5000 {
		vectors = append(vectors, []uint64{rng.Uint64N(1 << 32)})
	}
	got := simulate(t, m, vectors)
	for i, v := range vectors {
		for j, d := range divisors {
			if got[i][j] != v[0]/d {
				t.Fatalf("x = %d: y%d = %d, want %d", v[0], d, got[i][j], v[0]/d)
			}
		}
	}
}
