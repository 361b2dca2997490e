package main

import (
	"path/filepath"
	"testing"
)

// The scene's report for hpcc, the float64 reference and the block's
// golden model, is golden: every mode, SF in both readings of A-38
// (docs/blocks/hpcc.md) among them (go test ./cmd/nicgen -run
// TestConvergenceGolden -update rewrites it). The claims its figures
// support are checked in golden/netsim/convergence (TestHPCCConvergence,
// TestHPCCFxConvergence).
func TestConvergenceGolden(t *testing.T) {
	t.Parallel()
	var all string
	for _, control := range []string{"hpcc", "hpcc-block"} {
		out, err := runCLI(t, "scenario", "convergence", "--control", control)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		all += out
	}
	checkGolden(t, filepath.Join("testdata", "convergence.golden"), all)
}
