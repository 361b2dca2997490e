package reps_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks/reps"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// stressParams shrink the REPS configuration so that every behaviour is
// reached often: few entries and connections, short exploration and
// freezing, and 16-bit timestamps that wrap every few thousand cycles.
func stressParams() reps.Params {
	p := reps.DefaultParams()
	p.NumConn, p.ConnW, p.N, p.HeadW, p.CountW = 64, 8, 4, 3, 3
	p.TimeW, p.ExploreW, p.ExploreInit, p.ExploreAfterFreeze, p.FreezeTime = 16, 4, 3, 2, 3000
	return p
}

func TestRepsEquivalence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		params  reps.Params
		stepMax uint64
	}{
		{"default", reps.DefaultParams(), 400},
		{"stress", stressParams(), 8},
		{"stress-clear-on-exit", func() reps.Params { p := stressParams(); p.ClearOnFreezeExit = true; return p }(), 8},
		// a stage to spare: the exploring bit gets its register (uet_cc's
		// depth gives reps the same)
		{"stress-depth5", func() reps.Params { p := stressParams(); p.Depth = 5; return p }(), 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := reps.Paper(tc.params)
			model, hd := blockeq.Build(t, m, err)
			cov := reps.NewCoverage(true)
			ref, err := RepsReference(hd, tc.params.Golden(), cov)
			if err != nil {
				t.Fatal(err)
			}
			prof := DefaultProfile(tc.params.NumConn, tc.params.TimeW, tc.stepMax)
			seed := uint64(1)
			blockeq.Run(t, model, ref, NewEventStimulus(hd, prof, seed), fmt.Sprintf("reps/%s seed %d", tc.name, seed), cov)
		})
	}
}

func TestRepsConfEquivalence(t *testing.T) {
	t.Parallel()
	small := reps.DefaultConfParams()
	small.NumConn, small.ConnW, small.NumEntropies, small.ExploreInit = 32, 6, 5, 4
	for _, tc := range []struct {
		name   string
		params reps.ConfParams
	}{
		{"default", reps.DefaultConfParams()},
		{"five-entropies", small},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := reps.Conf(tc.params)
			model, hd := blockeq.Build(t, m, err)
			cov := reps.NewCoverage(false)
			ref, err := RepsConfReference(hd, tc.params.Golden(), cov)
			if err != nil {
				t.Fatal(err)
			}
			prof := DefaultProfile(tc.params.NumConn, 32, 0)
			seed := uint64(2)
			blockeq.Run(t, model, ref, NewEventStimulus(hd, prof, seed), fmt.Sprintf("reps_conf/%s seed %d", tc.name, seed), cov)
		})
	}
}

// TestEquivalenceCanFail runs RTL built with one option against a golden
// model without it: the harness must report a mismatch with its context and
// write a waveform of the window, proving the comparison can fail.
func TestEquivalenceCanFail(t *testing.T) {
	t.Parallel()
	rtl := stressParams()
	rtl.ClearOnFreezeExit = true
	m, err := reps.Paper(rtl)
	model, hd := blockeq.Build(t, m, err)
	ref, err := RepsReference(hd, stressParams().Golden(), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, err = harness.Run(context.Background(), model, ref, NewEventStimulus(hd, DefaultProfile(rtl.NumConn, rtl.TimeW, 8), 1), harness.RunOptions{
		Cycles: 1_000_000, Label: "mutant", WaveDir: dir,
	})
	var mm *harness.Mismatch
	if !errors.As(err, &mm) {
		t.Fatalf("a mutant passed equivalence: %v", err)
	}
	msg := mm.Error()
	for _, want := range []string{"mismatch", "m_result_ev", "expected", "actual"} {
		if !strings.Contains(strings.ToLower(msg), strings.ToLower(want)) {
			t.Errorf("mismatch report lacks %q:\n%s", want, msg)
		}
	}
	t.Logf("%s", msg)
}
