package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// decode parses a command's standard output as JSON into v.
func decode(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
}

// config check and show --json: the verdict, or every problem at its
// file, line and column (exit 2); show's values are the text's.
func TestConfigJSON(t *testing.T) {
	t.Parallel()
	out, _, err := runCLIStdout(t, "config", "check", "--json", "-c", "../../docs/examples/uet-split.hcl")
	var ok struct {
		OK     bool     `json:"ok"`
		Blocks []string `json:"blocks"`
	}
	decode(t, out, &ok)
	if err != nil || !ok.OK || strings.Join(ok.Blocks, ",") != "nscc,reps,uet_cc" {
		t.Errorf("check: %v %+v", err, ok)
	}
	bad := "testdata/badconfig/merge_slots_one.hcl"
	out, _, err = runCLIStdout(t, "config", "check", "--json", "-c", bad)
	var no struct {
		OK       bool `json:"ok"`
		Problems []struct {
			File    string `json:"file"`
			Line    int    `json:"line"`
			Column  int    `json:"column"`
			Message string `json:"message"`
		} `json:"problems"`
	}
	decode(t, out, &no)
	if exitCode(err) != 2 || no.OK || len(no.Problems) != 1 || no.Problems[0].File != bad || no.Problems[0].Line != 12 || !strings.Contains(no.Problems[0].Message, "merge_slots") {
		t.Errorf("bad configuration: exit %d, %+v", exitCode(err), no)
	}
	out, _, err = runCLIStdout(t, "config", "show", "--json", "-c", "../../docs/examples/uet-split.hcl")
	var sh configOut
	decode(t, out, &sh)
	text, _, err2 := runCLIStdout(t, "config", "show", "-c", "../../docs/examples/uet-split.hcl")
	if err != nil || err2 != nil || len(sh.Sections) < 3 {
		t.Fatalf("show: %v %v, %d sections", err, err2, len(sh.Sections))
	}
	n := 0
	for _, s := range sh.Sections {
		for _, v := range s.Values {
			n++
			if v.Source == "set" && v.At == "" || v.Source == "" {
				t.Errorf("%s %s: source %q at %q", s.Label, v.Name, v.Source, v.At)
			}
			found := false
			for _, line := range strings.Split(text, "\n") {
				f := strings.SplitN(strings.TrimSpace(line), "=", 2)
				if len(f) == 2 && strings.TrimSpace(f[0]) == v.Name && strings.HasPrefix(strings.TrimSpace(f[1]), v.Value+" ") {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s %s = %s is not in the text output", s.Label, v.Name, v.Value)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d values", n)
	}
}

// diff --json: nothing on the committed tree; on a copy with one file
// changed, that file with its diff, and exit 1. (It changes folder, as a
// user runs diff from the folder that holds the outputs: not parallel.)
func TestDiffJSON(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	type drift struct {
		UpToDate bool `json:"up_to_date"`
		Files    int  `json:"files"`
		Drift    []struct {
			File, Status, Diff string
		} `json:"drift"`
	}
	t.Chdir(root)
	out, _, err := runCLIStdout(t, "diff", "--json")
	var d drift
	decode(t, out, &d)
	if err != nil || !d.UpToDate || d.Files < 100 || len(d.Drift) != 0 {
		t.Fatalf("committed tree: %v %+v", err, d)
	}
	tmp := t.TempDir()
	for _, dir := range []string{"verilog-out", "constraints", filepath.Join("docs", "datasheets")} {
		if err := os.CopyFS(filepath.Join(tmp, dir), os.DirFS(filepath.Join(root, dir))); err != nil {
			t.Fatal(err)
		}
	}
	changed := filepath.Join(tmp, "constraints", "reps.xdc")
	b, err := os.ReadFile(changed)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(changed, append(b, "# edited by hand\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(tmp)
	out, _, err = runCLIStdout(t, "diff", "--json")
	d = drift{}
	decode(t, out, &d)
	if exitCode(err) != 1 || d.UpToDate || len(d.Drift) != 1 || d.Drift[0].Status != "changed" || d.Drift[0].File != filepath.Join("constraints", "reps.xdc") || !strings.Contains(d.Drift[0].Diff, "-# edited by hand") {
		t.Errorf("one file edited: exit %d, %+v", exitCode(err), d)
	}
}

// equiv --json and equiv merge --json: the verdict, coverage and the
// part's record, then the campaign they make.
func TestEquivJSON(t *testing.T) {
	t.Parallel()
	rep := filepath.Join(t.TempDir(), "r.json")
	out, _, err := runCLIStdout(t, "equiv", "reps_conf", "--cycles", "600000", "--json", "--report", rep)
	var e equivOut
	decode(t, out, &e)
	if err != nil || !e.Equivalent || e.Cycles != 600000 || len(e.Parts) != 1 || !e.Parts[0].Passed || e.Coverage["error"] == 0 {
		t.Fatalf("equiv --json: %v %+v", err, e)
	}
	out, _, err = runCLIStdout(t, "equiv", "merge", "--json", rep)
	var cs []campaignOut
	decode(t, out, &cs)
	if err != nil || len(cs) != 1 || !cs[0].Passed || cs[0].Shards != 1 || cs[0].Cycles != 600000 || cs[0].Config == "" {
		t.Errorf("merge --json: %v %+v", err, cs)
	}
	// too short for the mixed workload's coverage: not equivalent, exit 1
	out, _, err = runCLIStdout(t, "equiv", "reps", "--cycles", "20000", "--json")
	e = equivOut{}
	decode(t, out, &e)
	if exitCode(err) != 1 || e.Equivalent || len(e.Missing) == 0 {
		t.Errorf("a short run: exit %d, %+v", exitCode(err), e)
	}
}

// synth --target ecp5 --json: the seeds' Fmax, the median, utilisation
// and the critical path of a real place and route.
func TestSynthECP5JSON(t *testing.T) {
	t.Parallel()
	out, _, err := runCLIStdout(t, "synth", "lru_arb", "--target", "ecp5", "--json")
	var o ecp5Out
	decode(t, out, &o)
	if err != nil || len(o.SeedsMHz) != 1 || o.MedianMHz <= 0 || o.MedianMHz != o.SeedsMHz[0] || o.Util["TRELLIS_COMB"].Used == 0 || o.Critical == "" || o.Events.Uniform <= 0 {
		t.Errorf("synth --json: %v %+v", err, o)
	}
}
