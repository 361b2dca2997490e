package stim

import (
	"math"
	"testing"
)

// The generator is xorshift64* from the seed's golden-ratio multiple (its
// first outputs against the recurrence written out here), and one seed
// gives one stream.
func TestRandIsXorshiftStar(t *testing.T) {
	seed := uint64(7)
	s := seed*0x9E3779B97F4A7C15 | 1
	r := New(7)
	for i := 0; i < 1000; i++ {
		s ^= s >> 12
		s ^= s << 25
		s ^= s >> 27
		if got, want := r.Next(), s*2685821657736338717; got != want {
			t.Fatalf("output %d: %#x, want %#x", i, got, want)
		}
	}
	a, b := New(3), New(3)
	for i := 0; i < 100; i++ {
		if a.Next() != b.Next() {
			t.Fatal("two generators of one seed differ")
		}
	}
}

// Below stays in range and is near uniform; Hit keeps its probability.
func TestBelowAndHit(t *testing.T) {
	r := New(1)
	const n, draws = 10, 200_000
	var counts [n]int
	for i := 0; i < draws; i++ {
		v := r.Below(n)
		if v >= n {
			t.Fatalf("Below(%d) gave %d", n, v)
		}
		counts[v]++
	}
	for v, c := range counts {
		if math.Abs(float64(c)-draws/n) > 0.05*draws/n {
			t.Errorf("value %d drawn %d times of %d, want about %d", v, c, draws, draws/n)
		}
	}
	for _, p := range []float64{0, 0.01, 0.3, 0.9, 1} {
		hits := 0
		th := ThresholdOf(p)
		for i := 0; i < draws; i++ {
			if r.Hit(th) {
				hits++
			}
		}
		if got := float64(hits) / draws; math.Abs(got-p) > 0.01 {
			t.Errorf("Hit(%v): rate %v", p, got)
		}
	}
	if ThresholdOf(-1) != 0 || ThresholdOf(2) != 1<<53 {
		t.Error("probabilities outside 0..1 are not clamped")
	}
}

// Missing lists what was not reached, in the order named, but not what is
// skipped; Counts reports every case, skipped ones included.
func TestCases(t *testing.T) {
	c := NewCases("a", "b", "c", "d")
	c.Add("b")
	c.Skip("d", true)
	c.Skip("c", false)
	if got := c.Missing(); len(got) != 2 || got[0] != "a" || got[1] != "c" {
		t.Errorf("Missing = %v, want [a c]", got)
	}
	counts := c.Counts()
	if len(counts) != 4 || counts["b"] != 1 || counts["d"] != 0 {
		t.Errorf("Counts = %v", counts)
	}
}

// With strides, connection k returns every k events in phases of
// StridePhase events; without, a forced connection repeats with pSame 1.
func TestLocality(t *testing.T) {
	r := New(5)
	l := NewLocality(r, 0, 4096, 0, 0)
	l.Strides = 3
	for n := uint64(0); n < 3*StridePhase; n++ {
		k := 1 + (n/StridePhase)%3
		if got := l.Pick(r); got != n%k {
			t.Fatalf("event %d: connection %d, want %d", n, got, n%k)
		}
	}
	same := NewLocality(r, 4, 4096, 1, 0)
	same.Force(42)
	for i := 0; i < 100; i++ {
		if got := same.Pick(r); got != 42 {
			t.Fatalf("pSame 1 after Force(42): %d", got)
		}
	}
	hot := NewLocality(r, 3, 100, 0, 1)
	seen := map[uint64]bool{}
	for i := 0; i < 1000; i++ {
		v := hot.Pick(r)
		if v >= 100 {
			t.Fatalf("%d outside the span", v)
		}
		seen[v] = true
	}
	if len(seen) > 3 {
		t.Errorf("pHot 1 with 3 hot connections drew %d distinct ones", len(seen))
	}
}
