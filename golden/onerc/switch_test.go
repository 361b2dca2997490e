package onerc

import (
	"math/rand/v2"
	"testing"
)

func small() SwitchParams {
	return SwitchParams{NumConn: 4, ConnW: 2, KindW: 2, TagW: 8, WinW: 8, WeightW: 4, SeqW: 8}
}

// epochEvent splits an SSTS into slot and tag at an epoch length, as the
// host and the port do.
func epochEvent(p SwitchParams, kind SwitchKind, ssts, epochLen uint64) SwitchEvent {
	epoch := ssts / epochLen
	return SwitchEvent{Conn: uint32(epoch % uint64(p.NumConn)), Kind: kind, Tag: epoch / uint64(p.NumConn), Weight: 1}
}

// TestFigure51 is the thesis's example (S3 Fig. 5.1, S3:L1248): epochs of
// 13 timesteps; flow 1 (SSTS 11, epoch 0) gets a 4-packet window, flow 2
// (SSTS 15, epoch 1) half of it; flow 1's packets 0-3 pass, flow 2's
// packets 2 and 3 are dropped.
func TestFigure51(t *testing.T) {
	p := small()
	m, err := NewSwitchModel(p)
	if err != nil {
		t.Fatal(err)
	}
	step := func(e SwitchEvent) SwitchResult {
		var r SwitchResult
		m.StepTo(&e, &r)
		if r.Error {
			t.Fatalf("%+v: error", e)
		}
		return r
	}
	for c := 0; c < p.NumConn; c++ {
		step(SwitchEvent{Conn: uint32(c), Kind: SwOpen})
	}
	c1 := epochEvent(p, SwCtrl, 11, 13)
	c1.Window, c1.LetThrough = 4, 255
	if r := step(c1); !r.Filled || r.Thresh != 4 || r.LetThrough != 4 {
		t.Fatalf("t=21, flow 1's control packet: %+v, want a new entry of 4", r)
	}
	for _, seq := range []uint64{0, 1, 2, 3} {
		d := epochEvent(p, SwData, 11, 13)
		d.Seq, d.Spec = seq, true
		if r := step(d); r.Drop || !r.Hit || r.Thresh != 4 {
			t.Fatalf("flow 1, packet %d: %+v, want it through", seq, r)
		}
	}
	c2 := epochEvent(p, SwCtrl, 15, 13)
	c2.Window, c2.LetThrough = 2, 255 // the fair rate is half: 2 packets
	if r := step(c2); !r.Filled || r.LetThrough != 2 {
		t.Fatalf("t=23, flow 2's control packet: %+v, want a new entry of 2", r)
	}
	for _, c := range []struct {
		seq  uint64
		drop bool
	}{{0, false}, {1, false}, {2, true}, {3, true}} {
		d := epochEvent(p, SwData, 15, 13)
		d.Seq, d.Spec = c.seq, true
		if r := step(d); r.Drop != c.drop {
			t.Fatalf("flow 2, packet %d: drop %v, want %v", c.seq, r.Drop, c.drop)
		}
	}
	// a later control packet of epoch 0 finds the entry, and a weight of 3
	// divides it: max(1, 4/3) = 1
	c3 := epochEvent(p, SwCtrl, 12, 13)
	c3.Window, c3.Weight, c3.LetThrough = 9, 3, 200
	if r := step(c3); r.Filled || !r.Hit || r.Thresh != 1 || r.LetThrough != 1 {
		t.Fatalf("second control packet of epoch 0: %+v", r)
	}
}

// TestSwitchRules checks every rule on random events against a table
// kept by the test: scheduled packets never dropped, drops in sequence
// order, a newer epoch replacing an older one, an older one leaving it,
// misses dropped (or passed with MissPass), a zero weight an error.
func TestSwitchRules(t *testing.T) {
	for _, pass := range []bool{false, true} {
		p := small()
		p.MissPass = pass
		m, _ := NewSwitchModel(p)
		r := rand.New(rand.NewPCG(1, 2))
		type ent struct {
			ok       bool
			tag, win uint64
		}
		ref := make([]ent, p.NumConn)
		for c := range ref {
			var res SwitchResult
			m.StepTo(&SwitchEvent{Conn: uint32(c), Kind: SwOpen}, &res)
		}
		counts := map[string]int{}
		for i := 0; i < 200_000; i++ {
			e := SwitchEvent{Conn: uint32(r.IntN(p.NumConn)), Kind: SwitchKind(1 + r.IntN(2)), Tag: uint64(i/500+r.IntN(3)) & 255,
				Window: uint64(r.IntN(256)), Weight: uint64(r.IntN(16)), LetThrough: uint64(r.IntN(256)), Seq: uint64(r.IntN(64)), Spec: r.IntN(3) > 0}
			var res SwitchResult
			m.StepTo(&e, &res)
			if e.Weight == 0 {
				if !res.Error {
					t.Fatalf("%+v: a zero weight is not an error", e)
				}
				counts["error"]++
				continue
			}
			s := &ref[e.Conn]
			hit := s.ok && s.tag == e.Tag
			entry := e.Window
			if hit {
				entry = s.win
			}
			th := max(1, entry/e.Weight)
			if e.Kind == SwCtrl {
				newer := !s.ok || (e.Tag-s.tag)&255 != 0 && (e.Tag-s.tag)&255 < 128
				if !hit && newer {
					*s = ent{true, e.Tag, e.Window}
					counts["fill"]++
				} else if !hit {
					counts["older"]++
				}
				if res.Thresh != th || res.LetThrough != max(1, min(entry/e.Weight, e.LetThrough)) || res.Drop {
					t.Fatalf("%+v: %+v, threshold %d", e, res, th)
				}
				continue
			}
			switch {
			case !e.Spec:
				if res.Drop {
					t.Fatalf("%+v: a scheduled packet was dropped", e)
				}
			case hit:
				if res.Drop != (e.Seq >= th) {
					t.Fatalf("%+v: drop %v at threshold %d", e, res.Drop, th)
				}
				if res.Drop {
					counts["drop"]++
				}
			default:
				if res.Drop == pass {
					t.Fatalf("%+v: miss, drop %v with MissPass %v", e, res.Drop, pass)
				}
				counts["miss"]++
			}
		}
		for _, k := range []string{"error", "fill", "older", "drop", "miss"} {
			if counts[k] < 100 {
				t.Fatalf("MissPass %v: %d events of case %s", pass, counts[k], k)
			}
		}
	}
}

func TestValidateSwitch(t *testing.T) {
	for _, f := range []func(*SwitchParams){
		func(p *SwitchParams) { p.NumConn = 3 },
		func(p *SwitchParams) { p.ConnW = 1 },
		func(p *SwitchParams) { p.TagW = 1 },
		func(p *SwitchParams) { p.WeightW = 0 },
	} {
		p := small()
		f(&p)
		if ValidateSwitch(p) == nil {
			t.Errorf("%+v: no error", p)
		}
	}
}
