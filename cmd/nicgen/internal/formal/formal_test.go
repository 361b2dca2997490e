package formal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/hdlgen"
)

// The proofs and the broken variants run under `make formal`, which sets
// NICGEN_FORMAL=1; `go test ./...` skips them (make test runs make formal
// once, not twice). The verdicts go to build/formal/report.txt.

var (
	mu      sync.Mutex
	proofs  []Result
	broken  []string
	outRoot = filepath.Join("build", "formal")
)

func TestMain(m *testing.M) {
	// paths in the report are relative to the repository root
	if err := os.Chdir("../../../.."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if len(proofs) > 0 || len(broken) > 0 {
		slices.Sort(broken)
		report := "Proofs (yosys sat -tempinduct from a zeroed state):\n" + Report(proofs) +
			"\nBroken variants (each must fail; the assertion it breaks is listed first):\n" + strings.Join(broken, "")
		if err := os.WriteFile(filepath.Join(outRoot, "report.txt"), []byte(report), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
		fmt.Print(report)
	}
	os.Exit(code)
}

func needFormal(t *testing.T) {
	if os.Getenv("NICGEN_FORMAL") == "" {
		t.Skip("the proofs run under make formal (NICGEN_FORMAL=1)")
	}
}

// TestProofs proves every assertion of every job.
func TestProofs(t *testing.T) {
	needFormal(t)
	t.Parallel()
	for _, j := range Jobs() {
		t.Run(j.Name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			r, err := Run(ctx, j, Options{Dir: filepath.Join(outRoot, j.Name)})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			proofs = append(proofs, r)
			mu.Unlock()
			if !r.Proved() {
				t.Errorf("not every assertion is proved:\n%s", Report([]Result{r}))
			}
		})
	}
}

// TestLintWithInvariants: a block that declares invariants is still
// clean Verilog-2005 without FORMAL (verilator --lint-only -Wall, no
// waivers, and iverilog -g2005), and Verilator accepts the FORMAL part too.
func TestLintWithInvariants(t *testing.T) {
	needFormal(t)
	t.Parallel()
	for _, j := range Jobs() {
		t.Run(j.Name, func(t *testing.T) {
			t.Parallel()
			m, err := j.Build(connpipe.Formal{Invariants: true})
			if err != nil {
				t.Fatal(err)
			}
			d, err := hdlgen.Elaborate(m)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			var paths []string
			for name, text := range hdlgen.Emit(d, hdlgen.EmitOptions{Command: "make formal"}) {
				paths = append(paths, name)
				if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			slices.Sort(paths)
			top := d.Top.Name()
			for _, args := range [][]string{
				append([]string{"verilator", "--lint-only", "-Wall", "--top-module", top}, paths...),
				append([]string{"verilator", "--lint-only", "-Wall", "-DFORMAL", "--top-module", top}, paths...),
				append([]string{"iverilog", "-g2005", "-Wall", "-o", os.DevNull, "-s", top}, paths...),
			} {
				out, err := run(context.Background(), dir, args[0], args[1:]...)
				if err != nil || strings.TrimSpace(out) != "" {
					t.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
				}
			}
		})
	}
}

// assertions lists the assertions a job's block declares, but the
// forwarding lemmas (name_fwd1, name_fwd2, ...): each follows the word invariant it is
// named after, and breaking that invariant breaks it one step later.
func assertions(t *testing.T, j Job) []string {
	m, err := j.Build(connpipe.Formal{Invariants: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range m.Properties() {
		if !p.Assume && !fwdLemma.MatchString(p.Name) {
			names = append(names, p.Name)
		}
	}
	return names
}

// TestBrokenVariantsFail builds, for every assertion, the block's
// deliberately broken variant of it (a mutated block or property, chosen
// in the block's code) and requires a counterexample from the zeroed state
// that fails that assertion: the proofs above can fail, and each property
// checks what it says.
func TestBrokenVariantsFail(t *testing.T) {
	needFormal(t)
	t.Parallel()
	for _, j := range Jobs() {
		if !j.Breaks {
			continue
		}
		for _, name := range assertions(t, j) {
			if len(j.BreakOnly) > 0 && !slices.Contains(j.BreakOnly, name) {
				continue
			}
			if j.OwnOnly && slices.Contains(connpipe.ShellAssertions, name) {
				continue
			}
			t.Run(j.Name+"/"+name, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				r, err := Run(ctx, j, Options{Break: name, BaseOnly: true, Dir: filepath.Join(outRoot, "broken", j.Name, name)})
				if err != nil {
					t.Fatal(err)
				}
				failed := r.FailedNames()
				line := fmt.Sprintf("  %-42s", j.Name+", broken "+name+":")
				if !slices.Contains(failed, name) {
					t.Errorf("the broken variant of %s did not fail it (failed: %v):\n%s", name, failed, Report([]Result{r}))
					line += " NOT CAUGHT\n"
				} else {
					k := slices.Index(failed, name)
					failed[0], failed[k] = failed[k], failed[0]
					var step int
					for _, a := range r.Assertions {
						if a.Name == name {
							step = a.Step
						}
					}
					line += fmt.Sprintf(" failed %s at step %d in %.1fs, %s\n", strings.Join(failed, ", "), step, r.Time.Seconds(), filepath.Join(r.Dir, "cex.vcd"))
				}
				mu.Lock()
				broken = append(broken, line)
				mu.Unlock()
			})
		}
	}
}

// toyCounter counts 0..9 and wraps. never12 holds (12 is unreachable) but
// needs induction length 3 (10 -> 11 -> 12 from an arbitrary state);
// below10 holds at length 1; at7 is false at step 8.
func toyCounter(withFalse bool) func(connpipe.Formal) (*hdlgen.Module, error) {
	return toy(withFalse, false)
}

func toy(withFalse, badAssume bool) func(connpipe.Formal) (*hdlgen.Module, error) {
	return func(connpipe.Formal) (*hdlgen.Module, error) {
		m := hdlgen.NewModule("toy", "")
		y := m.Output("y", 4, "")
		c := m.Reg("c", 4, "", hdlgen.ResetTo(0))
		m.Assign(c.Next, hdlgen.Mux(c.EqC(9), hdlgen.Const(4, 0), c.Add(hdlgen.Const(4, 1))))
		m.Assign(y, c)
		m.Assert("never12", c.Ne(hdlgen.Const(4, 12)))
		if withFalse {
			m.Assert("not7", c.Ne(hdlgen.Const(4, 7)))
		}
		if badAssume { // false in the zeroed state: would prove anything
			m.Assume("started", c.Ne(hdlgen.Const(4, 0)))
		}
		return m, nil
	}
}

// TestRunVerdicts checks the runner itself on a toy counter: a proof, a
// counterexample with its step and trace, and an induction that runs out
// of steps.
func TestRunVerdicts(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	r, err := Run(ctx, Job{Name: "toy", Build: toyCounter(false), MaxSteps: 4}, Options{Dir: filepath.Join(dir, "ok")})
	if err != nil || !r.Proved() || r.Induction != 3 {
		t.Errorf("toy: want never12 proved by induction of length 3, got %+v, %v", r, err)
	}
	r, err = Run(ctx, Job{Name: "toy", Build: toyCounter(true), MaxSteps: 12}, Options{Dir: filepath.Join(dir, "bad")})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.FailedNames(); len(got) != 1 || got[0] != "not7" || r.Assertions[1].Step != 8 {
		t.Errorf("toy with not7: want not7 failed at step 8 (c = 7 in the eighth state), got %+v", r.Assertions)
	}
	if _, err := os.Stat(r.Assertions[1].Trace); err != nil {
		t.Errorf("no counterexample trace: %v", err)
	}
	r, err = Run(ctx, Job{Name: "toy", Build: toyCounter(false), MaxSteps: 2}, Options{Dir: filepath.Join(dir, "short")})
	if err != nil || r.Proved() || r.Assertions[0].Verdict != NotInduc {
		t.Errorf("toy with 2 steps: want never12 not proved, got %+v, %v", r.Assertions, err)
	}
	// an assumption that excludes the zeroed state is an error, not a proof
	if _, err := Run(ctx, Job{Name: "toy", Build: toy(true, true), MaxSteps: 12}, Options{Dir: filepath.Join(dir, "vacuous")}); err == nil || !strings.Contains(err.Error(), "vacuous") {
		t.Errorf("an assumption false in the zeroed state was accepted: %v", err)
	}
	// a Break that names no assertion is an error, not a proof
	j := Jobs()[0]
	if _, err := Run(ctx, j, Options{Break: "no_such_property", Dir: filepath.Join(dir, "typo")}); err == nil {
		t.Errorf("a Break naming no assertion was accepted")
	}
}

var fwdLemma = regexp.MustCompile(`_fwd\d+$`)
