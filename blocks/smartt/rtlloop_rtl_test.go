package smartt_test

import (
	"reflect"
	"testing"

	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/golden/netsim"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// TestIncastRTLInTheLoop runs a closed-loop 8:1 incast of 1 MiB messages twice, with the
// golden models and with the Verilated `smartt` / `nscc` block as the
// senders' congestion control, and requires the identical run: every cwnd
// sample, completion time, queue peak and trim count.
func TestIncastRTLInTheLoop(t *testing.T) {
	t.Parallel()
	for _, v := range []bsmartt.Variant{bsmartt.Conf, bsmartt.NSCC} {
		t.Run(v.String(), func(t *testing.T) {
			p := bsmartt.DefaultParams(v)
			m, err := bsmartt.Block(p)
			model, hd := blockeq.Build(t, m, err)
			gp := p.Golden()
			cfg := netsim.ConfigFor(gp)
			cfg.MessageBytes = 1 << 20
			cfg.RecordCwnd = true
			golden, err := netsim.GoldenControllers(gp, cfg.Senders, false)
			if err != nil {
				t.Fatal(err)
			}
			want, err := netsim.Run(cfg, golden)
			if err != nil {
				t.Fatal(err)
			}
			rtl, err := NewRTLController(model, hd)
			if err != nil {
				t.Fatal(err)
			}
			ctrls := make([]netsim.Controller, cfg.Senders)
			for i := range ctrls {
				ctrls[i] = rtl
			}
			got, err := netsim.Run(cfg, ctrls)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("the RTL in the loop gives another run: completion %.0f vs %.0f ns, trims %d vs %d", got.CompletionNs, want.CompletionNs, got.Trims, want.Trims)
			}
			t.Logf("%s: %d events through the RTL in %d cycles; completion %.4f x ideal, identical to the golden run", v, rtl.Cycles/3, rtl.Cycles, got.CompletionNs/got.IdealNs)
		})
	}
}
