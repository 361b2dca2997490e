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

// GaloisXor is GaloisSteps computed as what it is, a linear map over
// GF(2): each bit of the advanced state is the XOR of the state bits the
// steps carry into it, taken as a balanced tree (a LUT4 level per four
// bits) rather than as steps multiplexed one after another, whose chain
// synthesis does not always flatten (32 steps of x^32 + x^22 + x^2 + x + 1
// mapped to 15 LUT levels on ECP5).
func GaloisXor(state Expr, taps uint64, steps int) Expr {
	w := state.Width()
	if w > 64 {
		return state.fail("GaloisXor of a %d-bit state: at most 64", w)
	}
	// feed[j]: the state bits whose XOR is bit j after the steps so far
	feed := make([]uint64, w)
	for j := range feed {
		feed[j] = 1 << uint(j)
	}
	for i := 0; i < steps; i++ {
		out := feed[0]
		for j := 0; j < w; j++ {
			next := uint64(0)
			if j+1 < w {
				next = feed[j+1]
			}
			if taps>>uint(j)&1 == 1 {
				next ^= out
			}
			feed[j] = next
		}
	}
	bitsOut := make([]Value, w)
	for j := 0; j < w; j++ {
		var terms []Expr
		for k := 0; k < w; k++ {
			if feed[j]>>uint(k)&1 == 1 {
				terms = append(terms, state.Bit(k))
			}
		}
		bitsOut[w-1-j] = xorTree(terms)
	}
	return Cat(bitsOut...)
}

// xorTree is the XOR of terms as a balanced tree; 0 when there is none.
func xorTree(terms []Expr) Expr {
	switch len(terms) {
	case 0:
		return Const(1, 0)
	case 1:
		return terms[0]
	}
	h := len(terms) / 2
	return xorTree(terms[:h]).Xor(xorTree(terms[h:]))
}
