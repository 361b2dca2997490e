package fixed

import "math"

// RsqrtTable is a table of 1/sqrt (swift's flow-based scaling and 3CPO's
// watermark controller read it as a ROM) over a mantissa m in [1, 4): entry i
// covers m in [i, i+1) x 2^(2-bits) and holds 1/sqrt of the bucket's
// middle in 2^-outW, rounded; the entries below m = 1 are 0 (never used).
func RsqrtTable(bits, outW int) []uint64 {
	t := make([]uint64, 1<<uint(bits))
	for i := range t {
		mid := (float64(i) + 0.5) * math.Ldexp(1, 2-bits)
		if mid >= 1 {
			t[i] = uint64(math.Round(math.Ldexp(1/math.Sqrt(mid), outW)))
		}
	}
	return t
}
