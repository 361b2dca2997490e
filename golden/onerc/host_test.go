package onerc

import (
	"math/rand/v2"
	"testing"
)

func smallHost() HostParams {
	return HostParams{NumConn: 8, ConnW: 3, KindW: 3, EpochW: 8, WeightW: 4, SeqW: 8, RateW: 16}
}

type hostRig struct {
	t *testing.T
	m *HostModel
}

func newHostRig(t *testing.T, p HostParams) hostRig {
	t.Helper()
	m, err := NewHostModel(p)
	if err != nil {
		t.Fatal(err)
	}
	return hostRig{t, m}
}

func (h hostRig) step(e HostEvent) HostResult {
	h.t.Helper()
	var r HostResult
	h.m.StepTo(&e, &r)
	if r.Error {
		h.t.Fatalf("%+v: error", e)
	}
	return r
}

// TestHostFigure53 is S3 Fig. 5.3: two flows of one host start in one
// epoch, share their speculative sequence numbers, and together get
// through the port what one flow would (2 packets, the fair rate of a
// network whose BDP is 4), with the switch's golden model judging them.
func TestHostFigure53(t *testing.T) {
	h := newHostRig(t, smallHost())
	sw, err := NewSwitchModel(small())
	if err != nil {
		t.Fatal(err)
	}
	port := func(e SwitchEvent) SwitchResult {
		var r SwitchResult
		sw.StepTo(&e, &r)
		if r.Error {
			t.Fatalf("%+v: error", e)
		}
		return r
	}
	const epoch = 5
	o1 := h.step(HostEvent{Conn: 1, Kind: HostOpen, Epoch: epoch})
	o2 := h.step(HostEvent{Conn: 2, Kind: HostOpen, Epoch: epoch})
	if o1.NewWeight != 1 || o2.NewWeight != 1 || o2.Conns != 2 {
		t.Fatalf("opens: %+v, %+v: want weight 1 each (no connection at the epoch's start), 2 open", o1, o2)
	}
	// flow 1's control packet fills the epoch's entry with the fair rate
	c := port(SwitchEvent{Conn: epoch % 4, Kind: SwCtrl, Tag: epoch / 4, Window: 2, Weight: o1.NewWeight, LetThrough: 255})
	through := map[uint32]int{}
	var seqs []uint64
	for i := 0; i < 6; i++ {
		conn := uint32(1 + i%2)
		s := h.step(HostEvent{Conn: conn, Kind: HostSend, Epoch: epoch})
		if s.Status != StatusSpec {
			t.Fatalf("send %d: %+v, want speculative", i, s)
		}
		seqs = append(seqs, s.Seq)
		d := port(SwitchEvent{Conn: uint32(s.Epoch % 4), Kind: SwData, Tag: s.Epoch / 4, Weight: s.NewWeight, Seq: s.Seq, Spec: true})
		if !d.Drop {
			through[conn]++
		}
	}
	for i, s := range seqs {
		if s != uint64(i) {
			t.Fatalf("shared numbers %v: want 0, 1, 2, ...", seqs)
		}
	}
	if through[1]+through[2] != 2 {
		t.Fatalf("through: %v, want 2 packets together (Fig. 5.3)", through)
	}
	// let_through comes back; flow 1 (numbers 0, 2, 4) got 1 through and
	// resumes exactly, flow 2 (1, 3, 5) got 1 through, and interleaved
	// numbers make the block take the safe side: resend it
	r1 := h.step(HostEvent{Conn: 1, Kind: HostCtrlRx, Epoch: epoch, B: 1000, LetThrough: c.LetThrough, Weight: 1})
	r2 := h.step(HostEvent{Conn: 2, Kind: HostCtrlRx, Epoch: epoch, B: 1000, LetThrough: c.LetThrough, Weight: 1})
	if !r1.Ended || !r2.Ended || r1.Resume > uint64(through[1]) || r2.Resume > uint64(through[2]) {
		t.Fatalf("returns: %+v, %+v; through %v: a flow may not resume past a dropped packet", r1, r2, through)
	}
}

// TestHostFigure54 is S3 Fig. 5.4 and S3:L1340: a flow's weight is the
// host's connection count at the start of its epoch, not at its open.
func TestHostFigure54(t *testing.T) {
	h := newHostRig(t, smallHost())
	h.step(HostEvent{Conn: 0, Kind: HostOpen, Epoch: 1})
	h.step(HostEvent{Conn: 1, Kind: HostOpen, Epoch: 1})
	h.step(HostEvent{Conn: 2, Kind: HostOpen, Epoch: 1})
	// epoch 2 starts with 3 connections; two more open in it
	a := h.step(HostEvent{Conn: 3, Kind: HostOpen, Epoch: 2})
	b := h.step(HostEvent{Conn: 4, Kind: HostOpen, Epoch: 2})
	if a.NewWeight != 3 || b.NewWeight != 3 || b.Conns != 5 {
		t.Fatalf("opens in epoch 2: %+v, %+v: want weight 3 (the count at its start), 5 open", a, b)
	}
	// a close in epoch 3 does not change the epoch's start count
	h.step(HostEvent{Conn: 0, Kind: HostClose, Epoch: 3})
	c := h.step(HostEvent{Conn: 5, Kind: HostOpen, Epoch: 3})
	if c.NewWeight != 5 {
		t.Fatalf("open after a close in epoch 3: %+v, want weight 5", c)
	}
	// later control packets carry the count of the moment
	h.step(HostEvent{Conn: 3, Kind: HostCtrlRx, Epoch: 3, B: 100, LetThrough: 10, Weight: 3})
	tx := h.step(HostEvent{Conn: 3, Kind: HostCtrlTx, Epoch: 4})
	if tx.OldWeight != 3 || tx.NewWeight != 5 || tx.Status != StatusSched {
		t.Fatalf("ctrl_tx: %+v, want old 3, new 5 (5 open)", tx)
	}
	tx = h.step(HostEvent{Conn: 3, Kind: HostCtrlTx, Epoch: 4})
	if tx.OldWeight != 5 || tx.NewWeight != 5 {
		t.Fatalf("second ctrl_tx: %+v, want old 5, new 5", tx)
	}
}

// TestHostCounts: the count is opens minus closes, within 0 and its top.
func TestHostCounts(t *testing.T) {
	p := smallHost()
	p.NumConn, p.WeightW = 6, 2
	h := newHostRig(t, p)
	h.step(HostEvent{Conn: 0, Kind: HostOpen})
	if r := h.step(HostEvent{Conn: 0, Kind: HostOpen}); r.Conns != 2 {
		t.Fatalf("reopen: %d open, want 2 (opens minus closes)", r.Conns)
	}
	if r := h.step(HostEvent{Conn: 1, Kind: HostClose}); r.Conns != 1 {
		t.Fatalf("closing a closed connection: %d open, want 1", r.Conns)
	}
	h.step(HostEvent{Conn: 0, Kind: HostClose})
	for c := uint32(1); c < 6; c++ {
		h.step(HostEvent{Conn: c, Kind: HostOpen})
	}
	if h.m.Conns() != 3 {
		t.Fatalf("6 opens with a 2-bit count: %d, want 3", h.m.Conns())
	}
	for c := uint32(0); c < 6; c++ {
		h.step(HostEvent{Conn: c, Kind: HostClose})
	}
	if h.m.Conns() != 0 {
		t.Fatalf("after closing everything: %d open", h.m.Conns())
	}
	if r := h.step(HostEvent{Conn: 2, Kind: HostSend}); r.Status != StatusIdle || r.Seq != 0 {
		t.Fatalf("send on a closed connection: %+v", r)
	}
	for _, e := range []HostEvent{{Conn: 1, Kind: HostNumKinds}, {Conn: 7, Kind: HostSend}, {Conn: 1, Kind: HostCtrlRx, B: 5}} {
		var r HostResult
		h.m.StepTo(&e, &r)
		if !r.Error || r.Conns != 0 || r.Rate != 0 {
			t.Fatalf("%+v: %+v, want an error with zeros", e, r)
		}
	}
}

// TestHostStale: a flow whose epoch's counter another epoch of the same
// parity has claimed gets no speculative number.
func TestHostStale(t *testing.T) {
	h := newHostRig(t, smallHost())
	h.step(HostEvent{Conn: 0, Kind: HostOpen, Epoch: 4})
	h.step(HostEvent{Conn: 1, Kind: HostOpen, Epoch: 5}) // the other slot
	if r := h.step(HostEvent{Conn: 0, Kind: HostSend, Epoch: 5}); r.Status != StatusSpec || r.Seq != 0 || r.Epoch != 4 {
		t.Fatalf("send in the next epoch: %+v, want speculative, number 0 of epoch 4", r)
	}
	h.step(HostEvent{Conn: 2, Kind: HostOpen, Epoch: 6}) // claims epoch 4's slot
	if r := h.step(HostEvent{Conn: 0, Kind: HostSend, Epoch: 6}); r.Status != StatusStale || r.Seq != 0 {
		t.Fatalf("send after epoch 6 claimed the slot: %+v, want stale", r)
	}
	if r := h.step(HostEvent{Conn: 2, Kind: HostSend, Epoch: 6}); r.Seq != 0 {
		t.Fatalf("epoch 6's first number: %+v, want 0", r)
	}
	if r := h.step(HostEvent{Conn: 1, Kind: HostSend, Epoch: 6}); r.Status != StatusSpec || r.Seq != 0 {
		t.Fatalf("epoch 5's flow: %+v, want its own counter", r)
	}
	// after its return the stale flow is scheduled like any other
	if r := h.step(HostEvent{Conn: 0, Kind: HostCtrlRx, Epoch: 6, B: 7, LetThrough: 4, Weight: 1}); !r.Ended || r.Resume != 1 {
		t.Fatalf("return: %+v, want its one packet (number 0 < 4) through", r)
	}
}

// TestHostRate: from the return on, a switch-bottlenecked flow is paced
// at b / new_weight (exactly, floor), any other at b, checked against the
// float64 quotient.
func TestHostRate(t *testing.T) {
	p := smallHost()
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2000; i++ {
		h := newHostRig(t, p)
		n := 1 + rng.IntN(7)
		for c := 0; c < n; c++ {
			h.step(HostEvent{Conn: uint32(c), Kind: HostOpen, Epoch: 1})
		}
		h.step(HostEvent{Conn: 0, Kind: HostCtrlRx, Epoch: 2, B: 1, LetThrough: 1, Weight: 1})
		tx := h.step(HostEvent{Conn: 0, Kind: HostCtrlTx, Epoch: 2}) // new_weight n
		b := rng.Uint64N(1 << uint(p.RateW))
		bott := rng.IntN(2) == 0
		r := h.step(HostEvent{Conn: 0, Kind: HostCtrlRx, Epoch: 2, B: b, LetThrough: 1, Weight: tx.NewWeight, Bottleneck: bott})
		want := float64(b)
		if bott {
			want /= float64(tx.NewWeight)
		}
		if tx.NewWeight != uint64(n) || float64(r.Rate) > want || want-float64(r.Rate) >= 1 || r.Ended {
			t.Fatalf("%d flows, b %d, bottleneck %v: %+v after %+v; want floor(%g)", n, b, bott, r, tx, want)
		}
		if s := h.step(HostEvent{Conn: 0, Kind: HostSend, Epoch: 2}); s.Status != StatusSched || s.Rate != r.Rate {
			t.Fatalf("scheduled send: %+v, want the rate %d", s, r.Rate)
		}
	}
}

// TestHostResumeNeverSkips: flows of one epoch send in random
// interleavings; a random let_through comes back. Each flow's resume
// point is at most the packets of its own below let_through, and equal
// when its numbers were consecutive.
func TestHostResumeNeverSkips(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	exact := 0
	for trial := 0; trial < 3000; trial++ {
		h := newHostRig(t, smallHost())
		flows := 1 + rng.IntN(4)
		for c := 0; c < flows; c++ {
			h.step(HostEvent{Conn: uint32(c), Kind: HostOpen, Epoch: 9})
		}
		own := make([][]uint64, flows)
		burst := rng.IntN(2) == 0 // each flow's packets back to back
		for c := 0; burst && c < flows; c++ {
			for k := rng.IntN(6); k > 0; k-- {
				s := h.step(HostEvent{Conn: uint32(c), Kind: HostSend, Epoch: 9})
				own[c] = append(own[c], s.Seq)
			}
		}
		for k := rng.IntN(12); !burst && k > 0; k-- {
			c := rng.IntN(flows)
			s := h.step(HostEvent{Conn: uint32(c), Kind: HostSend, Epoch: 9})
			own[c] = append(own[c], s.Seq)
		}
		lt := rng.Uint64N(14)
		for c := 0; c < flows; c++ {
			got := 0
			for _, s := range own[c] {
				if s < lt {
					got++
				}
			}
			r := h.step(HostEvent{Conn: uint32(c), Kind: HostCtrlRx, Epoch: 9, LetThrough: lt, Weight: 1})
			consecutive := len(own[c]) == 0 || own[c][len(own[c])-1]-own[c][0] == uint64(len(own[c])-1)
			if !r.Ended || r.Resume > uint64(got) || consecutive && r.Resume != uint64(got) {
				t.Fatalf("trial %d: flow %d sent %v, let_through %d: resume %d, %d got through", trial, c, own[c], lt, r.Resume, got)
			}
			if consecutive {
				exact++
			}
		}
	}
	if exact < 1000 {
		t.Fatalf("only %d exact cases: the test does not cover them", exact)
	}
}
