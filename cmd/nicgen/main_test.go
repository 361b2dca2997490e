package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs nicgen through its cobra entry point.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if err != nil {
		return 1
	}
	return 0
}

func TestGenerateChecksAndWritesEverything(t *testing.T) {
	dir := t.TempDir()
	out, err := runCLI(t, "generate", "--check", "-o", filepath.Join(dir, "rtl"), "--constraints", filepath.Join(dir, "xdc"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"reps       lint clean", "reps_conf  lint clean"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"rtl/reps/reps.v", "rtl/reps/reps_cbuf.v", "rtl/reps/reps_freeze.v", "rtl/reps/reps.f", "rtl/reps_conf/reps_conf.v", "xdc/reps.xdc", "xdc/reps_conf.sdc"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("not written: %s", f)
		}
	}
	// no temporary files are left behind
	filepath.WalkDir(dir, func(p string, d os.DirEntry, _ error) error {
		if strings.HasPrefix(d.Name(), ".nicgen-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// The same configuration gives the same bytes, run after run.
func TestGenerateIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if out, err := runCLI(t, "generate", "-o", filepath.Join(d, "v"), "--constraints", filepath.Join(d, "c")); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	filepath.WalkDir(a, func(p string, d os.DirEntry, _ error) error {
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(a, p)
		x, _ := os.ReadFile(p)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs", rel)
		}
		return nil
	})
}

// The committed verilog-out/ and constraints/ are what the code generates.
func TestCommittedOutputIsCurrent(t *testing.T) {
	root, _ := filepath.Abs("../..")
	out, err := runCLI(t, "diff", "-o", filepath.Join(root, "verilog-out"), "--constraints", filepath.Join(root, "constraints"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

func TestDiffReportsDrift(t *testing.T) {
	dir := t.TempDir()
	v, c := filepath.Join(dir, "v"), filepath.Join(dir, "c")
	if out, err := runCLI(t, "generate", "-o", v, "--constraints", c); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	f := filepath.Join(v, "reps", "reps_freeze.v")
	b, _ := os.ReadFile(f)
	os.WriteFile(f, bytes.Replace(b, []byte("wire leave"), []byte("wire leave_renamed"), 1), 0o644)
	out, err := runCLI(t, "diff", "-o", v, "--constraints", c)
	if exitCode(err) != 1 || !strings.Contains(out, "-wire leave_renamed") || !strings.Contains(out, "+wire leave") {
		t.Errorf("drift not reported (exit %d):\n%s", exitCode(err), out)
	}
}

func TestBudgetReproducesS4Table1(t *testing.T) {
	out, err := runCLI(t, "budget", "reps")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"reps: 193 bits (25 bytes) per connection", "paper: 193 bits per connection (S4 Table 1 (S4:L74)): matches", "96.5 KiB"} {
		if !strings.Contains(out, want) {
			t.Errorf("budget lacks %q:\n%s", want, out)
		}
	}
	js, err := runCLI(t, "budget", "--json")
	if err != nil || !strings.Contains(js, `"per_connection_bits": 193`) || !strings.Contains(js, `"block": "reps_conf"`) {
		t.Errorf("json budget: %v\n%s", err, js)
	}
}

func TestUnknownBlockIsAUsageError(t *testing.T) {
	for _, args := range [][]string{{"budget", "repz"}, {"equiv", "repz"}, {"generate", "--blocks", "repz"}, {"synth", "repz"}} {
		out, err := runCLI(t, args...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), `unknown block "repz"`) || !strings.Contains(err.Error(), "reps_conf") {
			t.Errorf("%v: exit %d, err %v\n%s", args, exitCode(err), err, out)
		}
	}
}

func TestEquivRunsAndReportsCoverage(t *testing.T) {
	out, err := runCLI(t, "equiv", "reps_conf", "--cycles", "300000", "--seed", "3")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "equivalent to the golden model") || !strings.Contains(out, "send recycled") {
		t.Errorf("equiv output:\n%s", out)
	}
}

func TestSynthReportsResources(t *testing.T) {
	out, err := runCLI(t, "synth", "reps_conf")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "BRAM") || !strings.Contains(out, "latches 0") {
		t.Errorf("synth output:\n%s", out)
	}
}
