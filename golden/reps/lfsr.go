package reps

import "github.com/nicgen/nicgen/golden/fixed"

// LFSR is the block's 32-bit Galois LFSR (golden/fixed), the only source
// of random EVs. There is one per block, shared by every connection, so
// the order of draws across connections matters.
type LFSR = fixed.LFSR
