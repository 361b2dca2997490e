package hdlgen

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// GaloisXor is GaloisSteps: both forms of 32 and 16 steps of the REPS
// LFSR and of 5 steps of a 7-bit one, simulated side by side on random
// states (one module, one build), give the same state, which is also the
// Go reference's (one step: shift right and XOR the taps when the bit
// shifted out is 1).
func TestGaloisXorIsGaloisSteps(t *testing.T) {
	cases := []struct {
		w     int
		taps  uint64
		steps int
	}{{32, 0x80200003, 32}, {7, 0x41, 5}, {32, 0x80200003, 16}}
	m := NewModule("galois", "test")
	for i, tc := range cases {
		s := m.Input(fmt.Sprintf("s%d", i), tc.w, "state")
		m.Assign(m.Output(fmt.Sprintf("chain%d", i), tc.w, "steps"), GaloisSteps(s.Expr, tc.taps, tc.steps))
		m.Assign(m.Output(fmt.Sprintf("matrix%d", i), tc.w, "linear map"), GaloisXor(s.Expr, tc.taps, tc.steps))
	}
	rng := rand.New(rand.NewPCG(32, 7))
	var vecs [][]uint64
	for i := 0; i < 300; i++ {
		var v []uint64
		for _, tc := range cases {
			v = append(v, rng.Uint64()&(uint64(1)<<uint(tc.w)-1))
		}
		vecs = append(vecs, v)
	}
	outs := simulate(t, m, vecs)
	for i, v := range vecs {
		for c, tc := range cases {
			want := v[c]
			for k := 0; k < tc.steps; k++ {
				lsb := want & 1
				want >>= 1
				if lsb == 1 {
					want ^= tc.taps
				}
			}
			if chain, matrix := outs[i][2*c], outs[i][2*c+1]; chain != want || matrix != want {
				t.Fatalf("%d-bit, taps %#x, %d steps, state %#x: chain %#x, matrix %#x, want %#x", tc.w, tc.taps, tc.steps, v[c], chain, matrix, want)
			}
		}
	}
}
