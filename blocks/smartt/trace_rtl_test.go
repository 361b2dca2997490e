package smartt_test

import (
	"context"
	"fmt"
	"testing"

	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/golden/netsim"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// TestSmarttRecordedIncastTraces records the events of closed-loop 8:1
// incasts (1 MiB and 8 MiB) and replays them through the RTL against the
// golden model with idle gaps and backpressure: the realistic event
// sequences (QuickAdapt storms, FastIncrease ramps, trims) that a random
// mix rarely produces.
func TestSmarttRecordedIncastTraces(t *testing.T) {
	t.Parallel()
	for _, v := range []bsmartt.Variant{bsmartt.Conf, bsmartt.NSCC} {
		p := bsmartt.DefaultParams(v)
		m, err := bsmartt.Block(p)
		model, hd := blockeq.Build(t, m, err)
		for _, size := range []int64{1 << 20, 8 << 20} {
			t.Run(fmt.Sprintf("%s/%dKiB", v, size>>10), func(t *testing.T) {
				gp := p.Golden()
				cfg := netsim.ConfigFor(gp)
				cfg.MessageBytes = size
				ctrls, err := netsim.GoldenControllers(gp, cfg.Senders, false)
				if err != nil {
					t.Fatal(err)
				}
				var events []gsmartt.Event
				for i := range ctrls {
					ctrls[i] = SmarttRecorder{Inner: ctrls[i], Events: &events}
				}
				if _, err := netsim.Run(cfg, ctrls); err != nil {
					t.Fatal(err)
				}
				ref, err := SmarttReference(hd, p, nil)
				if err != nil {
					t.Fatal(err)
				}
				rep, err := harness.Run(context.Background(), model, ref, NewSmarttTraceStimulus(hd, events, 0.8, 0.8, 3), harness.RunOptions{
					Cycles: int64(len(events))*4 + 64, Label: fmt.Sprintf("%s incast %d KiB trace", v, size>>10), WaveDir: t.TempDir(),
				})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%d recorded events: %v", len(events), rep)
			})
		}
	}
}
