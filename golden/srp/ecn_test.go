package srp

import (
	"math/rand/v2"
	"testing"
)

var s2IPD = IPDParams{TimeW: 32, Inc: 800, Dec: 50, Period: 2000, Max: 100_000}

// Worked by hand from S2 Table 1 (IPD+ 800 ns, IPD- 50 ns, t- 2 us).
func TestIPDByHand(t *testing.T) {
	if err := ValidateIPD(s2IPD); err != nil {
		t.Fatal(err)
	}
	var s IPDState
	for i, c := range []struct {
		cn   bool
		now  uint64
		want uint64
	}{
		{true, 0, 800},      // notification: +800, timer from 0
		{false, 1999, 800},  // less than t- since
		{false, 2000, 750},  // one interval
		{false, 5999, 700},  // (5999-0)/2000 = 2 intervals since the notification
		{true, 6500, 1450},  // 3 due (650), then +800; timer from 6500
		{false, 8499, 1450}, // 1999 since
		{false, 64500, 0},   // 29 intervals = 1450
		{false, 1 << 30, 0}, // stays at the floor
	} {
		if got := IPDStep(s2IPD, &s, c.cn, c.now); got != c.want {
			t.Fatalf("event %d (cn %v at %d): IPD %d, want %d", i, c.cn, c.now, got, c.want)
		}
	}
	for i := 0; i < 130; i++ {
		IPDStep(s2IPD, &s, true, 1<<30)
	}
	if s.IPD != 100_000 {
		t.Errorf("130 notifications at once: IPD %d, want the 100000 ceiling", s.IPD)
	}
	if err := ValidateIPD(IPDParams{TimeW: 20, Inc: 800, Dec: 50, Period: 2000, Max: 100_000}); err == nil {
		t.Error("a 20-bit clock passed although the ceiling takes 4 ms to decay")
	}
}

// The lazy decrement equals a timer that fires every t- after the last
// notification, run on unbounded time, over 10^5 random events whose clock
// wraps at 2^32 twice.
func TestIPDMatchesTimer(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var s IPDState
	var ipd, deadline, now uint64 // the timer: unbounded time
	armed := false
	for i := 0; i < 100_000; i++ {
		gap := uint64(rng.ExpFloat64() * 100_000)
		if rng.IntN(200) == 0 {
			gap = rng.Uint64N(1 << 31) // a long idle period, inside the clock's range
		}
		now += gap
		cn := rng.IntN(3) == 0
		for armed && deadline <= now {
			if ipd > s2IPD.Dec {
				ipd -= s2IPD.Dec
			} else {
				ipd = 0
			}
			deadline += s2IPD.Period
		}
		if cn {
			ipd = min(s2IPD.Max, ipd+s2IPD.Inc)
			deadline, armed = now+s2IPD.Period, true
		}
		if got := IPDStep(s2IPD, &s, cn, now%(1<<32)); got != ipd {
			t.Fatalf("event %d (cn %v, now %d): IPD %d, the timer gives %d", i, cn, now, got, ipd)
		}
	}
	if now < 2<<32 {
		t.Fatalf("the clock wrapped fewer than twice (%d ticks)", now)
	}
}
