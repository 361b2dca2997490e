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
// variables, on a clock in stamp units where q(now) is nowU and the
// reference's hold-off lasts period units.
func lockedFloat(d *Derived, s State, nowU, period float64, nowq uint32) floatConn {
	// a deadline is read as the model reads it (Derived.ahead): running
	// while it lies 1..h units ahead, ended otherwise; an ended window
	// ended now, and an ended hold-off started more than period ago
	running := func(v, h uint32) (float64, bool) {
		if v == 0 && d.ZeroStampExpired {
			return 0, false
		}
		if a := d.elapsed(v, nowq); a >= 1 && a <= h {
			return float64(a), true
		}
		return 0, false
	}
	end := func(v uint32) float64 {
		if a, ok := running(v, d.TrttH); ok {
			return nowU + a
		}
		if v == 0 {
			return 0 // both read an end of 0 as no window when QuickAdapt would fire
		}
		return nowU
	}
	last := func(v uint32) float64 {
		if a, ok := running(v, d.BrttH); ok {
			return nowU + a - period - 1
		}
		return math.Inf(-1)
	}
	unit := math.Ldexp(1, -d.F)
	bytes := math.Ldexp(1, d.ByteShift) // the counters count units of 2^ByteShift bytes
	return floatConn{
		cwnd: float64(s.C) * unit, acked: float64(s.Acked) * bytes, ignored: float64(s.Ignored) * bytes,
		toIgnore: float64(s.ToIgnore) * bytes, count: float64(s.Count) * bytes,
		end:     end(s.End),
		trigger: s.Trigger, increase: s.Increase,
		avgWtd: float64(s.AvgWtd) / 4096, avgRtt: float64(s.AvgRtt),
		lastMd: last(s.MdEnd), lastAdj: last(s.AdjEnd),
		inc: float64(s.Inc) * unit, recv: float64(s.Recv) * bytes,
	}
}

// LockedError measures the error that the arithmetic of a single step
// adds: before each event the float reference is loaded with the fixed
// model's word and runs on the fixed model's stamp clock (windows TrttQ,
// periods BrttQ units), so that both take the same timing decisions; the
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
		fs := lockedFloat(&d, pre, nowU, f.period, nowq)
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
