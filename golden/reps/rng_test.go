package reps

// rng is a small deterministic generator (splitmix64) for stimulus, kept
// apart from the LFSR under test so the two can never be confused.
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9E3779B97F4A7C15
	z := uint64(*r)
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// chance is true with probability num/den.
func (r *rng) chance(num, den uint64) bool { return r.next()%den < num }
