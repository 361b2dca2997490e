package threecpo

import (
	"math/rand/v2"
	"testing"
)

// A port of the table draws as a unit (IRLModel) seeded alike does: over
// random cycles, watermark loads and sends, its counters and outcomes are
// the unit's, whatever the other ports do in between.
func TestIRLTableIsTheUnit(t *testing.T) {
	p := IRLTableParams{IRLParams: DefaultIRLParams(), NumConn: 4, ConnW: 3, KindW: 2}
	tab, err := NewIRLTable(p)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	units := make([]*IRLModel, p.NumConn)
	for c := range units {
		up := p.IRLParams
		up.Seed = uint32(0x1000 + c)
		units[c], _ = NewIRLModel(up)
		var r IRLEventResult
		tab.StepTo(&IRLEvent{Conn: uint32(c), Kind: IRLOpen, Seed: up.Seed}, &r)
		if r.Error || r.Req != p.Cap || !r.MaySend {
			t.Fatalf("open %d: %+v", c, r)
		}
	}
	sent := 0
	for i := 0; i < 200_000; i++ {
		c := rng.IntN(p.NumConn)
		var r IRLEventResult
		if rng.IntN(50) == 0 {
			req, rsp := uint32(rng.IntN(3000)), uint32(rng.IntN(3000))
			tab.StepTo(&IRLEvent{Conn: uint32(c), Kind: IRLSetWM, ReqWM: req, RspWM: rsp}, &r)
			units[c].SetWatermarks(req, rsp)
		} else {
			send, rc, pc := rng.IntN(2) == 0, uint32(1+rng.IntN(9)), uint32(1+rng.IntN(9))
			tab.StepTo(&IRLEvent{Conn: uint32(c), Kind: IRLTick, Send: send, ReqCost: rc, RspCost: pc}, &r)
			u := units[c].Cycle(send, int32(rc), int32(pc))
			if r.Sent != u.Sent || r.Refused != u.Refused || r.NewReq != u.NewReq || r.NewRsp != u.NewRsp {
				t.Fatalf("event %d, port %d: table %+v, unit %+v", i, c, r, u)
			}
			if r.Sent {
				sent++
			}
		}
		s := units[c].State()
		if r.Req != s.Req || r.Rsp != s.Rsp || r.MaySend != s.MaySend() || tab.Port(c) != s {
			t.Fatalf("event %d, port %d: table %+v / %+v, unit %+v", i, c, r, tab.Port(c), s)
		}
	}
	if sent < 1000 {
		t.Fatalf("only %d sends: the test does not exercise the gate", sent)
	}
}

// Errors: a port past the table, an unknown kind, an open with seed 0;
// the result carries zeros and nothing changes.
func TestIRLTableErrors(t *testing.T) {
	p := IRLTableParams{IRLParams: DefaultIRLParams(), NumConn: 3, ConnW: 2, KindW: 2}
	tab, err := NewIRLTable(p)
	if err != nil {
		t.Fatal(err)
	}
	var r IRLEventResult
	tab.StepTo(&IRLEvent{Conn: 1, Kind: IRLOpen, Seed: 5}, &r)
	before := tab.Port(1)
	for _, e := range []IRLEvent{{Conn: 3, Kind: IRLTick, Send: true}, {Conn: 1, Kind: IRLNumKinds}, {Conn: 1, Kind: IRLOpen}} {
		tab.StepTo(&e, &r)
		if !r.Error || r.Req != 0 || r.MaySend || r.Sent {
			t.Fatalf("%+v: %+v, want an error with zeros", e, r)
		}
	}
	if tab.Port(1) != before {
		t.Fatalf("an error changed port 1: %+v -> %+v", before, tab.Port(1))
	}
	// watermarks above WM_MAX load as WM_MAX; a cost above MaxCost is refused
	tab.StepTo(&IRLEvent{Conn: 1, Kind: IRLSetWM, ReqWM: 4000, RspWM: 7}, &r)
	if s := tab.Port(1); s.ReqWM != p.WMMax || s.RspWM != 7 {
		t.Fatalf("set_wm 4000, 7: %+v", s)
	}
	tab.StepTo(&IRLEvent{Conn: 1, Kind: IRLTick, Send: true, ReqCost: uint32(p.MaxCost) + 1, RspCost: 1}, &r)
	if r.Sent || !r.Refused {
		t.Fatalf("a cost above MaxCost: %+v, want refused", r)
	}
}
