package netsim

import (
	"reflect"
	"testing"

	"github.com/nicgen/nicgen/golden/uet"
)

// engineParams is uet_cc with 16-bit sizes, as the default build has
// them: the shared shell at the default build's depth (22 stages), or
// the split engine of docs/examples/uet-split.hcl (a send path of 3
// stages; the window path of 22 stages merging ACKs in 8 slots).
func engineParams(split bool) uet.Params {
	p := uetParams()
	p.CC.SizeW, p.CC.ByteW = 16, 24
	p.Depth = 22
	if split {
		p.Depth = 3
		p.Window = uet.WindowPath{Depth: 22, Slots: 8, MergeAcks: true, MergeNacks: true}
	}
	return p
}

const engineMHz = 157 // uet_cc's measured median Fmax

func clockedRun(t *testing.T, p uet.Params, senders int, msg int64) (*Result, []*ClockedUET) {
	t.Helper()
	cfg := ConfigFor(p.CC)
	cfg.Senders, cfg.MessageBytes = senders, msg
	ctrls, ks, err := ClockedEngines(p, senders, engineMHz)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(cfg, ctrls)
	if err != nil {
		t.Fatal(err)
	}
	return r, ks
}

func instantRun(t *testing.T, p uet.Params, senders int, msg int64) *Result {
	t.Helper()
	cfg := ConfigFor(p.CC)
	cfg.Senders, cfg.MessageBytes = senders, msg
	ctrls, _, err := GoldenEngines(p, senders)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(cfg, ctrls)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// One connection through the shared shell is held to one event per D
// cycles (the shell's issue rule, docs/pipeline.md): its N sends alone
// take (N-1) D cycles, so the loop cannot finish sooner, whereas an engine
// that answers at once runs at the link rate.
func TestClockedSharedShellHoldsOneConnection(t *testing.T) {
	p := engineParams(false)
	const msg = 1 << 20
	got, _ := clockedRun(t, p, 1, msg)
	n := int64(msg / ConfigFor(p.CC).MTU)
	floor := float64(n-1) * float64(p.Depth) * 1000 / engineMHz
	inst := instantRun(t, p, 1, msg)
	t.Logf("one connection, shared shell of %d stages at %d MHz: %.0f ns (at least %.0f); answered at once: %.0f ns", p.Depth, engineMHz, got.CompletionNs, floor, inst.CompletionNs)
	if got.CompletionNs < floor {
		t.Errorf("completion %.0f ns: below the shell's floor of %.0f ns", got.CompletionNs, floor)
	}
	if inst.CompletionNs >= floor {
		t.Errorf("the engine answering at once takes %.0f ns, not below the shell's floor %.0f: the test shows nothing", inst.CompletionNs, floor)
	}
}

// The split engine carries one connection at the link rate in the closed
// loop: it finishes no later than the engine that answers at once plus its
// own measured latencies (a send's entropy, a window update).
func TestClockedSplitCarriesOneConnection(t *testing.T) {
	p := engineParams(true)
	const msg = 1 << 20
	got, ks := clockedRun(t, p, 1, msg)
	inst := instantRun(t, p, 1, msg)
	st := ks[0].Stats()
	t.Logf("one connection, split engine at %d MHz: %.0f ns; answered at once %.0f ns; %+v", engineMHz, got.CompletionNs, inst.CompletionNs, st)
	if late := got.CompletionNs - inst.CompletionNs; late > st.SendWaitMaxNs+st.FeedbackMaxNs {
		t.Errorf("%.0f ns later than the engine answering at once: more than a send's wait (%.0f) and a window update's (%.0f)", late, st.SendWaitMaxNs, st.FeedbackMaxNs)
	}
	if st.Updates >= st.Feedback {
		t.Errorf("%d window updates for %d events: the window path merged nothing", st.Updates, st.Feedback)
	}
}

// Every event a clocked engine takes is answered: each packet's ACK or
// NACK and the open reach a window update, and the same run twice gives
// the same numbers.
func TestClockedAnswersEveryEvent(t *testing.T) {
	for _, split := range []bool{false, true} {
		p := engineParams(split)
		a, ks := clockedRun(t, p, 8, 256<<10)
		b, _ := clockedRun(t, p, 8, 256<<10)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("split %v: two runs differ", split)
		}
		for i, k := range ks {
			st := k.Stats()
			if want := a.Senders[i].Packets + 1; st.Feedback != want || len(k.fifo)+len(k.accepted)+len(k.toWindow) != 0 {
				t.Errorf("split %v, sender %d: %d events answered, want %d (packets and the open); %d, %d and %d left", split, i, st.Feedback, want, len(k.fifo), len(k.accepted), len(k.toWindow))
			}
		}
		if a.Trims == 0 {
			t.Errorf("split %v: no trims: the incast did not load the engines' NACK path", split)
		}
	}
}
