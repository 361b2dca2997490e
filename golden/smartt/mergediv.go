package smartt

import (
	"fmt"
	"math"
	"sort"
)

// MergeDivergence measures how far merging ACKs moves a block's windows
// from the per-ACK ones: the same events, each arriving at its cycle
// (non-decreasing), run through the per-ACK model (one Step per event)
// and through the merging shell (NewMergingPipeline with depth, slots
// and nacks, results always taken). Each merged result is compared with the
// per-ACK window after the last event it stands for, by connection; the
// relative differences |merged - per-ACK| / per-ACK count for results
// whose per-ACK window is above 8 MTU (near the MTU floor a whole byte is
// a large relative step) and never for errors.
type MergeDivergence struct {
	Events       int     // events offered
	Results      int     // results of the merging shell (groups)
	Merged       int     // results standing for more than one event
	MeanMembers  float64 // events per result
	Compared     int     // results compared (per-ACK window above 8 MTU)
	MeanRel      float64 // mean relative difference of the windows
	P99Rel       float64 // 99th percentile
	MaxRel       float64 // largest
	InputStalled int64   // cycles an arrived event waited for s_event_ready
	Cycles       int64   // cycles run
}

// MeasureMergeDivergence runs MergeDivergence's comparison.
func MeasureMergeDivergence(p Params, depth, slots int, nacks bool, events []Event, arrive []int64) (MergeDivergence, error) {
	var d MergeDivergence
	if len(events) != len(arrive) {
		return d, fmt.Errorf("smartt: %d events, %d arrival cycles", len(events), len(arrive))
	}
	perAck, err := NewModel(p)
	if err != nil {
		return d, err
	}
	merged, err := NewModel(p)
	if err != nil {
		return d, err
	}
	// the per-ACK window after each event, and each connection's events in
	// order (a connection's results come in its events' order)
	after := make([]Result, len(events))
	byConn := map[uint32][]int{}
	for i, e := range events {
		after[i] = perAck.Step(e)
		byConn[after[i].Conn] = append(byConn[after[i].Conn], i)
	}
	next := map[uint32]int{} // per connection: its next unanswered event
	pl := NewMergingPipeline(merged, depth, slots, nacks)
	floor := 8 * float64(p.Network.MTU)
	var rels []float64
	sent, members := 0, 0
	limit := int64(0)
	if len(arrive) > 0 {
		limit = arrive[len(arrive)-1] + int64(64*len(events)) + 1024
	}
	for c := int64(0); members < len(events) && c < limit; c++ {
		in := CycleIn{MReady: true}
		if sent < len(events) && arrive[sent] <= c {
			in.SValid, in.Event = true, events[sent]
		}
		out := pl.Cycle(in)
		if in.SValid {
			if out.SReady {
				sent++
			} else {
				d.InputStalled++
			}
		}
		d.Cycles = c + 1
		if !out.MValid {
			continue
		}
		r := out.Result
		n := max(int(r.Members), 1) // an error result stands for one event
		members += n
		d.Results++
		if n > 1 {
			d.Merged++
		}
		idx := byConn[r.Conn]
		k := next[r.Conn] + n - 1
		if k >= len(idx) {
			return d, fmt.Errorf("smartt: connection %d answered for %d events, it had %d", r.Conn, k+1, len(idx))
		}
		next[r.Conn] = k + 1
		want := after[idx[k]]
		if r.Error || want.Error || !(float64(want.Cwnd) > floor) {
			continue
		}
		rels = append(rels, math.Abs(float64(r.Cwnd)-float64(want.Cwnd))/float64(want.Cwnd))
	}
	if members < len(events) {
		return d, fmt.Errorf("smartt: %d of %d events answered in %d cycles", members, len(events), d.Cycles)
	}
	d.Events = len(events)
	d.MeanMembers = float64(members) / float64(max(d.Results, 1))
	d.Compared = len(rels)
	if len(rels) > 0 {
		sort.Float64s(rels)
		sum := 0.0
		for _, x := range rels {
			sum += x
		}
		d.MeanRel = sum / float64(len(rels))
		d.P99Rel = rels[min(len(rels)-1, len(rels)*99/100)]
		d.MaxRel = rels[len(rels)-1]
	}
	return d, nil
}
