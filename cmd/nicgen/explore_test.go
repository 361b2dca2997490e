package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/blocks/explore"
)

// budget --explore: the sweep's default point is what budget gives the
// configuration; a point's HCL, which --select prints, written into a
// configuration, gives the point's bits. (The sweeps themselves and the
// Pareto front are blocks/smartt's, blocks/reps' and blocks/explore's
// tests.)
func TestExplore(t *testing.T) {
	t.Parallel()
	for _, block := range []string{"nscc", "smartt", "reps"} {
		out, progress, err := runCLIStdout(t, "budget", "--explore", block, "--json")
		if err != nil {
			t.Fatalf("%s: %v\n%s", block, err, out)
		}
		if block != "reps" && !strings.Contains(progress, "points\n") {
			t.Errorf("%s: no progress lines on standard error: %q", block, progress)
		}
		var res explore.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		bud, err := runCLI(t, "budget", block, "--json")
		if err != nil {
			t.Fatal(err)
		}
		var bs []budgetOut
		if err := json.Unmarshal([]byte(bud), &bs); err != nil {
			t.Fatal(err)
		}
		defaults := 0
		for _, p := range res.Points {
			if p.Default {
				defaults++
				if p.Bits != bs[0].PerConnBits {
					t.Errorf("%s: default point %d bits, budget %d", block, p.Bits, bs[0].PerConnBits)
				}
			}
		}
		if defaults != 1 {
			t.Errorf("%s: %d default points", block, defaults)
		}
		// the smallest point's HCL selects it
		p := res.Points[0]
		sel, _, err := runCLIStdout(t, "budget", "--explore", block, "--select", "1")
		if err != nil || sel != p.HCL {
			t.Fatalf("%s: --select 1: %v\n%q, want %q", block, err, sel, p.HCL)
		}
		src := strings.Replace(string(config.DefaultSource()), "block \""+block+"\" {}", strings.TrimSpace(p.HCL), 1)
		cfg := filepath.Join(t.TempDir(), "point.hcl")
		if err := os.WriteFile(cfg, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := runCLI(t, "budget", block, "-c", cfg, "--json")
		if err != nil {
			t.Fatalf("%s: the HCL of point 1 is refused: %v\n%s\n%s", block, err, p.HCL, got)
		}
		if err := json.Unmarshal([]byte(got), &bs); err != nil || bs[0].PerConnBits != p.Bits {
			t.Errorf("%s: point 1 is %d bits, its configuration %d", block, p.Bits, bs[0].PerConnBits)
		}
	}
	// --select keeps the section's other options, runs no measurement,
	// and gives the numbering of the measured sweep; the hint names -c
	split := "../../docs/examples/uet-split.hcl"
	meas, _, err := runCLIStdout(t, "budget", "--explore", "nscc", "-c", split, "--json")
	var res explore.Result
	if err != nil || json.Unmarshal([]byte(meas), &res) != nil || len(res.Points) < 3 {
		t.Fatalf("nscc -c %s: %v", split, err)
	}
	sel, progress, err := runCLIStdout(t, "budget", "--explore", "nscc", "-c", split, "--select", "3")
	want := strings.Replace(res.Points[2].HCL, "block \"nscc\" {\n", "block \"nscc\" {\n  merge_slots = 8\n", 1)
	if err != nil || sel != want || strings.Contains(progress, "of 96 points") {
		t.Errorf("--select 3 -c %s: %v\n%q, want %q (progress %q)", split, err, sel, want, progress)
	}
	text, _, err := runCLIStdout(t, "budget", "--explore", "reps", "-c", split)
	if err != nil || !strings.Contains(text, "nicgen budget --explore reps -c "+split+" --select ID") {
		t.Errorf("the hint does not name -c:\n%s", text)
	}
	if _, err := runCLI(t, "budget", "--explore", "reps_conf"); exitCode(err) != 2 {
		t.Errorf("--explore reps_conf: exit %d", exitCode(err))
	}
	if _, err := runCLI(t, "budget", "--explore", "nscc", "--select", "100000"); exitCode(err) != 2 {
		t.Errorf("--select out of range: exit %d", exitCode(err))
	}
	if _, err := runCLI(t, "budget", "--svg", "x.svg"); exitCode(err) != 2 {
		t.Errorf("--svg without --explore: exit %d", exitCode(err))
	}
}

// explore.RAMB36 against Yosys: the state table of reps_conf (24 bits x 4096)
// takes as many block RAMs as synth_xilinx maps it to.
func TestRAMB36MatchesYosys(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "synth", "reps_conf", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var r struct {
		BRAM int `json:"brams"`
	}
	// after the progress line
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := explore.RAMB36(24, 4096); got != r.BRAM {
		t.Errorf("RAMB36(24, 4096) = %d, Yosys maps %d", got, r.BRAM)
	}
}
