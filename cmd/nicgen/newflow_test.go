package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// The scene's report is golden: same flags, same bytes
// (go test ./cmd/nicgen -run TestNewflowGolden -update rewrites it). Its
// figures are checked against the thesis's formulas in
// golden/netsim/newflow.
func TestNewflowGolden(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "scenario", "newflow", "--weight", "1,2,5")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkGolden(t, filepath.Join("testdata", "newflow.golden"), out)
}

// --json has both runs per weight; with 1RC the drops are in order and the
// receiver's sequence has no gap, without it the first RTT is the burst.
func TestNewflowJSON(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "scenario", "newflow", "--weight", "3", "--old", "5", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var runs []struct {
		Weight uint64
		With   struct {
			Weight       uint64
			LetThrough   uint64 `json:"LetThrough"`
			Resume       uint64
			Dropped      []uint64
			InOrder      bool
			FirstRTTGbps float64
		} `json:"with_1rc"`
		Without struct{ FirstRTTGbps float64 } `json:"without_1rc"`
	}
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(runs) != 1 || runs[0].With.Weight != 3 || !runs[0].With.InOrder || runs[0].With.Resume != runs[0].With.LetThrough ||
		len(runs[0].With.Dropped) == 0 || runs[0].With.Dropped[0] != runs[0].With.LetThrough || runs[0].Without.FirstRTTGbps < 3*runs[0].With.FirstRTTGbps {
		t.Fatalf("runs: %+v", runs)
	}
}

// Bad flags are usage errors (exit 2).
func TestNewflowBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--weight", "0"}, {"--weight", "256"}, {"--old", "0"}, {"--packets", "0"}} {
		out, err := runCLI(t, append([]string{"scenario", "newflow"}, args...)...)
		if exitCode(err) != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, exitCode(err), out)
		}
	}
}
