package fixed

// LFSR is REPS's 32-bit Galois LFSR (taps 32, 22, 2, 1: docs/blocks/reps.md,
// "The LFSR"), a block-wide source of random bits: REPS's random EVs,
// hpcc's random feedback, the 3CPO token unit's draws.
type LFSR uint32

// LFSRTaps is the Galois feedback mask of x^32 + x^22 + x^2 + x + 1; the
// blocks' RTL steps with the same mask (hdlgen.GaloisSteps).
const LFSRTaps = 0x80200003

// Step advances the LFSR once: lsb = s&1; s >>= 1; if lsb { s ^= taps }.
func (l *LFSR) Step() {
	s := uint32(*l)
	// Branch-free form of the doc's step: -(s&1) is all ones iff lsb is 1.
	*l = LFSR(s>>1 ^ (-(s & 1) & LFSRTaps))
}

// Draw performs bits steps (one per bit drawn, as the RTL does) and
// returns the low bits bits of the new state. bits is 1..32.
func (l *LFSR) Draw(bits int) uint32 {
	s := uint32(*l)
	for range bits {
		s = s>>1 ^ (-(s & 1) & LFSRTaps)
	}
	*l = LFSR(s)
	if bits >= 32 {
		return s
	}
	return s & (uint32(1)<<uint(bits) - 1)
}
