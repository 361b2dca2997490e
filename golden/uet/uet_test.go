package uet

import (
	"math/rand"
	"testing"

	greps "github.com/nicgen/nicgen/golden/reps"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
)

// small is nscc and reps over 8 connections, with an 18-bit in-flight
// counter (256 KiB) so that sends saturate it within 64 packets.
func small(conf bool) Params {
	cc := gsmartt.DefaultParams(gsmartt.NSCC)
	cc.NumConn, cc.ConnW, cc.ByteW = 8, 4, 18
	r := greps.DefaultParams()
	r.NumConn, r.ConnW, r.TimeW = 8, 4, cc.TimeW
	c := greps.DefaultConfParams()
	c.NumConn, c.ConnW = 8, 4
	return Params{CC: cc, REPS: r, Conf: c, UseConf: conf}
}

func randomEvent(rng *rand.Rand, now uint64) Event {
	return Event{Conn: uint32(rng.Intn(10)), Kind: Kind(rng.Intn(6)), Size: uint32(1 + rng.Intn(9000)),
		ECN: rng.Intn(4) == 0, RTT: uint32(8000 + rng.Intn(20000)), EV: uint32(rng.Intn(1 << 16)), Now: now}
}

// TestComposesTheParts runs the composition beside the two golden models
// driven by hand, with the bytes in flight kept as signed 64-bit sums and
// clamped, and compares every result field.
func TestComposesTheParts(t *testing.T) {
	for _, conf := range []bool{false, true} {
		p := small(conf)
		m, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		cc, _ := gsmartt.NewModel(p.CC)
		var lb greps.Stepper
		if conf {
			lb, _ = greps.NewConfModel(p.Conf)
		} else {
			lb, _ = greps.NewModel(p.REPS)
		}
		flight := map[uint32]int64{}
		top := int64(1)<<p.CC.ByteW - 1
		rng := rand.New(rand.NewSource(5))
		now := uint64(0)
		sends, blocked, allowed := 0, 0, 0
		for i := 0; i < 300000; i++ {
			now += uint64(rng.Intn(400))
			e := randomEvent(rng, now)
			got := m.Step(e)
			want := Result{Conn: e.Conn & 15, Kind: e.Kind}
			if e.Conn >= 8 || e.Kind > KindTimeout {
				want.Error = true
				if got != want {
					t.Fatalf("event %d %+v: got %+v, want the error %+v", i, e, got, want)
				}
				continue
			}
			f := flight[e.Conn]
			switch e.Kind {
			case KindOpen:
				f = 0
			case KindSend:
				f = min(f+int64(e.Size), top)
			default:
				f = max(f-int64(e.Size), 0)
			}
			flight[e.Conn] = f
			want.Inflight = uint32(f)
			if e.Kind == KindSend {
				want.Cwnd = cc.Conn(e.Conn).C >> uint(p.CC.F)
				sends++
			} else {
				k := map[Kind]gsmartt.Kind{KindOpen: gsmartt.KindOpen, KindAck: gsmartt.KindAck, KindNack: gsmartt.KindNack, KindTimeout: gsmartt.KindTimeout}[e.Kind]
				r := cc.Step(gsmartt.Event{Conn: e.Conn, Kind: k, Size: e.Size, ECN: e.ECN, RTT: e.RTT, Unacked: uint32(f), Now: e.Now})
				want.Cwnd, want.Case, want.QA, want.Fast = r.Cwnd, r.Case, r.QA, r.Fast
			}
			var lr greps.Result
			lb.StepTo(&greps.Event{Conn: e.Conn, Kind: greps.Kind(e.Kind), ECN: e.ECN, EV: e.EV, Now: e.Now}, &lr)
			want.EV, want.Explored, want.Frozen = lr.EV, lr.Explored, lr.Frozen
			want.MaySend = f < int64(want.Cwnd)
			if want.MaySend {
				allowed++
			} else {
				blocked++
			}
			if got != want {
				t.Fatalf("conf %v, event %d %+v: got %+v, want %+v", conf, i, e, got, want)
			}
		}
		if sends < 30000 || blocked < 1000 || allowed < 1000 {
			t.Fatalf("conf %v: the stimulus reaches too little: %d sends, may_send 0 on %d and 1 on %d events", conf, sends, blocked, allowed)
		}
	}
}

// TestSendLeavesTheWindow checks that a send changes no word of the window
// controller, and that the in-flight counter saturates and floors.
func TestSendLeavesTheWindow(t *testing.T) {
	p := small(false)
	m, _ := NewModel(p)
	m.Step(Event{Conn: 3, Kind: KindOpen, Now: 1})
	before := m.CC().Conn(3)
	top := uint32(1)<<p.CC.ByteW - 1
	for i := 0; i < 80; i++ {
		r := m.Step(Event{Conn: 3, Kind: KindSend, Size: 4096, Now: uint64(2 + i)})
		if r.Case != 0 || r.QA || r.Fast || r.Error {
			t.Fatalf("send %d: %+v applied a window rule", i, r)
		}
		if want := min(uint32(4096*(i+1)), top); r.Inflight != want {
			t.Fatalf("send %d: inflight %d, want %d", i, r.Inflight, want)
		}
	}
	if after := m.CC().Conn(3); after != before {
		t.Fatalf("sends changed the window controller's word: %+v -> %+v", before, after)
	}
	if r := m.Step(Event{Conn: 3, Kind: KindOpen, Now: 50}); r.Inflight != 0 || !r.MaySend {
		t.Fatalf("open: %+v, want nothing in flight and may_send", r)
	}
	if r := m.Step(Event{Conn: 3, Kind: KindAck, Size: 4096, RTT: 9000, Now: 60}); r.Inflight != 0 {
		t.Fatalf("an ack with nothing in flight: inflight %d, want 0 (floored)", r.Inflight)
	}
}

// TestSendRules checks the two rules at their boundary.
func TestSendRules(t *testing.T) {
	for _, rule := range []SendRule{BelowWindow, RoomForMTU} {
		p := small(false)
		p.CC.ByteW = 21 // holds the window
		p.Rule = rule
		m, _ := NewModel(p)
		open := m.Step(Event{Conn: 1, Kind: KindOpen, Now: 1})
		w := open.Cwnd
		mtu := p.CC.Network.MTU
		// fill to exactly cwnd - MTU, then one byte more
		for left := w - mtu; left > 0; {
			s := min(left, 8000)
			m.Step(Event{Conn: 1, Kind: KindSend, Size: s, Now: 2})
			left -= s
		}
		at := m.Step(Event{Conn: 1, Kind: KindSend, Size: 0, Now: 3})
		over := m.Step(Event{Conn: 1, Kind: KindSend, Size: 1, Now: 4})
		if at.Inflight != w-mtu || over.Inflight != w-mtu+1 {
			t.Fatalf("inflight %d then %d, want %d and one more", at.Inflight, over.Inflight, w-mtu)
		}
		if !at.MaySend {
			t.Fatalf("rule %d: at cwnd - MTU in flight the connection may not send", rule)
		}
		if over.MaySend != (rule == BelowWindow) {
			t.Fatalf("rule %d: one byte above cwnd - MTU: may_send %v", rule, over.MaySend)
		}
	}
}

// BenchmarkModelStep measures the composition's transaction model alone,
// on the default parts over 4096 connections.
func BenchmarkModelStep(b *testing.B) {
	p := small(false)
	p.CC.NumConn, p.CC.ConnW, p.CC.ByteW = 4096, 16, 21
	p.REPS.NumConn, p.REPS.ConnW = 4096, 16
	m, err := NewModel(p)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewSource(3))
	const ring = 1 << 16
	evs := make([]Event, ring)
	now := uint64(0)
	for i := range evs {
		now += uint64(rng.Intn(100))
		evs[i] = randomEvent(rng, now)
		evs[i].Conn = uint32(rng.Intn(4096))
		if evs[i].Kind > KindTimeout {
			evs[i].Kind = KindSend
		}
	}
	for c := uint32(0); c < 4096; c++ {
		m.Step(Event{Conn: c, Kind: KindOpen})
	}
	var r Result
	i := 0
	for b.Loop() {
		m.StepTo(&evs[i&(ring-1)], &r)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
