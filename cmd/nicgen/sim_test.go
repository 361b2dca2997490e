package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks"
)

// sim runs the golden model over traces: golden outputs for every block
// and for a configuration that makes REPS recycle and freeze quickly.
func TestSim(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"reps", []string{"sim", "reps", "--events", "testdata/sim/reps.jsonl"}},
		{"reps_small", []string{"sim", "reps", "-c", "testdata/sim/small.hcl", "--events", "testdata/sim/reps_small.jsonl"}},
		{"reps_conf", []string{"sim", "reps_conf", "--events", "testdata/sim/reps_conf.jsonl"}},
		{"smartt", []string{"sim", "smartt", "--events", "testdata/sim/smartt.jsonl"}},
		{"nscc", []string{"sim", "nscc", "--events", "testdata/sim/smartt.jsonl"}},
		{"nscc_100g", []string{"sim", "nscc", "-c", "../../docs/examples/100g-12us.hcl", "--events", "testdata/sim/smartt_100g.jsonl"}},
		{"reps_schema", []string{"sim", "reps", "--schema"}},
		{"nscc_schema", []string{"sim", "nscc", "--schema"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := runCLI(t, c.args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			checkGolden(t, filepath.Join("testdata", "sim", c.name+".golden"), out)
		})
	}
}

func TestSimExampleTraceIsTested(t *testing.T) {
	t.Parallel()
	a, _ := os.ReadFile("../../docs/examples/reps-events.jsonl")
	b, _ := os.ReadFile("testdata/sim/reps.jsonl")
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("docs/examples/reps-events.jsonl and testdata/sim/reps.jsonl differ: the documented trace must be the tested one")
	}
}

// A malformed trace: every bad line by number, exit status 2, no output.
func TestSimMalformedTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outFile := filepath.Join(dir, "out.jsonl")
	out, err := runCLI(t, "sim", "reps", "--events", "testdata/sim/bad.jsonl", "-o", outFile)
	if exitCode(err) != 2 {
		t.Fatalf("exit %d: %v\n%s", exitCode(err), err, out)
	}
	if out != "" {
		t.Errorf("printed on a bad trace:\n%s", out)
	}
	checkGolden(t, "testdata/sim/bad.golden", "nicgen: "+err.Error()+"\n")
	if _, err := os.Stat(outFile); err == nil {
		t.Error("output written for a bad trace")
	}
}

func TestSimUsage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "reps"}, "sim reps: --events FILE is required (- reads stdin; --schema prints the fields)"},
		{[]string{"sim", "repz", "--events", "x"}, fmt.Sprintf(`unknown block "repz" (blocks: %v)`, blocks.Names())},
		{[]string{"sim"}, `nicgen sim takes one BLOCK, got 0 arguments []`},
		{[]string{"sim", "reps", "--events", "testdata/sim/none.jsonl"}, "--events: open testdata/sim/none.jsonl: no such file or directory"},
	} {
		out, err := runCLI(t, c.args...)
		if exitCode(err) != 2 || err.Error() != c.want {
			t.Errorf("%v: exit %d, %v\nwant %s\n%s", c.args, exitCode(err), err, c.want, out)
		}
	}
}

func TestSimStdinAndOutFile(t *testing.T) {
	t.Parallel()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetIn(strings.NewReader("{\"conn\": 0, \"kind\": \"open\"}\n{\"conn\": 0, \"kind\": \"send\"}\n"))
	f := filepath.Join(t.TempDir(), "r.jsonl")
	root.SetArgs([]string{"sim", "reps_conf", "--events", "-", "-o", f})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(f)
	want := "{\"line\":1,\"conn\":0,\"kind\":\"open\",\"ev\":0,\"explored\":false,\"error\":false}\n{\"line\":2,\"conn\":0,\"kind\":\"send\",\"ev\":0,\"explored\":true,\"error\":false}\n"
	if string(got) != want || out.String() != "" {
		t.Errorf("got\n%s\nwant\n%s\nstdout %q", got, want, out.String())
	}
}

// The field tables of docs/sim.md are the --schema output of each block.
func TestSimReference(t *testing.T) {
	t.Parallel()
	const path = "../../docs/sim.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tables strings.Builder
	for _, block := range []string{"reps", "reps_conf", "smartt", "nscc"} {
		out, err := runCLI(t, "sim", block, "--schema")
		if err != nil {
			t.Fatal(err)
		}
		tables.WriteString("    " + strings.ReplaceAll(strings.TrimSuffix(out, "\n"), "\n", "\n    ") + "\n\n")
	}
	const begin, end = "<!-- schema:begin -->\n", "<!-- schema:end -->"
	i, j := strings.Index(string(b), begin), strings.Index(string(b), end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q section", path, begin, end)
	}
	want := string(b[:i+len(begin)]) + "\n" + tables.String() + string(b[j:])
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(b) != want {
		var d strings.Builder
		unifiedDiff(&d, path, string(b), want)
		t.Errorf("the field tables of %s are out of date (go test ./cmd/nicgen -run TestSimReference -update):\n%s", path, d.String())
	}
}

// nscc: a timeout during the QuickAdapt ignore phase leaves the window
// alone (S1:L799-801, the default); with ignore_phase_timeouts = false it
// takes its packet out of the window as a trim does. The trace is the one
// of the issue that found the defect: QuickAdapt sets 40960 on line 12.
func TestSimNsccTimeoutInIgnorePhase(t *testing.T) {
	t.Parallel()
	lastTwo := func(out string) []string {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return lines[len(lines)-2:]
	}
	out, err := runCLI(t, "sim", "nscc", "--events", "testdata/sim/nscc_ignore_timeout.jsonl")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := lastTwo(out)
	if !strings.Contains(got[0], `"cwnd":40960,"case":5,"rule":"QuickAdapt"`) {
		t.Fatalf("line 12 is not the QuickAdapt to 40960 the trace is built for: %s", got[0])
	}
	if !strings.Contains(got[1], `"kind":"timeout","cwnd":40960,"case":0,"rule":"none"`) {
		t.Errorf("a timeout in the ignore phase changed the window: %s", got[1])
	}
	out, err = runCLI(t, "sim", "nscc", "-c", "testdata/sim/nscc_timeouts_cut.hcl", "--events", "testdata/sim/nscc_ignore_timeout.jsonl")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := lastTwo(out)[1]; !strings.Contains(got, `"kind":"timeout","cwnd":36864,"case":7,"rule":"loss"`) {
		t.Errorf("with ignore_phase_timeouts = false: %s, want 40960 - 4096 = 36864", got)
	}
}

// BenchmarkSimNscc streams a trace of acks and trims through nicgen sim's
// reader, the nscc golden model and the JSON writer (docs/sim.md quotes
// its events per second).
func BenchmarkSimNscc(b *testing.B) {
	var buf bytes.Buffer
	const n = 200000
	for c := 0; c < 64; c++ {
		fmt.Fprintf(&buf, "{\"conn\": %d, \"kind\": \"open\", \"now\": 1000}\n", c)
	}
	for i := 0; i < n-64; i++ {
		if i%10 == 9 {
			fmt.Fprintf(&buf, "{\"conn\": %d, \"kind\": \"nack\", \"size\": 4096, \"unacked\": %d, \"now\": %d}\n", i%64, i%200000, 2000+50*i)
		} else {
			fmt.Fprintf(&buf, "{\"conn\": %d, \"kind\": \"ack\", \"size\": 4096, \"ecn\": %v, \"rtt\": %d, \"unacked\": %d, \"now\": %d}\n", i%64, i%3 == 0, 8600+i%11000, i%200000, 2000+50*i)
		}
	}
	cfg := blocks.DefaultConfig()
	blk, _ := blocks.Lookup("nscc")
	m, err := blk.Build(cfg)
	if err != nil {
		b.Fatal(err)
	}
	fields := traceFields(blk, m)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := simulate(io.Discard, cfg, blk, m, fields, bytes.NewReader(buf.Bytes()), "bench"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}
