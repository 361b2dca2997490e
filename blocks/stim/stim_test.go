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

// TestShapeProfiles: the shared profiles set the shape alike in every
// block; a hot set shrinks to one connection only where the block has one;
// a block's own profiles leave the shape as it was.
func TestShapeProfiles(t *testing.T) {
	base := Shape{PValid: 0.9, PReady: 0.8, PSame: 0.1, PHot: 0.7, Hot: 16}
	for _, tc := range []struct {
		profile string
		hot     int
		want    Shape
		shared  bool
	}{
		{"same-conn", 16, Shape{PValid: 0.9, PReady: 0.8, PSame: 1, PHot: 1, Hot: 1}, true},
		{"same-conn", 0, Shape{PValid: 0.9, PReady: 0.8, PSame: 1, PHot: 0.7}, true},
		{"idle", 16, Shape{PValid: 0.1, PReady: 0.8, PSame: 0.1, PHot: 0.7, Hot: 16}, true},
		{"backpressure", 16, Shape{PValid: 0.9, PReady: 0.2, PSame: 0.1, PHot: 0.7, Hot: 16}, true},
		{"hazard", 16, Shape{PValid: 1, PReady: 0.8, PSame: 0.1, PHot: 0.7, Hot: 16, Strides: 33}, true},
		{"all-ecn", 16, base, false},
		{"mixed", 16, base, false},
	} {
		s := base
		s.Hot = tc.hot
		want := tc.want
		if !tc.shared {
			want.Hot = tc.hot
		}
		if got := s.Profile(tc.profile, 33); got != tc.shared || s != want {
			t.Errorf("%s (hot %d): shared %v, shape %+v; want %v, %+v", tc.profile, tc.hot, got, s, tc.shared, want)
		}
	}
}

// TestSpacedTicks: a vector event comes after 1, 2 or 3 ticks, with
// chances 1/3, 4/9 and 2/9.
func TestSpacedTicks(t *testing.T) {
	ticks, events, last := 0, 0, 0
	seen := map[int]int{}
	ev := Spaced(New(3), func() { ticks++ }, func([]uint64) {
		events++
		seen[ticks-last]++
		last = ticks
	})
	const n = 90_000
	for i := 0; i < n; i++ {
		ev(nil)
	}
	if events != n || len(seen) != 3 {
		t.Fatalf("%d events, tick counts %v", events, seen)
	}
	for k, want := range map[int]int{1: n / 3, 2: n * 4 / 9, 3: n * 2 / 9} {
		if d := seen[k] - want; d < -n/100 || d > n/100 {
			t.Errorf("%d ticks before %d of %d events, want about %d", k, seen[k], n, want)
		}
	}
}
