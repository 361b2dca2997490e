package newflow

import (
	"math"
	"testing"

	"github.com/nicgen/nicgen/golden/onerc"
)

func golden(t *testing.T, c Config) Blocks {
	t.Helper()
	b, err := GoldenBlocks(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// passAll is a port without 1RC: every packet goes through.
type passAll struct{}

func (passAll) StepTo(e *onerc.SwitchEvent, r *onerc.SwitchResult) {
	*r = onerc.SwitchResult{Conn: e.Conn, Kind: e.Kind, LetThrough: e.LetThrough, Hit: true}
}

// expect is the scene's outcome from the thesis's formulas, apart from
// the blocks: the weighted max-min share of the new flow of weight 1/w
// among Old flows of weight 1 (A_i = w_i L / sum w_j, S3:L1262), b = C /
// (Old + 1/w) per unit of weight, the window rate_to_window(b) and the
// threshold max(1, window / w).
func expect(c Config) (fairGbps float64, window, thresh uint64) {
	inv := 1 / float64(c.Weight)
	b := c.LinkGbps / (float64(c.Old) + inv)
	window = uint64(math.Floor(b * c.EpochNs / (8 * float64(c.MTU))))
	return b * inv, window, max(1, window/c.Weight)
}

// TestNewFlowOneRTT is 1RC's headline with the three blocks' golden
// models: a flow joining 3 others on 100 Gb/s gets its fair share over its
// first RTT (25 Gb/s, a window of 18.75 packets per 6 us epoch rounded
// down: 24), where a port without 1RC lets its line-rate start through;
// the port drops exactly its speculative packets from let_through on, the
// host resumes from let_through, and the receiver sees every packet once,
// in order. With a weight of 2 (two connections on its host at the
// epoch's start) the flow counts 1/2 at the link and gets its weighted
// share, 1/7 of the link.
func TestNewFlowOneRTT(t *testing.T) {
	for _, w := range []uint64{1, 2, 5} {
		c := Default()
		c.Weight = w
		r, err := Run(c, golden(t, c))
		if err != nil {
			t.Fatal(err)
		}
		fair, window, thresh := expect(c)
		t.Logf("weight %d: b %d Mb/s, rate %.2f Gb/s (weighted share %.2f), window %d, let_through %d, resume %d; first RTT %.1f Gb/s, next %.1f; %d dropped, %d delivered, in order %v",
			w, r.B, r.FairGbps, fair, r.Window, r.LetThrough, r.Resume, r.FirstRTTGbps, r.SteadyGbps, len(r.Dropped), len(r.Delivered), r.InOrder)
		if r.Weight != w || r.Window != window || r.LetThrough != thresh || r.Resume != thresh {
			t.Fatalf("weight %d, window %d, let_through %d, resume %d: want %d, %d, %d, %d", r.Weight, r.Window, r.LetThrough, r.Resume, w, window, thresh, thresh)
		}
		if math.Abs(r.FairGbps-fair) > 0.002*fair {
			t.Fatalf("rate %.3f Gb/s: want the weighted share %.3f within 0.2%%", r.FairGbps, fair)
		}
		// an RTT holds whole packets: one packet per RTT of slack
		slack := max(0.1*fair, float64(c.MTU*8)/(2*c.PropNs))
		if math.Abs(r.FirstRTTGbps-fair) > slack || math.Abs(r.SteadyGbps-fair) > slack {
			t.Fatalf("first RTT %.2f, next %.2f Gb/s: want the share %.2f within %.2f", r.FirstRTTGbps, r.SteadyGbps, fair, slack)
		}
		if !r.InOrder || len(r.Delivered) != c.MessagePackets {
			t.Fatalf("delivered %d of %d packets, in order %v", len(r.Delivered), c.MessagePackets, r.InOrder)
		}
		for i, s := range r.Dropped {
			if s != r.LetThrough+uint64(i) {
				t.Fatalf("dropped %v: want let_through %d, %d, ... in order", r.Dropped, r.LetThrough, r.LetThrough+1)
			}
		}
		if w != 1 {
			continue
		}
		b := golden(t, c)
		b.Port = passAll{}
		open, err := Run(c, b)
		if err != nil {
			t.Fatal(err)
		}
		if open.FirstRTTGbps < 3*fair {
			t.Fatalf("without 1RC the first RTT gets %.1f Gb/s, want the line rate's burst", open.FirstRTTGbps)
		}
		t.Logf("without 1RC: first RTT %.1f Gb/s", open.FirstRTTGbps)
	}
}

// TestNewFlowBadScene: a scene that cannot be played is an error.
func TestNewFlowBadScene(t *testing.T) {
	c := Default()
	c.JoinNs = 0
	if _, err := Run(c, golden(t, c)); err == nil {
		t.Fatal("a join in the first epoch (no old flow settled) ran")
	}
}
