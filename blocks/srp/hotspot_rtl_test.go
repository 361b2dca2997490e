package srp_test

import (
	"reflect"
	"testing"

	bsrp "github.com/nicgen/nicgen/blocks/srp"
	"github.com/nicgen/nicgen/golden/netsim/hotspot"
	"github.com/nicgen/nicgen/hdlgen"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// TestHotspotRTLInTheLoop runs the hot-spot network twice per congestion
// control, with the golden models and with the Verilated srp_tx, srp_rx,
// srp_ttw and ecn_ipd in the loop (every NIC's send queues and
// reservation scheduler, every switch input's TTW check, every send
// queue's IPD), and requires the identical run: every statistic and every
// time bin.
func TestHotspotRTLInTheLoop(t *testing.T) {
	t.Parallel()
	cfg := hotspot.Default(hotspot.SRP)
	cfg.Leaves, cfg.HostsPerLeaf, cfg.Spines, cfg.HotspotSenders = 4, 4, 2, 10
	cfg.DurationNs, cfg.WarmupNs = 600_000, 100_000
	cfg.Size()
	txp, ipdp := bsrp.DefaultTxParams(), bsrp.DefaultIPDParams() // 4096 queues, more than 16 x 16
	rxp := bsrp.DefaultRxParams()
	rxp.NumConn, rxp.PacketNs = cfg.Hosts(), cfg.PacketNs()
	ttwp := bsrp.DefaultTTWParams()
	ttwp.NumConn = cfg.TTW.NumConn
	var err error
	if rxp.Depth, err = bsrp.NeededRxDepth(rxp); err != nil {
		t.Fatal(err)
	}
	if ttwp.Depth, err = bsrp.NeededTTWDepth(ttwp); err != nil {
		t.Fatal(err)
	}
	cfg.Tx, cfg.Rx, cfg.TTW, cfg.IPD = txp.Golden(), rxp.Golden(), ttwp.Golden(), ipdp.Golden()
	var bs []blockeq.Built
	for _, mk := range []func() (blockeq.Built, error){
		func() (blockeq.Built, error) { m, err := bsrp.Tx(txp); return builtOf(t, m, err) },
		func() (blockeq.Built, error) { m, err := bsrp.Rx(rxp); return builtOf(t, m, err) },
		func() (blockeq.Built, error) { m, err := bsrp.TTW(ttwp); return builtOf(t, m, err) },
		func() (blockeq.Built, error) { m, err := bsrp.IPD(ipdp); return builtOf(t, m, err) },
	} {
		b, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		bs = append(bs, b)
	}
	for _, cc := range []hotspot.CC{hotspot.ECN, hotspot.SRP} {
		t.Run(cc.String(), func(t *testing.T) {
			cfg := cfg
			cfg.CC = cc
			golden, err := hotspot.GoldenModels(cfg)
			if err != nil {
				t.Fatal(err)
			}
			want, err := hotspot.Run(cfg, golden)
			if err != nil {
				t.Fatal(err)
			}
			rtl, steppers, err := hotspotModels(bs[0], bs[1], bs[2], bs[3])
			if err != nil {
				t.Fatal(err)
			}
			got, err := hotspot.Run(cfg, rtl)
			if err != nil {
				t.Fatal(err)
			}
			if want.BlockEvents < 10_000 || cc == hotspot.ECN && want.CNs < 100 || cc == hotspot.SRP && (want.SpecDropped < 100 || want.Grants < 500) {
				t.Fatalf("%d block events, %d notifications, %d grants, %d speculative drops: the run does not exercise the blocks", want.BlockEvents, want.CNs, want.Grants, want.SpecDropped)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("the RTL in the loop gives another run:\nRTL:    %+v\ngolden: %+v", *got, *want)
			}
			var cycles int64
			for _, s := range steppers {
				cycles += s.Cycles
			}
			t.Logf("%s: %d block events (%d notifications, %d grants, %d speculative drops) through the RTL in %d cycles; hot spot %.1f%%, victims %.2f x zero-load, identical to the golden run",
				cc, got.BlockEvents, got.CNs, got.Grants, got.SpecDropped, cycles, 100*got.HotspotRate, got.VictimLatencyNs/got.VictimZeroLoadNs)
		})
	}
}

func builtOf(t *testing.T, m *hdlgen.Module, err error) (blockeq.Built, error) {
	model, d := blockeq.Build(t, m, err)
	return blockeq.Built{Model: model, Design: d}, nil
}
