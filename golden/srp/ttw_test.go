package srp

import "testing"

// Hand examples of the three A-20 modes with S2's TTW of 1.3 us in 1 ns
// ticks: a packet is forwarded at exactly its TTW and dropped one tick
// past it; scheduled packets are never dropped; a header already past
// the TTW is dropped at arrival.
func TestTTWModes(t *testing.T) {
	type ev struct {
		kind TTWKind
		now  uint64
		hdr  uint64
		spec bool
		want TTWResult // Conn and Kind are filled in
	}
	for _, tc := range []struct {
		name string
		mode TTWMode
		hdrW int
		evs  []ev
	}{
		{"accumulated", TTWAccumulated, 16, []ev{
			{TTWArrive, 100, 1000, true, TTWResult{}},
			{TTWHead, 400, 0, false, TTWResult{Spec: true, Hdr: 1300}}, // 1000 + 300 = TTW: kept
			{TTWArrive, 100, 1000, true, TTWResult{}},
			{TTWHead, 401, 0, false, TTWResult{Spec: true, Drop: true}}, // 1301: dropped, head becomes a NACK
			{TTWArrive, 100, 1000, false, TTWResult{}},
			{TTWHead, 90000, 0, false, TTWResult{Hdr: 1000}},              // scheduled: forwarded unchanged, never dropped
			{TTWArrive, 7, 1301, true, TTWResult{Drop: true, Spec: true}}, // past its TTW on arrival
			{TTWHead, 8, 0, false, TTWResult{Empty: true}},                // so nothing was stored
			{TTWArrive, 1<<32 - 10, 0, true, TTWResult{}},
			{TTWHead, 20, 0, false, TTWResult{Spec: true, Hdr: 30}}, // the wait across the clock's wrap
			{TTWArrive, 0, 1000, true, TTWResult{}},
			{TTWHead, 65600, 0, false, TTWResult{Spec: true, Drop: true}}, // 66,600 saturates at 65,535 (wrapped, it would read 1,064)
			{TTWArrive, 0, 65000, false, TTWResult{}},
			{TTWHead, 1000, 0, false, TTWResult{Hdr: 65000}}, // scheduled, whatever its header says
		}},
		{"per_hop", TTWPerHop, 16, []ev{
			{TTWArrive, 0, 60000, true, TTWResult{}},
			{TTWHead, 1300, 0, false, TTWResult{Spec: true, Hdr: 60000}}, // own wait 1300: kept, header unchanged
			{TTWArrive, 0, 0, true, TTWResult{}},
			{TTWHead, 1301, 0, false, TTWResult{Spec: true, Drop: true}},
		}},
		{"deadline", TTWDeadline, 32, []ev{
			{TTWArrive, 100, 5000, true, TTWResult{}},
			{TTWHead, 5000, 0, false, TTWResult{Spec: true, Hdr: 5000}}, // at the deadline: kept
			{TTWArrive, 100, 5000, true, TTWResult{}},
			{TTWHead, 5001, 0, false, TTWResult{Spec: true, Drop: true}},
			{TTWArrive, 5001, 5000, true, TTWResult{Drop: true, Spec: true}}, // already late
			{TTWArrive, 1<<32 - 100, 200, true, TTWResult{}},                 // the deadline is after the wrap
			{TTWHead, 150, 0, false, TTWResult{Spec: true, Hdr: 200}},
		}},
	} {
		p := TTWParams{Mode: tc.mode, TTW: 1300, TimeW: 32, HdrW: tc.hdrW, NumConn: 4, ConnW: 3, KindW: 2}
		m, err := NewTTWModel(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range tc.evs {
			var r TTWResult
			m.StepTo(&TTWEvent{Conn: 1, Kind: e.kind, Now: e.now, Hdr: e.hdr, Spec: e.spec}, &r)
			want := e.want
			want.Conn, want.Kind = 1, e.kind
			if r != want {
				t.Errorf("%s event %d (%v at %d): %+v, want %+v", tc.name, i, e.kind, e.now, r, want)
			}
		}
	}
}

// Bad parameters and events: a deadline narrower than the clock, a TTW of
// 0 or past the header are refused; a slot past the buffer or an unknown
// kind is an error that changes nothing.
func TestTTWRefuses(t *testing.T) {
	good := TTWParams{Mode: TTWAccumulated, TTW: 1300, TimeW: 32, HdrW: 16, NumConn: 4, ConnW: 3, KindW: 2}
	for _, bad := range []TTWParams{
		func() TTWParams { p := good; p.Mode = TTWDeadline; return p }(),
		func() TTWParams { p := good; p.TTW = 0; return p }(),
		func() TTWParams { p := good; p.HdrW = 10; return p }(),
	} {
		if err := ValidateTTW(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	m, _ := NewTTWModel(good)
	var r TTWResult
	m.StepTo(&TTWEvent{Conn: 2, Kind: TTWArrive, Now: 5, Hdr: 9, Spec: true}, &r)
	for _, e := range []TTWEvent{{Conn: 4, Kind: TTWHead}, {Conn: 2, Kind: 3}} {
		m.StepTo(&e, &r)
		if !r.Error || r.Drop || r.Hdr != 0 || r.Spec || r.Empty {
			t.Errorf("%+v: %+v", e, r)
		}
	}
	m.StepTo(&TTWEvent{Conn: 2, Kind: TTWHead, Now: 6}, &r)
	if r.Error || r.Empty || r.Hdr != 10 {
		t.Errorf("slot 2 after the errors: %+v", r)
	}
}
