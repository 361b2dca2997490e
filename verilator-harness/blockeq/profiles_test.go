package blockeq

import (
	"context"
	"fmt"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// TestAdversarialProfiles runs every block under every stimulus profile:
// one connection on every cycle, all ECN, only losses, long idle gaps,
// heavy backpressure, extreme values and fast timestamp wrap, 200,000
// cycles each (the mixed profile's millions run in each block's own
// equivalence test). A block without a stimulus of its own
// (block.Desc.Stimulus) has one whatever the profile, so it runs once.
func TestAdversarialProfiles(t *testing.T) {
	t.Parallel()
	for _, block := range blocks.Names() {
		b, err := blocks.Lookup(block)
		own := err == nil && b.HasStimulus()
		ran := false
		for _, prof := range ProfileNames() {
			if _, lr := lineRateDocs[prof]; prof == "mixed" || lr {
				continue // the long equivalence runs cover mixed; TestLineRateProfiles the line-rate loads
			}
			if !own && ran {
				break // the generic bench ignores the profile
			}
			ran = true
			t.Run(block+"/"+prof, func(t *testing.T) {
				b, err := NewBenchProfile(blocks.DefaultConfig(), block, prof, 5)
				if err != nil {
					t.Fatal(err)
				}
				rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{
					Cycles: 200_000, Label: fmt.Sprintf("%s %s seed 5", block, prof), WaveDir: t.TempDir(),
				})
				if err != nil {
					t.Fatal(err)
				}
				t.Log(rep)
			})
		}
	}
}
