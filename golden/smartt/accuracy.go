package smartt

import "math"

// Accuracy runs the fixed-point Model and the FloatModel of p on the same
// events and compares the windows they report after each event. Only
// events after which the float window is above 8 MTU count (near the MTU
// floor the relative error of whole bytes says little), and error events
// never do. It returns the largest and the mean relative difference
// |fixed - float| / float over the n counted events; NaN and n = 0 if p is
// invalid or nothing counted. The events must be in time order (see
// FloatModel).
func Accuracy(p Params, events []Event) (maxRel, meanRel float64, n int) {
	fixed, err := NewModel(p)
	if err != nil {
		return math.NaN(), math.NaN(), 0
	}
	ref, err := NewFloatModel(p)
	if err != nil {
		return math.NaN(), math.NaN(), 0
	}
	floor := 8 * float64(p.Network.MTU)
	sum := 0.0
	for _, e := range events {
		r := fixed.Step(e)
		want := ref.Step(e)
		if r.Error || !(want > floor) {
			continue
		}
		rel := math.Abs(float64(r.Cwnd)-want) / want
		maxRel = max(maxRel, rel)
		sum += rel
		n++
	}
	if n == 0 {
		return math.NaN(), math.NaN(), 0
	}
	return maxRel, sum / float64(n), n
}

// lockedFloat converts the fixed word s into the float reference's
// variables, on a clock in 16 ns units where q(now) is nowU.
func lockedFloat(d *Derived, s State, nowU float64, nowq uint32) floatConn {
	// a stamp is read as the model reads it (Derived.passed, windowOpen):
	// in the past by its distance over the whole cycle, except a window
	// end 1..TrttQ units ahead
	past := func(v uint32, never float64) float64 {
		if v == 0 && d.ZeroStampExpired {
			return never
		}
		return nowU - float64(d.elapsed(nowq, v))
	}
	end := func(v uint32) float64 {
		if ahead := d.elapsed(v, nowq); ahead >= 1 && ahead <= d.TrttQ && !(v == 0 && d.ZeroStampExpired) {
			return nowU + float64(ahead)
		}
		return past(v, 0)
	}
	unit := math.Ldexp(1, -d.F)
	bytes := math.Ldexp(1, d.ByteShift) // the counters count units of 2^ByteShift bytes
	return floatConn{
		cwnd: float64(s.C) * unit, acked: float64(s.Acked) * bytes, ignored: float64(s.Ignored) * bytes,
		toIgnore: float64(s.ToIgnore) * bytes, count: float64(s.Count) * bytes,
		end:     end(s.End),
		trigger: s.Trigger, increase: s.Increase,
		avgWtd: float64(s.AvgWtd) / 4096, avgRtt: float64(s.AvgRtt),
		lastMd: past(s.LastMd, math.Inf(-1)), lastAdj: past(s.LastAdj, math.Inf(-1)),
		inc: float64(s.Inc) * unit, recv: float64(s.Recv) * bytes,
	}
}

// LockedError measures the error that the arithmetic of a single step
// adds: before each event the float reference is loaded with the fixed
// model's word and runs on the fixed model's 16 ns clock (windows TrttQ,
// periods BrttQ), so that both take the same timing decisions; the
// windows after the event are compared (float above 8 MTU only). What
// remains are the fixed-point roundings, div's error and the rare gate
// that the roundings flip (WTD, avg_rtt > Trtt).
func LockedError(p Params, evs []Event) (maxRel, meanRel float64, n, worst int, sameMax float64, flips int) {
	maxRel, meanRel, n, worst, sameMax, flips, _ = LockedErrors(p, evs)
	return
}

// LockedErrors is LockedError with every counted step's relative error,
// in trace order.
func LockedErrors(p Params, evs []Event) (maxRel, meanRel float64, n, worst int, sameMax float64, flips int, rels []float64) {
	m, err := NewModel(p)
	if err != nil {
		return math.NaN(), math.NaN(), 0, 0, math.NaN(), 0, nil
	}
	f, _ := NewFloatModel(p)
	d := m.Derived()
	f.qaWindow, f.period = float64(d.TrttQ), float64(d.BrttQ)
	var epoch, last uint64
	sum := 0.0
	for i, e := range evs {
		p.truncate(&e)
		if i > 0 && e.Now < last {
			epoch += uint64(1) << p.TimeW
		}
		last = e.Now
		nowq := d.Stamp(e.Now)
		nowU := float64((epoch+e.Now)>>d.StampShift) + 1<<30
		pre := m.Conn(e.Conn)
		r := m.Step(e)
		post := m.Conn(e.Conn)
		if e.Kind == KindOpen || pre.C == 0 {
			continue
		}
		fs := lockedFloat(&d, pre, nowU, nowq)
		var kase uint8
		if p.Variant == NSCC {
			kase = f.stepNSCC(&fs, e, nowU)
		} else {
			kase = f.stepConf(&fs, e, nowU)
		}
		if !(fs.cwnd > 8*float64(d.MTU)) {
			continue
		}
		rel := math.Abs(float64(post.C)*math.Ldexp(1, -d.F)-fs.cwnd) / fs.cwnd
		if rel > maxRel {
			maxRel, worst = rel, i
		}
		if kase != r.Case {
			flips++
		} else {
			sameMax = max(sameMax, rel)
		}
		sum += rel
		n++
		rels = append(rels, rel)
	}
	return maxRel, sum / float64(n), n, worst, sameMax, flips, rels
}
