package snyder

import (
	"math"
	"math/rand/v2"
	"testing"
)

func swiftStep(m *SwiftFxModel, e SwiftFxEvent) SwiftFxResult {
	var r SwiftFxResult
	m.StepTo(&e, &r)
	return r
}

// TestSwiftFxStepError bounds one ACK's fixed-point update against Eq.
// 3.1 and the per-packet increase in float64 from the same state: the
// target within FBSFixed's bound, and the window within 2^-8 of the
// window the decrease starts from plus 2^-8 of the increase plus two
// units (the reciprocal divider's 2^-9, beta's and the factor's rounding
// to 2^-12, the floors). The largest errors are logged.
func TestSwiftFxStepError(t *testing.T) {
	for _, sf := range []uint64{0, 30} {
		p := DefaultSwiftFx()
		p.SF, p.AlwaysAI = sf, sf > 0
		m, err := NewSwiftFxModel(p)
		if err != nil {
			t.Fatal(err)
		}
		fb, _ := p.FBSFixed()
		unit := math.Ldexp(1, -p.FracW)
		r := rand.New(rand.NewPCG(1, sf))
		var worstRel, worstTarget float64
		for i := 0; i < 200_000; i++ {
			cwnd := p.MinCwnd + r.Uint64N(p.MaxCwnd-p.MinCwnd+1)
			if i%2 == 0 { // windows of a few packets, where fbs moves
				cwnd = p.MinCwnd + r.Uint64N(64<<p.FracW)
			}
			ref := p.MinCwnd + r.Uint64N(p.MaxCwnd-p.MinCwnd+1)
			m.table[0] = SwiftFxState{Cwnd: cwnd, Ref: ref, LastDec: 0}
			hops := r.Uint64N(p.MaxHops() + 1)
			delay := 1 + r.Uint64N(60_000)
			acked := 1 + r.Uint64N(4)
			res := swiftStep(m, SwiftFxEvent{Conn: 0, Kind: SwiftAck, Now: 1 << 20, Delay: delay, Hops: hops, Acked: acked})
			cw := math.Ldexp(float64(cwnd), -p.FracW)
			tf := float64(p.BaseNs+hops*p.PerHopNs) + p.FBS.FBS(cw)
			worstTarget = max(worstTarget, math.Abs(float64(res.Target)-tf))
			if d := math.Abs(float64(res.Target) - tf); d > fb.ErrorBound() {
				t.Fatalf("cwnd %g: target %d, float %g: off by more than %g", cw, res.Target, tf, fb.ErrorBound())
			}
			// the float update from the block's own target and congestion
			tg := float64(res.Target)
			from, next := cw, cw
			if res.Congested {
				f := math.Max(1-0.8*(float64(delay)-tg)/float64(delay), 0.5)
				if sf > 0 {
					from = math.Ldexp(float64(ref), -p.FracW)
				}
				next = f * from
			}
			inc := 0.0
			if !res.Congested || p.AlwaysAI {
				ai := math.Ldexp(float64(p.AI), -p.FracW) * float64(acked)
				if cw >= 1 {
					inc = ai / cw
				} else {
					inc = ai
				}
			}
			next = math.Min(math.Max(next+inc, math.Ldexp(float64(p.MinCwnd), -p.FracW)), math.Ldexp(float64(p.MaxCwnd), -p.FracW))
			got := math.Ldexp(float64(res.Cwnd), -p.FracW)
			bound := from*math.Ldexp(1, -8) + inc*math.Ldexp(1, -8) + 2*unit
			if math.Abs(got-next) > bound {
				t.Fatalf("sf %d, cwnd %g ref %g delay %d target %d acked %d: %g, float %g (bound %g)", sf, cw, from, delay, res.Target, acked, got, next, bound)
			}
			if from > 0 {
				worstRel = max(worstRel, math.Abs(got-next)/from)
			}
		}
		t.Logf("sf %d: worst target error %.1f ns (bound %.1f), worst window error %.2e of the window decreased from", sf, worstTarget, fb.ErrorBound(), worstRel)
	}
}

// TestSwiftFxReferenceExample is the thesis's example of the reference
// rate (S3:L1022-1024) in the block's arithmetic: with every ACK asking
// for the largest decrease (max_mdf 1/2) and SF 2, a window of 64
// packets goes to 32, stays 32 while the reference is 64, then 16.
func TestSwiftFxReferenceExample(t *testing.T) {
	p := DefaultSwiftFx()
	p.SF, p.InitCwnd = 2, 64<<p.FracW
	m, err := NewSwiftFxModel(p)
	if err != nil {
		t.Fatal(err)
	}
	swiftStep(m, SwiftFxEvent{Conn: 3, Kind: SwiftOpen, Now: 0})
	want := []uint64{32, 32, 16, 16, 8}
	for i, w := range want {
		r := swiftStep(m, SwiftFxEvent{Conn: 3, Kind: SwiftAck, Now: uint64(1000 * (i + 1)), Delay: 1 << 19, Hops: 1, Acked: 1})
		if !r.Congested || !r.Decreased || r.Cwnd != w<<p.FracW {
			t.Fatalf("ACK %d: window %g (congested %v, decreased %v), want %d", i+1, math.Ldexp(float64(r.Cwnd), -p.FracW), r.Congested, r.Decreased, w)
		}
	}
	// without SF the same ACKs decrease once per RTT (the delay): the
	// second, a delay later, only
	p.SF = 0
	m, _ = NewSwiftFxModel(p)
	swiftStep(m, SwiftFxEvent{Conn: 0, Kind: SwiftOpen, Now: 0})
	for i, tc := range []struct {
		now  uint64
		want uint64
		dec  bool
	}{{1 << 19, 32, true}, {1<<19 + 10, 32, false}, {2 << 19, 16, true}} {
		r := swiftStep(m, SwiftFxEvent{Conn: 0, Kind: SwiftAck, Now: tc.now, Delay: 1 << 19, Hops: 1, Acked: 1})
		if r.Decreased != tc.dec || r.Cwnd != tc.want<<p.FracW {
			t.Fatalf("per RTT, ACK %d: window %g decreased %v, want %d, %v", i+1, math.Ldexp(float64(r.Cwnd), -p.FracW), r.Decreased, tc.want, tc.dec)
		}
	}
}

// TestVAIFxWeakness is the known weakness of VAI (S3:L1016) in the
// block's arithmetic: after the same congested RTT, a flow congested for
// 50 RTTs before (a high dampener) gets a smaller AI than a new flow. It
// also checks Algorithm 1's bank: tokens floor(mc / AI_DIV), capped.
func TestVAIFxWeakness(t *testing.T) {
	p := DefaultSwiftFx()
	p.VAI = DefaultSwiftVAIFx(p.BaseNs + p.PerHopNs)
	p.AlwaysAI = true
	m, err := NewSwiftFxModel(p)
	if err != nil {
		t.Fatal(err)
	}
	const rtt = 20_000 // ns of delay: above Token_Thresh (11 us)
	swiftStep(m, SwiftFxEvent{Conn: 0, Kind: SwiftOpen, Now: 0})
	now := uint64(0)
	for i := 0; i < 50; i++ { // 50 congested RTTs, one ACK each
		now += rtt
		swiftStep(m, SwiftFxEvent{Conn: 0, Kind: SwiftAck, Now: now, Delay: rtt, Hops: 1, Acked: 1})
	}
	swiftStep(m, SwiftFxEvent{Conn: 1, Kind: SwiftOpen, Now: now})
	now += rtt
	for c := uint32(0); c < 2; c++ {
		swiftStep(m, SwiftFxEvent{Conn: c, Kind: SwiftAck, Now: now, Delay: rtt, Hops: 1, Acked: 1})
	}
	old, young := m.State(0), m.State(1)
	t.Logf("after 51 congested RTTs: dampener %.2f, AI %.4f packets; a new flow after one: dampener %.2f, AI %.4f, bank %d",
		math.Ldexp(float64(old.Damp), -p.VAI.DampFrac), math.Ldexp(float64(old.AI), -p.FracW),
		math.Ldexp(float64(young.Damp), -p.VAI.DampFrac), math.Ldexp(float64(young.AI), -p.FracW), young.Bank)
	if old.AI >= young.AI/4 {
		t.Errorf("the long-congested flow's AI %d is not well below the new flow's %d", old.AI, young.AI)
	}
	// the new flow's one RTT: 20000/30 = 666 tokens banked, 100 spent
	if young.Bank != rtt/30-p.VAI.AICap {
		t.Errorf("new flow's bank %d, want %d", young.Bank, rtt/30-p.VAI.AICap)
	}
	// 51 RTTs each raise the dampener by floor(20000 x 2^4 / 11000) = 29
	want := 51 * (uint64(rtt) << uint(p.VAI.DampFrac) / p.VAI.TokenThresh)
	if old.Bank > p.VAI.BankCap || old.Damp != want {
		t.Errorf("long-congested flow: bank %d (cap %d), dampener %d (want %d)", old.Bank, p.VAI.BankCap, old.Damp, want)
	}
}

// TestSwiftFxRejects: parameters the block cannot build are errors.
func TestSwiftFxRejects(t *testing.T) {
	for name, mut := range map[string]func(*SwiftFxParams){
		"odd fraction":      func(p *SwiftFxParams) { p.FracW = 15 },
		"min above max":     func(p *SwiftFxParams) { p.MinCwnd = p.MaxCwnd + 1 },
		"max past width":    func(p *SwiftFxParams) { p.MaxCwnd = 1 << 26 },
		"beta 0":            func(p *SwiftFxParams) { p.Beta = 0 },
		"no AI":             func(p *SwiftFxParams) { p.AI = 0 },
		"base past delay":   func(p *SwiftFxParams) { p.BaseNs = 1 << 20 },
		"VAI no AI_DIV":     func(p *SwiftFxParams) { p.VAI = DefaultSwiftVAIFx(7000); p.VAI.AIDiv = 0 },
		"VAI dampener frac": func(p *SwiftFxParams) { p.VAI = DefaultSwiftVAIFx(7000); p.VAI.DampFrac = 12 },
		"sampling 4096":     func(p *SwiftFxParams) { p.SF = 4096 },
	} {
		p := DefaultSwiftFx()
		mut(&p)
		if _, err := NewSwiftFxModel(p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
