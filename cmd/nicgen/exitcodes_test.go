package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every bad command, argument, flag value or environment is a usage error:
// exit status 2 with a message that names it, before any work.
func TestUsageExitCodes(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, c := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"frob"}, "", `unknown command "frob"`},
		{[]string{"generat"}, "", `did you mean "generate"?`},
		{[]string{"help", "frob"}, "", `unknown help topic "frob"`},
		{[]string{"equiv", "reps", "--cycles", "2", "--shard", "1/4"}, "", "part 1/4 would run no cycle"},
		{[]string{"equiv", "merge", "/dev/zero"}, "", "/dev/zero: larger than 64 MiB: not an equiv report"},
		{[]string{"equiv", "merge", file}, "", "not an equiv report (want a JSON record or an array of them: invalid character"},
		{[]string{"equiv", "lru_arb", "--jobs", "100000", "--cycles", "10"}, "", "--jobs 100000: want 1.."},
		{[]string{"scenario", "incast", "--size", "1000GiB"}, "", "the simulation stops at 1000 ms"},
		{[]string{"scenario", "incast", "--size", "8PiB"}, "", "larger than 1 TiB"},
		{[]string{"scenario", "incast", "--size", "1.3B"}, "", "want a whole number of bytes"},
		{[]string{"version", "extra"}, "", "takes no arguments"},
		{[]string{"synth", "reps", "--target", "asic"}, "", `--target "asic": want xilinx, ice40 or ecp5`},
		{[]string{"synth", "reps_conf", "--record", file}, "", "--record: for --target ecp5 only"},
		{[]string{"equiv", "reps", "--cycles", "-1"}, "", "--cycles -1: want at least 1 cycle"},
		{[]string{"equiv", "reps", "--cycles", "0"}, "", "--cycles 0: want at least 1 cycle"},
		{[]string{"equiv", "reps", "--cycles", "10"}, file, "NICGEN_CACHE=" + file + ": the Verilator model cache must be a folder"},
		{[]string{"config", "check", "-c", ""}, "", "an empty file name"},
		{[]string{"generate", "-c", "", "-o", t.TempDir()}, "", "an empty file name"},
		{[]string{"scenario", "hotspot", "--load", "1.5"}, "", "--load 1.5: want 0..1"},
		{[]string{"scenario", "hotspot", "--load", "NaN"}, "", "--load NaN: want 0..1"},
		{[]string{"scenario", "hotspot", "--leaves", "1", "--hosts-per-leaf", "3", "--senders", "1"}, "", "--senders 1 leaves one victim"},
		{[]string{"scenario", "hotspot", "--bin", "0"}, "", "--bin 0: want more than 0"},
		{[]string{"scenario", "hotspot", "--message", "0"}, "", "--message 0: want 1..65535"},
		{[]string{"scenario", "convergence", "--flows", "1"}, "", "--flows 1: want 2..1024"},
		{[]string{"scenario", "convergence", "--control", "dctcp"}, "", `--control "dctcp": want swift, swift-block, hpcc, hpcc-block, both (swift and hpcc) or all`},
		{[]string{"scenario", "convergence", "--stagger", "400"}, "", "every join before the end"},
		{[]string{"scenario", "hotspot", "--senders", "64"}, "", "--senders 64: want 1..63"},
		{[]string{"scenario", "hotspot", "--senders", "0"}, "", "--senders 0: want 1..63"},
		{[]string{"scenario", "hotspot", "--warmup", "2000"}, "", "--warmup 2000: want 0 or more and below --duration 1000"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			if c.env != "" {
				t.Setenv("NICGEN_CACHE", c.env)
			}
			out, err := runCLI(t, c.args...)
			if exitCode(err) != 2 || !strings.Contains(err.Error(), c.want) {
				t.Errorf("exit %d, %v, want exit 2 and %q\n%s", exitCode(err), err, c.want, out)
			}
		})
	}
}

// budget --json uses snake_case keys everywhere, the fields included.
func TestBudgetJSONKeys(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "budget", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkSnakeKeys(t, "budget --json", out)
}

// checkSnakeKeys fails the test unless out is JSON whose every key, at
// any depth, is snake_case.
func checkSnakeKeys(t *testing.T, what, out string) {
	t.Helper()
	snake := regexp.MustCompile(`^[a-z0-9_]+$`)
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", what, err, out)
	}
	var walk func(x any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				if !snake.MatchString(k) {
					t.Errorf("%s: key %q is not snake_case", what, k)
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
}

// Shell completion offers flag values and the blocks of the -c
// configuration.
func TestCompletionValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want []string
		not  string
	}{
		{[]string{"__complete", "synth", "reps", "--target", ""}, []string{"xilinx", "ice40", "ecp5"}, ""},
		{[]string{"__complete", "scenario", "incast", "--variant", ""}, []string{"nscc", "smartt", "uet_cc"}, ""},
		{[]string{"__complete", "equiv", "reps", "--profile", ""}, []string{"mixed", "hazard"}, ""},
		{[]string{"__complete", "equiv", "-c", "../../docs/examples/400g.hcl", ""}, []string{"nscc", "reps", "reps_conf"}, "smartt"},
	} {
		out, err := runCLI(t, c.args...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w+"\n") {
				t.Errorf("%v: %q not offered:\n%s", c.args, w, out)
			}
		}
		if c.not != "" && strings.Contains(out, c.not+"\n") {
			t.Errorf("%v: %q offered, but it is not in the configuration:\n%s", c.args, c.not, out)
		}
	}
}

// A Verilator build says that it runs and how long it took; a cached model
// needs no word.
func TestEquivBuildProgress(t *testing.T) {
	t.Setenv("NICGEN_CACHE", t.TempDir())
	out, err := runCLI(t, "equiv", "reps_conf", "--cycles", "20000")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "reps_conf: verilating and compiling reps_conf (not in the cache") || !strings.Contains(out, "reps_conf: built reps_conf in ") {
		t.Errorf("no build progress:\n%s", out)
	}
	out, err = runCLI(t, "equiv", "reps_conf", "--cycles", "20000")
	if err != nil || strings.Contains(out, "verilating") {
		t.Errorf("a cached model was built again or announced: %v\n%s", err, out)
	}
}

// budget --compare lines up two configurations' budgets field by field.
func TestBudgetCompare(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "budget", "nscc", "-c", "../../docs/examples/400g.hcl", "--compare", "../../docs/examples/800g.hcl", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var ds []budgetDiff
	if err := json.Unmarshal([]byte(out), &ds); err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].A == nil || ds[0].B == nil || ds[0].A.Connections != 16384 || ds[0].B.Connections != 65536 {
		t.Fatalf("compare: %+v", ds)
	}
	sumA, sumB := 0, 0
	for _, f := range ds[0].Fields {
		sumA += f.ABits
		sumB += f.BBits
	}
	if sumA != ds[0].A.PerConnBits || sumB != ds[0].B.PerConnBits {
		t.Errorf("fields add up to %d and %d bits, budgets say %d and %d", sumA, sumB, ds[0].A.PerConnBits, ds[0].B.PerConnBits)
	}
	// a wrapped block's fields pair with the bare block's (u_core.state.c
	// with state.c): the same widths, nothing only on one side
	out, err = runCLI(t, "budget", "nscc", "-c", "../../docs/examples/control.hcl", "--compare", "../../docs/examples/400g.hcl", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ds = nil
	if err := json.Unmarshal([]byte(out), &ds); err != nil || len(ds) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	for _, f := range ds[0].Fields {
		if f.ABits == 0 || f.BBits == 0 {
			t.Errorf("control on against off: field %s only on one side (%d, %d bits)", f.Name, f.ABits, f.BBits)
		}
	}
	text, err := runCLI(t, "budget", "--compare", "../../docs/examples/100g-12us.hcl")
	if err != nil || !strings.Contains(text, "B - A =") {
		t.Errorf("text compare: %v\n%s", err, text)
	}
	if _, err := runCLI(t, "budget", "--compare", "nope.hcl"); exitCode(err) != 2 {
		t.Errorf("--compare with a missing file: exit %d", exitCode(err))
	}
}

// A long run says how long it will take before it starts.
func TestEquivLongRunEstimate(t *testing.T) {
	t.Parallel()
	if got := fmtDuration(1e12 / 3e6); got != "3.9 days" {
		t.Errorf("1e12 cycles: %q", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the estimate comes before the run, which then stops at once
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs([]string{"equiv", "reps_conf", "--cycles", "1000000000000"})
	root.ExecuteContext(ctx)
	if !strings.Contains(out.String(), "reps_conf: 1000000000000 cycles take about 3.9 days at 3 Mcycles/s") {
		t.Errorf("no estimate:\n%s", out.String())
	}
}

// lint, synth, generate --check and scenario print JSON with --json, with
// snake_case keys.
func TestJSONOutputs(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"lint", "reps_conf", "--json"},
		{"synth", "reps_conf", "--json"},
		{"generate", "--blocks", "reps_conf", "--check", "--json", "-o", t.TempDir()},
		{"scenario", "incast", "--senders", "2", "--size", "64KiB", "--json"},
		{"scenario", "hotspot", "--duration", "60", "--warmup", "20", "--json"},
		{"scenario", "convergence", "--flows", "4", "--duration", "600", "--json"},
	} {
		root := newRootCmd()
		var stdout, stderr bytes.Buffer
		root.SetOut(&stdout)
		root.SetErr(&stderr)
		root.SetArgs(args)
		err := root.Execute()
		out := stdout.String()
		if err != nil {
			t.Fatalf("%v: %v\n%s%s", args, err, out, stderr.String())
		}
		checkSnakeKeys(t, strings.Join(args, " "), out)
		if !strings.Contains(out, `"reps_conf"`) && args[0] != "scenario" {
			t.Errorf("%v: no block in\n%s", args, out)
		}
	}
}

// budget states the paper's figure for every block that has one and says
// so for every block that has none (reps_conf: S0 gives no REPS budget).
func TestBudgetPaperFigure(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "budget")
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(strings.TrimSpace(out), "\n\n") {
		name, _, _ := strings.Cut(block, ":")
		if !strings.Contains(block, "\n  paper: ") {
			t.Errorf("%s: no paper line:\n%s", name, block)
		}
		if name == "reps_conf" && !strings.Contains(block, "paper: no paper figure") {
			t.Errorf("reps_conf:\n%s", block)
		}
		if name == "nscc" && !strings.Contains(block, "paper: 19 bytes (152 bits) per flow") {
			t.Errorf("nscc:\n%s", block)
		}
	}
}

// Sizes: whole bytes, units, and fractions of a unit that are whole bytes.
func TestParseBytes(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"4096": 4096, "256KiB": 256 << 10, "8MiB": 8 << 20, "1.5MiB": 3 << 19, "1MB": 1e6, "0.5KiB": 512, "1TiB": -1, "1.3B": -1, "0": -1, "1e3KiB": -1, "NaNMiB": -1} {
		got, err := parseBytes(in)
		if want < 0 && err == nil || want >= 0 && (err != nil || got != want) {
			t.Errorf("parseBytes(%q) = %d, %v; want %d (-1: an error)", in, got, err, want)
		}
	}
}

// A run too short to reach every behaviour fails once, after its
// coverage, and never calls itself equivalent.
func TestEquivShortRunIsNoPass(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "equiv", "reps", "--cycles", "1")
	if exitCode(err) != 1 || strings.Contains(out, "equivalent to the golden model") || !strings.Contains(out, "every one of 1 cycles matched") {
		t.Errorf("exit %d, %v:\n%s", exitCode(err), err, out)
	}
}
