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

func arbConfig(p threecpo.LRUArbParams) blocks.Config {
	return blocks.DefaultConfig().Clone().Set("lru_arb", p)
}

// arbAt is lru_arb with vcs VCs and a policy on ports ports behind a
// 5-bit id.
func arbAt(vcs int, pol gthreecpo.ArbPolicy, ports int) threecpo.LRUArbParams {
	p := threecpo.DefaultLRUArbParams()
	p.VCs, p.Policy, p.NumConn, p.ConnW = vcs, pol, ports, 5
	p.Depth = connpipe.MustDepth(threecpo.NeededArbDepth(p))
	return p
}

// lru_arb's RTL equals its golden model (golden/threecpo, written from S3
// Section 6.2.5) with the generic stimulus (uniform request and token
// masks: every subset of eligible VCs) on the default configuration (3
// VCs, LRU, 64 ports), on 8 VCs of 4 ports (a 28-bit age matrix, the
// same port back to back) and on round robin over 5 VCs.
func TestLRUArbEquivalence(t *testing.T) {
	blockeq.NeedVerilator(t) // the bench's Run builds a Verilated model
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    threecpo.LRUArbParams
		div  int64
	}{
		{"default", threecpo.DefaultLRUArbParams(), 1},
		{"8vcs", arbAt(8, gthreecpo.ArbLRU, 4), 5},
		{"round-robin", arbAt(5, gthreecpo.ArbRoundRobin, 4), 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := blockeq.NewBench(arbConfig(tc.p), "lru_arb", 19)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: blockeq.Cycles() / tc.div, Label: "lru_arb/" + tc.name, WaveDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v\ncoverage:\n%s", rep, b.Coverage)
			if miss := b.Coverage.Missing(); len(miss) > 0 {
				t.Errorf("never reached: %v", miss)
			}
		})
	}
}

// Each mutant fails: a fixed priority (the lowest eligible VC, ages
// ignored), the update that forgets to make the grant newer than the VCs
// before it, the tokens ignored (a requesting VC may go without them),
// and round robin's pointer left on the grant instead of past it.
func TestLRUArbMutantsFail(t *testing.T) {
	t.Parallel()
	lru := arbConfig(arbAt(4, gthreecpo.ArbLRU, 4))
	rr := arbConfig(arbAt(4, gthreecpo.ArbRoundRobin, 4))
	for _, tc := range []struct {
		name string
		cfg  blocks.Config
		mut  hdlgen.Mutation
	}{
		{"fixed priority", lru, hdlgen.Mutation{Node: "oldest_eligible", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(orig.Not())
		}}},
		{"grant not made newest", lru, hdlgen.Mutation{Node: "older_next", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(get("cur_older"))
		}}},
		{"tokens ignored", lru, hdlgen.Mutation{Node: "eligible", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return hdlgen.Mux(orig.Any(), orig.Or(get("s1_req_reg")), orig)
		}}},
		{"pointer stays on the grant", rr, hdlgen.Mutation{Node: "ptr_next", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			p := orig.Sub(hdlgen.Const(orig.Width(), 1))
			return hdlgen.Mux(get("eligible").Any(), p, orig)
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) { blockeq.MutantMustFail(t, tc.cfg, "lru_arb", tc.mut, 23, 200_000) })
	}
}

// The hardware shows the thesis's starvation (S3:L1761-1769): one GPU
// port's three injection VCs, always backlogged (responses, needing no
// tokens; reads, 1 request token and 9 response tokens; writes, 9 and 1),
// the request VCs behind the golden IRL unit at WM_MAX and at a quarter
// of it, arbitrated by the Verilated lru_arb. Round robin grants the
// write VC never after the open's full buckets are spent; LRU grants
// reads and writes within one of each other. The loop is golden/threecpo
// InjectionGrants (TestArbStarvation runs it with the golden arbiter);
// here every grant comes from the RTL and is compared with the golden
// arbiter's.
func TestLRUArbStarvation(t *testing.T) {
	t.Parallel()
	for _, pol := range []gthreecpo.ArbPolicy{gthreecpo.ArbRoundRobin, gthreecpo.ArbLRU} {
		p := arbAt(3, pol, 2)
		m, err := threecpo.LRUArb(p)
		model, hd := blockeq.Build(t, m, err)
		rtl, err := blockeq.NewRTLStepper(model, hd, threecpo.ArbEventFields, threecpo.ArbResultFields)
		if err != nil {
			t.Fatal(err)
		}
		for _, wm := range []uint32{2468, 617} {
			ref, _ := gthreecpo.NewArbTable(p.ArbTableParams)
			out := make([]uint64, len(threecpo.ArbResultFields))
			rtl.Step([]uint64{1, uint64(gthreecpo.ArbOpenKind), 0, 0}, out)
			ref.StepTo(&gthreecpo.ArbEvent{Conn: 1, Kind: gthreecpo.ArbOpenKind}, &gthreecpo.ArbResult{})
			grants, err := gthreecpo.InjectionGrants(wm, 20000, 100, func(eligible uint32) (int, error) {
				rtl.Step([]uint64{1, uint64(gthreecpo.ArbCycleKind), 7, uint64(eligible)}, out)
				var want gthreecpo.ArbResult
				ref.StepTo(&gthreecpo.ArbEvent{Conn: 1, Kind: gthreecpo.ArbCycleKind, Req: 7, OK: eligible}, &want)
				if out[2] != 1 || out[4] != 0 || int(out[3]) != want.Grant {
					return 0, fmt.Errorf("%v: granted %d VC %d error %d; the golden arbiter VC %d", pol, out[2], out[3], out[4], want.Grant)
				}
				return int(out[3]), nil
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v, watermark %d: grants %v (responses, reads, writes)", pol, wm, grants)
			switch {
			case grants[1] < 200:
				t.Errorf("%v, watermark %d: reads granted %d times", pol, wm, grants[1])
			case pol == gthreecpo.ArbRoundRobin && grants[2] != 0:
				t.Errorf("round robin, watermark %d: writes granted %d times; the thesis's starvation is never", wm, grants[2])
			case pol == gthreecpo.ArbLRU && (grants[1]-grants[2] > 1 || grants[2]-grants[1] > 1):
				t.Errorf("LRU, watermark %d: reads %d, writes %d: want equal shares", wm, grants[1], grants[2])
			}
		}
	}
}
