package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The report is golden: same flags, same bytes (go test ./cmd/nicgen -run
// TestCollectiveGolden -update rewrites it), on 16 GPUs so that it runs in
// a fraction of a second; golden/netsim/collective asserts the figures of
// the 64-GPU run.
func TestCollectiveGolden(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "scenario", "collective", "--gpus", "16", "--transactions", "32", "--initiators", "16,4,1")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkGolden(t, filepath.Join("testdata", "collective.golden"), out)
}

// --svg writes three well-formed SVG files and names them; --json has a
// run per control and initiator count.
func TestCollectiveSVGAndJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	prefix := filepath.Join(dir, "coll")
	out, err := runCLI(t, "scenario", "collective", "--gpus", "8", "--transactions", "8", "--initiators", "8,2", "--svg", prefix+".svg")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, f := range []string{"coll-bandwidth.svg", "coll-latency.svg", "coll-watermark.svg"} {
		path := filepath.Join(dir, f)
		if !strings.Contains(out, "plot -> "+path) {
			t.Errorf("the report does not name %s:\n%s", path, out)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ XMLName xml.Name }
		if err := xml.Unmarshal(data, &doc); err != nil || doc.XMLName.Local != "svg" {
			t.Errorf("%s: not an SVG document: %v", f, err)
		}
	}
	out, err = runCLI(t, "scenario", "collective", "--gpus", "8", "--transactions", "8", "--initiators", "8,2", "--control", "window,3cpo", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var res struct {
		Rows []struct {
			Initiators int
			Runs       []struct {
				Control            string
				EffectiveBandwidth float64 `json:"effective_bandwidth"`
				Bound              float64
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res.Rows) != 2 || res.Rows[0].Initiators != 8 || len(res.Rows[0].Runs) != 2 || res.Rows[0].Runs[1].Control != "3cpo" ||
		!(res.Rows[0].Runs[1].EffectiveBandwidth > 0 && res.Rows[0].Runs[1].EffectiveBandwidth <= res.Rows[0].Runs[1].Bound) {
		t.Fatalf("json: %+v", res)
	}
}

// Bad flags are usage errors (exit 2).
func TestCollectiveBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--initiators", "0"}, {"--gpus", "8", "--initiators", "9"}, {"--control", "aimd"},
		{"--transactions", "0"}, {"--gpus", "1"}, {"--hops", "0"}, {"--buffer", "1"}, {"--window", "-1"}, {"--max-cost", "8"}, {"--max-cost", "70000"}} {
		out, err := runCLI(t, append([]string{"scenario", "collective"}, args...)...)
		if exitCode(err) != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, exitCode(err), out)
		}
	}
}
