package srp

import "fmt"

// ecn_ipd is the ECN baseline S2 compares SRP against (S2:L40, L55, L104,
// Table 1; ALGORITHMS.md section 6.5): InfiniBand-style congestion control
// at the source, one inter-packet delay (IPD) per send queue. Each
// congestion notification adds IPD+ (800 ns); each interval t- (2 us)
// without one takes IPD- (50 ns) off. The IPD is inserted between
// successive packets to the destination.
//
// Choices where the paper is silent:
//   - The t- timer restarts at each notification and after each decrement:
//     decrements fall at stamp + t-, stamp + 2t-, ... after the last
//     notification, and are applied when the next event of the queue
//     arrives (k = floor((now - stamp) / t-) of them at once), which is
//     the same IPD as a timer firing every t- would give, without one.
//   - The IPD floors at 0 and saturates at IPDMax (default 100 us, 125
//     notifications in a row).
//   - A notification first takes the decrements due before it, then adds
//     IPD+ and restarts the timer.
//   - Times wrap at 2^TimeW ticks, and the elapsed time is taken modulo
//     2^TimeW: a queue needs an event (a send opportunity will do) at
//     least once every 2^(TimeW-1) ticks, 2.1 s at 1 ns ticks and 32 bits,
//     or its IPD is decayed by the wrapped time. ValidateIPD also requires
//     an IPD at its ceiling to decay to 0 within that range.

// IPDParams configures ecn_ipd; times in ticks.
type IPDParams struct {
	TimeW  int
	Inc    uint64 // IPD+ (S2 Table 1: 800 ns)
	Dec    uint64 // IPD- (50 ns)
	Period uint64 // t- (2 us)
	Max    uint64 // ceiling of the IPD
}

// ValidateIPD reports parameters under which the lazy timer is not exact.
func ValidateIPD(p IPDParams) error {
	switch {
	case p.TimeW < 2 || p.TimeW > 63:
		return fmt.Errorf("time width %d: want 2..63", p.TimeW)
	case p.Dec == 0 || p.Period == 0:
		return fmt.Errorf("IPD- %d and t- %d must be positive", p.Dec, p.Period)
	case p.Max < p.Inc:
		return fmt.Errorf("IPD ceiling %d is below IPD+ %d", p.Max, p.Inc)
	}
	steps := (p.Max + p.Dec - 1) / p.Dec
	if steps > (uint64(1)<<uint(p.TimeW-1))/p.Period {
		return fmt.Errorf("an IPD of %d takes %d intervals of %d ticks to decay, more than half the %d-bit clock's range", p.Max, steps, p.Period, p.TimeW)
	}
	return nil
}

// IPDState is one send queue's word.
type IPDState struct {
	IPD   uint64
	Stamp uint64 // start of the current t- interval, ticks modulo 2^TimeW
}

// IPDStep applies one event of a send queue at time now: a congestion
// notification (cn) or a send opportunity (the IPD to wait before the
// next packet). It returns the IPD after the event.
func IPDStep(p IPDParams, s *IPDState, cn bool, now uint64) uint64 {
	mask := uint64(1)<<uint(p.TimeW) - 1
	now &= mask
	if k := ((now - s.Stamp) & mask) / p.Period; k > 0 {
		if k > s.IPD/p.Dec { // k*Dec > IPD (compared without the product, which may overflow)
			s.IPD = 0
		} else {
			s.IPD -= k * p.Dec
		}
		s.Stamp = (s.Stamp + k*p.Period) & mask
	}
	if cn {
		s.IPD = min(p.Max, s.IPD+p.Inc)
		s.Stamp = now
	}
	return s.IPD
}
