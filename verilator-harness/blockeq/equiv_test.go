package blockeq

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks/reps"
	"github.com/nicgen/nicgen/blocks/stim"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

var cycles = flag.Int64("cycles", 5_000_000, "cycles per equivalence run")

func build(t testing.TB, m *hdlgen.Module, err error) (*harness.Model, harness.Design) {
	t.Helper()
	return buildWith(t, m, err, harness.BuildOptions{})
}

// buildWith is build with build options (a parameter overridden).
func buildWith(t testing.TB, m *hdlgen.Module, err error, opts harness.BuildOptions) (*harness.Model, harness.Design) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	d, err := hdlgen.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	hd := DesignOf(d)
	model, err := harness.Build(context.Background(), hd, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	return model, hd
}

func run(t *testing.T, model *harness.Model, ref harness.Reference, stim func() harness.Stimulus, label string, cov stim.Coverage) {
	t.Helper()
	rep, err := harness.Run(context.Background(), model, ref, stim, harness.RunOptions{
		Cycles: *cycles, Label: label, WaveDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v\ncoverage:\n%s", rep, FormatCounts(cov.Counts()))
	if miss := cov.Missing(); len(miss) > 0 {
		t.Errorf("%s never reached: %v", label, miss)
	}
}

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
			model, hd := build(t, m, err)
			cov := reps.NewCoverage(true)
			ref, err := RepsReference(hd, tc.params.Golden(), cov)
			if err != nil {
				t.Fatal(err)
			}
			prof := DefaultProfile(tc.params.NumConn, tc.params.TimeW, tc.stepMax)
			seed := uint64(1)
			run(t, model, ref, NewEventStimulus(hd, prof, seed), fmt.Sprintf("reps/%s seed %d", tc.name, seed), cov)
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
			model, hd := build(t, m, err)
			cov := reps.NewCoverage(false)
			ref, err := RepsConfReference(hd, tc.params.Golden(), cov)
			if err != nil {
				t.Fatal(err)
			}
			prof := DefaultProfile(tc.params.NumConn, 32, 0)
			seed := uint64(2)
			run(t, model, ref, NewEventStimulus(hd, prof, seed), fmt.Sprintf("reps_conf/%s seed %d", tc.name, seed), cov)
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
	model, hd := build(t, m, err)
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
