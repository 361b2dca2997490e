package threecpo_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/threecpo"
	gthreecpo "github.com/nicgen/nicgen/golden/threecpo"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

func irlConfig(p threecpo.IRLTokensParams) blocks.Config {
	return blocks.DefaultConfig().Clone().Set("irl_tokens", p)
}

// narrowIRL: WM_MAX 10 (Fig. 6.1's), 8 random bits, a bucket of 3 and
// costs up to 20 (a 5-bit field: 21..31 are out of range), on 16 ports
// behind a 5-bit id.
func narrowIRL() threecpo.IRLTokensParams {
	p := threecpo.DefaultIRLTokensParams()
	p.NumConn, p.ConnW = 16, 5
	p.IRLParams = gthreecpo.IRLParams{WMMax: 10, RandBits: 8, Cap: 3, MaxCost: 20, Seed: 1}
	p.Depth = connpipe.MustDepth(threecpo.NeededIRLDepth(p))
	return p
}

// maxCost1IRL is narrowIRL with sends of one token at most: a counter
// never falls below 0.
func maxCost1IRL() threecpo.IRLTokensParams {
	p := narrowIRL()
	p.MaxCost = 1
	p.Depth = connpipe.MustDepth(threecpo.NeededIRLDepth(p))
	return p
}

// irl_tokens's RTL equals its golden model (golden/threecpo, written from
// S3 Section 6.1.3) on the default configuration and on the narrow one,
// and under the hazard profile; the mixed runs reach every outcome.
func TestIRLTokensEquivalence(t *testing.T) {
	blockeq.NeedVerilator(t) // the bench's Run builds a Verilated model
	t.Parallel()
	for _, tc := range []struct {
		name    string
		p       threecpo.IRLTokensParams
		profile string
	}{
		{"default", threecpo.DefaultIRLTokensParams(), "mixed"},
		{"narrow", narrowIRL(), "mixed"},
		{"narrow-hazard", narrowIRL(), "hazard"},
		{"max-cost-1", maxCost1IRL(), "mixed"}, // no counter below 0: not expected
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := blockeq.NewBenchProfile(irlConfig(tc.p), "irl_tokens", tc.profile, 37)
			if err != nil {
				t.Fatal(err)
			}
			cyc := blockeq.Cycles()
			if tc.profile != "mixed" || tc.name == "max-cost-1" {
				cyc /= 5
			}
			rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: cyc, Label: "irl_tokens/" + tc.name, WaveDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v\ncoverage:\n%s", rep, b.Coverage)
			if miss := b.Coverage.Missing(); tc.profile == "mixed" && len(miss) > 0 {
				t.Errorf("never reached: %v", miss)
			}
		})
	}
}

// Each mutant fails on the narrow configuration: a request token whenever
// a response token arrives, the gate open whenever a cost is out of
// range, the bucket's cap one higher, and the response watermark loaded
// from the request one (its lowest bit kept). A watermark above WM_MAX
// loaded unclamped is not among them: it makes a token every cycle, as
// WM_MAX does, so only the formal word invariant wm_le_max sees it.
func TestIRLTokensMutantsFail(t *testing.T) {
	t.Parallel()
	cfg := irlConfig(narrowIRL())
	for _, tc := range []struct {
		name string
		mut  hdlgen.Mutation
	}{
		{"rand <= watermark", hdlgen.Mutation{Node: "new_req", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(get("new_rsp"))
		}}},
		{"gate on requests only", hdlgen.Mutation{Node: "may", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(get("cost_bad").And(orig.Not()))
		}}},
		{"cap one higher", hdlgen.Mutation{Node: "req_over", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			v := get("req_sum")
			return v.AsSigned().Gt(hdlgen.SConst(v.Width(), int64(narrowIRL().Cap+1)))
		}}},
		{"watermarks crossed", hdlgen.Mutation{Node: "set_wm_rsp", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("set_wm_req").Or(orig.And(hdlgen.Const(orig.Width(), 1)))
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) { blockeq.MutantMustFail(t, cfg, "irl_tokens", tc.mut, 41, 500_000) })
	}
}

// The hardware reproduces S3 Fig. 6.1's left table and Fig. 6.4 cycle by
// cycle: with the watermark at WM_MAX every cycle brings a token, so the
// Verilated block's draws do not matter. A GPU with a 5-flit packet always
// waiting sends at 1 token, goes to -3 and sends again 5 cycles later;
// with 4 concurrent multicast senders each send also takes the 15 matched
// flits of the other three, it goes to -18 and sends every 20 cycles (N x
// flits). The tokens before each cycle and the sends are the figures'
// (the same rows as golden/threecpo's TestFigure61 and TestFigure64).
func TestIRLTokensFigures(t *testing.T) {
	t.Parallel()
	p := narrowIRL()
	p.IRLParams = gthreecpo.IRLParams{WMMax: 10, RandBits: 8, Cap: 1, MaxCost: 20, Seed: 1}
	p.Depth = connpipe.MustDepth(threecpo.NeededIRLDepth(p))
	m, err := threecpo.IRLTokens(p)
	model, hd := blockeq.Build(t, m, err)
	rtl, err := blockeq.NewRTLStepper(model, hd, threecpo.IRLEventFields, threecpo.IRLResultFields)
	if err != nil {
		t.Fatal(err)
	}
	tokW := p.TokW()
	signed := func(v uint64) int64 { return int64(v<<uint(64-tokW)) >> uint(64-tokW) }
	for _, tc := range []struct {
		name  string
		port  uint64
		cost  uint64
		rows  map[int]int64 // cycle: tokens before it
		sends []int
	}{
		{"Fig. 6.1, WM = WM_MAX", 0, 5, map[int]int64{0: 1, 1: -3, 2: -2, 3: -1, 4: 0, 5: 1, 6: -3, 9: 0, 10: 1}, []int{0, 5, 10, 15, 20}},
		{"Fig. 6.4, 4 senders", 1, 5 + 3*5, map[int]int64{0: 1, 1: -18, 4: -15, 5: -14, 9: -10, 10: -9, 14: -5, 15: -4, 19: 0, 20: 1}, []int{0, 20}},
	} {
		out := make([]uint64, len(threecpo.IRLResultFields))
		rtl.Step([]uint64{tc.port, uint64(gthreecpo.IRLOpen), 1, 0, 0, 0, 0, 0}, out)
		before := signed(out[6])
		var sent []int
		for c := 0; c <= 20; c++ {
			if want, ok := tc.rows[c]; ok && before != want {
				t.Errorf("%s, cycle %d: %d tokens, the figure %d", tc.name, c, before, want)
			}
			rtl.Step([]uint64{tc.port, uint64(gthreecpo.IRLTick), 0, 1, tc.cost, 0, 0, 0}, out)
			if out[9] == 1 || out[4] != 1 {
				t.Fatalf("%s, cycle %d: %v, want a token every cycle and no error", tc.name, c, out)
			}
			if out[2] == 1 {
				sent = append(sent, c)
			}
			before = signed(out[6])
		}
		if fmt.Sprint(sent) != fmt.Sprint(tc.sends) {
			t.Errorf("%s: sent at cycles %v, the figure %v", tc.name, sent, tc.sends)
		}
	}
}
