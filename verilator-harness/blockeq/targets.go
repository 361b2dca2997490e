package blockeq

import (
	"context"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// CoverageReport is what a run reached, counted from the golden model.
type CoverageReport interface {
	Missing() []string
	Counts() map[string]int64
	String() string
}

// Bench is everything needed to run one block under the harness.
type Bench struct {
	Block    string
	Design   harness.Design
	Ref      harness.Reference
	Stim     func() harness.Stimulus
	Coverage CoverageReport
}

// NewBench prepares a block of the configuration with its golden model and
// its default random stimulus for a seed.
func NewBench(cfg blocks.Config, block string, seed uint64) (*Bench, error) {
	return NewBenchProfile(cfg, block, "mixed", seed)
}

// NewBenchProfile is NewBench with a named stimulus profile.
func NewBenchProfile(cfg blocks.Config, block, profile string, seed uint64) (*Bench, error) {
	return NewBenchBroken(cfg, block, profile, seed, nil)
}

// NewBenchBroken is NewBenchProfile on the block with the mutations
// applied (a broken variant, which equivalence must reject): nil is the
// block itself.
func NewBenchBroken(cfg blocks.Config, block, profile string, seed uint64, muts []hdlgen.Mutation) (*Bench, error) {
	if err := checkProfileFor(block, profile); err != nil {
		return nil, err
	}
	b, err := blocks.Lookup(block)
	if err != nil {
		return nil, err
	}
	// the block itself, cycle by cycle: its control wrapper
	// (hardware.control) adds a register slice and the clear after reset,
	// and is checked at transaction level (TestControlWrapper,
	// docs/control.md)
	cfg.Control = false
	m, err := b.Build(cfg)
	if err != nil {
		return nil, err
	}
	if err := hdlgen.Mutate(m, muts...); err != nil {
		return nil, err
	}
	d, err := hdlgen.Elaborate(m)
	if err != nil {
		return nil, err
	}
	hd := DesignOf(d)
	// mismatch reports name the kinds and decoded results
	for i, p := range hd.Ports {
		switch p.Name {
		case "s_event_kind", "m_result_kind":
			hd.Ports[i].Names = b.Kinds
		}
		for _, dn := range b.Decode {
			if p.Name == "m_result_"+dn.Field {
				hd.Ports[i].Names = dn.Names
			}
		}
	}
	bench, err := benchFor(cfg, b, hd, profile, seed)
	if err != nil {
		return nil, err
	}
	bench.Block, bench.Design = block, hd
	return bench, nil
}

// benchFor is the bench of block b of cfg, built as hd: the block's
// cycle model when its results depend on timing (cyclebench.go), else the
// generic bench of its description (generic.go); either runs the block's
// own stimulus and coverage when it has them (block.Desc.Stimulus).
func benchFor(cfg blocks.Config, b blocks.Block, hd harness.Design, profile string, seed uint64) (*Bench, error) {
	if _, timed, err := b.CycleModel(cfg); err != nil {
		return nil, err
	} else if timed {
		return cycleBench(cfg, b, hd, profile, seed)
	}
	return genericBench(cfg, b, hd, profile, seed)
}

// Run builds (or loads from the cache) the Verilated model and runs the
// equivalence for o.Cycles cycles.
func (b *Bench) Run(ctx context.Context, bo harness.BuildOptions, o harness.RunOptions) (harness.Report, error) {
	model, err := harness.Build(ctx, b.Design, bo)
	if err != nil {
		return harness.Report{}, err
	}
	defer model.Close()
	return harness.Run(ctx, model, b.Ref, b.Stim, o)
}
