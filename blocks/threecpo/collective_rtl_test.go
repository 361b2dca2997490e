package threecpo_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/nicgen/nicgen/blocks/threecpo"
	"github.com/nicgen/nicgen/golden/netsim/collective"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// TestCollectiveRTLInTheLoop runs 3CPO's all-reduce (golden/netsim/
// collective) on 16 GPUs, all initiators, 64 transactions each, twice:
// with the golden models of irl_tokens and wm_ctrl, and with the
// Verilated blocks at their default configurations in their place (two
// irl_tokens ports per initiator, one per request VC; two wm_ctrl
// instances). Every port cycle, watermark load, probe and matched count
// goes through the hardware, and the run must be identical: every
// measure, every watermark after every probe. The setting is the
// smallest of a few tried in which wm_ctrl decreases a watermark
// (congested probes; 8 GPUs of 16 transactions never do).
func TestCollectiveRTLInTheLoop(t *testing.T) {
	t.Parallel()
	c := collective.Default()
	c.GPUs, c.Initiators, c.Transactions = 16, 16, 64
	ip := threecpo.DefaultIRLTokensParams()
	wp := threecpo.DefaultWMCtrlParams()
	c.IRLPorts, c.WMInstances = ip.NumConn, wp.NumConn
	if ip.IRLTableParams != c.IRLTableParams() || wp.WMFxParams != c.WM || wp.ConnW != 16 {
		t.Fatalf("the scenario's units (%+v, %+v) are not the default blocks' (%+v, %+v)", c.IRLTableParams(), c.WM, ip.IRLTableParams, wp.WMFxParams)
	}
	golden, err := collective.GoldenUnits(c)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	want, err := collective.Run(c, golden)
	if err != nil {
		t.Fatal(err)
	}
	tg := time.Since(start)
	im, err := threecpo.IRLTokens(ip)
	iModel, ihd := blockeq.Build(t, im, err)
	irl, err := NewRTLIRL(blockeq.Built{Model: iModel, Design: ihd}, ip)
	if err != nil {
		t.Fatal(err)
	}
	wm, err := threecpo.WMCtrl(wp)
	wModel, whd := blockeq.Build(t, wm, err)
	wmc, err := NewRTLWM(blockeq.Built{Model: wModel, Design: whd})
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	got, err := collective.Run(c, collective.Units{IRL: irl, WM: wmc})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the RTL in the loop gives another run: %d vs %d cycles, effective bandwidth %.4f vs %.4f, watermarks %.1f..%.1f vs %.1f..%.1f",
			got.Cycles, want.Cycles, got.EffBW, want.EffBW, got.WMMin, got.WMMax, want.WMMin, want.WMMax)
	}
	if got.WMDecreases == 0 {
		t.Errorf("no watermark decreased: the run does not reach Algorithm 6's decrease")
	}
	t.Logf("identical runs (golden %v, RTL %v): %d cycles, effective bandwidth %.3f, %d sends, %d probes, %d watermark decreases; "+
		"irl_tokens %d events in %d clocks, wm_ctrl %d events in %d clocks", tg, time.Since(start), got.Cycles, got.EffBW, got.Sends, got.Probes,
		got.WMDecreases, got.IRLEvents, irl.S.Cycles, got.WMEvents, wmc.S.Cycles)
}
