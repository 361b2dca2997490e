package reps

// LFSR is the block's 32-bit Galois LFSR (taps 32, 22, 2, 1), the only
// source of random EVs. There is one per block, shared by every connection,
// so the order of draws across connections matters.
type LFSR uint32

// lfsrTaps is the Galois feedback mask of x^32 + x^22 + x^2 + x + 1.
const lfsrTaps = 0x80200003

// Step advances the LFSR once: lsb = s&1; s >>= 1; if lsb { s ^= taps }.
func (l *LFSR) Step() {
	s := uint32(*l)
	// Branch-free form of the doc's step: -(s&1) is all ones iff lsb is 1.
	*l = LFSR(s>>1 ^ (-(s & 1) & lfsrTaps))
}

// Draw performs bits steps (one per EV bit, as the RTL does) and returns the
// low bits bits of the new state. bits is 1..32.
func (l *LFSR) Draw(bits int) uint32 {
	s := uint32(*l)
	for range bits {
		s = s>>1 ^ (-(s & 1) & lfsrTaps)
	}
	*l = LFSR(s)
	return s & mask32(bits)
}
