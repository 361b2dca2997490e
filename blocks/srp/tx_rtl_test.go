package srp_test

import (
	"context"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/srp"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// srp_tx's RTL equals its golden model with the stimulus playing host and
// network (every outcome reached), under the hazard profile, and with S2's
// parameters on narrow counters that wrap often, each also with
// next_chunk = after_grant (A-37: sends held for a grant reached); each
// mutant fails.
func TestTxEquivalenceAndMutants(t *testing.T) {
	blockeq.NeedVerilator(t)
	t.Parallel()
	narrow := srp.DefaultTxParams()
	narrow.NumConn, narrow.ConnW, narrow.NMin, narrow.NMax, narrow.MW, narrow.SeqW, narrow.TimeW = 64, 8, 3, 5, 6, 5, 12
	d, err := srp.NeededTxDepth(narrow)
	if err != nil {
		t.Fatal(err)
	}
	narrow.Depth = d
	// chunks of one packet: no speculative send after the reservation's
	one := narrow
	one.NMin, one.NMax = 1, 1
	if one.Depth, err = srp.NeededTxDepth(one); err != nil {
		t.Fatal(err)
	}
	// A-37's after_grant on the default and the narrow counters
	waitGrant := func(p srp.TxParams) srp.TxParams {
		p.WaitGrant = true
		if p.Depth, err = srp.NeededTxDepth(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wait, narrowWait := waitGrant(srp.DefaultTxParams()), waitGrant(narrow)
	for _, tc := range []struct {
		name    string
		p       srp.TxParams
		profile string
		cover   bool
	}{
		{"default", srp.DefaultTxParams(), "mixed", true},
		{"default-hazard", srp.DefaultTxParams(), "hazard", false},
		{"narrow", narrow, "mixed", true},
		{"n_max 1", one, "mixed", true},
		{"after_grant", wait, "mixed", true},
		{"after_grant-hazard", wait, "hazard", false},
		{"narrow after_grant", narrowWait, "mixed", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := blockeq.NewBenchProfile(blocks.DefaultConfig().Clone().Set("srp_tx", tc.p), "srp_tx", tc.profile, 17)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: blockeq.Cycles(), Label: "srp_tx/" + tc.name, WaveDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v\ncoverage:\n%s", rep, b.Coverage)
			if miss := b.Coverage.Missing(); tc.cover && len(miss) > 0 {
				t.Errorf("never reached: %v", miss)
			}
		})
	}
	cfg, cfgWait := blocks.DefaultConfig(), blocks.DefaultConfig().Clone().Set("srp_tx", wait)
	for _, tc := range []struct {
		name string
		cfg  blocks.Config
		mut  hdlgen.Mutation
	}{
		{"speculation after a NACK", cfg, hdlgen.Mutation{Node: "new_halted", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(get("c_halted"))
		}}},
		{"non-speculative sends before t_s", cfg, hdlgen.Mutation{Node: "ts_reached", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(get("c_granted"))
		}}},
		{"highest packet first", cfg, hdlgen.Mutation{Node: "todo_lowest", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			todo := get("todo")
			top := todo.Bit(todo.Width() - 1)
			return hdlgen.Mux(top.And(orig.Bit(todo.Width()-1).Not()), hdlgen.Const(todo.Width(), 1).Shl(todo.Width()-1), orig)
		}}},
		{"the packet after the lowest numbered", cfg, hdlgen.Mutation{Node: "ns_index", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Add(hdlgen.Const(orig.Width(), 1))
		}}},
		// after_grant: the next chunk starts without waiting for the
		// grant (after_sent's start) ...
		{"after_grant: next chunk before the grant", cfgWait, hdlgen.Mutation{Node: "grant_awaited", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return hdlgen.Const(orig.Width(), 0)
		}}},
		// ... or the grant of a delivered chunk is stale (after_sent's
		// grant test), so the next chunk waits for ever
		{"after_grant: grant of a delivered chunk stale", cfgWait, hdlgen.Mutation{Node: "grant_ok", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(get("complete").Not())
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) { blockeq.MutantMustFail(t, tc.cfg, "srp_tx", tc.mut, 19, 1_000_000) })
	}
}
