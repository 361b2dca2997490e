package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/hdlgen"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// A campaign is a folder that describes itself (campaign.json), holds its
// own copy of the configuration (config.hcl), the scripts of one engine,
// the shards' records (records/) and their logs (logs/). Every shard is
// one ordinary nicgen command; nicgen campaign merge DIR is the reduce.
type campaignSpec struct {
	Kind    string `json:"kind"` // equiv, synth or explore
	Block   string `json:"block"`
	Engine  string `json:"engine"`
	Version string `json:"nicgen_version"`
	Config  string `json:"config_sha256"`
	Tasks   int    `json:"tasks"` // array tasks: equiv shards, synth seeds
	// equiv
	Cycles  int64  `json:"cycles,omitempty"`
	Seed    uint64 `json:"seed,omitempty"`
	Profile string `json:"profile,omitempty"`
	Jobs    int    `json:"jobs,omitempty"`
	// synth
	FreqMHz float64 `json:"freq_mhz,omitempty"`
	// how the scripts call nicgen
	Nicgen string `json:"nicgen"`
}

// campaignEngines are the engines a campaign is written for.
var campaignEngines = []string{"slurm", "kubernetes", "github"}

func newCampaignCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "campaign",
		Short: "Write equivalence, place-and-route or state-explorer campaigns for a cluster (Slurm job arrays, Kubernetes Indexed Jobs, GitHub Actions matrices), and merge their records",
		Long: `campaign plans a campaign and writes it into a folder for an engine: every
task is one ordinary nicgen command that writes a record into DIR/records,
and "nicgen campaign merge DIR" is the reduce step, which refuses missing,
duplicate or foreign records and prints the campaign it vouches for.

  slurm   DIR/tasks.sbatch (a job array), DIR/merge.sbatch and DIR/submit.sh,
          which submits both, the merge after every task (afterany: a task
          that fails is named by the merge, not left pending)
  kubernetes  DIR/tasks.yaml (an Indexed Job: the completion index is the
          task), DIR/merge.yaml and DIR/submit.sh (kubectl apply, the merge
          once the tasks' Job has completed or failed); --image names an
          image with nicgen at --nicgen, --claim the volume claim that
          holds DIR, mounted at DIR's path
  github  DIR/workflow.yml, a matrix workflow (a job per task, then the merge)

A task whose record exists is skipped, so a campaign submitted again runs
only what is missing; records are written whole (a killed task leaves none).
The scripts call nicgen by the absolute path of this binary (--nicgen
sets another, e.g. on a shared file system).`,
		Example: "  nicgen campaign equiv nscc --cycles 10000000000 --shards 100 -o camp/nscc\n  sh camp/nscc/submit.sh\n  nicgen campaign merge camp/nscc\n  nicgen campaign synth uet_cc --seeds 3 --freq 200 -o camp/uet_cc-pnr\n  nicgen campaign explore nscc --shards 8 -o camp/nscc-explore",
	}
	cmd.AddCommand(newCampaignEquivCmd(), newCampaignSynthCmd(), newCampaignExploreCmd(), newCampaignMergeCmd())
	return cmd
}

// campaignFlags are the flags every kind shares.
type campaignFlags struct {
	path, out, engine, nicgen, partition, timeLimit string
	k8s                                             k8sFlags
}

func (f *campaignFlags) add(cmd *cobra.Command) {
	addConfigFlag(cmd, &f.path)
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "the campaign's folder (required)")
	cmd.Flags().StringVar(&f.engine, "engine", "slurm", "the engine the campaign is written for: "+strings.Join(campaignEngines, ", "))
	cmd.Flags().StringVar(&f.nicgen, "nicgen", "", "the nicgen the tasks run (default: this binary's absolute path)")
	cmd.Flags().StringVar(&f.partition, "partition", "", "slurm: the partition (default: the cluster's)")
	cmd.Flags().StringVar(&f.timeLimit, "time", "", "slurm: each task's time limit (sbatch --time, e.g. 04:00:00)")
	cmd.Flags().StringVar(&f.k8s.image, "image", "", "kubernetes: the container image the tasks run (with nicgen at --nicgen)")
	cmd.Flags().StringVar(&f.k8s.claim, "claim", "", "kubernetes: the PersistentVolumeClaim that holds the campaign folder (mounted at its path)")
	cmd.Flags().IntVar(&f.k8s.parallelism, "parallelism", 10, "kubernetes: tasks running at once")
}

func newCampaignEquivCmd() *cobra.Command {
	var f campaignFlags
	var cycles int64
	var seed uint64
	var shards, jobs int
	var profile string
	cmd := &cobra.Command{
		Use:     "equiv BLOCK",
		Short:   "An equivalence campaign: --shards tasks, each nicgen equiv --shard i/n with its record",
		Example: "  nicgen campaign equiv nscc --cycles 10000000000 --shards 100 --jobs 2 --time 04:00:00 -o camp/nscc\n  nicgen campaign equiv reps --shards 8 --engine github -o camp/reps",
		Args:    oneArg("BLOCK"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if shards < 1 || shards > 100000 {
				return usageErr("--shards %d: want 1..100000", shards)
			}
			if cycles < int64(shards) {
				return usageErr("--cycles %d: want at least one cycle per shard (%d)", cycles, shards)
			}
			if jobs < 1 || jobs > 64 {
				return usageErr("--jobs %d: want 1..64", jobs)
			}
			if !slices.Contains(blockeq.ProfileNames(), profile) {
				return usageErr("--profile %q: want one of %s", profile, strings.Join(blockeq.ProfileNames(), ", "))
			}
			spec := campaignSpec{Kind: "equiv", Block: args[0], Tasks: shards, Cycles: cycles, Seed: seed, Profile: profile, Jobs: jobs}
			return writeCampaign(cmd, f, spec)
		},
	}
	f.add(cmd)
	cmd.Flags().Int64Var(&cycles, "cycles", 1_000_000_000, "the campaign's cycles, over every shard")
	cmd.Flags().IntVar(&shards, "shards", 10, "array tasks: each runs its share of the cycles with its own seed")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "the campaign seed (each shard derives its own)")
	cmd.Flags().StringVar(&profile, "profile", "mixed", "stimulus profile (nicgen equiv profiles)")
	cmd.Flags().IntVar(&jobs, "jobs", 1, "parts per task, in parallel (equiv --jobs; slurm: --cpus-per-task)")
	return cmd
}

func newCampaignSynthCmd() *cobra.Command {
	var f campaignFlags
	var seeds int
	var freq float64
	cmd := &cobra.Command{
		Use:     "synth BLOCK",
		Short:   "A place-and-route campaign on the ECP5: --seeds tasks, each nicgen synth --target ecp5 --first-seed k --seeds 1",
		Example: "  nicgen campaign synth uet_cc --seeds 9 --freq 200 -o camp/uet_cc-pnr",
		Args:    oneArg("BLOCK"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if seeds < 1 || seeds > 1000 {
				return usageErr("--seeds %d: want 1..1000", seeds)
			}
			if freq < 0 {
				return usageErr("--freq %g: want a frequency above 0, MHz", freq)
			}
			spec := campaignSpec{Kind: "synth", Block: args[0], Tasks: seeds, FreqMHz: freq}
			return writeCampaign(cmd, f, spec)
		},
	}
	f.add(cmd)
	cmd.Flags().IntVar(&seeds, "seeds", 3, "array tasks: placer seeds 1..seeds")
	cmd.Flags().Float64Var(&freq, "freq", 0, "the frequency nextpnr places for, MHz (default: hardware.clock_mhz)")
	return cmd
}

// writeCampaign checks the campaign, then writes its folder. A folder
// that holds another campaign is refused; the same campaign is written
// again unchanged (its records kept).
func writeCampaign(cmd *cobra.Command, f campaignFlags, spec campaignSpec) error {
	if f.out == "" {
		return usageErr("-o: the campaign's folder is required")
	}
	if !slices.Contains(campaignEngines, f.engine) {
		return usageErr("--engine %q: want one of %s", f.engine, strings.Join(campaignEngines, ", "))
	}
	if strings.ContainsAny(f.partition+f.timeLimit, " \t\n'\"$`\\;") {
		return usageErr("--partition, --time: a name or a time, without spaces or shell characters")
	}
	if f.engine == "kubernetes" && (f.k8s.image == "" || f.k8s.claim == "") {
		return usageErr("--engine kubernetes: --image (an image with nicgen) and --claim (the volume claim that holds the campaign folder) are required")
	}
	r, err := loadConfig(f.path)
	if err != nil {
		return err
	}
	if _, err := selectBlocks(r, []string{spec.Block}); err != nil {
		return err
	}
	src := config.DefaultSource()
	if !r.Embedded {
		if src, err = os.ReadFile(f.path); err != nil {
			return err
		}
	}
	if spec.Kind == "synth" && spec.FreqMHz == 0 {
		spec.FreqMHz = r.Config.ClockMHz
	}
	nicgen := f.nicgen
	if nicgen == "" {
		if nicgen, err = os.Executable(); err != nil {
			return fmt.Errorf("campaign: the path of this nicgen: %v (give --nicgen)", err)
		}
	}
	if nicgen, err = filepath.Abs(nicgen); err != nil {
		return err
	}
	dir, err := filepath.Abs(f.out)
	if err != nil {
		return err
	}
	spec.Engine, spec.Version, spec.Config, spec.Nicgen = f.engine, hdlgen.Version, r.SHA256, nicgen
	files := map[string][]byte{"config.hcl": src}
	js, _ := json.MarshalIndent(spec, "", "  ")
	files["campaign.json"] = append(js, '\n')
	switch f.engine {
	case "slurm":
		files["tasks.sbatch"], files["merge.sbatch"], files["submit.sh"] = slurmScripts(spec, dir, f)
	case "kubernetes":
		if files["tasks.yaml"], files["merge.yaml"], err = k8sJobs(spec, dir, f.k8s); err != nil {
			return err
		}
		files["submit.sh"] = k8sSubmit(spec, dir)
	case "github":
		files["workflow.yml"] = githubWorkflow(spec)
	}
	if old, err := os.ReadFile(filepath.Join(dir, "campaign.json")); err == nil && !bytes.Equal(old, files["campaign.json"]) {
		return usageErr("-o %s: the folder holds another campaign (its campaign.json differs): remove it or choose another folder", f.out)
	}
	for _, sub := range []string{"records", "logs"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := writeAtomic(filepath.Join(dir, n), files[n]); err != nil {
			return err
		}
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "%s campaign of %s: %d tasks, written to %s (%s)\n", spec.Kind, spec.Block, spec.Tasks, f.out, strings.Join(names, ", "))
	switch f.engine {
	case "slurm", "kubernetes":
		fmt.Fprintf(out, "submit: sh %s\nthen:   %s campaign merge %s\n", filepath.Join(f.out, "submit.sh"), nicgen, f.out)
	case "github":
		fmt.Fprintf(out, "copy %s into .github/workflows/ of a repository whose runners have nicgen at %s\n", filepath.Join(f.out, "workflow.yml"), nicgen)
	}
	return nil
}

// taskCommand is the shell command of task $i (a shell variable) of a
// campaign in dir: it writes the task's record, and is skipped when that
// record exists.
func taskCommand(spec campaignSpec, dir string) (record, command string) {
	q := shellQuote
	cfg := q(filepath.Join(dir, "config.hcl"))
	switch spec.Kind {
	case "equiv":
		record = filepath.Join(dir, "records", "shard-${i}.json")
		command = fmt.Sprintf("%s equiv %s -c %s --cycles %d --seed %d --profile %s --jobs %d --shard \"${i}/%d\" --waves %s --report \"%s\"",
			q(spec.Nicgen), spec.Block, cfg, spec.Cycles, spec.Seed, spec.Profile, spec.Jobs, spec.Tasks, q(filepath.Join(dir, "logs")), record)
	case "explore":
		record = filepath.Join(dir, "records", "shard-${i}.json")
		command = fmt.Sprintf("%s budget -c %s --explore %s --shard \"${i}/%d\" --report \"%s\"",
			q(spec.Nicgen), cfg, spec.Block, spec.Tasks, record)
	case "synth":
		record = filepath.Join(dir, "records", "seed-$((i + 1)).json")
		command = fmt.Sprintf("%s synth %s -c %s --target ecp5 --freq %s --seeds 1 --first-seed \"$((i + 1))\" --report \"%s\"",
			q(spec.Nicgen), spec.Block, cfg, strconv.FormatFloat(spec.FreqMHz, 'f', -1, 64), record)
	}
	return record, command
}

func slurmScripts(spec campaignSpec, dir string, f campaignFlags) (tasks, merge, submit []byte) {
	name := fmt.Sprintf("nicgen-%s-%s", spec.Kind, spec.Block)
	head := func(job, output string, cpus int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "#!/bin/bash\n#SBATCH --job-name=%s\n#SBATCH --output=%s\n#SBATCH --cpus-per-task=%d\n", job, output, cpus)
		if f.partition != "" {
			fmt.Fprintf(&b, "#SBATCH --partition=%s\n", f.partition)
		}
		if f.timeLimit != "" {
			fmt.Fprintf(&b, "#SBATCH --time=%s\n", f.timeLimit)
		}
		return b.String()
	}
	record, command := taskCommand(spec, dir)
	cpus := max(spec.Jobs, 1)
	var t strings.Builder
	t.WriteString(head(name, filepath.Join(dir, "logs", "task-%a.log"), cpus))
	fmt.Fprintf(&t, "#SBATCH --array=0-%d\n", spec.Tasks-1)
	fmt.Fprintf(&t, "# nicgen campaign: %s of %s, task $SLURM_ARRAY_TASK_ID of %d (%s)\nset -eu\n", spec.Kind, spec.Block, spec.Tasks, filepath.Join(dir, "campaign.json"))
	fmt.Fprintf(&t, "i=${SLURM_ARRAY_TASK_ID:?run as a job array: sbatch %s}\n", filepath.Join(dir, "tasks.sbatch"))
	fmt.Fprintf(&t, "if [ -s \"%s\" ]; then\n  echo \"task ${i}: its record exists, skipped\"\n  exit 0\nfi\n", record)
	fmt.Fprintf(&t, "exec %s\n", command)
	var m strings.Builder
	m.WriteString(head(name+"-merge", filepath.Join(dir, "logs", "merge.log"), 1))
	fmt.Fprintf(&m, "# nicgen campaign: the merge of %s; fails when a task failed or left no record\nset -eu\n", filepath.Join(dir, "campaign.json"))
	fmt.Fprintf(&m, "exec %s campaign merge %s\n", shellQuote(spec.Nicgen), shellQuote(dir))
	var s strings.Builder
	fmt.Fprintf(&s, "#!/bin/sh\n# nicgen campaign: submits the tasks, then their merge once every task has ended\nset -eu\n")
	fmt.Fprintf(&s, "tasks=$(sbatch --parsable %s)\n", shellQuote(filepath.Join(dir, "tasks.sbatch")))
	fmt.Fprintf(&s, "merge=$(sbatch --parsable --dependency=afterany:\"${tasks%%%%;*}\" %s)\n", shellQuote(filepath.Join(dir, "merge.sbatch")))
	fmt.Fprintf(&s, "echo \"tasks: job ${tasks} (array 0-%d); merge: job ${merge}; log %s\"\n", spec.Tasks-1, filepath.Join(dir, "logs", "merge.log"))
	return []byte(t.String()), []byte(m.String()), []byte(s.String())
}

// githubWorkflow is a matrix workflow: one job per task, on runners that
// have nicgen at spec.Nicgen and the campaign folder at the same path,
// then the merge.
func githubWorkflow(spec campaignSpec) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# nicgen campaign: %s of %s, %d tasks\nname: nicgen %s %s\non:\n  workflow_dispatch: {}\njobs:\n", spec.Kind, spec.Block, spec.Tasks, spec.Kind, spec.Block)
	fmt.Fprintf(&b, "  task:\n    runs-on: ubuntu-latest\n    strategy:\n      fail-fast: false\n      matrix:\n        i: [")
	for i := 0; i < spec.Tasks; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString("]\n    steps:\n      - uses: actions/checkout@v4\n")
	record, command := taskCommand(spec, "campaign")
	fmt.Fprintf(&b, "      - name: task ${{ matrix.i }}\n        shell: bash\n        run: |\n          i=${{ matrix.i }}\n          mkdir -p campaign/records campaign/logs\n          %s\n", command)
	fmt.Fprintf(&b, "      - uses: actions/upload-artifact@v4\n        with:\n          name: record-${{ matrix.i }}\n          path: %s\n", strings.ReplaceAll(strings.ReplaceAll(record, "${i}", "${{ matrix.i }}"), "$((i + 1))", "*"))
	fmt.Fprintf(&b, "  merge:\n    needs: task\n    if: ${{ always() }}\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n")
	fmt.Fprintf(&b, "      - uses: actions/download-artifact@v4\n        with:\n          path: campaign/records\n          merge-multiple: true\n")
	fmt.Fprintf(&b, "      - name: merge\n        run: %s campaign merge campaign\n", shellQuote(spec.Nicgen))
	return []byte(b.String())
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func newCampaignMergeCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "merge DIR",
		Short:   "Merge a campaign's records: refuses missing, duplicate or foreign ones, and says what it vouches for",
		Example: "  nicgen campaign merge camp/nscc",
		Args:    oneArg("DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			b, err := readCapped(filepath.Join(dir, "campaign.json"), maxReportBytes)
			if err != nil {
				return usageErr("%s: not a campaign folder: %v", dir, err)
			}
			var spec campaignSpec
			if err := json.Unmarshal(b, &spec); err != nil || spec.Kind == "" || spec.Tasks < 1 {
				return usageErr("%s: not a campaign (campaign.json: %v)", dir, jsonProblem(err))
			}
			recs, err := filepath.Glob(filepath.Join(dir, "records", "*.json"))
			if err != nil {
				return err
			}
			sort.Strings(recs)
			switch spec.Kind {
			case "equiv":
				return mergeEquivCampaign(cmd, spec, recs)
			case "synth":
				return mergeSynthCampaign(cmd, spec, recs)
			case "explore":
				return mergeExploreCampaign(cmd, spec, dir, recs)
			}
			return usageErr("%s: campaign kind %q: want equiv, synth or explore", dir, spec.Kind)
		},
	}
}

func mergeEquivCampaign(cmd *cobra.Command, spec campaignSpec, files []string) error {
	var recs []blockeq.RunRecord
	for _, f := range files {
		rs, err := readEquivReport(f)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if r.Block != spec.Block || r.Profile != spec.Profile || r.Config != spec.Config || r.Version != spec.Version ||
				r.CampaignSeed != spec.Seed || r.CampaignCycles != spec.Cycles || r.Shard.Count != spec.Tasks*spec.Jobs {
				return usageErr("%s: a record of another campaign (%s %s, nicgen %s, configuration %.16s, seed %d, %d cycles, %d shards)",
					f, r.Block, r.Profile, r.Version, r.Config, r.CampaignSeed, r.CampaignCycles, r.Shard.Count)
			}
		}
		recs = append(recs, rs...)
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "campaign: equiv %s %s, nicgen %s, configuration sha256 %s, campaign seed %d, %d cycles in %d tasks\n",
		spec.Block, spec.Profile, spec.Version, spec.Config, spec.Seed, spec.Cycles, spec.Tasks)
	if len(recs) == 0 {
		return &exitError{code: 1, err: fmt.Errorf("no task reported (%d expected)", spec.Tasks)}
	}
	camps, err := blockeq.Merge(recs)
	if err != nil {
		return usageErr("%v", err)
	}
	c := camps[0]
	fmt.Fprintf(out, "%d of %d shards reported, %d cycles compared\n", c.Shards-len(c.Missing), c.Shards, c.Cycles)
	for _, r := range c.Failed {
		fmt.Fprintf(out, "  shard %s (task %d, seed %d) failed: %s\n", r.Shard, r.Shard.Index/max(spec.Jobs, 1), r.Seed, firstLine(r.Error))
	}
	for _, i := range c.Missing {
		fmt.Fprintf(out, "  shard %d/%d (task %d) never reported\n", i, c.Shards, i/max(spec.Jobs, 1))
	}
	if len(c.Uncovered) > 0 {
		fmt.Fprintf(out, "  no shard reached: %s\n", strings.Join(c.Uncovered, ", "))
	}
	fmt.Fprint(out, blockeq.FormatCounts(c.Coverage))
	if len(c.Failed) > 0 || len(c.Missing) > 0 || len(c.Uncovered) > 0 {
		return &exitError{code: 1, err: fmt.Errorf("campaign failed or incomplete")}
	}
	fmt.Fprintf(out, "passed: %s equals its golden model over %d cycles\n", spec.Block, c.Cycles)
	return nil
}

func mergeSynthCampaign(cmd *cobra.Command, spec campaignSpec, files []string) error {
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "campaign: synth %s on the ECP5 at %g MHz, nicgen %s, configuration sha256 %s, seeds 1..%d\n",
		spec.Block, spec.FreqMHz, spec.Version, spec.Config, spec.Tasks)
	fmax := map[int]float64{}
	var first *ecp5Out
	for _, f := range files {
		b, err := readCapped(f, maxReportBytes)
		if err != nil {
			return err
		}
		var o ecp5Out
		if err := json.Unmarshal(b, &o); err != nil || o.Top == "" || o.FirstSeed < 1 || len(o.SeedsMHz) == 0 {
			return usageErr("%s: not a place-and-route report (nicgen synth --report): %v", f, jsonProblem(err))
		}
		if !strings.HasPrefix(o.Top, spec.Block) || o.ConstraintMHz != spec.FreqMHz {
			return usageErr("%s: a report of another campaign (%s at %g MHz)", f, o.Top, o.ConstraintMHz)
		}
		if first == nil {
			first = &o
		} else if o.Digest != first.Digest || o.Top != first.Top {
			return usageErr("%s: a report of other Verilog (%s %s, not %s %s)", f, o.Top, o.Digest, first.Top, first.Digest)
		}
		for k, x := range o.SeedsMHz {
			s := o.FirstSeed + k
			if s > spec.Tasks {
				return usageErr("%s: seed %d, outside the campaign's 1..%d", f, s, spec.Tasks)
			}
			if _, dup := fmax[s]; dup {
				return usageErr("%s: seed %d reported twice", f, s)
			}
			fmax[s] = x
		}
	}
	var got []float64
	var missing []string
	for s := 1; s <= spec.Tasks; s++ {
		if x, ok := fmax[s]; ok {
			fmt.Fprintf(out, "  seed %d: %.1f MHz\n", s, x)
			got = append(got, x)
		} else {
			missing = append(missing, strconv.Itoa(s))
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(out, "  seeds never reported: %s\n", strings.Join(missing, ", "))
		return &exitError{code: 1, err: fmt.Errorf("campaign incomplete")}
	}
	sort.Float64s(got)
	fmt.Fprintf(out, "passed: %s (Verilog %s) median Fmax %.1f MHz over %d seeds (lowest %.1f) at a %g MHz constraint\n",
		first.Top, first.Digest, got[len(got)/2], len(got), got[0], spec.FreqMHz)
	return nil
}
