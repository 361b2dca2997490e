package blockeq

import (
	"context"
	"errors"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// mutantMustFail builds block's module of cfg, applies mut, and runs the
// mutated RTL against the block's bench built from cfg (its golden model
// unchanged: the family's, or the generic one) for cycles cycles: the run
// must end in a mismatch.
func mutantMustFail(t *testing.T, cfg blocks.Config, block string, mut hdlgen.Mutation, seed uint64, cycles int64) {
	t.Helper()
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
