package netsim

import (
	"reflect"
	"testing"

	"github.com/nicgen/nicgen/golden/reps"
	"github.com/nicgen/nicgen/golden/smartt"
	"github.com/nicgen/nicgen/golden/uet"
)

// uetParams is uet_cc's golden composition of the default nscc and reps.
func uetParams() uet.Params {
	cc := smartt.DefaultParams(smartt.NSCC)
	r := reps.DefaultParams()
	r.NumConn, r.ConnW, r.TimeW = cc.NumConn, cc.ConnW, cc.TimeW
	return uet.Params{CC: cc, REPS: r}
}

// TestUETEngineIncast runs the 8:1 incast with nscc alone and with uet_cc
// (nscc and reps composed, the window controller's unacked bytes its own
// count) as every sender's engine. The windows must be the same run: the
// engine's bytes in flight equal the simulator's after every event, so
// the composed nscc sees the events nscc alone sees. The sends' entropies
// come from the same block: explored, and recycled from unmarked acks (an
// incast marks most acks, so most sends explore).
func TestUETEngineIncast(t *testing.T) {
	p := uetParams()
	cfg := ConfigFor(p.CC)
	cfg.MessageBytes = 1 << 20
	cfg.RecordCwnd = true
	alone, err := GoldenControllers(p.CC, cfg.Senders, false)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Run(cfg, alone)
	if err != nil {
		t.Fatal(err)
	}
	ctrls, engines, err := GoldenEngines(p, cfg.Senders)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Run(cfg, ctrls)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("uet_cc's run differs from nscc's: completion %.0f vs %.0f ns", got.CompletionNs, want.CompletionNs)
	}
	e, err := EntropyTotals(engines)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("completion %.3f x ideal as nscc alone; %d sends explored, %d recycled, %d distinct entropies, %d trims", got.Slowdown, e.Explored, e.Recycled, e.Distinct, got.Trims)
	if e.Explored == 0 || e.Recycled == 0 {
		t.Errorf("entropies: %d explored, %d recycled: want both", e.Explored, e.Recycled)
	}
}
