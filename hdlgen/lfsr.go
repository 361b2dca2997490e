package hdlgen

// GaloisSteps is a Galois LFSR state advanced by steps steps: each step
// shifts right by one and, when the bit shifted out is 1, XORs taps into
// the state (taps has the state's width). A draw of several steps uses
// fresh bits, not a shifted copy of the previous draw.
func GaloisSteps(state Expr, taps uint64, steps int) Expr {
	s := state
	for i := 0; i < steps; i++ {
		shifted := s.Shr(1)
		s = Mux(s.Bit(0), shifted.Xor(Const(s.Width(), taps)), shifted)
	}
	return s
}
