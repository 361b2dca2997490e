package blockeq

import (
	"context"
	"fmt"

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
	if err := checkProfile(profile); err != nil {
		return nil, err
	}
	b, err := blocks.Lookup(block)
	if err != nil {
		return nil, err
	}
	m, err := b.Build(cfg)
	if err != nil {
		return nil, err
	}
	d, err := hdlgen.Elaborate(m)
	if err != nil {
		return nil, err
	}
	hd := DesignOf(d)
	bench := &Bench{Block: block, Design: hd}
	switch block {
	case "reps":
		cov := NewCoverage(true)
		bench.Coverage = cov
		bench.Ref, err = RepsReference(hd, cfg.Reps.Golden(), cov)
		bench.Stim = NewEventStimulus(hd, applyREPS(DefaultProfile(cfg.Reps.NumConn, cfg.Reps.TimeW, 400), profile, cfg.Reps.TimeW), seed)
	case "reps_conf":
		cov := NewCoverage(false)
		bench.Coverage = cov
		bench.Ref, err = RepsConfReference(hd, cfg.RepsConf.Golden(), cov)
		bench.Stim = NewEventStimulus(hd, applyREPS(DefaultProfile(cfg.RepsConf.NumConn, 32, 0), profile, 32), seed)
	case "smartt", "nscc":
		p := cfg.Smartt
		if block == "nscc" {
			p = cfg.NSCC
		}
		cov := NewSmarttCoverage(p.Variant)
		bench.Coverage = cov
		bench.Ref, err = SmarttReference(hd, p, cov)
		bench.Stim = NewSmarttStimulus(hd, applySmartt(DefaultSmarttProfile(p.NumConn, uint64(p.Net.MTU), uint64(p.Net.BrttNs)), profile), seed)
	default:
		return nil, fmt.Errorf("blockeq: no golden model is wired for block %q", block)
	}
	return bench, err
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
