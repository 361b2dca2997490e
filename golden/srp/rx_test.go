package srp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// S2's own numbers (Table 1, S2:L74): tau_p = 2048 bit / 10 Gb/s = 204.8 ns,
// eps = 0.05, so one packet's slot is 215.04 ns; 1 ns ticks, 16 fraction
// bits: 215.04 * 65536 = 14092861.44, rounded up to 14092862. Expected
// grants worked by hand from t_s = max(now, sched), sched += n * slot.
func TestRxPaperExample(t *testing.T) {
	slot := SlotFixed(204.8, 0.05, 16)
	if slot != 14092862 {
		t.Fatalf("SlotFixed = %d, want 14092862", slot)
	}
	rx := NewRx(RxParams{TimeW: 32, FracW: 16, SlotFx: slot})
	for i, c := range []struct {
		res   Reservation
		want  Grant
		sched uint64
	}{
		// idle receiver: granted at once; sched = 1000 + 16 x 215.04 = 4440.64 ns
		{Reservation{N: 16, Now: 1000}, Grant{Ts: 1000, Delay: 0}, 291021792},
		// behind that schedule: t_s = 4440.64 rounded up; sched = 4440.64 + 4 x 215.04 = 5300.8 ns
		{Reservation{N: 4, Now: 2000}, Grant{Ts: 4441, Delay: 2441}, 347393240},
		// the schedule has passed: granted at once
		{Reservation{N: 1, Now: 10000}, Grant{Ts: 10000, Delay: 0}, 10000<<16 + 14092862},
	} {
		if g := rx.Reserve(c.res); g != c.want {
			t.Errorf("reservation %d %+v: grant %+v, want %+v", i, c.res, g, c.want)
		}
		if rx.Schedule() != c.sched {
			t.Errorf("reservation %d: schedule %d, want %d", i, rx.Schedule(), c.sched)
		}
	}
}

// Times wrap at 2^TimeW and are compared as serial numbers.
func TestRxWraps(t *testing.T) {
	rx := NewRx(RxParams{TimeW: 8, FracW: 0, SlotFx: 10})
	for i, c := range []struct {
		res  Reservation
		want Grant
	}{
		{Reservation{N: 1, Now: 250}, Grant{Ts: 250, Delay: 0}}, // schedule 260 = 4 after the wrap
		{Reservation{N: 1, Now: 252}, Grant{Ts: 4, Delay: 8}},   // 4 is 8 ticks after 252
		{Reservation{N: 2, Now: 200}, Grant{Ts: 14, Delay: 70}}, // a late-stamped request: 14 is 70 ahead of 200
		{Reservation{N: 1, Now: 100}, Grant{Ts: 100, Delay: 0}}, // 34 is 66 behind 100
	} {
		if g := rx.Reserve(c.res); g != c.want {
			t.Errorf("reservation %d %+v: grant %+v, want %+v", i, c.res, g, c.want)
		}
	}
	// a reset forgets the schedule, even one ahead of now
	rx.Reserve(Reservation{N: 5, Now: 101}) // booked until 160
	rx.Reset()
	if g := rx.Reserve(Reservation{N: 1, Now: 103}); g != (Grant{Ts: 103}) {
		t.Errorf("after reset: grant %+v, want t_s 103 (nothing booked)", g)
	}
}

// Over 10^6 grants the fixed-point schedule is never earlier than the
// paper's formula in float64, and runs ahead of it by at most 2^-FracW
// ticks per packet granted plus the rounding of t_s up to a tick. The
// measured drift is in docs/blocks/srp.md.
func TestRxDriftAgainstFloat(t *testing.T) {
	for _, c := range []struct {
		name      string
		tauP, eps float64
		fracW     int
		meanGap   float64 // ticks between reservations
	}{
		{"S2 10G 2 Kbit, saturated", 204.8, 0.05, 16, 2000},
		{"S2 10G 2 Kbit, half load", 204.8, 0.05, 16, 7000},
		{"800G 4 KiB, saturated", 40.96, 0.05, 16, 300},
		{"800G 4 KiB, 8 fraction bits", 40.96, 0.05, 8, 300},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := RxParams{TimeW: 48, FracW: c.fracW, SlotFx: SlotFixed(c.tauP, c.eps, c.fracW)}
			rx, fl := NewRx(p), &FloatRx{Slot: (1 + c.eps) * c.tauP}
			rng := rand.New(rand.NewPCG(1, uint64(c.fracW)))
			var now, packets, maxDrift, sumDrift float64
			const grants = 1_000_000
			perPacket := math.Ldexp(1, -c.fracW)
			for i := 0; i < grants; i++ {
				now += math.Floor(rng.ExpFloat64() * c.meanGap)
				n := float64(1 + rng.IntN(16))
				g := rx.Reserve(Reservation{N: uint64(n), Now: uint64(now)})
				ts := fl.Reserve(n, now)
				drift := float64(g.Ts) - ts
				if drift < -1e-6 {
					t.Fatalf("grant %d: fixed t_s %d is %.9f ticks before the float schedule %.6f", i, g.Ts, -drift, ts)
				}
				if bound := packets*perPacket + 1 + 1e-6; drift > bound {
					t.Fatalf("grant %d: fixed t_s %d is %.6f ticks after the float schedule %.6f (bound %.6f)", i, g.Ts, drift, ts, bound)
				}
				if g.Delay != g.Ts-uint64(now) {
					t.Fatalf("grant %d: delay %d, t_s %d, now %.0f", i, g.Delay, g.Ts, now)
				}
				packets += n
				maxDrift = max(maxDrift, drift)
				sumDrift += drift
			}
			t.Logf("%s: %d grants, %.0f packets, %.3g s of schedule; t_s after the float formula by at most %.4f ticks (mean %.4f); relative to the schedule span %.2e",
				c.name, grants, packets, fl.Sched*1e-9, maxDrift, sumDrift/grants, maxDrift/fl.Sched)
		})
	}
}
