package smartt

import "testing"

// With the events of a connection further apart than the pipeline, nothing
// merges and the merging shell's windows are the per-ACK ones; offered on
// every cycle, ACKs merge, every event is answered once, and a window
// moves.
func TestMergeDivergence(t *testing.T) {
	p := DefaultParams(NSCC)
	p.SizeW = 16
	const depth, slots = 22, 12
	var evs []Event
	for i := 0; i < 400; i++ {
		k := KindAck
		if i == 0 {
			k = KindOpen
		}
		evs = append(evs, Event{Conn: 3, Kind: k, Size: 4096, ECN: (i/16)%2 == 1, RTT: 9000 + uint32(i%5)*4000, Unacked: 200000, Now: uint64(1000 + 41*i)})
	}
	spaced, tight := make([]int64, len(evs)), make([]int64, len(evs))
	for i := range evs {
		spaced[i], tight[i] = int64(i*(depth+16)), int64(i)
	}
	d, err := MeasureMergeDivergence(p, depth, slots, true, evs, spaced)
	if err != nil {
		t.Fatal(err)
	}
	if d.Results != len(evs) || d.Merged != 0 || d.MaxRel != 0 || d.Compared == 0 {
		t.Errorf("spaced: %+v; want one result per event and no difference", d)
	}
	d, err = MeasureMergeDivergence(p, depth, slots, true, evs, tight)
	if err != nil {
		t.Fatal(err)
	}
	if d.Merged == 0 || d.Results >= len(evs) || d.MeanMembers <= 1 {
		t.Errorf("back to back: %+v; want merged results", d)
	}
	if d.MaxRel == 0 {
		t.Errorf("back to back: %+v; merging left every window as it was", d)
	}
	t.Logf("back to back: %+v", d)
}
