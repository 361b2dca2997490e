package threecpo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// figureRow is one row of S3 Fig. 6.1 or 6.4: at cycle Cycle (the last
// cycle of a range such as "2-4") the GPU holds Tokens and sends or waits.
type figureRow struct {
	Cycle  int
	Send   bool
	Tokens int32
}

// replay runs the unit over cycles 0..last with a packet always waiting
// (sent whenever the gate allows) of cost request tokens, WM_MAX 10, the
// watermark wm and the draws rands (cycle c's request rand), and returns
// the tokens before each cycle and whether it sent.
func replay(t *testing.T, wm uint32, cost int32, rands []uint32) ([]int32, []bool) {
	t.Helper()
	p := IRLParams{WMMax: 10, RandBits: 16, Cap: 9, MaxCost: 64, Seed: 1}
	// the response counter is not in the figures: full, costless
	s := IRLState{Req: 1, Rsp: 1, ReqWM: wm, RspWM: 10}
	var tokens []int32
	var sent []bool
	for _, rnd := range rands {
		tokens = append(tokens, s.Req)
		var r IRLResult
		s, r = IRLStep(p, s, IRLCycle{Send: true, ReqCost: cost, RspCost: 0, ReqRand: rnd, RspRand: 0})
		sent = append(sent, r.Sent)
	}
	return tokens, sent
}

func checkRows(t *testing.T, name string, rows []figureRow, tokens []int32, sent []bool) {
	t.Helper()
	for _, row := range rows {
		if tokens[row.Cycle] != row.Tokens || sent[row.Cycle] != row.Send {
			t.Errorf("%s, cycle %d: tokens %d, sent %v; the figure: %d, %v", name, row.Cycle, tokens[row.Cycle], sent[row.Cycle], row.Tokens, row.Send)
		}
	}
}

// S3 Fig. 6.1: 5-flit packets; with the watermark at WM_MAX a token comes
// every cycle and a packet goes every 5 cycles; at half of it (draws
// alternating above and below 5, as the figure's "New Token?" column)
// one goes every 10.
func TestFigure61(t *testing.T) {
	always := make([]uint32, 11) // every draw 0 < 10
	tokens, sent := replay(t, 10, 5, always)
	checkRows(t, "without throttling", []figureRow{
		{0, true, 1}, {1, false, -3}, {2, false, -2}, {3, false, -1}, {4, false, 0},
		{5, true, 1}, {6, false, -3}, {7, false, -2}, {8, false, -1}, {9, false, 0}, {10, true, 1},
	}, tokens, sent)

	// New Token? No, Yes, No, Yes, ...: draws 7 (>= 5) and 2 (< 5)
	alt := make([]uint32, 11)
	for c := range alt {
		alt[c] = 7
		if c%2 == 1 {
			alt[c] = 2
		}
	}
	tokens, sent = replay(t, 5, 5, alt)
	checkRows(t, "with throttling", []figureRow{
		{0, true, 1}, {1, false, -4}, {2, false, -3}, {3, false, -3}, {4, false, -2},
		{5, false, -2}, {6, false, -1}, {7, false, -1}, {8, false, 0}, {9, false, 0}, {10, true, 1},
	}, tokens, sent)
}

// S3 Fig. 6.4: 5-flit multicast packets; alone a packet goes every 5
// cycles; with 4 concurrent senders each send also takes the 15 matched
// flits of the other three, and one goes every 20 cycles (N x flits).
func TestFigure64(t *testing.T) {
	always := make([]uint32, 21)
	tokens, sent := replay(t, 10, 5, always)
	checkRows(t, "without throttling", []figureRow{
		{0, true, 1}, {1, false, -3}, {4, false, 0}, {5, true, 1}, {9, false, 0},
		{10, true, 1}, {14, false, 0}, {15, true, 1}, {19, false, 0}, {20, true, 1},
	}, tokens, sent)
	tokens, sent = replay(t, 10, 5+3*5, always)
	checkRows(t, "4 GPUs with 3CPO", []figureRow{
		{0, true, 1}, {1, false, -18}, {4, false, -15}, {5, false, -14}, {9, false, -10},
		{10, false, -9}, {14, false, -5}, {15, false, -4}, {19, false, 0}, {20, true, 1},
	}, tokens, sent)
	for c := 1; c < 20; c++ {
		if sent[c] {
			t.Errorf("4 GPUs with 3CPO: sent at cycle %d, want only at 0 and 20", c)
		}
	}
}

// The LFSR's draws are uniform over [0, WM_MAX): a chi-square test over
// 16 bins of 2^20 draws of each counter, and the token rate at several
// watermarks within 4 standard deviations of watermark/WM_MAX.
func TestRandUniform(t *testing.T) {
	p := DefaultIRLParams()
	m, err := NewIRLModel(p)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1 << 20
	const bins = 16
	var hist [2][bins]float64
	for range n {
		req, rsp := m.Draw()
		if req >= p.WMMax || rsp >= p.WMMax {
			t.Fatalf("draw %d, %d out of [0, %d)", req, rsp, p.WMMax)
		}
		hist[0][uint64(req)*bins/uint64(p.WMMax)]++
		hist[1][uint64(rsp)*bins/uint64(p.WMMax)]++
	}
	for k, h := range hist {
		var chi float64
		for b := range bins {
			// the bin's share of [0, WMMax): its count of integers
			lo := (uint64(b)*uint64(p.WMMax) + bins - 1) / bins
			hi := (uint64(b+1)*uint64(p.WMMax) + bins - 1) / bins
			want := float64(n) * float64(hi-lo) / float64(p.WMMax)
			chi += (h[b] - want) * (h[b] - want) / want
		}
		// 15 degrees of freedom: P(chi2 > 37.7) = 0.001
		if chi > 37.7 {
			t.Errorf("draw %d: chi-square %.1f over %d bins, above 37.7 (p = 0.001)", k, chi, bins)
		}
		t.Logf("draw %d: chi-square %.1f (15 degrees of freedom)", k, chi)
	}
	for _, wm := range []uint32{100, 617, 1234, 2000, 2467} {
		m.Reset()
		m.SetWatermarks(wm, p.WMMax-wm)
		var req, rsp float64
		const cycles = 400_000
		for range cycles {
			r := m.Cycle(false, 0, 0)
			if r.NewReq {
				req++
			}
			if r.NewRsp {
				rsp++
			}
		}
		for _, c := range []struct {
			name string
			got  float64
			wm   uint32
		}{{"request", req, wm}, {"response", rsp, p.WMMax - wm}} {
			want := float64(c.wm) / float64(p.WMMax)
			sd := math.Sqrt(want * (1 - want) / cycles)
			if got := c.got / cycles; math.Abs(got-want) > 4*sd+1.0/float64(int(1)<<p.RandBits) {
				t.Errorf("watermark %d: %s token rate %.5f, want %.5f (4 sd %.5f)", c.wm, c.name, got, want, 4*sd)
			}
		}
	}
}

// The exact rate of rand < wm is ceil(wm 2^k / WMMax) / 2^k: within 2^-k
// of wm/WMMax for every watermark.
func TestRandMapping(t *testing.T) {
	p := DefaultIRLParams()
	counts := make([]int, p.WMMax)
	for r := uint32(0); r < 1<<p.RandBits; r++ {
		counts[p.Rand(r)]++
	}
	below := 0
	for wm := uint32(0); wm <= p.WMMax; wm++ {
		exact := float64(below) / float64(uint32(1)<<p.RandBits)
		if d := math.Abs(exact - float64(wm)/float64(p.WMMax)); d > 1.0/float64(int(1)<<p.RandBits) {
			t.Fatalf("watermark %d: rate %.6f, off by %.2g > 2^-%d", wm, exact, d, p.RandBits)
		}
		if wm < p.WMMax {
			below += counts[wm]
		}
	}
}

// Under random sends, costs and watermarks the counters stay within
// [1 - MaxCost, Cap], a refused send takes nothing, and an allowed one
// takes exactly its cost.
func TestIRLBounds(t *testing.T) {
	p := DefaultIRLParams()
	p.MaxCost = 40
	m, err := NewIRLModel(p)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 9))
	sent, refused := 0, 0
	for c := range 500_000 {
		if c%1000 == 0 {
			m.SetWatermarks(rng.Uint32N(p.WMMax+1), rng.Uint32N(p.WMMax+1))
		}
		before := m.State()
		rc, sc := rng.Int32N(p.MaxCost+1), rng.Int32N(p.MaxCost+1)
		if rng.IntN(50) == 0 {
			rc = p.MaxCost + 1 + rng.Int32N(5) // out of range: refused
		}
		r := m.Cycle(rng.IntN(3) == 0, rc, sc)
		s := m.State()
		if r.Sent {
			sent++
		}
		if r.Refused {
			refused++
		}
		for _, x := range []struct {
			before, after, cost int32
			arrived             bool
		}{{before.Req, s.Req, rc, r.NewReq}, {before.Rsp, s.Rsp, sc, r.NewRsp}} {
			if x.after < 1-p.MaxCost || x.after > p.Cap {
				t.Fatalf("cycle %d: counter %d out of [%d, %d]", c, x.after, 1-p.MaxCost, p.Cap)
			}
			want := x.before
			if r.Sent {
				want -= x.cost
			}
			if x.arrived {
				want++
			}
			if want = min(want, p.Cap); x.after != want {
				t.Fatalf("cycle %d: counter %d -> %d, want %d (sent %v, cost %d, new %v)", c, x.before, x.after, want, r.Sent, x.cost, x.arrived)
			}
		}
	}
	if sent == 0 || refused == 0 {
		t.Errorf("sent %d, refused %d: both must happen", sent, refused)
	}
}
