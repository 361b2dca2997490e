package srp

import "testing"

// The table's rules: an open forgets the schedule; a reservation of more
// than n_max packets, an endpoint past the table and an unknown kind are
// errors that change nothing; a speculative packet is ACKed.
func TestRxModelRules(t *testing.T) {
	p := RxTableParams{RxParams: RxParams{TimeW: 32, FracW: 16, SlotFx: SlotFixed(204.8, 0.05, 16)}, NumConn: 2, ConnW: 4, KindW: 2, NW: 5, NMax: 16}
	m, err := NewRxModel(p)
	if err != nil {
		t.Fatal(err)
	}
	step := func(conn uint32, kind RxKind, n, now uint64) RxResult {
		var r RxResult
		m.StepTo(&RxEvent{Conn: conn, Kind: kind, N: n, Now: now}, &r)
		return r
	}
	step(0, RxOpen, 0, 0)
	if r := step(0, RxReserve, 16, 1000); r.Error || r.Ts != 1000 || r.Delay != 0 {
		t.Fatalf("first reservation: %+v", r)
	}
	sched := m.table[0].Schedule()
	for _, bad := range []RxEvent{{0, RxReserve, 17, 1001}, {2, RxReserve, 1, 1001}, {0, 3, 1, 1001}} {
		var r RxResult
		m.StepTo(&bad, &r)
		if !r.Error || r.Ts != 0 || r.Delay != 0 || r.Ack || m.table[0].Schedule() != sched {
			t.Errorf("%+v: %+v, schedule %d (was %d)", bad, r, m.table[0].Schedule(), sched)
		}
	}
	// 16 packets of 215.04 ns booked from 1000: the next grant at 4441 (ceil)
	if r := step(0, RxReserve, 4, 1001); r.Ts != 1000+3441 || r.Delay != 3440 {
		t.Errorf("second reservation: %+v", r)
	}
	if r := step(0, RxSpec, 31, 5000); !r.Ack || r.Error {
		t.Errorf("speculative packet: %+v", r)
	}
	step(0, RxOpen, 0, 6000)
	if r := step(0, RxReserve, 1, 6001); r.Ts != 6001 {
		t.Errorf("after a reopen: %+v", r)
	}
}
