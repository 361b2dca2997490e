package reps_test

// DefaultProfile is a mixed workload on a block with numConn connections
// and timestamps of timeW bits: mostly sends and acks, some ECN, nacks and
// timeouts, rare opens, a few out-of-range ids and invalid kinds, strong
// connection locality so that same-connection hazards happen every few
// cycles, random valid/ready so both streams see backpressure, and time
// starting just before the wrap.
func DefaultProfile(numConn int, timeW int, stepMax uint64) Profile {
	span := uint64(numConn) + uint64(numConn)/64 + 1
	return Profile{
		Name: "mixed", PValid: 0.9, PReady: 0.85,
		KindWeights: [8]float64{0.003, 0.48, 0.40, 0.05, 0.06, 0.002, 0.002, 0.002},
		PECN:        0.3, PSame: 0.3, PHot: 0.5, HotConns: 8, ConnSpan: span, EVSpan: 1 << 16,
		NowStart: (uint64(1) << uint(timeW)) - 1_000_000, NowStepMax: stepMax,
	}
}
