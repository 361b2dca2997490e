// Package formal proves the blocks' invariants (docs/formal.md) with Yosys:
// a block is built with its properties (connpipe.Formal), at small widths
// or at the default ones with a few connections, emitted, read with
// read_verilog -formal -DFORMAL,
// flattened, its state table mapped to flip-flops, and handed to Yosys'
// SAT solver: temporal induction (sat -tempinduct) from every flip-flop at
// zero (a zeroed table, as the contract assumes), the assumptions holding
// in every step. `make formal` runs the proofs and the broken variants,
// which must fail (formal_test.go).
//
// Why not yosys-smtbmc with z3: z3 4.8.12 (Debian's) does not get past
// the definitions of the reps model (it spends minutes and gigabytes on
// the definition of the written word before the first query); Yosys' own
// solver proves the same model in a fraction of a second.
package formal

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/hdlgen"
)

// Verdict of one assertion.
type Verdict string

const (
	Proved   Verdict = "proved"
	Failed   Verdict = "FAILED"     // a counterexample from the zeroed state (a real trace)
	NotInduc Verdict = "not proved" // no induction up to MaxSteps: maybe unreachable, see the trace
	Unknown  Verdict = "unknown"    // not decided: the check stopped on another failure
)

// Outcome is one assertion's verdict with its counterexample, if any.
type Outcome struct {
	Name    string
	Verdict Verdict
	Step    int    // the step of the counterexample where it fails (1 is the initial state)
	Trace   string // VCD of the counterexample
}

// Result is the outcome of a job.
type Result struct {
	Job        string
	Top        string
	Dir        string
	Break      string
	Assertions []Outcome
	Assumes    []string
	Induction  int // the induction length that proved every assertion (0: none)
	Time       time.Duration
}

// Proved reports whether every assertion was proved.
func (r Result) Proved() bool {
	for _, a := range r.Assertions {
		if a.Verdict != Proved {
			return false
		}
	}
	return len(r.Assertions) > 0
}

// FailedNames lists the assertions with a counterexample from the zeroed state.
func (r Result) FailedNames() []string {
	var n []string
	for _, a := range r.Assertions {
		if a.Verdict == Failed {
			n = append(n, a.Name)
		}
	}
	return n
}

// Options of a run.
type Options struct {
	Break    string // the broken variant to build (connpipe.Formal.Break)
	BaseOnly bool   // only look for counterexamples (for broken variants)
	Dir      string // where the Verilog, the logs and the traces go
}

// propLine is a property statement of the emitted Verilog: its label, its
// kind and the wire (or literal) of its condition.
var propLine = regexp.MustCompile(`(?m)^\s*(\w+): (assert|assume) \(([^()]*)\);`)

// Run builds, emits and checks one job.
func Run(ctx context.Context, j Job, o Options) (Result, error) {
	r := Result{Job: j.Name, Dir: o.Dir, Break: o.Break}
	m, err := j.Build(connpipe.Formal{Invariants: true, Break: o.Break})
	if err != nil {
		return r, fmt.Errorf("%s: %w", j.Name, err)
	}
	if mu, ok := j.Mutants[o.Break]; ok && o.Break != "" {
		if err := hdlgen.Mutate(m, mu...); err != nil {
			return r, fmt.Errorf("%s, broken %s: %w", j.Name, o.Break, err)
		}
	}
	d, err := hdlgen.Elaborate(m)
	if err != nil {
		return r, fmt.Errorf("%s:\n%w", j.Name, err)
	}
	r.Top = d.Top.Name()
	for _, p := range m.Properties() {
		if p.Assume {
			r.Assumes = append(r.Assumes, p.Name)
		} else {
			r.Assertions = append(r.Assertions, Outcome{Name: p.Name, Verdict: Unknown})
		}
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return r, err
	}
	// a trace left by an earlier run must not pass for this run's
	for _, old := range []string{"cex.vcd", "sat.log", "start.log"} {
		if err := os.Remove(filepath.Join(o.Dir, old)); err != nil && !os.IsNotExist(err) {
			return r, err
		}
	}
	cfg := j.Name + ": " + j.Doc
	if o.Break != "" {
		cfg += "; broken variant of " + o.Break
	}
	files := hdlgen.Emit(d, hdlgen.EmitOptions{Command: "make formal", Config: []string{cfg}})
	var order []string // submodules first, the top last
	for _, mod := range d.Modules {
		name := mod.Name() + ".v"
		order = append(order, name)
		if err := os.WriteFile(filepath.Join(o.Dir, name), files[name], 0o644); err != nil {
			return r, err
		}
	}
	// the wire that carries each assertion's condition, to tell which failed
	cond := map[string]string{}
	var show []string
	for _, pm := range propLine.FindAllStringSubmatch(string(files[r.Top+".v"]), -1) {
		if pm[2] == "assert" && !strings.ContainsAny(pm[3], "' ") {
			cond[pm[1]] = pm[3]
			show = append(show, "-show", pm[3])
		}
	}
	mode := "-tempinduct"
	if o.BaseOnly {
		mode = "-tempinduct -tempinduct-baseonly"
	}
	// first: the assumptions hold in the zeroed state (the table
	// invariants hold of the all-zero word); otherwise no trace satisfies
	// them and every proof would be vacuous
	script := fmt.Sprintf("read_verilog -formal -DFORMAL %s; prep -flatten -top %s; memory_map; opt_clean; "+
		"tee -o start.log sat -set-assumes -set-init-zero -seq 1; "+
		"tee -o sat.log sat %s -prove-asserts -set-assumes -set-init-zero -maxsteps %d -show-inputs -show-regs %s -dump_vcd cex.vcd",
		strings.Join(order, " "), r.Top, mode, j.MaxSteps, strings.Join(show, " "))
	start := time.Now()
	out, err := run(ctx, o.Dir, "yosys", "-q", "-l", "yosys.log", "-p", script)
	r.Time = time.Since(start)
	if ctx.Err() != nil {
		return r, fmt.Errorf("%s: %w", j.Name, ctx.Err())
	}
	if err != nil {
		return r, fmt.Errorf("%s: yosys: %v\n%s", j.Name, err, out)
	}
	startLog, err := os.ReadFile(filepath.Join(o.Dir, "start.log"))
	if err != nil {
		return r, err
	}
	if !strings.Contains(string(startLog), "SAT solving finished - model found") {
		return r, fmt.Errorf("%s: the assumptions do not hold in the zeroed state (%s): every proof would be vacuous; "+
			"a table invariant must hold of the all-zero word", j.Name, strings.Join(r.Assumes, ", "))
	}
	log, err := os.ReadFile(filepath.Join(o.Dir, "sat.log"))
	if err != nil {
		return r, err
	}
	return r, r.read(string(log), cond)
}

var (
	inductRe = regexp.MustCompile(`\[induction step (\d+)\] Solving`)
	rowRe    = regexp.MustCompile(`^\s+(\d+) \\(\S+)\s+\S+\s+\S+\s+([01xz]+)$`)
)

// read sets the verdicts from the log of sat: a base case with a model is
// a counterexample from the zeroed state, the assertions whose condition
// is 0 in it are failed; a proven induction step proves every assertion;
// running out of steps leaves the assertions that fail the last induction
// step not proved.
func (r *Result) read(log string, cond map[string]string) error {
	trace := filepath.Join(r.Dir, "cex.vcd")
	failing := func(v Verdict) {
		// the last table of the log is the model of the last failed check
		i := strings.LastIndex(log, "Time Signal Name")
		first := map[string]int{} // condition wire -> first step where it is 0
		if i >= 0 {
			for _, line := range strings.Split(log[i:], "\n") {
				if m := rowRe.FindStringSubmatch(line); m != nil && strings.Trim(m[3], "0") == "" {
					step, _ := strconv.Atoi(m[1])
					if _, seen := first[m[2]]; !seen {
						first[m[2]] = step
					}
				}
			}
		}
		for k, a := range r.Assertions {
			if step, ok := first[cond[a.Name]]; ok {
				r.Assertions[k] = Outcome{Name: a.Name, Verdict: v, Step: step, Trace: trace}
			}
		}
	}
	switch {
	case strings.Contains(log, "model found for base case: FAIL"):
		failing(Failed)
	case strings.Contains(log, "Induction step proven: SUCCESS"):
		ms := inductRe.FindAllStringSubmatch(log, -1)
		r.Induction, _ = strconv.Atoi(ms[len(ms)-1][1])
		for k := range r.Assertions {
			r.Assertions[k].Verdict = Proved
		}
	case strings.Contains(log, "Reached maximum number of time steps"):
		if !strings.Contains(log, "-tempinduct-baseonly") && strings.Contains(log, "Induction step failed") {
			failing(NotInduc)
		}
	default:
		return fmt.Errorf("%s: no verdict in %s", r.Job, filepath.Join(r.Dir, "sat.log"))
	}
	return nil
}

func run(ctx context.Context, dir, tool string, args ...string) (string, error) {
	if _, err := exec.LookPath(tool); err != nil {
		return "", fmt.Errorf("%s is not installed (scripts/setup.sh installs yosys and z3): %w", tool, err)
	}
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// Report renders results as a table: one line per assertion.
func Report(rs []Result) string {
	var b strings.Builder
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Job < rs[j].Job })
	for _, r := range rs {
		fmt.Fprintf(&b, "%s (top %s), %.1fs", r.Job, r.Top, r.Time.Seconds())
		if r.Induction > 0 {
			fmt.Fprintf(&b, ", induction length %d", r.Induction)
		}
		fmt.Fprintf(&b, "; assuming %s\n", strings.Join(r.Assumes, ", "))
		for _, a := range r.Assertions {
			fmt.Fprintf(&b, "  %-28s %s", a.Name, a.Verdict)
			if a.Trace != "" {
				fmt.Fprintf(&b, " at step %d, counterexample %s", a.Step, a.Trace)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
