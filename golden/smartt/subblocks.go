package smartt

// The shared sub-blocks of contract Section 4. Each is a combinational DSL
// module of its own (smartt_qa, smartt_fastinc, smartt_wtd, the clamp) and
// these functions are their golden models: pure, on plain values, with the
// block's constants read from a Derived that they never modify.
//
// Windows are carried as uint64 between sub-blocks: a sum such as c + KFast
// is exact before the clamp brings it back into the CwndW+F bits of the
// word.

// Stamp is q(t) = (t >> StampShift) mod 2^StampW: a timestamp in units of
// 2^StampShift ns as the per-connection word keeps it (16 ns and 24 bits by
// default). t is the (truncated) now port.
func (d *Derived) Stamp(t uint64) uint32 { return uint32(t>>d.StampShift) & d.StampMask }

// elapsed is (a - b) mod 2^StampW: how far stamp a lies after stamp b.
func (d *Derived) elapsed(a, b uint32) uint32 { return (a - b) & d.StampMask }

// Deadline is the stamp at which an interval of dur + unit/2 ns (c, a
// Derived TrttC or BrttC) that starts at t ends: ((t + c) >> StampShift)
// mod 2^StampW, the unit boundary nearest t + dur (Section 3). Stamping
// the end from the full-precision start, rounded, makes the interval
// last dur on average over the start's place within its unit, and at
// most half a unit more or less; a stamp of the start compared with a
// duration rounded up (the contract's first form) always lasted longer.
func (d *Derived) Deadline(t uint64, c uint32) uint32 {
	return uint32((t+uint64(c))>>d.StampShift) & d.StampMask
}

// WindowEnd is the end of a QuickAdapt window that starts at t.
func (d *Derived) WindowEnd(t uint64) uint32 { return d.Deadline(t, d.TrttC) }

// HoldEnd is the end of an MD hold-off or adjustment period that starts at
// t.
func (d *Derived) HoldEnd(t uint64) uint32 { return d.Deadline(t, d.BrttC) }

// ahead reports whether deadline lies 1..h units after nowq: the only
// distances a running interval's deadline can be ahead (h = TrttH or
// BrttH). Any other distance is an interval that has ended, however long
// ago: a connection idle for up to a whole stamp cycle reads right, and
// one idle for longer is held back only if its stale deadline happens to
// land 1..h units ahead, for at most h units.
func (d *Derived) ahead(nowq, deadline, h uint32) bool {
	a := d.elapsed(deadline, nowq)
	return a >= 1 && a <= h
}

// passed reports whether the MD hold-off or the adjustment period whose
// deadline is stamp has ended at nowq, "now - last > brtt" (S1:L577,
// L853).
//
// Choice beyond the contract (ZeroStampExpired, default on): a stamp of 0
// means "never set" and is always due, as in S0 Alg. 2 (now >= end with
// end = 0) and htsim (last_dec_time = 0 compared as now - 0 > rtt). The
// price is that a deadline written as exactly 0 (1 in 2^StampW) also
// reads as passed.
func (d *Derived) passed(nowq, stamp uint32) bool {
	if d.ZeroStampExpired && stamp == 0 {
		return true
	}
	return !d.ahead(nowq, stamp, d.BrttH)
}

// windowOpen reports whether the QuickAdapt window ending at end is still
// open at nowq ("now < end", S0 Alg. 2): end lies 1..TrttH units ahead.
// With ZeroStampExpired an end of 0 is "no window yet" and ended.
func (d *Derived) windowOpen(nowq, end uint32) bool {
	if d.ZeroStampExpired && end == 0 {
		return false
	}
	return d.ahead(nowq, end, d.TrttH)
}

// Units is ceil(bytes / 2^ByteShift): what a packet of size bytes, or the
// bytes in flight, add to the byte counters.
func (d *Derived) Units(bytes uint32) uint32 {
	return uint32((uint64(bytes) + 1<<d.ByteShift - 1) >> d.ByteShift)
}

// satAdd is a + b saturating at limit (the byte counters never wrap).
func satAdd(a, b, limit uint32) uint32 {
	s := uint64(a) + uint64(b)
	if s > uint64(limit) {
		return limit
	}
	return uint32(s)
}

// QAIn are the inputs of the QuickAdapt module (smartt_qa).
type QAIn struct {
	C            uint64 // window, cwnd * 2^F
	Acked        uint32 // acked
	Ignored      uint32 // ignored
	ToIgnore     uint32 // to_ignore
	Trigger      bool   // trigger
	End          uint32 // end, a stamp
	NowQ         uint32 // q(now)
	EndNext      uint32 // the end of a window that starts now (Derived.WindowEnd)
	Unacked      uint32 // unacked port
	ExtraTrigger bool   // nscc delay trigger; false for smartt
}

// QAOut are the outputs of the QuickAdapt module.
type QAOut struct {
	C        uint64
	Acked    uint32
	Ignored  uint32
	ToIgnore uint32
	Trigger  bool
	End      uint32
	Fired    bool // the "adapted" of S0 Alg. 2
}

// QuickAdapt is S0 Alg. 2 / S1 Alg. 2 (S0:L216-231): at most once per
// target RTT, a pending trigger sets the window to the bytes acked in the
// window that just ended, scaled by QaScale, and starts ignoring the
// congestion signals of the bytes in flight.
func QuickAdapt(d *Derived, in QAIn) QAOut {
	var out QAOut
	quickAdaptTo(d, &in, &out)
	return out
}

// quickAdaptTo is QuickAdapt through pointers, as the model calls it: a
// struct passed by value costs the model more than the sub-block itself.
func quickAdaptTo(d *Derived, in *QAIn, out *QAOut) {
	// field by field: a composite literal would be built aside and copied
	out.C, out.Acked, out.Ignored, out.ToIgnore = in.C, in.Acked, in.Ignored, in.ToIgnore
	out.Trigger, out.End, out.Fired = in.Trigger, in.End, false
	// "end = 0" is both the never-opened sentinel and, under
	// ZeroStampExpired, a window that has ended (see windowOpen).
	if d.windowOpen(in.NowQ, in.End) {
		return
	}
	if (in.Trigger || in.ExtraTrigger) && in.End != 0 {
		out.Fired = true
		out.Trigger = false
		// acked counts units of 2^ByteShift bytes
		out.C = (max(uint64(in.Acked)<<d.ByteShift, uint64(d.MTU)) * uint64(d.QaScale)) >> (16 - d.F)
		out.ToIgnore = min(d.Units(in.Unacked), d.CountMax)
		out.Ignored = 0
	}
	// A window that happens to end at stamp 0 (1 in 2^24) reads as "no
	// window" at the next event, which restarts it without firing; the
	// contract's end != 0 test has the same blind spot.
	out.End = in.EndNext
	out.Acked = 0
}

// FastIn are the inputs of the FastIncrease module (smartt_fastinc).
type FastIn struct {
	C        uint64 // window (after QuickAdapt)
	Count    uint32 // count
	Increase bool   // increase
	Size     uint32
	RTT      uint32
	ECN      bool
}

// FastOut are the outputs of the FastIncrease module.
type FastOut struct {
	C        uint64
	Count    uint32
	Increase bool
	Fired    bool // the "return increase" of S0 Alg. 3
}

// FastIncrease is S0 Alg. 3 / S1 Alg. 3 (S0:L243-257): after more than
// cwnd bytes of uncongested acks (rtt <= FiRttMax, no ECN), every further
// uncongested ack adds k = 2 MTU; a congested one ends it.
func FastIncrease(d *Derived, in FastIn) FastOut {
	var out FastOut
	fastIncreaseTo(d, &in, &out)
	return out
}

// fastIncreaseTo is FastIncrease through pointers, as the model calls it.
func fastIncreaseTo(d *Derived, in *FastIn, out *FastOut) {
	out.C, out.Count, out.Increase, out.Fired = in.C, 0, false, false
	if in.RTT <= d.FiRttMax && !in.ECN {
		out.Count = satAdd(in.Count, d.Units(in.Size), d.CountMax)
		out.Increase = in.Increase
		// count * unit > cwnd iff count > floor(cwnd / unit)
		if uint64(out.Count) > in.C>>(d.F+d.ByteShift) || in.Increase {
			out.C = in.C + d.KFast
			out.Increase = true
			out.Fired = true
		}
	}
	// Otherwise count = 0, increase = 0: the zero values.
}

// WTD is Wait-to-Decrease (smartt_wtd, smartt only; S0:L316-318): an 8-bit
// Q0.8 EWMA of the ECN echoes with gain 2^-WtdShift, and the gate
// avg' >= 0.25 that allows decreases.
func WTD(d *Derived, avg uint16, ecn bool) (next uint16, canDecrease bool) {
	a := uint32(avg) - uint32(avg)>>d.WtdShift
	if ecn {
		a += 4096 >> d.WtdShift
	}
	a = min(a, 4095)
	return uint16(a), a >= d.WtdThresh
}

// Clamp is max(min(c, MaxCwnd << F), MTU << F).
func Clamp(d *Derived, c uint64) uint32 {
	return uint32(max(min(c, uint64(d.MaxC)), uint64(d.MinC)))
}

// store is what the word keeps of a window that is not clamped (an early
// return with ClampOnEarlyReturn off): c saturates at the CwndW+F bits of
// the register instead of wrapping. Choice beyond the contract, which does
// not say what an unclamped FastIncrease does at the top of the register.
func store(d *Derived, c uint64) uint32 {
	return uint32(min(c, uint64(d.CMax)))
}
