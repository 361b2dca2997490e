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
// heavy backpressure, extreme values and fast timestamp wrap.
func TestAdversarialProfiles(t *testing.T) {
	for _, block := range blocks.Names() {
		for _, prof := range ProfileNames() {
			if prof == "mixed" {
				continue // the long equivalence runs cover it
			}
			t.Run(block+"/"+prof, func(t *testing.T) {
				b, err := NewBenchProfile(blocks.DefaultConfig(), block, prof, 5)
				if err != nil {
					t.Fatal(err)
				}
				rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{
					Cycles: 400_000, Label: fmt.Sprintf("%s %s seed 5", block, prof), WaveDir: t.TempDir(),
				})
				if err != nil {
					t.Fatal(err)
				}
				t.Log(rep)
			})
		}
	}
}
