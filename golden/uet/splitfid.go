package uet

import (
	"fmt"
	"math"
	"sort"
)

// SplitFidelity is what the split engine does with a timed event stream,
// beside the shared engine's per-event model on the same events
// (MeasureSplit).
type SplitFidelity struct {
	Events, Sends int
	Cycles        int64 // from the first arrival to the last result
	// Waited counts the events that found the engine's input not ready
	// in their arrival cycle (they waited in the NIC's queue, in order);
	// MaxWait is the longest wait, cycles.
	Waited  int
	MaxWait int64
	// WindowUpdates is the window path's results; MeanMembers the events
	// each stood for.
	WindowUpdates int
	MeanMembers   float64
	// MaySendDiffers counts the sends whose may_send differs from the
	// shared engine's; the relative differences are those of the window a
	// send saw against the shared engine's window at that send.
	MaySendDiffers          int
	MeanRel, P99Rel, MaxRel float64
}

// MeasureSplit runs evs through the split engine of p, each event offered
// from its arrival cycle arrive[i] on (nondecreasing), in order, results
// always taken, and through the shared engine's model (Model.Step) in the
// same order. Both run the same load balancer and bytes in flight on the
// same events, so their entropies and bytes in flight must agree: a
// disagreement is an error. The windows differ by what the split engine
// changes: a send sees the window its connection's ACKs wrote when they
// left the window path, and merged ACKs update it once per group.
func MeasureSplit(p Params, evs []Event, arrive []int64) (SplitFidelity, error) {
	var f SplitFidelity
	if len(evs) != len(arrive) || len(evs) == 0 {
		return f, fmt.Errorf("uet: %d events and %d arrival cycles", len(evs), len(arrive))
	}
	s, err := NewSplit(p)
	if err != nil {
		return f, err
	}
	ref, err := NewModel(p)
	if err != nil {
		return f, err
	}
	want := make([]Result, len(evs))
	for i := range evs {
		want[i] = ref.Step(evs[i])
	}
	f.Events = len(evs)
	var rels []float64
	next, got := 0, 0
	members := 0
	start := arrive[0]
	limit := arrive[len(arrive)-1] + int64(64*len(evs)) + 1000
	for c := start; got < len(evs); c++ {
		if c > limit {
			return f, fmt.Errorf("uet: %d of %d results by cycle %d", got, len(evs), c)
		}
		valid := next < len(evs) && arrive[next] <= c
		var e Event
		if valid {
			e = evs[next]
		}
		o := s.Cycle(CycleIn{SValid: valid, MReady: true, Event: e})
		if valid {
			if o.SReady {
				f.MaxWait = max(f.MaxWait, c-arrive[next])
				if c > arrive[next] {
					f.Waited++
				}
				next++
			}
		}
		if wv, w := s.WindowUpdate(); wv {
			f.WindowUpdates++
			members += max(int(w.Members), 1)
		}
		if !o.MValid {
			continue
		}
		r, w := o.Result, want[got]
		got++
		f.Cycles = c - start + 1
		if r.EV != w.EV || r.Inflight != w.Inflight || r.Error != w.Error || r.Frozen != w.Frozen {
			return f, fmt.Errorf("uet: result %d (%v of connection %d): the split engine's entropy %d, in flight %d; the shared engine's %d, %d",
				got-1, r.Kind, r.Conn, r.EV, r.Inflight, w.EV, w.Inflight)
		}
		if r.Kind != KindSend || r.Error {
			continue
		}
		f.Sends++
		if r.MaySend != w.MaySend {
			f.MaySendDiffers++
		}
		if w.Cwnd > 0 {
			rels = append(rels, math.Abs(float64(r.Cwnd)-float64(w.Cwnd))/float64(w.Cwnd))
		}
	}
	if f.WindowUpdates > 0 {
		f.MeanMembers = float64(members) / float64(f.WindowUpdates)
	}
	if len(rels) > 0 {
		sort.Float64s(rels)
		sum := 0.0
		for _, x := range rels {
			sum += x
		}
		f.MeanRel = sum / float64(len(rels))
		f.P99Rel = rels[min(len(rels)-1, int(math.Ceil(0.99*float64(len(rels))))-1)]
		f.MaxRel = rels[len(rels)-1]
	}
	return f, nil
}

// SharedWaits runs evs through the shared engine's cycle model (one shell
// of depth p.Depth for both parts, golden/pipe) as MeasureSplit does, and
// returns the events that waited and the longest wait, in cycles.
func SharedWaits(p Params, evs []Event, arrive []int64) (waited int, maxWait int64, err error) {
	p.Window = WindowPath{}
	m, err := NewModel(p)
	if err != nil {
		return 0, 0, err
	}
	pl := NewPipeline(m, p.Depth)
	next := 0
	limit := arrive[len(arrive)-1] + int64(64*len(evs)) + 1000
	for c := arrive[0]; next < len(evs); c++ {
		if c > limit {
			return 0, 0, fmt.Errorf("uet: %d of %d events taken by cycle %d", next, len(evs), c)
		}
		valid := arrive[next] <= c
		var e Event
		if valid {
			e = evs[next]
		}
		if o := pl.Cycle(CycleIn{SValid: valid, MReady: true, Event: e}); valid && o.SReady {
			maxWait = max(maxWait, c-arrive[next])
			if c > arrive[next] {
				waited++
			}
			next++
		}
	}
	return waited, maxWait, nil
}
