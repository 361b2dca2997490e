package newflow

import (
	"testing"

	"github.com/nicgen/nicgen/golden/onerc"
)

func port(t *testing.T, c Config) *onerc.SwitchModel {
	m, err := onerc.NewSwitchModel(onerc.SwitchParams{NumConn: c.Slots, ConnW: 16, KindW: 2, TagW: c.TagW, WinW: c.WinW, WeightW: 8, SeqW: 16})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// passAll is a port without 1RC: every packet goes through.
type passAll struct{}

func (passAll) StepTo(e *onerc.SwitchEvent, r *onerc.SwitchResult) {
	*r = onerc.SwitchResult{Conn: e.Conn, Kind: e.Kind, LetThrough: e.LetThrough, Hit: true}
}

// TestNewFlowOneRTT is 1RC's headline: a flow joining 3 others on 100
// Gb/s gets 24 Gb/s over its first RTT (its fair share is 25: the window
// of 18.75 packets per 6 us epoch, rounded down), where a port without
// 1RC lets its line-rate start through (100 Gb/s over the first RTT); the
// port drops exactly its speculative packets from let_through on, and the
// receiver sees every packet once, in order. With a weight of 2 (two
// connections on its host) the flow gets half.
func TestNewFlowOneRTT(t *testing.T) {
	c := Default()
	r, err := Run(c, port(t, c))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fair %.1f Gb/s, window %d, let_through %d; first RTT %.1f Gb/s, next %.1f; %d dropped, %d delivered, in order %v",
		r.FairGbps, r.Window, r.LetThrough, r.FirstRTTGbps, r.SteadyGbps, len(r.Dropped), len(r.Delivered), r.InOrder)
	if r.Window != 18 || r.LetThrough != 18 {
		t.Fatalf("window %d, let_through %d: want 18 (25 Gb/s x 6 us / 8000 bits, rounded down)", r.Window, r.LetThrough)
	}
	if r.FirstRTTGbps < 0.9*r.FairGbps || r.FirstRTTGbps > r.FairGbps || r.SteadyGbps < 0.9*r.FairGbps || r.SteadyGbps > 1.05*r.FairGbps {
		t.Fatalf("first RTT %.2f, next %.2f Gb/s: want within 10%% of the fair %.2f", r.FirstRTTGbps, r.SteadyGbps, r.FairGbps)
	}
	if !r.InOrder || len(r.Delivered) != c.MessagePackets {
		t.Fatalf("delivered %d of %d packets, in order %v", len(r.Delivered), c.MessagePackets, r.InOrder)
	}
	for i, s := range r.Dropped {
		if s != r.LetThrough+uint64(i) {
			t.Fatalf("dropped %v: want let_through %d, %d, ... in order", r.Dropped, r.LetThrough, r.LetThrough+1)
		}
	}
	open, err := Run(c, passAll{})
	if err != nil {
		t.Fatal(err)
	}
	if open.FirstRTTGbps < 3*r.FairGbps {
		t.Fatalf("without 1RC the first RTT gets %.1f Gb/s, want the line rate's burst", open.FirstRTTGbps)
	}
	t.Logf("without 1RC: first RTT %.1f Gb/s", open.FirstRTTGbps)
	c.Weight = 2
	h, err := Run(c, port(t, c))
	if err != nil {
		t.Fatal(err)
	}
	if h.LetThrough != 9 || h.FirstRTTGbps > r.FirstRTTGbps/2+0.01 || h.SteadyGbps < 0.9*h.FairGbps || h.SteadyGbps > 1.05*h.FairGbps {
		t.Fatalf("weight 2: let_through %d, first RTT %.1f Gb/s, next %.1f; want 9, half of %.1f, and %.1f", h.LetThrough, h.FirstRTTGbps, h.SteadyGbps, r.FirstRTTGbps, h.FairGbps)
	}
	t.Logf("weight 2: let_through %d, first RTT %.1f Gb/s, next %.1f (fair %.1f)", h.LetThrough, h.FirstRTTGbps, h.SteadyGbps, h.FairGbps)
}
