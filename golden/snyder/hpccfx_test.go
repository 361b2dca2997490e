package snyder

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestHPCCFxInflight checks U against HPCC's formula in float64 for one
// ACK from a known state: within 2^-9 of u's rate term plus 2^-12 of the
// EWMA, the queue term's rounding and the truncations.
func TestHPCCFxInflight(t *testing.T) {
	p := DefaultHPCCFx()
	m, err := NewHPCCFxModel(p)
	if err != nil {
		t.Fatal(err)
	}
	one := math.Ldexp(1, p.UFrac)
	var worst float64
	for _, c := range []struct{ u0, q0, q, dtx, tau float64 }{
		{0, 0, 0, 12.5 * 100, 100}, {0.5, 20_000, 30_000, 12.5 * 1000, 1000}, {1.2, 60_000, 50_000, 5_000, 400},
		{0.95, 10_000, 10_000, 12.5 * 5000, 5000}, {2, 100_000, 120_000, 0, 80}, {0.1, 0, 1000, 12.5 * 8000, 8000},
	} {
		m.table[0] = HPCCFxState{W: 10 << p.FracW, Wc: 10 << p.FracW, U: uint64(c.u0 * one), HavePrev: true, PrevTs: 1000, PrevTx: 1 << 20, PrevQ: uint64(c.q0)}
		var r HPCCFxResult
		m.StepTo(&HPCCFxEvent{Conn: 0, Kind: HPCCAck, QLen: uint64(c.q), TxB: 1<<20 + uint64(c.dtx), Ts: 1000 + uint64(c.tau)}, &r)
		bt := p.LinkBpns * float64(p.BaseRTTNs)
		u := math.Min(c.q, c.q0)/bt + c.dtx/c.tau/p.LinkBpns
		a := math.Min(c.tau, float64(p.BaseRTTNs)) / float64(p.BaseRTTNs)
		want := (1-a)*c.u0 + a*u
		got := float64(r.U) / one
		bound := a*u*math.Ldexp(1, -9) + math.Ldexp(1, -12)*(c.u0+u) + 4/one
		worst = max(worst, math.Abs(got-want))
		if math.Abs(got-want) > bound {
			t.Errorf("%+v: U %g, float %g (bound %g)", c, got, want, bound)
		}
	}
	t.Logf("worst |U - float| %.2e", worst)
}

// TestHPCCFxRandomFeedback: with random feedback, a congested ACK that
// would move the reference is used with probability W / MaxWindow
// (S3:L659-669): at a window of a quarter, a half and all of the maximum,
// the share of such ACKs whose feedback moves the reference is within
// 0.02 of it over 20,000 draws of the block's LFSR; without the option,
// every one moves it.
func TestHPCCFxRandomFeedback(t *testing.T) {
	p := DefaultHPCCFx()
	p.RandomFeedback = true
	for _, frac := range []float64{0.25, 0.5, 1} {
		m, err := NewHPCCFxModel(p)
		if err != nil {
			t.Fatal(err)
		}
		w := uint64(frac * float64(p.MaxCwnd))
		const n = 20_000
		used := 0
		for i := 0; i < n; i++ {
			// congested (U = 2 > eta), at an RTT's end (seq past last_seq)
			m.table[0] = HPCCFxState{W: w, Wc: w, U: 2 << p.UFrac, LastSeq: 10}
			var r HPCCFxResult
			m.StepTo(&HPCCFxEvent{Conn: 0, Kind: HPCCAck, Seq: 11, SndNxt: 20}, &r)
			if !r.Congested {
				t.Fatal("not congested")
			}
			if r.Moved {
				used++
			}
		}
		share := float64(used) / n
		t.Logf("window %.2f of the maximum: feedback used %.3f", frac, share)
		if math.Abs(share-frac) > 0.02 {
			t.Errorf("window %.2f of the maximum: feedback used %.3f of the time", frac, share)
		}
	}
}

// TestHPCCFxSFReadings runs sfReadingCases (hpcc_test.go) on the block's
// arithmetic: the moves exactly, the windows and references within the
// reciprocal divider's error (2^-9 relative per division, three
// divisions at most, plus a unit of the last place each), and the
// structure of each move exactly: a held reference keeps its value, the
// RTT's move sets it to the window, SF's move to the window less the AI.
func TestHPCCFxSFReadings(t *testing.T) {
	for _, c := range sfReadingCases {
		p := DefaultHPCCFx()
		p.Eta, p.AI, p.SF, p.SFKeepsRTT = 1<<(p.UFrac-1), 1<<p.FracW, 3, c.keeps
		m, err := NewHPCCFxModel(p)
		if err != nil {
			t.Fatal(err)
		}
		sixteen := uint64(16) << p.FracW
		m.table[0] = HPCCFxState{W: sixteen, Wc: sixteen, U: 1 << p.UFrac, LastSeq: 10, AI: p.AI}
		for i, seq := range c.seqs {
			before := m.table[0].Wc
			var r HPCCFxResult
			m.StepTo(&HPCCFxEvent{Conn: 0, Kind: HPCCAck, Seq: uint64(seq), SndNxt: 20}, &r)
			s := m.table[0]
			one := math.Ldexp(1, p.FracW)
			w, wc := float64(r.Cwnd)/one, float64(s.Wc)/one
			near := func(got, want float64) bool { return math.Abs(got-want) <= want*3*math.Ldexp(1, -9)+4/one }
			if !r.Congested || r.Moved != c.moved[i] || !near(w, c.w[i]) || !near(wc, c.wc[i]) {
				t.Errorf("%s, ACK %d: W %g, Wc %g, moved %v, congested %v; want %g, %g, %v: %s", c.name, i+1, w, wc, r.Moved, r.Congested, c.w[i], c.wc[i], c.moved[i], c.doc)
			}
			switch {
			case !r.Moved && s.Wc != before:
				t.Errorf("%s, ACK %d: held, but Wc %d became %d", c.name, i+1, before, s.Wc)
			case r.Moved && c.wc[i] == c.w[i] && s.Wc != r.Cwnd: // the RTT's move
				t.Errorf("%s, ACK %d: the RTT's move, Wc %d, W %d", c.name, i+1, s.Wc, r.Cwnd)
			case r.Moved && c.wc[i] != c.w[i] && s.Wc+p.AI != r.Cwnd: // SF's move, by the decrease alone
				t.Errorf("%s, ACK %d: SF's move, Wc %d + AI %d, W %d", c.name, i+1, s.Wc, p.AI, r.Cwnd)
			}
		}
	}
}

// TestHPCCFxEWMAUnbiased: the EWMA step of U rounds to the nearest, so
// that U carries no bias. 200,000 ACKs from a random queue (no bytes
// sent: u = (min(q, q_prev) K1) >> S1 exactly) and random gaps of 50 ns
// to 1 us; a float64 EWMA of the same u with the same weights runs
// beside. Over the ACKs after the first 1,000, the mean of U minus the
// float EWMA is within 0.1 of U's unit (a truncating step, the block's
// arithmetic before, gives -3.95 units here), and the worst is within
// the bound the rounding allows, half a unit times 2^G / a for the
// smallest weight a.
func TestHPCCFxEWMAUnbiased(t *testing.T) {
	p := DefaultHPCCFx()
	m, err := NewHPCCFxModel(p)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 9))
	var r HPCCFxResult
	m.StepTo(&HPCCFxEvent{Conn: 0, Kind: HPCCOpen}, &r)
	ts, prevQ := uint64(1000), uint64(0)
	m.StepTo(&HPCCFxEvent{Conn: 0, Kind: HPCCAck, Ts: ts}, &r) // the first stamp: no measurement
	g := math.Ldexp(1, p.G)
	var uf, sum, worst float64
	aMin := g
	const acks, warm = 200_000, 1_000
	for i := 0; i < acks; i++ {
		q := uint64(rng.IntN(200_000))
		tau := uint64(50 + rng.IntN(951))
		ts += tau
		m.StepTo(&HPCCFxEvent{Conn: 0, Kind: HPCCAck, QLen: q, Ts: ts}, &r)
		u := float64(min(min(q, prevQ)*p.K1()>>uint(p.S1), p.SatU()))
		a := float64((min(tau, p.BaseRTTNs) << uint(p.G)) / p.BaseRTTNs)
		uf = (uf*(g-a) + u*a) / g
		prevQ = q
		aMin = min(aMin, a)
		if i >= warm {
			e := float64(r.U) - uf
			sum += e
			worst = max(worst, math.Abs(e))
		}
	}
	mean := sum / (acks - warm)
	bound := 0.5 * g / aMin
	t.Logf("U - float EWMA over %d ACKs: mean %+.3f units, worst %.2f (bound %.1f); a unit is 2^-%d", acks-warm, mean, worst, bound, p.UFrac)
	if math.Abs(mean) > 0.1 || worst > bound {
		t.Errorf("U - float EWMA: mean %+.3f units (want within 0.1), worst %.2f (bound %.1f)", mean, worst, bound)
	}
}
