package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rhysd/actionlint"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

// The scripts a campaign writes: shell that parses, one array task per
// shard, the merge after every task, a workflow that actionlint accepts;
// the same campaign written twice is one folder, another one is refused.
func TestCampaignScripts(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "camp")
	out, err := runCLI(t, "campaign", "equiv", "reps", "--cycles", "1000000", "--shards", "8", "--jobs", "2", "--time", "01:00:00", "-o", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, f := range []string{"tasks.sbatch", "merge.sbatch", "submit.sh"} {
		if b, err := exec.Command("bash", "-n", filepath.Join(dir, f)).CombinedOutput(); err != nil {
			t.Errorf("%s does not parse: %v\n%s", f, err, b)
		}
	}
	tasks, _ := os.ReadFile(filepath.Join(dir, "tasks.sbatch"))
	for _, want := range []string{"#SBATCH --array=0-7\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --time=01:00:00\n",
		` equiv reps -c ` + filepath.Join(dir, "config.hcl") + ` --cycles 1000000 --seed 1 --profile mixed --jobs 2 --shard "${i}/8" `} {
		if !strings.Contains(string(tasks), want) {
			t.Errorf("tasks.sbatch lacks %q:\n%s", want, tasks)
		}
	}
	submit, _ := os.ReadFile(filepath.Join(dir, "submit.sh"))
	if !strings.Contains(string(submit), "--dependency=afterany:") {
		t.Errorf("the merge does not wait for every task:\n%s", submit)
	}
	if out, err := runCLI(t, "campaign", "equiv", "reps", "--cycles", "1000000", "--shards", "8", "--jobs", "2", "--time", "01:00:00", "-o", dir); err != nil {
		t.Errorf("the same campaign written again: %v\n%s", err, out)
	}
	if _, err := runCLI(t, "campaign", "equiv", "reps", "--cycles", "2000000", "--shards", "8", "-o", dir); exitCode(err) != 2 || !strings.Contains(err.Error(), "holds another campaign") {
		t.Errorf("another campaign over the folder: %v", err)
	}
	for _, bad := range [][]string{
		{"campaign", "equiv", "reps", "--shards", "0", "-o", dir + "2"},
		{"campaign", "equiv", "reps", "--cycles", "3", "--shards", "4", "-o", dir + "2"},
		{"campaign", "equiv", "reps", "--engine", "lsf", "-o", dir + "2"},
		{"campaign", "equiv", "reps", "--partition", "a b", "-o", dir + "2"},
		{"campaign", "equiv", "frob", "-o", dir + "2"},
		{"campaign", "synth", "reps", "--seeds", "0", "-o", dir + "2"},
		{"campaign", "equiv", "reps"},
	} {
		if _, err := runCLI(t, bad...); exitCode(err) != 2 {
			t.Errorf("%v: exit %d (%v), want 2", bad, exitCode(err), err)
		}
	}
	// Kubernetes: the manifests decode strictly into the API's Job type
	k8s := filepath.Join(t.TempDir(), "k8s")
	if out, err := runCLI(t, "campaign", "equiv", "nscc", "--cycles", "1000000", "--shards", "6", "--jobs", "2", "--parallelism", "4",
		"--engine", "kubernetes", "--image", "registry.example/nicgen:1", "--claim", "campaigns", "-o", k8s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var job, merge batchv1.Job
	for f, j := range map[string]*batchv1.Job{"tasks.yaml": &job, "merge.yaml": &merge} {
		b, _ := os.ReadFile(filepath.Join(k8s, f))
		if err := yaml.UnmarshalStrict(b, j); err != nil {
			t.Fatalf("%s: %v\n%s", f, err, b)
		}
	}
	js := job.Spec
	if job.Kind != "Job" || job.APIVersion != "batch/v1" || js.CompletionMode == nil || *js.CompletionMode != batchv1.IndexedCompletion ||
		*js.Completions != 6 || *js.Parallelism != 4 || js.BackoffLimitPerIndex == nil || *js.BackoffLimitPerIndex != 2 || *js.MaxFailedIndexes != 6 {
		t.Errorf("the tasks' Job: %+v", js)
	}
	pod := js.Template.Spec
	if len(pod.Containers) != 1 || pod.RestartPolicy != "Never" || pod.Containers[0].Image != "registry.example/nicgen:1" ||
		pod.Containers[0].Resources.Requests.Cpu().String() != "2" || pod.Volumes[0].PersistentVolumeClaim.ClaimName != "campaigns" ||
		pod.Containers[0].VolumeMounts[0].MountPath != k8s {
		t.Errorf("the tasks' pod: %+v", pod)
	}
	sh := strings.Join(pod.Containers[0].Command, " ")
	if !strings.Contains(sh, "i=${JOB_COMPLETION_INDEX:?") || !strings.Contains(sh, `--shard "${i}/6"`) {
		t.Errorf("the index does not select the shard: %s", sh)
	}
	if *merge.Spec.BackoffLimit != 0 || !strings.Contains(strings.Join(merge.Spec.Template.Spec.Containers[0].Command, " "), "campaign merge "+k8s) {
		t.Errorf("the merge Job: %+v", merge.Spec)
	}
	if b, err := exec.Command("bash", "-n", filepath.Join(k8s, "submit.sh")).CombinedOutput(); err != nil {
		t.Errorf("submit.sh does not parse: %v\n%s", err, b)
	}
	if _, err := runCLI(t, "campaign", "equiv", "nscc", "--engine", "kubernetes", "-o", k8s+"2"); exitCode(err) != 2 || !strings.Contains(err.Error(), "--image") {
		t.Errorf("kubernetes without an image: %v", err)
	}

	// GitHub Actions: the workflow passes actionlint
	gh := filepath.Join(t.TempDir(), "gh")
	if out, err := runCLI(t, "campaign", "synth", "reps", "--seeds", "3", "--engine", "github", "-o", gh); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	wf, _ := os.ReadFile(filepath.Join(gh, "workflow.yml"))
	l, err := actionlint.NewLinter(os.Stderr, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint("workflow.yml", wf, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("actionlint: %s", e.Error())
	}
	if !strings.Contains(string(wf), "i: [0, 1, 2]") || !strings.Contains(string(wf), "--first-seed \"$((i + 1))\"") {
		t.Errorf("the workflow's matrix or task:\n%s", wf)
	}
}

// slurmCluster is a one-node Slurm cluster of the test's own: munged,
// slurmctld and slurmd from Debian's packages, on free ports, with their
// sockets, state and logs in a temporary folder; the daemons stop with
// the test.
type slurmCluster struct {
	dir, conf string
}

func (c slurmCluster) env() []string { return append(os.Environ(), "SLURM_CONF="+c.conf) }

func (c slurmCluster) run(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = c.env()
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, b)
	}
	return string(b)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func startSlurm(t *testing.T) slurmCluster {
	t.Helper()
	var missing []string
	for _, tool := range []string{"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		if os.Getenv("NICGEN_SLURM") == "1" {
			t.Fatalf("NICGEN_SLURM=1 but %v are not installed (scripts/setup.sh installs them)", missing)
		}
		t.Skipf("no Slurm here (%v missing); make test sets NICGEN_SLURM=1 and runs it", missing)
	}
	dir, err := os.MkdirTemp("", "nicgen-slurm-") // short: socket paths are bounded
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, d := range []string{"munge", "state", "spool", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 1024)
	for i := range key {
		key[i] = byte(i*7 + 3)
	}
	if err := os.WriteFile(filepath.Join(dir, "munge", "key"), key, 0o400); err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	sock := filepath.Join(dir, "munge", "sock")
	conf := filepath.Join(dir, "slurm.conf")
	p := func(s string) string { return filepath.Join(dir, s) }
	// the addresses given, so that the host name need not resolve
	text := fmt.Sprintf(`ClusterName=nicgentest
SlurmctldHost=%s(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=%d
SlurmdPort=%d
AuthType=auth/munge
AuthInfo=socket=%s
StateSaveLocation=%s
SlurmdSpoolDir=%s
SlurmctldPidFile=%s
SlurmdPidFile=%s
SlurmctldLogFile=%s
SlurmdLogFile=%s
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=%s NodeAddr=127.0.0.1 CPUs=%d State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, host, freePort(t), freePort(t), sock, p("state"), p("spool"), p("slurmctld.pid"), p("slurmd.pid"), p("log/slurmctld.log"), p("log/slurmd.log"), host, 2)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := slurmCluster{dir: dir, conf: conf}
	daemon := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Env = c.env()
		logf, err := os.Create(p("log/" + name + ".out"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Cleanup(func() {
			cmd.Process.Signal(os.Interrupt)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
			}
			logf.Close()
		})
	}
	daemon("munged", "-F", "-f", "-S", sock, "--key-file="+p("munge/key"), "--log-file="+p("munge/log"), "--pid-file="+p("munge/pid"), "--seed-file="+p("munge/seed"))
	waitFor(t, "munged's socket", 10*time.Second, func() bool { _, err := os.Stat(sock); return err == nil })
	daemon("slurmctld", "-D", "-i", "-f", conf)
	daemon("slurmd", "-D", "-f", conf)
	waitFor(t, "the node to be idle", 30*time.Second, func() bool {
		cmd := exec.Command("sinfo", "-h", "-o", "%T")
		cmd.Env = c.env()
		b, _ := cmd.Output()
		return strings.TrimSpace(string(b)) == "idle"
	})
	return c
}

func waitFor(t *testing.T, what string, limit time.Duration, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("waited %v for %s", limit, what)
}

// submit runs a campaign's submit.sh and waits for its jobs; it returns
// the merge job's state (COMPLETED or FAILED) and the merge's log.
func (c slurmCluster) submit(t *testing.T, camp string) (state, log string) {
	t.Helper()
	out := c.run(t, "sh", filepath.Join(camp, "submit.sh"))
	m := regexp.MustCompile(`tasks: job (\d+) .*merge: job (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("submit.sh said %q", out)
	}
	waitFor(t, "the campaign's jobs", 10*time.Minute, func() bool {
		cmd := exec.Command("squeue", "-h", "-j", m[1]+","+m[2])
		cmd.Env = c.env()
		b, err := cmd.Output()
		return err == nil && strings.TrimSpace(string(b)) == ""
	})
	job := c.run(t, "scontrol", "show", "job", m[2])
	st := regexp.MustCompile(`JobState=(\w+)`).FindStringSubmatch(job)
	if st == nil {
		t.Fatalf("scontrol show job %s: %s", m[2], job)
	}
	b, _ := os.ReadFile(filepath.Join(camp, "logs", "merge.log"))
	return st[1], string(b)
}

// Campaigns through a real Slurm: a 4-shard equivalence campaign and its
// merge pass; submitted again, every task finds its record and the merge
// passes again; a campaign whose task 2 runs a broken variant fails its
// merge job, which names the shard; a 3-seed place-and-route campaign
// merges into a median.
func TestCampaignSlurm(t *testing.T) {
	c := startSlurm(t)
	bin := filepath.Join(t.TempDir(), "nicgen")
	if b, err := exec.CommandContext(context.Background(), "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	camps := t.TempDir()
	equiv := func(name string) string {
		dir := filepath.Join(camps, name)
		if out, err := runCLI(t, "campaign", "equiv", "lru_arb", "--cycles", "40000", "--shards", "4", "--nicgen", bin, "-o", dir); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return dir
	}
	good := equiv("good")
	if st, log := c.submit(t, good); st != "COMPLETED" || !strings.Contains(log, "4 of 4 shards reported, 40000 cycles compared") ||
		!strings.Contains(log, "passed: lru_arb equals its golden model over 40000 cycles") {
		t.Fatalf("merge job %s:\n%s", st, log)
	}
	if st, log := c.submit(t, good); st != "COMPLETED" || !strings.Contains(log, "passed") {
		t.Errorf("submitted again: merge job %s:\n%s", st, log)
	}
	if b, _ := os.ReadFile(filepath.Join(good, "logs", "task-2.log")); !strings.Contains(string(b), "task 2: its record exists, skipped") {
		t.Errorf("submitted again, task 2 ran again:\n%s", b)
	}
	// a planted mismatch: task 2 checks a broken variant
	bad := equiv("bad")
	tasks := filepath.Join(bad, "tasks.sbatch")
	b, _ := os.ReadFile(tasks)
	planted := strings.Replace(string(b), "\nexec ", "\nif [ \"${i}\" = 2 ]; then set -- --break age_is_order; fi\nexec ", 1)
	planted = strings.Replace(planted, ".json\"\n", ".json\" \"$@\"\n", 1)
	if planted == string(b) || os.WriteFile(tasks, []byte(planted), 0o644) != nil {
		t.Fatalf("could not plant the mismatch in\n%s", b)
	}
	if st, log := c.submit(t, bad); st != "FAILED" || !regexp.MustCompile(`shard 2/4 \(task 2, seed \d+\) failed: .*mismatch`).MatchString(log) {
		t2, _ := os.ReadFile(filepath.Join(bad, "logs", "task-2.log"))
		t.Errorf("a campaign with a broken task: merge job %s:\n%s\ntask 2:\n%s", st, log, t2)
	}
	// place and route, 3 seeds
	pnr := filepath.Join(camps, "pnr")
	if out, err := runCLI(t, "campaign", "synth", "lru_arb", "--seeds", "3", "--freq", "200", "--nicgen", bin, "-o", pnr); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if st, log := c.submit(t, pnr); st != "COMPLETED" || !regexp.MustCompile(`passed: lru_arb \(Verilog \w+\) median Fmax \d+\.\d MHz over 3 seeds`).MatchString(log) {
		t.Errorf("place-and-route campaign: merge job %s:\n%s", st, log)
	}
}

// campaign merge checks the folder's records against its campaign: every
// shard once, none of another campaign, none missing.
func TestCampaignMerge(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "c")
	if out, err := runCLI(t, "campaign", "equiv", "lru_arb", "--cycles", "20000", "--shards", "2", "-o", dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	shard := func(i int, seed, rec string) {
		t.Helper()
		if out, err := runCLI(t, "equiv", "lru_arb", "-c", filepath.Join(dir, "config.hcl"), "--cycles", "20000", "--seed", seed,
			"--shard", fmt.Sprintf("%d/2", i), "--report", rec); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	rec := func(i int) string { return filepath.Join(dir, "records", fmt.Sprintf("shard-%d.json", i)) }
	shard(0, "1", rec(0))
	if out, err := runCLI(t, "campaign", "merge", dir); exitCode(err) != 1 || !strings.Contains(out, "shard 1/2 (task 1) never reported") {
		t.Errorf("a missing shard: exit %d\n%s", exitCode(err), out)
	}
	shard(1, "1", rec(1))
	if out, err := runCLI(t, "campaign", "merge", dir); err != nil || !strings.Contains(out, "passed: lru_arb equals its golden model over 20000 cycles") {
		t.Errorf("%v\n%s", err, out)
	}
	shard(1, "2", filepath.Join(dir, "records", "alien.json")) // another campaign seed
	if _, err := runCLI(t, "campaign", "merge", dir); exitCode(err) != 2 || !strings.Contains(err.Error(), "a record of another campaign") {
		t.Errorf("a foreign record: %v", err)
	}
	os.Remove(filepath.Join(dir, "records", "alien.json"))
	b, _ := os.ReadFile(rec(1))
	os.WriteFile(filepath.Join(dir, "records", "copy.json"), b, 0o644)
	if _, err := runCLI(t, "campaign", "merge", dir); exitCode(err) != 2 || !strings.Contains(err.Error(), "reported twice") {
		t.Errorf("a shard twice: %v", err)
	}
	if _, err := runCLI(t, "campaign", "merge", t.TempDir()); exitCode(err) != 2 || !strings.Contains(err.Error(), "not a campaign folder") {
		t.Errorf("a folder without a campaign: %v", err)
	}
}

// An explore campaign's shards together are the sweep: the merge prints
// exactly what budget --explore prints on one machine (every point, its
// number, its measurements and the Pareto front), and refuses a missing
// shard, a shard twice, a record of another campaign and a renumbered point.
func TestCampaignExplore(t *testing.T) {
	t.Parallel()
	whole, err := runCLI(t, "budget", "--explore", "nscc")
	if err != nil {
		t.Fatalf("%v\n%s", err, whole)
	}
	dir := filepath.Join(t.TempDir(), "c")
	if out, err := runCLI(t, "campaign", "explore", "nscc", "--shards", "3", "--engine", "github", "-o", dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rec := func(i int) string { return filepath.Join(dir, "records", fmt.Sprintf("shard-%d.json", i)) }
	for _, i := range []int{0, 2} {
		if out, err := runCLI(t, "budget", "-c", filepath.Join(dir, "config.hcl"), "--explore", "nscc", "--shard", fmt.Sprintf("%d/3", i), "--report", rec(i)); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	if out, err := runCLI(t, "campaign", "merge", dir); exitCode(err) != 1 || !strings.Contains(out, "shards that never reported: 1/3") {
		t.Errorf("a missing shard: exit %d\n%s", exitCode(err), out)
	}
	if out, err := runCLI(t, "budget", "-c", filepath.Join(dir, "config.hcl"), "--explore", "nscc", "--shard", "1/3", "--report", rec(1)); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err := runCLI(t, "campaign", "merge", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "3 of 3 shards reported, 96 of 96 points") {
		t.Errorf("the merge does not count every point:\n%s", out)
	}
	const head = "nscc: 96 points, 4096 connections"
	if !strings.Contains(out, head) || !strings.Contains(whole, head) {
		t.Fatalf("no table:\n%s\n%s", out, whole)
	}
	table := out[strings.Index(out, head):]
	if table != whole[strings.Index(whole, head):] {
		t.Errorf("the merged sweep differs from budget --explore:\n%s\nwant:\n%s", table, whole)
	}
	b, _ := os.ReadFile(rec(1))
	os.WriteFile(filepath.Join(dir, "records", "copy.json"), b, 0o644)
	if _, err := runCLI(t, "campaign", "merge", dir); exitCode(err) != 2 || !strings.Contains(err.Error(), "shard 1/3 again") {
		t.Errorf("a shard twice: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "records", "copy.json"), []byte(strings.Replace(string(b), `"block": "nscc"`, `"block": "smartt"`, 1)), 0o644)
	if _, err := runCLI(t, "campaign", "merge", dir); exitCode(err) != 2 || !strings.Contains(err.Error(), "a record of another campaign") {
		t.Errorf("a foreign record: %v", err)
	}
	os.Remove(filepath.Join(dir, "records", "copy.json"))
	os.WriteFile(rec(1), []byte(strings.Replace(string(b), `"id": 2,`, `"id": 5,`, 1)), 0o644)
	if _, err := runCLI(t, "campaign", "merge", dir); exitCode(err) != 2 || !strings.Contains(err.Error(), "is not the sweep's point of that number") {
		t.Errorf("a renumbered point: %v", err)
	}
	if _, err := runCLI(t, "budget", "--explore", "nscc", "--shard", "0/3"); exitCode(err) != 2 {
		t.Errorf("--shard without --report: exit %d", exitCode(err))
	}
}
