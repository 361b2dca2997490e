// Package srp is the golden model of the Speculative Reservation Protocol
// (seed S2; ALGORITHMS.md section 6, ambiguities ), written from
// the paper's text, never from a DSL block or generated Verilog.
//
// This file is srp_rx, the destination NIC's reservation scheduler: "a
// single reservation schedule register ... tracks the earliest grant time
// for the next incoming reservation" (S2:L245). A reservation R(n) is
// answered with a grant G(t_s) "based on its current reservation schedule",
// and the schedule moves so that the next reservation, from any source,
// starts no earlier than t_s + n(1+eps)tau_p (S2:L72-74).
//
// Choices where the paper is silent:
//   - t_s = max(now, schedule): a schedule in the past grants now. After
//     reset nothing is booked (one bit beside the register), and the first
//     reservation is granted at its arrival.
//   - Time is in ticks of the NIC clock (the s_event_now of the other
//     blocks), TimeW bits wide and wrapping; now and the schedule are
//     compared by serial-number arithmetic, valid while they are less than
//     2^(TimeW-1) ticks apart. An idle receiver whose schedule falls further
//     behind than that needs any reservation (or a 0-packet one) within
//     every 2^(TimeW-1) ticks: 2.1 s at 1 ns ticks and TimeW 32.
//   - The schedule keeps FracW bits below one tick. The per-packet slot
//     (1+eps)tau_p is rounded up to that grid once (SlotFixed), so that the
//     fixed-point schedule is never earlier than the exact one, and runs
//     ahead of it by at most 2^-FracW ticks per packet granted since the
//     schedule last fell behind now.
//   - The grant carries t_s in whole ticks, rounded up (never before the
//     exact schedule), both as an absolute time and as the delay t_s - now
//     (for senders without a clock synchronised to the receiver's).
package srp

import "math"

// RxParams configures srp_rx.
type RxParams struct {
	TimeW  int    // bits of now and of the grant time, 2..63
	FracW  int    // bits of the schedule below one tick, 0..16
	SlotFx uint64 // (1+eps) tau_p in 2^-FracW ticks (SlotFixed)
}

// SlotFixed is (1+eps)*tauP ticks in units of 2^-fracW ticks, rounded up.
func SlotFixed(tauPTicks, eps float64, fracW int) uint64 {
	return uint64(math.Ceil((1 + eps) * tauPTicks * math.Ldexp(1, fracW)))
}

// Reservation is R(n) arriving at time Now (ticks, modulo 2^TimeW).
type Reservation struct {
	N   uint64 // packets reserved
	Now uint64
}

// Grant is G(t_s).
type Grant struct {
	Ts    uint64 // start time, ticks modulo 2^TimeW, rounded up
	Delay uint64 // Ts - Now, ticks
}

// Rx is the scheduler: the schedule register, in 2^-FracW ticks modulo
// 2^(TimeW+FracW).
type Rx struct {
	p      RxParams
	sched  uint64
	booked bool // a grant was issued since reset: sched holds a time
}

// NewRx is a scheduler out of reset: nothing booked, so the first
// reservation is granted at its arrival whatever the clock reads (a reset
// register of 0 would read as a future time for half of the clock's
// range).
func NewRx(p RxParams) *Rx { return &Rx{p: p} }

// Reset is the rst input: nothing booked.
func (r *Rx) Reset() { r.sched, r.booked = 0, false }

// Schedule is the register: the earliest start of the next grant, in
// 2^-FracW ticks.
func (r *Rx) Schedule() uint64 { return r.sched }

// Reserve answers one reservation and moves the schedule.
func (r *Rx) Reserve(res Reservation) Grant {
	w := r.p.TimeW + r.p.FracW
	mask := uint64(1)<<uint(w) - 1
	tmask := uint64(1)<<uint(r.p.TimeW) - 1
	now := (res.Now & tmask) << uint(r.p.FracW)
	start := r.sched
	// the schedule is behind now when now - sched lies in the lower half of
	// the circle (and is not 0): serial-number comparison
	if d := (now - r.sched) & mask; !r.booked || d != 0 && d < uint64(1)<<uint(w-1) {
		start = now
	}
	r.booked = true
	r.sched = (start + res.N*r.p.SlotFx) & mask
	frac := uint64(1)<<uint(r.p.FracW) - 1
	ts := ((start + frac) >> uint(r.p.FracW)) & tmask // rounded up, wrapping
	return Grant{Ts: ts, Delay: (ts - res.Now) & tmask}
}

// FloatRx is the paper's formula in float64 with unbounded time: the
// reference the fixed-point schedule is measured against.
type FloatRx struct {
	Slot  float64 // (1+eps) tau_p, ticks
	Sched float64
}

// Reserve answers a reservation at time now (ticks, not wrapped) and
// returns t_s.
func (f *FloatRx) Reserve(n, now float64) float64 {
	ts := math.Max(now, f.Sched)
	f.Sched = ts + n*f.Slot
	return ts
}
