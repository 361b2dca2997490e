package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/hdlgen"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
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

// runCLIStdout runs a command and returns its standard output alone (the
// progress lines on standard error apart).
func runCLIStdout(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	root := newRootCmd()
	var out, errs bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errs)
	root.SetArgs(args)
	err = root.Execute()
	return out.String(), errs.String(), err
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
	t.Parallel()
	dir := t.TempDir()
	out, err := runCLI(t, "generate", "--check", "-o", filepath.Join(dir, "rtl"), "--constraints", filepath.Join(dir, "xdc"), "--datasheets", filepath.Join(dir, "doc"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"reps       lint clean", "reps_conf  lint clean"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"rtl/reps/reps.v", "rtl/shared/reps_cbuf.v", "rtl/shared/reps_freeze.v", "rtl/reps/reps.f", "rtl/reps/reps.core", "rtl/reps_conf/reps_conf.v", "xdc/reps.xdc", "xdc/reps_conf.sdc", "doc/reps.md", "doc/nscc.md"} {
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
		// the same command from two folders (the .f lists hold the paths
		// as given, so the command is the same only with relative ones)
		t.Chdir(d)
		if out, err := runCLI(t, "generate", "-o", "v", "--constraints", "c", "--datasheets", "d"); err != nil {
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

// The committed verilog-out/, constraints/ and docs/datasheets/ are what
// the code generates.
func TestCommittedOutputIsCurrent(t *testing.T) {
	t.Chdir("../..") // the .f lists name the files from the repository root
	out, err := runCLI(t, "diff")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

func TestDiffReportsDrift(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v, c, d := filepath.Join(dir, "v"), filepath.Join(dir, "c"), filepath.Join(dir, "d")
	if out, err := runCLI(t, "generate", "-o", v, "--constraints", c, "--datasheets", d); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	f := filepath.Join(v, "shared", "reps_freeze.v")
	b, _ := os.ReadFile(f)
	os.WriteFile(f, bytes.Replace(b, []byte("wire leave"), []byte("wire leave_renamed"), 1), 0o644)
	out, err := runCLI(t, "diff", "-o", v, "--constraints", c, "--datasheets", d)
	if exitCode(err) != 1 || !strings.Contains(out, "-wire leave_renamed") || !strings.Contains(out, "+wire leave") {
		t.Errorf("drift not reported (exit %d):\n%s", exitCode(err), out)
	}
}

// diff where nothing was generated (another folder than the repository
// root) says so in one line, as a usage error, instead of listing every
// file as missing.
func TestDiffOutsideTheOutputs(t *testing.T) {
	t.Chdir(t.TempDir())
	out, err := runCLI(t, "diff")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "no generated files under verilog-out") || strings.Contains(out, "missing:") {
		t.Errorf("exit %d, %v\n%s", exitCode(err), err, out)
	}
}

func TestBudgetReproducesS4Table1(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	for _, args := range [][]string{{"budget", "repz"}, {"equiv", "repz"}, {"generate", "--blocks", "repz"}, {"synth", "repz"}, {"lint", "repz"}, {"doc", "repz"}, {"sim", "repz"}} {
		out, err := runCLI(t, args...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), `unknown block "repz"`) || !strings.Contains(err.Error(), "reps_conf") {
			t.Errorf("%v: exit %d, err %v\n%s", args, exitCode(err), err, out)
		}
	}
}

func TestEquivRunsAndReportsCoverage(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "equiv", "reps_conf", "--cycles", "300000", "--seed", "3")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "equivalent to the golden model") || !strings.Contains(out, "send recycled") {
		t.Errorf("equiv output:\n%s", out)
	}
}

func TestSynthReportsResources(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "synth", "reps_conf")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "BRAM") || !strings.Contains(out, "latches 0") {
		t.Errorf("synth output:\n%s", out)
	}
}

// Every command has a short description and an example in its --help.
func TestEveryCommandHasAnExample(t *testing.T) {
	t.Parallel()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Short == "" || c.Example == "" {
			t.Errorf("%s: Short %q, Example %q", c.CommandPath(), c.Short, c.Example)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd())
	out, err := runCLI(t, "config", "show", "--help")
	if err != nil || !strings.Contains(out, "Examples:\n  nicgen config show\n") || !strings.Contains(out, "-c, --config FILE") {
		t.Errorf("config show --help: %v\n%s", err, out)
	}
}

func TestRootHelp(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "--help")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/help.golden", out)
}

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := runCLI(t, args...)
		if err != nil || out != "nicgen "+hdlgen.Version+"\n" && out != "nicgen version "+hdlgen.Version+"\n" {
			t.Errorf("%v: %v %q", args, err, out)
		}
	}
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		out, err := runCLI(t, "completion", sh)
		if err != nil || !strings.Contains(out, "nicgen") {
			t.Errorf("completion %s: %v\n%.200s", sh, err, out)
		}
	}
	out, err := runCLI(t, "completion", "tcsh")
	if exitCode(err) != 2 || err.Error() != `completion: unknown shell "tcsh" (bash, zsh, fish or powershell)` {
		t.Errorf("completion tcsh: exit %d %v\n%s", exitCode(err), err, out)
	}
	// BLOCK arguments complete with the block names (after equiv's own
	// subcommands)
	out, err = runCLI(t, cobra.ShellCompNoDescRequestCmd, "equiv", "")
	if err != nil || !strings.HasPrefix(out, "merge\nprofiles\n"+strings.Join(blocks.Names(), "\n")+"\n") {
		t.Errorf("completing equiv: %v\n%s", err, out)
	}
}

// Bad flags and argument counts are usage errors (exit status 2).
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"budget", "--no-such-flag"}, {"synth"}, {"equiv", "reps", "nscc"}, {"generate", "extra"}, {"config", "show", "extra"}} {
		out, err := runCLI(t, args...)
		if exitCode(err) != 2 {
			t.Errorf("%v: exit %d, %v\n%s", args, exitCode(err), err, out)
		}
	}
}

// generate writes a FuseSoC core beside each .f list, naming the same
// files in the same order, and the datasheet of each block.
func TestGenerateFuseSoCCoreAndDatasheet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v, c, d := filepath.Join(dir, "v"), filepath.Join(dir, "c"), filepath.Join(dir, "d")
	if out, err := runCLI(t, "generate", "--blocks", "smartt", "-o", v, "--constraints", c, "--datasheets", d); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	core, _ := os.ReadFile(filepath.Join(v, "smartt", "smartt.core"))
	list, _ := os.ReadFile(filepath.Join(v, "smartt", "smartt.f"))
	var files []string
	for _, l := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		files = append(files, "      - "+filepath.Base(l))
	}
	for _, want := range []string{"CAPI=2:\n", "name: nicgen:blocks:smartt:" + hdlgen.Version + "\n", strings.Join(files, "\n") + "\n    file_type: verilogSource\n",
		"      - ../../c/smartt.xdc\n    file_type: xdc\n", "      - ../../c/smartt.lpf\n    file_type: LPF\n", "    filesets: [rtl, constraints_lpf]\n", "    toplevel: smartt\n", "        mode: lint-only\n"} {
		if !strings.Contains(string(core), want) {
			t.Errorf("smartt.core lacks %q:\n%s", want, core)
		}
	}
	ds, _ := os.ReadFile(filepath.Join(d, "smartt.md"))
	// the latency and the one-connection rate follow from the depth the
	// datasheet states (docs/pipeline.md: latency D + 5, one event every D)
	var depth int
	if m := regexp.MustCompile("\\| `pipeline_depth` \\| `([0-9]+)` \\|").FindStringSubmatch(string(ds)); m != nil {
		depth, _ = strconv.Atoi(m[1])
	}
	if depth < 1 {
		t.Fatalf("smartt.md states no pipeline_depth")
	}
	for _, want := range []string{fmt.Sprintf("| latency | %d cycles", depth+5), "| throughput, different connections | 1 event per clock", fmt.Sprintf("| throughput, one connection | one event every %d cycles", depth), "| `s_event_rtt` | input | 20 | RTT of an ack, ns |", "128 bits (16 bytes) per connection", "| `f` | `6` | default: docs/blocks/smartt.md Section 3; lowered when the network needs it |"} {
		if !strings.Contains(string(ds), want) {
			t.Errorf("smartt.md lacks %q", want)
		}
	}
	doc, err := runCLI(t, "doc", "smartt")
	if err != nil || doc != string(ds) {
		t.Errorf("nicgen doc smartt differs from the generated datasheet: %v", err)
	}
}

// A sharded campaign: every shard runs its own seed and share, merge sums
// them, and a missing shard fails the merge.
func TestEquivShardsMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var reports []string
	for i := 0; i < 3; i++ {
		rep := filepath.Join(dir, fmt.Sprintf("shard%d.json", i))
		out, err := runCLI(t, "equiv", "reps_conf", "--cycles", "600000", "--shard", fmt.Sprintf("%d/3", i), "--report", rep)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		reports = append(reports, rep)
	}
	out, err := runCLI(t, append([]string{"equiv", "merge"}, reports...)...)
	if err != nil || !strings.Contains(out, "reps_conf mixed: 3 shards, 600000 cycles: passed") || !strings.Contains(out, "  campaign: nicgen "+hdlgen.Version+", configuration sha256 ") {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	out, err = runCLI(t, "equiv", "merge", reports[0], reports[2])
	if exitCode(err) != 1 || !strings.Contains(out, "shard 1/3 never reported") {
		t.Errorf("a missing shard was not reported (exit %d):\n%s", exitCode(err), out)
	}
	// a shard of another configuration is another campaign
	alien := filepath.Join(dir, "alien.json")
	if out, err := runCLI(t, "equiv", "reps_conf", "-c", "../../docs/examples/100g-12us.hcl", "--cycles", "600000", "--shard", "1/3", "--report", alien); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err = runCLI(t, "equiv", "merge", reports[0], alien, reports[2])
	if exitCode(err) == 0 || !strings.Contains(err.Error(), "two configurations") {
		t.Errorf("shards of two configurations merged (exit %d): %v\n%s", exitCode(err), err, out)
	}
	if _, err := runCLI(t, "equiv", "reps", "--shard", "3/3"); exitCode(err) != 2 {
		t.Errorf("--shard 3/3 accepted")
	}
	if _, err := runCLI(t, "equiv", "reps", "--profile", "nope"); exitCode(err) != 2 {
		t.Errorf("an unknown profile was accepted")
	}
}

// equiv --jobs 2 runs the two parts of the shard at once; its records are,
// field for field (the speed aside), those of the two shards run one after
// the other, and merge takes the array it writes.
func TestEquivJobsEqualSequential(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	par := filepath.Join(dir, "jobs.json")
	if out, err := runCLI(t, "equiv", "reps", "--cycles", "400000", "--seed", "5", "--jobs", "2", "--report", par); err != nil {
		t.Fatalf("%v\n%s", err, out)
	} else if !strings.Contains(out, "2 parts, 2 jobs: 400000 cycles") {
		t.Errorf("no aggregate line:\n%s", out)
	}
	var got []blockeq.RunRecord
	if b, err := os.ReadFile(par); err != nil || json.Unmarshal(b, &got) != nil || len(got) != 2 {
		t.Fatalf("--jobs 2 report: %v, %d records", err, len(got))
	}
	for i := range 2 {
		one := filepath.Join(dir, fmt.Sprintf("seq%d.json", i))
		if out, err := runCLI(t, "equiv", "reps", "--cycles", "400000", "--seed", "5", "--shard", fmt.Sprintf("%d/2", i), "--report", one); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var want blockeq.RunRecord
		if b, err := os.ReadFile(one); err != nil || json.Unmarshal(b, &want) != nil {
			t.Fatalf("shard %d/2 report: %v", i, err)
		}
		g := got[i]
		g.CyclesPerSec, want.CyclesPerSec = 0, 0
		if !reflect.DeepEqual(g, want) {
			t.Errorf("part %d of --jobs 2:\n%+v\nshard %d/2 alone:\n%+v", i, g, i, want)
		}
	}
	if out, err := runCLI(t, "equiv", "merge", par); err != nil || !strings.Contains(out, "reps mixed: 2 shards, 400000 cycles: passed") {
		t.Errorf("merge of a --jobs report: %v\n%s", err, out)
	}
	if _, err := runCLI(t, "equiv", "reps", "--jobs", "0"); exitCode(err) != 2 {
		t.Errorf("--jobs 0 accepted")
	}
}

// A merging configuration's datasheet states the one-connection rate it
// measured, which the merge stage makes faster than one event per
// pipeline depth, and the depth itself, not one derived from that rate.
func TestDatasheetMergingRate(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "merge.hcl")
	text := "network {\n  link_gbps = 800\n  mtu = 4096\n  base_rtt_ns = 8600\n}\nhardware {\n  clock_mhz = 250\n  connections = 4096\n}\nblock \"nscc\" {\n  merge_slots = 8\n}\n"
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := runCLI(t, "doc", "nscc", "-c", cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, ds)
	}
	m := regexp.MustCompile(`\| throughput, one connection \| one event every ([0-9.]+) cycles \([0-9.]+ ns at 250 MHz\) for back-to-back events of one connection, faster than its pipeline depth ([0-9]+): the merge stage folds them \|`).FindStringSubmatch(ds)
	if m == nil {
		t.Fatalf("no merged one-connection rate in the datasheet:\n%s", ds)
	}
	every, _ := strconv.ParseFloat(m[1], 64)
	depth, _ := strconv.Atoi(m[2])
	if want := regexp.MustCompile("\\| `pipeline_depth` \\| `([0-9]+)` \\|").FindStringSubmatch(ds); want == nil || want[1] != m[2] {
		t.Errorf("the rate's depth %d is not the configuration's pipeline_depth (%v)", depth, want)
	}
	if every >= float64(depth)/2 {
		t.Errorf("one event every %.2f cycles: merged ACKs of one connection should come far faster than one per %d cycles", every, depth)
	}
}

// With hardware.control, equiv checks the wrapper generate writes after
// the block; a shard checks the block alone and says so, and so does a
// block whose slots answer out of order.
func TestEquivControlWrapper(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "equiv", "reps", "-c", "../../docs/examples/control.hcl", "--cycles", "100000")
	if err != nil || !strings.Contains(out, "reps: its control wrapper reps_ctl matches the golden model too (AXI-Lite traffic mixed in): reps: ") ||
		!strings.Contains(out, "12 settings written") {
		t.Errorf("%v\n%s", err, out)
	}
	out, err = runCLI(t, "equiv", "reps", "-c", "../../docs/examples/control.hcl", "--cycles", "100000", "--shard", "1/2")
	if err != nil || strings.Contains(out, "control wrapper reps_ctl matches") || !strings.Contains(out, "checks the bare block reps, not its wrapper reps_ctl") {
		t.Errorf("a shard: %v\n%s", err, out)
	}
	cfg := filepath.Join(t.TempDir(), "slots.hcl")
	src := strings.Replace(string(config.DefaultSource()), "hardware {", "hardware {\n  control = true", 1)
	src = regexp.MustCompile(`block "srp_tx" \{[^}]*\}`).ReplaceAllString(src, "block \"srp_tx\" {\n  wait_slots = 4\n}")
	if err := os.WriteFile(cfg, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = runCLI(t, "equiv", "srp_tx", "-c", cfg, "--cycles", "100000")
	if err != nil || !strings.Contains(out, "with wait_slots = 4 its results of different connections leave out of order") {
		t.Errorf("wait slots: %v\n%s", err, out)
	}
}
