package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/blocks/control"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// equivFlags are the flags of equiv.
type equivFlags struct {
	cycles                                         int64
	seed                                           uint64
	waves, path, shardArg, profile, report, broken string
	asJSON                                         bool
	jobs                                           int
}

// equivPlan is a checked equiv run: what runs, in how many parts, and
// whether the control wrapper is checked after the block.
type equivPlan struct {
	r       *config.Resolved
	block   string
	muts    []hdlgen.Mutation
	shard   blockeq.Shard
	parts   []blockeq.Shard
	total   int64 // cycles over every part
	wrapper bool
}

// equivResult is what the parts' runs add up to.
type equivResult struct {
	runs     []blockeq.ShardRun
	recs     []blockeq.RunRecord
	failed   *blockeq.ShardRun // the first part that failed
	miss     []string          // behaviours no part reached (mixed, one shard)
	coverage map[string]int64
	compared int64
	wall     time.Duration
}

func newEquivCmd() *cobra.Command {
	var o equivFlags
	cmd := &cobra.Command{
		Use:   "equiv BLOCK",
		Short: "Prove a block equal to its golden model under Verilator, cycle by cycle",
		Long: `equiv builds the Verilated model of a block (cached), drives it and the block's
golden model with the same random stimulus (event mix with connection locality,
random valid and ready) and compares every output on every cycle. A mismatch
prints the cycle, the events around it and both sides, writes a waveform of that
window to --waves, names the seed that reproduces it, and exits with status 1.

A long campaign splits into shards (--shard i/n): shard i runs its share of
--cycles with its own seed derived from --seed, so a CI matrix or a set of
Kubernetes jobs can spread it over machines; --report writes each shard's
JSON record and "nicgen equiv merge" checks that every shard passed and
reported once. --profile picks an adversarial stimulus instead of the mixed
one (see "nicgen equiv profiles"). --break runs one of the block's broken
variants instead of the block, which must mismatch: a check that a campaign
can fail (its records never pass equiv merge).`,
		Example: "  nicgen equiv reps --cycles 10000000 --seed 7\n  nicgen equiv nscc -c docs/examples/100g-12us.hcl\n  nicgen equiv smartt --cycles 100000000 --shard 3/8 --report shard3.json\n  nicgen equiv merge shard*.json",
		Args:    oneArg("BLOCK"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := o.plan(cmd, args[0])
			if err != nil {
				return err
			}
			res, err := o.run(cmd, p)
			if err != nil {
				return err // the configuration was checked above: a build failure
			}
			if o.report != "" {
				if err := o.writeReport(res.recs); err != nil {
					return err
				}
			}
			if o.asJSON {
				return o.printJSON(cmd.OutOrStdout(), p, res)
			}
			return o.printText(cmd.OutOrStdout(), p, res)
		},
	}
	cmd.Flags().Int64Var(&o.cycles, "cycles", 1_000_000, "cycles to run")
	cmd.Flags().Uint64Var(&o.seed, "seed", 1, "stimulus seed")
	addConfigFlag(cmd, &o.path)
	cmd.Flags().StringVar(&o.waves, "waves", os.TempDir(), "folder for the waveform of a mismatch window")
	cmd.Flags().StringVar(&o.shardArg, "shard", "0/1", "run shard i of n of the campaign (its share of --cycles, its own seed)")
	cmd.Flags().StringVar(&o.profile, "profile", "mixed", "stimulus profile: "+strings.Join(blockeq.ProfileNames(), ", "))
	cmd.Flags().StringVar(&o.report, "report", "", "write this run's JSON record to the file (for equiv merge); with --jobs above 1, an array of one record per part")
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print the verdict, coverage and every part's record as JSON (progress on standard error)")
	cmd.Flags().StringVar(&o.broken, "break", "", "run the block's broken variant that breaks this property (the formal proofs' names: docs/formal.md) instead of the block")
	cmd.Flags().IntVar(&o.jobs, "jobs", 1, "run the shard as this many parts in parallel (part j of shard i/n is shard i*jobs+j of n*jobs), one Verilated model each")
	cmd.AddCommand(newEquivMergeCmd(), newEquivProfilesCmd())
	return cmd
}

// plan checks the configuration and every flag before anything is built,
// and splits the shard into its parts.
func (o *equivFlags) plan(cmd *cobra.Command, block string) (*equivPlan, error) {
	r, err := loadConfig(o.path)
	if err != nil {
		return nil, err
	}
	if _, err := selectBlocks(r, []string{block}); err != nil {
		return nil, err
	}
	if o.cycles < 1 {
		return nil, usageErr("--cycles %d: want at least 1 cycle", o.cycles)
	}
	if d := os.Getenv("NICGEN_CACHE"); d != "" {
		if st, err := os.Stat(d); err == nil && !st.IsDir() {
			return nil, usageErr("NICGEN_CACHE=%s: the Verilator model cache must be a folder, and this is a file", d)
		}
	}
	if o.report != "" {
		// checked before the run, not after it
		if err := checkWritable(o.report); err != nil {
			return nil, usageErr("--report: %v", err)
		}
	}
	p := &equivPlan{r: r, block: block}
	if o.broken != "" {
		if p.muts, err = brokenVariant(block, o.broken); err != nil {
			return nil, usageErr("--break: %v", err)
		}
	}
	if p.shard, err = blockeq.ParseShard(o.shardArg); err != nil {
		return nil, usageErr("--shard: %v", err)
	}
	// every part is a Verilated model on threads of its own: more than a
	// few per CPU only waits, and hundreds exhaust the threads a process
	// may start (Verilator then aborts)
	if most := max(4, 2*runtime.NumCPU()); o.jobs < 1 || o.jobs > most {
		return nil, usageErr("--jobs %d: want 1..%d (twice this machine's %d CPUs, at least 4)", o.jobs, most, runtime.NumCPU())
	}
	p.parts = p.shard.Split(o.jobs)
	for _, part := range p.parts {
		if part.Cycles(o.cycles) < 1 {
			return nil, usageErr("--cycles %d over %d parts (--shard %s, --jobs %d): part %s would run no cycle; want at least one cycle per part", o.cycles, p.shard.Count*o.jobs, o.shardArg, o.jobs, part)
		}
		p.total += part.Cycles(o.cycles)
	}
	if _, err := blockeq.NewBenchProfile(r.Config, block, o.profile, o.seed); err != nil {
		return nil, usageErr("%v", err)
	}
	// with hardware.control the wrapper generate writes is checked too,
	// after the block (wrapperBench); say plainly when not
	errOut := cmd.ErrOrStderr()
	p.wrapper = r.Config.Control && o.broken == "" && p.shard.Count == 1
	if r.Config.Control && !p.wrapper {
		fmt.Fprintf(errOut, "note: hardware.control is on, and this run checks the bare block %s, not its wrapper %s (a run of the whole campaign, without --shard and --break, checks the wrapper too)\n", block, control.Name(block))
	}
	if slots := slotsOf(r, block); p.wrapper && slots != "" {
		p.wrapper = false
		fmt.Fprintf(errOut, "note: hardware.control is on, and equiv checks the bare block %s, not the wrapper %s: with %s its results of different connections leave out of order, and the wrapper bench compares them in order (docs/control.md)\n", block, control.Name(block), slots)
	}
	return p, nil
}

// run builds the model and runs the parts in parallel, showing progress,
// and adds their records up.
func (o *equivFlags) run(cmd *cobra.Command, p *equivPlan) (*equivResult, error) {
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	tty := isTerminal(os.Stdout)
	progressOut := out
	if o.asJSON {
		// standard output carries the JSON alone
		progressOut, tty = errOut, false
	}
	progress := partsProgress(progressOut, tty, p.block, len(p.parts), p.total)
	if p.total >= 100_000_000 {
		// docs/benchmarks.md: 2.7-5.5 Mcycles/s end to end on 2 cores
		fmt.Fprintf(errOut, "%s: %d cycles take about %s at 3 Mcycles/s (docs/benchmarks.md); --shard splits a campaign over machines\n",
			p.block, p.total, fmtDuration(float64(p.total)/3e6))
	}
	index := map[blockeq.Shard]int{}
	for k, part := range p.parts {
		index[part] = k
	}
	start := time.Now()
	runs, err := blockeq.RunShards(cmd.Context(), p.r.Config, p.block, o.profile, o.seed, o.cycles, p.parts, o.jobs,
		harness.BuildOptions{Progress: func(msg string) { fmt.Fprintf(errOut, "%s: %s\n", p.block, msg) }},
		func(part blockeq.Shard, runSeed uint64) harness.RunOptions {
			return harness.RunOptions{Label: fmt.Sprintf("%s %s shard %s seed %d", p.block, o.profile, part, runSeed),
				WaveDir: o.waves, Progress: progress(index[part])}
		}, p.muts)
	if err != nil {
		return nil, err
	}
	res := &equivResult{runs: runs, wall: time.Since(start)}
	if tty {
		fmt.Fprintln(out)
	}
	o.tally(p, res)
	return res, nil
}

// tally turns the parts' runs into records, merges their coverage and
// judges it: the mixed workload must reach every behaviour of the block
// (over all parts); adversarial ones push a corner and cannot. A shard of
// a campaign of several is judged with the others, by equiv merge.
func (o *equivFlags) tally(p *equivPlan, res *equivResult) {
	res.recs = make([]blockeq.RunRecord, len(res.runs))
	res.coverage = map[string]int64{}
	for k := range res.runs {
		run := &res.runs[k]
		rec := blockeq.RunRecord{Version: hdlgen.Version, Config: p.r.SHA256, CampaignSeed: o.seed, CampaignCycles: o.cycles,
			Block: p.block, Profile: o.profile, Shard: run.Shard, Seed: run.Seed, Cycles: run.Report.Cycles,
			CyclesPerSec: run.Report.CyclesPerSec, Passed: run.Err == nil, Coverage: run.Coverage.Counts(), Broken: o.broken}
		if run.Err != nil {
			rec.Error = run.Err.Error()
			if res.failed == nil {
				res.failed = run
			}
		}
		res.compared += run.Report.Cycles
		for name, n := range rec.Coverage {
			res.coverage[name] += n
		}
		res.recs[k] = rec
	}
	if o.profile != "mixed" {
		return
	}
	for k := range res.runs {
		res.recs[k].CoverageMissing = res.runs[k].Coverage.Missing()
	}
	if res.failed == nil && p.shard.Count == 1 {
		res.miss = missingEverywhere(res.runs)
		if len(res.miss) > 0 {
			for k := range res.recs {
				res.recs[k].Passed, res.recs[k].Error = false, fmt.Sprintf("never reached: %v", res.miss)
			}
		}
	}
}

// writeReport writes the records (one, or an array of one per part).
func (o *equivFlags) writeReport(recs []blockeq.RunRecord) error {
	var b []byte
	if len(recs) == 1 {
		b, _ = json.MarshalIndent(recs[0], "", "  ")
	} else {
		b, _ = json.MarshalIndent(recs, "", "  ")
	}
	return writeAtomic(o.report, append(b, '\n'))
}

// reproduce is the command that reruns the failed part, or "".
func (o *equivFlags) reproduce(block string, failed *blockeq.ShardRun) string {
	if failed == nil {
		return ""
	}
	cfgArg := ""
	if o.path != "" {
		cfgArg = " -c " + o.path
	}
	s := fmt.Sprintf("nicgen equiv %s%s --profile %s --seed %d --cycles %d --shard %s", block, cfgArg, o.profile, o.seed, o.cycles, failed.Shard)
	if o.broken != "" {
		s += " --break " + o.broken
	}
	return s
}

// printJSON prints the verdict as JSON (and runs the wrapper's check
// first where it is due); exit status 1 unless equivalent.
func (o *equivFlags) printJSON(out io.Writer, p *equivPlan, res *equivResult) error {
	v := equivOut{Block: p.block, Profile: o.profile, Equivalent: res.failed == nil && len(res.miss) == 0, Cycles: res.compared,
		WallSeconds: res.wall.Seconds(), Missing: res.miss, Coverage: res.coverage, Parts: res.recs, Reproduce: o.reproduce(p.block, res.failed)}
	if res.failed != nil {
		v.Error = res.failed.Err.Error()
	}
	if p.wrapper && v.Equivalent {
		var b strings.Builder
		if err := wrapperBench(&b, p.r.Config, p.block, o.seed, o.cycles); err != nil {
			v.Equivalent, v.Error = false, err.Error()
		} else {
			v.Wrapper = strings.TrimSpace(b.String())
		}
	}
	if err := writeJSON(out, v); err != nil {
		return err
	}
	if !v.Equivalent {
		return &exitError{code: 1, err: fmt.Errorf("%s: not shown equivalent (the JSON says why)", p.block)}
	}
	return nil
}

// printText prints the verdict once, coverage included (a run that
// matched every cycle but missed a behaviour is not a pass), then the
// wrapper's check where it is due.
func (o *equivFlags) printText(out io.Writer, p *equivPlan, res *equivResult) error {
	if res.failed != nil {
		return fmt.Errorf("%w\nreproduce with: %s", res.failed.Err, o.reproduce(p.block, res.failed))
	}
	if len(res.miss) == 0 {
		fmt.Fprintf(out, "%s: equivalent to the golden model\n", p.block)
	} else {
		fmt.Fprintf(out, "%s: every one of %d cycles matched the golden model, but the coverage is incomplete (below)\n", p.block, res.compared)
	}
	for _, run := range res.runs {
		fmt.Fprintf(out, "%v\n", run.Report)
	}
	if len(res.runs) > 1 {
		fmt.Fprintf(out, "%d parts, %d jobs: %d cycles in %v (%.2f Mcycles/s together)\n",
			len(res.runs), o.jobs, res.compared, res.wall.Round(time.Millisecond), float64(res.compared)/res.wall.Seconds()/1e6)
	}
	fmt.Fprintf(out, "coverage (from the golden model):\n%s", blockeq.FormatCounts(res.coverage))
	if p.wrapper && len(res.miss) == 0 {
		if err := wrapperBench(out, p.r.Config, p.block, o.seed, o.cycles); err != nil {
			return err
		}
	}
	if p.shard.Count > 1 && o.profile == "mixed" {
		fmt.Fprintf(out, "coverage is judged over the campaign's %d shards: nicgen equiv merge\n", p.shard.Count)
	}
	if len(res.miss) > 0 {
		return fmt.Errorf("the run never reached: %v (run more cycles)", res.miss)
	}
	return nil
}

// equivOut is an equiv run (--json).
type equivOut struct {
	Block       string              `json:"block"`
	Profile     string              `json:"profile"`
	Equivalent  bool                `json:"equivalent"` // every cycle matched and, for mixed, every behaviour was reached
	Cycles      int64               `json:"cycles"`
	WallSeconds float64             `json:"wall_seconds"`
	Error       string              `json:"error,omitempty"`     // the first mismatch
	Wrapper     string              `json:"wrapper,omitempty"`   // hardware.control: the control wrapper's check
	Reproduce   string              `json:"reproduce,omitempty"` // the command that reruns the failed part
	Missing     []string            `json:"missing,omitempty"`   // behaviours the mixed workload never reached
	Coverage    map[string]int64    `json:"coverage"`
	Parts       []blockeq.RunRecord `json:"parts"`
}

// campaignOut is a merged campaign (equiv merge --json).
type campaignOut struct {
	Block         string           `json:"block"`
	Profile       string           `json:"profile"`
	Passed        bool             `json:"passed"`
	Version       string           `json:"nicgen_version"`
	Config        string           `json:"config_sha256"`
	CampaignSeed  uint64           `json:"campaign_seed"`
	Shards        int              `json:"shards"`
	Cycles        int64            `json:"cycles"`
	Failed        []campaignShard  `json:"failed,omitempty"`
	MissingShards []int            `json:"missing_shards,omitempty"`
	Coverage      map[string]int64 `json:"coverage"`
	Uncovered     []string         `json:"uncovered,omitempty"` // cases no shard reached
}

type campaignShard struct {
	Shard string `json:"shard"`
	Seed  uint64 `json:"seed"`
	Error string `json:"error"`
}

func newEquivMergeCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "merge REPORT.json...",
		Short: "Merge the JSON records of the shards of equivalence campaigns",
		Long: `merge reads the records written by "nicgen equiv --report" and prints one line per
block and profile: shards, cycles and coverage summed. It fails (status 1) if a
shard failed or never reported, naming the shard and its seed.`,
		Example: "  nicgen equiv merge results/*.json",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("%s needs at least one report file", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var recs []blockeq.RunRecord
			for _, f := range args {
				rs, err := readEquivReport(f)
				if err != nil {
					return err
				}
				recs = append(recs, rs...)
			}
			camps, err := blockeq.Merge(recs)
			if err != nil {
				return usageErr("%v", err)
			}
			out := cmd.OutOrStdout()
			bad := 0
			var js []campaignOut
			for _, c := range camps {
				status := "passed"
				if len(c.Failed) > 0 || len(c.Missing) > 0 || len(c.Uncovered) > 0 {
					status, bad = "FAILED", bad+1
				}
				if asJSON {
					v := campaignOut{Block: c.Block, Profile: c.Profile, Passed: status == "passed", Version: c.Version, Config: c.Config,
						CampaignSeed: c.Seed, Shards: c.Shards, Cycles: c.Cycles, MissingShards: c.Missing, Coverage: c.Coverage, Uncovered: c.Uncovered}
					for _, f := range c.Failed {
						v.Failed = append(v.Failed, campaignShard{Shard: f.Shard.String(), Seed: f.Seed, Error: f.Error})
					}
					js = append(js, v)
					continue
				}
				fmt.Fprintf(out, "%s %s: %d shards, %d cycles: %s\n", c.Block, c.Profile, c.Shards, c.Cycles, status)
				fmt.Fprintf(out, "  campaign: nicgen %s, configuration sha256 %s, campaign seed %d\n", c.Version, c.Config, c.Seed)
				for _, f := range c.Failed {
					fmt.Fprintf(out, "  shard %s (seed %d) failed: %s\n", f.Shard, f.Seed, firstLine(f.Error))
				}
				for _, i := range c.Missing {
					fmt.Fprintf(out, "  shard %d/%d never reported\n", i, c.Shards)
				}
				if len(c.Uncovered) > 0 {
					fmt.Fprintf(out, "  no shard reached: %s\n", strings.Join(c.Uncovered, ", "))
				}
				fmt.Fprint(out, blockeq.FormatCounts(c.Coverage))
			}
			if asJSON {
				if err := writeJSON(out, js); err != nil {
					return err
				}
			}
			if bad > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d campaigns failed or are incomplete", bad)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the campaigns as JSON")
	return cmd
}

func newEquivProfilesCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "profiles",
		Short:   "List the stimulus profiles of equiv",
		Example: "  nicgen equiv profiles",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, p := range blockeq.ProfileNames() {
				fmt.Fprintf(cmd.OutOrStdout(), "%-13s %s\n", p, blockeq.ProfileDoc(p))
			}
			return nil
		},
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// fmtDuration writes seconds as a person reads them.
// missingEverywhere is what no part of a run reached.
func missingEverywhere(runs []blockeq.ShardRun) []string {
	count := map[string]int{}
	for _, run := range runs {
		for _, m := range run.Coverage.Missing() {
			count[m]++
		}
	}
	var miss []string
	for m, n := range count {
		if n == len(runs) {
			miss = append(miss, m)
		}
	}
	sort.Strings(miss)
	return miss
}

func fmtDuration(s float64) string {
	switch {
	case s < 120:
		return fmt.Sprintf("%.0f s", s)
	case s < 7200:
		return fmt.Sprintf("%.0f min", s/60)
	case s < 3*86400:
		return fmt.Sprintf("%.1f h", s/3600)
	}
	return fmt.Sprintf("%.1f days", s/86400)
}

// maxReportBytes bounds an equiv report read by equiv merge: a record is a
// few KiB, and --jobs writes at most a few hundred of them.
const maxReportBytes = 64 << 20

// readCapped reads a whole file of at most max bytes (a larger one, or an
// endless stream such as /dev/zero, is an error, not a read into memory
// without end).
func readCapped(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %v", path, unwrapOS(err))
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: larger than %d MiB: not an equiv report", path, max>>20)
	}
	return b, nil
}

// jsonProblem says what is wrong with a JSON document without naming Go
// types: the field and the kind of value, or the syntax error's offset.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return fmt.Sprintf("field %q holds a JSON %s", te.Field, te.Value)
	case errors.As(err, &te):
		return fmt.Sprintf("a JSON %s where a record belongs", te.Value)
	case errors.As(err, &se):
		return fmt.Sprintf("%v at byte %d", se, se.Offset)
	}
	return err.Error()
}

// partsProgress is the progress line of a run of n parts together: part
// k reports its cycles done, and the sum is printed at most once a
// second (and at the end), on one line rewritten on a terminal.
func partsProgress(w io.Writer, tty bool, block string, n int, total int64) func(k int) func(d, _ int64) {
	var mu sync.Mutex
	last := time.Now()
	done := make([]int64, n)
	return func(k int) func(d, _ int64) {
		return func(d, _ int64) {
			mu.Lock()
			defer mu.Unlock()
			done[k] = d
			var sum int64
			for _, v := range done {
				sum += v
			}
			if time.Since(last) < time.Second && sum < total {
				return
			}
			last = time.Now()
			if tty {
				fmt.Fprintf(w, "\r%s: %d / %d cycles (%.0f%%)", block, sum, total, 100*float64(sum)/float64(total))
			} else {
				fmt.Fprintf(w, "%s: %d / %d cycles\n", block, sum, total)
			}
		}
	}
}

// brokenVariant is the mutations of block's broken variant that breaks
// property name in its formal proofs (the first job that has one).
func brokenVariant(block, name string) ([]hdlgen.Mutation, error) {
	b, err := blocks.Lookup(block)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, j := range b.Formal() {
		if ms, ok := j.Mutants[name]; ok && len(ms) > 0 {
			return ms, nil
		}
		for n, ms := range j.Mutants {
			if len(ms) > 0 && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("%s has no broken variant", block)
	}
	return nil, fmt.Errorf("%q is not a property of %s with a broken variant (want one of %s)", name, block, strings.Join(names, ", "))
}

// readEquivReport reads a record of nicgen equiv --report: one record, or
// the array of an equiv --jobs run.
func readEquivReport(f string) ([]blockeq.RunRecord, error) {
	b, err := readCapped(f, maxReportBytes)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	// one record, or the array of an equiv --jobs run
	var rs []blockeq.RunRecord
	if trimmed := bytes.TrimSpace(b); len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(b, &rs); err != nil {
			return nil, usageErr("%s: not an equiv report (an array, but not of records: %v)", f, jsonProblem(err))
		}
	} else {
		var r blockeq.RunRecord
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, usageErr("%s: not an equiv report (want a JSON record or an array of them: %v)", f, jsonProblem(err))
		}
		rs = []blockeq.RunRecord{r}
	}
	if len(rs) == 0 {
		return nil, usageErr("%s: not an equiv report (no record)", f)
	}
	for _, r := range rs {
		if r.Block == "" || r.Shard.Count < 1 {
			return nil, usageErr("%s: not an equiv report (no block or shard)", f)
		}
	}
	return rs, nil
}

// slotsOf names the slots block's section sets ("wait_slots = 8"), or "".
func slotsOf(r *config.Resolved, block string) string {
	for _, sec := range r.Sections {
		if sec.Type != "block" || sec.Label != block {
			continue
		}
		for _, st := range sec.Settings {
			if (st.Name == "wait_slots" || st.Name == "merge_slots") && st.Value != "0" {
				return st.Name + " = " + st.Value
			}
		}
	}
	return ""
}

// wrapperBench checks block's control wrapper at cfg (blockeq.RunControl:
// events against the golden model with AXI-Lite traffic mixed in), with
// rounds of events sized by the run's cycles.
func wrapperBench(out io.Writer, cfg blocks.Config, block string, seed uint64, cycles int64) error {
	perRound := int(min(max(cycles/50, 2000), 75000))
	summary, err := blockeq.RunControl(cfg, block, int64(seed), perRound)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: its control wrapper %s matches the golden model too (AXI-Lite traffic mixed in): %s\n", block, control.Name(block), summary)
	return nil
}
