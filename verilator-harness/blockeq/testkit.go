package blockeq

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/stim"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// The test kit: what a block's own equivalence tests (in its package,
// blocks/<family>) share with the generic ones here.

// Cycles is the number of cycles of one equivalence run in the tests:
// NICGEN_TEST_CYCLES, or 5,000,000.
func Cycles() int64 {
	if s := os.Getenv("NICGEN_TEST_CYCLES"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
			return n
		}
	}
	return 5_000_000
}

// NeedVerilator skips t under -short: the fast tier (make check) builds
// no Verilated model.
func NeedVerilator(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a Verilated model: not with -short")
	}
}

// Build elaborates m (err is the error of building it), builds its
// Verilated model (or loads it from the cache) with opts, and closes the
// model when t ends.
func Build(t testing.TB, m *hdlgen.Module, err error, opts ...harness.BuildOptions) (*harness.Model, harness.Design) {
	t.Helper()
	NeedVerilator(t)
	if err != nil {
		t.Fatal(err)
	}
	d, err := hdlgen.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	hd := DesignOf(d)
	var o harness.BuildOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	model, err := harness.Build(context.Background(), hd, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	return model, hd
}

// Run runs model against ref for Cycles() cycles, with a waveform of the
// window around a mismatch in t's temporary folder, and fails t on a
// mismatch or on a coverage point cov never reached.
func Run(t *testing.T, model *harness.Model, ref harness.Reference, stimulus func() harness.Stimulus, label string, cov stim.Coverage) {
	t.Helper()
	rep, err := harness.Run(context.Background(), model, ref, stimulus, harness.RunOptions{
		Cycles: Cycles(), Label: label, WaveDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v\ncoverage:\n%s", rep, FormatCounts(cov.Counts()))
	if miss := cov.Missing(); len(miss) > 0 {
		t.Errorf("%s never reached: %v", label, miss)
	}
}

// MutantMustFail builds block's module of cfg, applies mut, and runs the
// mutated RTL against the block's bench built from cfg (its golden model
// unchanged) for cycles cycles: the run must end in a mismatch.
func MutantMustFail(t *testing.T, cfg blocks.Config, block string, mut hdlgen.Mutation, seed uint64, cycles int64) {
	t.Helper()
	NeedVerilator(t)
	b, err := blocks.Lookup(block)
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := hdlgen.Mutate(m, mut); err != nil {
		t.Fatal(err)
	}
	d, err := hdlgen.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	hd := DesignOf(d)
	bench, err := benchFor(cfg, b, hd, "mixed", seed)
	if err != nil {
		t.Fatal(err)
	}
	model, err := harness.Build(context.Background(), hd, harness.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	// no waveform: it would cost a second (trace) build of every mutant,
	// and the harness's own tests cover the waveform of a mismatch
	_, err = harness.Run(context.Background(), model, bench.Ref, bench.Stim, harness.RunOptions{Cycles: cycles, Label: "mutant of " + mut.Node})
	var mm *harness.Mismatch
	if !errors.As(err, &mm) {
		t.Fatalf("the mutant of %s passed equivalence: %v", mut.Node, err)
	}
}

// MissingExcept is c's coverage points never reached, less those in skip.
func MissingExcept(c interface{ Missing() []string }, skip []string) []string {
	var miss []string
	for _, m := range c.Missing() {
		if !slices.Contains(skip, m) {
			miss = append(miss, m)
		}
	}
	return miss
}

// FormatCounts prints named counters, one per line, sorted by name.
func FormatCounts(counts map[string]int64) string {
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "  %-36s %d\n", n, counts[n])
	}
	return b.String()
}
