package reps

import "testing"

// The doc's default seed and the first draws, computed outside Go with an
// independent bit-by-bit implementation of the step in docs/blocks/reps.md
// ("lsb = s & 1; s = s >> 1; if lsb == 1 { s ^= 0x80200003 }").
const (
	defaultSeed = 0xACE12D3B
	firstDraw16 = 0xB5A3
	secondDraw  = 0x7713
	thirdDraw   = 0x7DEC
	after48     = 0xA7F47DEC // state after 48 steps
)

func TestLFSRKnownDraws(t *testing.T) {
	l := LFSR(defaultSeed)
	for i, want := range []uint32{firstDraw16, secondDraw, thirdDraw} {
		if got := l.Draw(16); got != want {
			t.Fatalf("draw %d = %#x, want %#x", i, got, want)
		}
	}
	if l != after48 {
		t.Fatalf("state after 48 steps = %#x, want %#x", uint32(l), uint32(after48))
	}
}

func TestLFSRStepByHand(t *testing.T) {
	// lsb 0: a plain shift; lsb 1: shift then xor the taps.
	cases := []struct{ in, want uint32 }{
		{0x00000002, 0x00000001},
		{0x00000001, 0x80200003},
		{0x80000000, 0x40000000},
		{0xFFFFFFFF, 0x7FFFFFFF ^ 0x80200003},
	}
	for _, c := range cases {
		l := LFSR(c.in)
		l.Step()
		if uint32(l) != c.want {
			t.Errorf("Step(%#x) = %#x, want %#x", c.in, uint32(l), c.want)
		}
	}
}

func TestLFSRDrawIsSteps(t *testing.T) {
	for _, bits := range []int{1, 5, 8, 16, 31, 32} {
		a, b := LFSR(defaultSeed), LFSR(defaultSeed)
		for range 1000 {
			got := a.Draw(bits)
			for range bits {
				b.Step()
			}
			if a != b {
				t.Fatalf("Draw(%d) left state %#x, %d Steps give %#x", bits, uint32(a), bits, uint32(b))
			}
			if want := uint32(b) & mask32(bits); got != want {
				t.Fatalf("Draw(%d) = %#x, want low bits %#x", bits, got, want)
			}
		}
	}
}

func TestLFSRNeverZero(t *testing.T) {
	for _, seed := range []uint32{1, 0x80000000, defaultSeed, 0xFFFFFFFF} {
		l := LFSR(seed)
		for i := range 1_000_000 {
			l.Step()
			if l == 0 {
				t.Fatalf("seed %#x reached 0 after %d steps", seed, i+1)
			}
		}
	}
}

// gf2 is a 32x32 matrix over GF(2) stored by columns: col[i] is the image
// of the basis vector 1<<i. The Galois step is linear, so its matrix
// powers tell the period without running 2^32 steps.
type gf2 [32]uint32

func (m *gf2) apply(v uint32) uint32 {
	var r uint32
	for i := range 32 {
		if v>>i&1 == 1 {
			r ^= m[i]
		}
	}
	return r
}

func (m *gf2) mul(b *gf2) gf2 {
	var r gf2
	for i := range 32 {
		r[i] = m.apply(b[i])
	}
	return r
}

func (m gf2) pow(e uint64) gf2 {
	var r gf2
	for i := range 32 {
		r[i] = 1 << i
	}
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = r.mul(&m)
		}
		m = m.mul(&m)
	}
	return r
}

// TestLFSRMaximalPeriod checks the doc's "maximal length" claim: the step
// matrix M has order exactly 2^32-1 (M^(2^32-1) = I and M^((2^32-1)/q) != I
// for every prime q | 2^32-1 = 3*5*17*257*65537), so every nonzero seed
// visits all 2^32-1 nonzero states.
func TestLFSRMaximalPeriod(t *testing.T) {
	var m, id gf2
	for i := range 32 {
		l := LFSR(1 << i)
		l.Step()
		m[i] = uint32(l)
		id[i] = 1 << i
	}
	const order = 1<<32 - 1
	if m.pow(order) != id {
		t.Fatal("M^(2^32-1) != I: the period does not divide 2^32-1")
	}
	for _, q := range []uint64{3, 5, 17, 257, 65537} {
		if m.pow(order/q) == id {
			t.Fatalf("M^((2^32-1)/%d) = I: the period is not maximal", q)
		}
	}
}
