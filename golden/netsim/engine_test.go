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

// UETEngines gives each sender a uet_cc golden model as its engine.
func uetEngines(t *testing.T, p uet.Params, n int) ([]Controller, []*UETEngine) {
	cs := make([]Controller, n)
	es := make([]*UETEngine, n)
	for i := range cs {
		m, err := uet.NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		es[i] = NewUETEngine(m)
		cs[i] = es[i]
	}
	return cs, es
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
	ctrls, engines := uetEngines(t, p, cfg.Senders)
	got, err := Run(cfg, ctrls)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("uet_cc's run differs from nscc's: completion %.0f vs %.0f ns", got.CompletionNs, want.CompletionNs)
	}
	var explored, recycled int64
	evs := map[uint32]bool{}
	for i, e := range engines {
		if e.Err() != nil {
			t.Fatalf("sender %d: %v", i, e.Err())
		}
		explored += e.Explored
		recycled += e.Recycled
		for ev := range e.EVs {
			evs[ev] = true
		}
	}
	t.Logf("completion %.3f x ideal as nscc alone; %d sends explored, %d recycled, %d distinct entropies, %d trims", got.Slowdown, explored, recycled, len(evs), got.Trims)
	if explored == 0 || recycled == 0 {
		t.Errorf("entropies: %d explored, %d recycled: want both", explored, recycled)
	}
}
