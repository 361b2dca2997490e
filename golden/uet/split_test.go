package uet

import (
	"testing"

	"github.com/nicgen/nicgen/golden/pipe"
)

// splitSmall is small(false) as the split engine: a send path of reps's
// depth (3) and a window path of 22 stages merging ACKs in 8 slots, with
// 16-bit sizes (a 16 KiB coalesced ACK).
func splitSmall() Params {
	p := small(false)
	p.CC.SizeW, p.CC.ByteW = 16, 24
	p.Depth = 3
	p.Window = WindowPath{Depth: 22, Slots: 8, MergeAcks: true, MergeNacks: true}
	return p
}

// lineRun offers one connection's events back to back (results always
// taken): an open, then the pattern repeated. It returns the cycles at
// which each event was accepted, the windows the sends saw, and for each
// ACK the cycles from its acceptance until a window update that covers it
// was written.
func lineRun(t *testing.T, p Params, pattern []Event, n int) (acc []int, windows []uint32, ackAge []int) {
	t.Helper()
	s, err := NewSplit(p)
	if err != nil {
		t.Fatal(err)
	}
	evs := []Event{{Kind: KindOpen}}
	for len(evs) < n {
		evs = append(evs, pattern...)
	}
	var pendingAcks []int // acceptance cycles of ACKs not yet covered by an update
	now := uint64(1000)
	for c, i := 0, 0; c < 40*n && (i < len(evs) || len(pendingAcks) > 0); c++ {
		valid := i < len(evs)
		var e Event
		if valid {
			e = evs[i]
			e.Now = now
		}
		o := s.Cycle(CycleIn{SValid: valid, MReady: true, Event: e})
		if valid && o.SReady {
			acc = append(acc, c)
			if e.Kind == KindAck {
				pendingAcks = append(pendingAcks, c)
			}
			i++
			now += 20
		}
		if o.MValid && o.Result.Kind == KindSend {
			windows = append(windows, o.Result.Cwnd)
		}
		if v, w := s.WindowUpdate(); v && w.Kind == 1 { // an ACK's update covers its members
			for k := 0; k < int(w.Members) && len(pendingAcks) > 0; k++ {
				ackAge = append(ackAge, c+1-pendingAcks[0]) // written at this edge, seen from the next cycle
				pendingAcks = pendingAcks[1:]
			}
		}
	}
	if len(acc) != len(evs) || len(pendingAcks) > 0 {
		t.Fatalf("%d of %d events taken, %d ACKs never covered by a window update", len(acc), len(evs), len(pendingAcks))
	}
	return acc, windows, ackAge
}

// TestSplitOneConnectionLineRate: one connection alone, its events offered
// back to back, is limited by the send path alone: the plain shell of
// depth 3 takes an event of a connection every 3 cycles (docs/pipeline.md),
// so a send and its ACK take 6 cycles, and a send with a quarter of a 16
// KiB ACK 3.75. The window path (merging) never holds the send path up,
// and the sends see the window grow as the ACKs' updates are written.
func TestSplitOneConnectionLineRate(t *testing.T) {
	p := splitSmall()
	// CE-marked ACKs of a long RTT: the window falls from its initial
	// (maximum) value, so the sends must see it move
	perPacket := []Event{{Kind: KindSend, Size: 4096, EV: 1}, {Kind: KindAck, Size: 4096, RTT: 20000, ECN: true, EV: 1}}
	coalesced := []Event{{Kind: KindSend, Size: 4096}, {Kind: KindSend, Size: 4096}, {Kind: KindSend, Size: 4096}, {Kind: KindSend, Size: 4096},
		{Kind: KindAck, Size: 16384, RTT: 20000, ECN: true, EV: 1}}
	for _, tc := range []struct {
		name    string
		pattern []Event
	}{{"per-packet ACKs", perPacket}, {"16 KiB ACKs", coalesced}} {
		t.Run(tc.name, func(t *testing.T) {
			acc, windows, ages := lineRun(t, p, tc.pattern, 4000)
			for i := 10; i < len(acc); i++ { // once the input buffer is full
				if d := acc[i] - acc[i-1]; d != p.Depth {
					t.Fatalf("event %d accepted %d cycles after the one before, want %d (the send path's depth)", i, d, p.Depth)
				}
			}
			init := p.CC.Derive().InitCwnd
			if windows[0] != init {
				t.Errorf("the first send saw window %d, want the initial %d", windows[0], init)
			}
			if last := windows[len(windows)-1]; last >= init {
				t.Errorf("the last send saw window %d: the CE-marked ACKs' updates never reached the send path (initial %d)", last, init)
			}
			maxAge := 0
			for _, a := range ages {
				maxAge = max(maxAge, a)
			}
			// an ACK's update: the send path's latency, then the window
			// path's, where it waits at most for the group in flight
			// ahead of its own (one more pass), then the write
			bound := pipe.Latency(p.Depth) + 2*pipe.MergingLatency(p.Window.Depth) + 1
			if maxAge > bound {
				t.Errorf("an ACK's window was written %d cycles after its acceptance, more than the contract's %d", maxAge, bound)
			}
			t.Logf("%s: %d events, one every %d cycles; an ACK's window written %d..%d cycles after its acceptance (bound %d)", tc.name, len(acc), p.Depth, minOf(ages), maxAge, bound)
		})
	}
}

func minOf(xs []int) int {
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}
