package harness

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// testCache is shared by the tests that do not test the cache itself, so
// that the accumulator is verilated once per test binary.
var testCache string

func TestMain(m *testing.M) {
	if os.Getenv("NICGEN_HARNESS_HELPER") == "build" {
		helperBuild()
		return
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	if _, err := exec.LookPath("verilator"); err != nil {
		fmt.Fprintln(os.Stderr, "verilator-harness tests need Verilator 5 on PATH (apt-get install verilator):", err)
		return 1
	}
	// $NICGEN_CACHE, if set, keeps the shared models across runs.
	testCache = os.Getenv("NICGEN_CACHE")
	if testCache == "" {
		dir, err := os.MkdirTemp("", "nicgen-harness-test-")
		if err != nil {
			panic(err)
		}
		defer os.RemoveAll(dir)
		testCache = dir
	}
	return m.Run()
}

// helperBuild runs in a child process of TestCacheAcrossProcesses.
func helperBuild() {
	m, err := Build(context.Background(), accDesign(), BuildOptions{CacheDir: os.Getenv("NICGEN_HARNESS_CACHE")})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Printf("cached=%v runs=%d took=%v\n", m.Info().Cached, verilatorRuns.Load(), m.Info().Duration)
	m.Close()
}

func buildAcc(t testing.TB, o BuildOptions) *Model {
	t.Helper()
	if o.CacheDir == "" {
		o.CacheDir = testCache
	}
	m, err := Build(context.Background(), accDesign(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestBuildCache(t *testing.T) {
	cache := t.TempDir()
	runs := verilatorRuns.Load()
	m1 := buildAcc(t, BuildOptions{CacheDir: cache})
	if m1.Info().Cached {
		t.Fatal("first build in an empty cache reported a cache hit")
	}
	if got := verilatorRuns.Load() - runs; got != 1 {
		t.Fatalf("first build ran verilator %d times, want 1", got)
	}
	t.Logf("cold build: %v", m1.Info().Duration)
	logInfo, err := os.Stat(m1.Info().Log)
	if err != nil {
		t.Fatal(err)
	}

	m2 := buildAcc(t, BuildOptions{CacheDir: cache})
	if !m2.Info().Cached || m2.Info().Dir != m1.Info().Dir {
		t.Fatalf("second build: cached=%v dir=%s, want a hit on %s", m2.Info().Cached, m2.Info().Dir, m1.Info().Dir)
	}
	if got := verilatorRuns.Load() - runs; got != 1 {
		t.Fatalf("second build ran verilator again (%d runs)", got)
	}
	if st, _ := os.Stat(m1.Info().Log); !st.ModTime().Equal(logInfo.ModTime()) {
		t.Fatal("second build rewrote the build log")
	}
	t.Logf("cached build: %v", m2.Info().Duration)

	// Any change of the sources or options is a different entry.
	d := accDesign()
	d.Sources["adder8.v"] = append([]byte("// changed\n"), d.Sources["adder8.v"]...)
	m3, err := Build(context.Background(), d, BuildOptions{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer m3.Close()
	if m3.Info().Cached || m3.Info().Key == m1.Info().Key {
		t.Fatal("a changed source hit the cache")
	}
	t.Logf("cold build with the Verilator runtime objects cached: %v", m3.Info().Duration)

	// Two models of one build are independent instances.
	in := []uint64{1, 5, 1}
	out1 := make([]uint64, 4)
	out2 := make([]uint64, 4)
	m1.Reset(1)
	m2.Reset(1)
	m1.Step(in, out1, 1)
	m1.Step(in, out1, 1)
	m2.Step(in, out2, 1)
	if out1[outMCount] != 1 || out2[outMCount] != 0 {
		t.Fatalf("instances share state: count %d and %d", out1[outMCount], out2[outMCount])
	}
}

func TestBuildConcurrentGoroutines(t *testing.T) {
	cache := t.TempDir()
	runs := verilatorRuns.Load()
	var wg sync.WaitGroup
	models := make([]*Model, 3)
	errs := make([]error, 3)
	for i := range models {
		wg.Add(1)
		go func() {
			defer wg.Done()
			models[i], errs[i] = Build(context.Background(), accDesign(), BuildOptions{CacheDir: cache})
		}()
	}
	wg.Wait()
	hits := 0
	for i, m := range models {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if m.Info().Cached {
			hits++
		}
		m.Close()
	}
	if got := verilatorRuns.Load() - runs; got != 1 || hits != 2 {
		t.Fatalf("3 concurrent builds ran verilator %d times with %d cache hits; want 1 and 2", got, hits)
	}
}

func TestBuildConcurrentProcesses(t *testing.T) {
	cache := t.TempDir()
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "NICGEN_HARNESS_HELPER=build", "NICGEN_HARNESS_CACHE="+cache)
			b, err := cmd.CombinedOutput()
			outs[i] = string(b)
			if err != nil {
				outs[i] += " (" + err.Error() + ")"
			}
		}()
	}
	wg.Wait()
	joined := strings.Join(outs, "\n")
	if strings.Count(joined, "cached=false runs=1 ") != 1 || strings.Count(joined, "cached=true runs=0 ") != 1 {
		t.Fatalf("two processes building one design: want one build and one cache hit, got:\n%s", joined)
	}
}

func TestEquivalence(t *testing.T) {
	m := buildAcc(t, BuildOptions{})
	const n = 3_000_000
	var last int64
	rep, err := Run(context.Background(), m, &accRef{}, newAccStim(1), RunOptions{
		Cycles: n, Label: "seed=1",
		Progress: func(done, total int64) { last = done },
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cycles != n || last != n {
		t.Fatalf("ran %d cycles (progress %d), want %d", rep.Cycles, last, n)
	}
	t.Log(rep)
}

func TestEquivalenceXInitialUnique(t *testing.T) {
	// sum_q is never reset: with random initial values it differs from the
	// reference while m_valid is low, which QualifiedBy ignores.
	m := buildAcc(t, BuildOptions{XInitialUnique: true, RandSeed: 12345})
	out := make([]uint64, 4)
	m.Reset(1)
	m.Step([]uint64{0, 0, 0}, out, 1)
	t.Logf("initial m_sum with --x-initial unique: %#x", out[outMSum])
	if _, err := Run(context.Background(), m, &accRef{}, newAccStim(2), RunOptions{Cycles: 200_000}); err != nil {
		t.Fatal(err)
	}
}

// firstDiff finds, in Go alone, the first cycle where the buggy reference
// differs from the good one (on the compared outputs).
func firstDiff(t *testing.T, bugAt int, seed uint64, cycles int) int64 {
	good, bad := &accRef{}, &accRef{bugAt: bugAt}
	st := newAccStim(seed)()
	cmp := newComparer(func() []Port { _, o := accDesign().split(); return o }())
	in := make([]uint64, 3)
	eg, eb := make([]uint64, 4), make([]uint64, 4)
	var prev []uint64
	for c := 0; c < cycles; c++ {
		st.Next(prev, in)
		in[inData] &= 0xff
		good.Cycle(in, eg)
		bad.Cycle(in, eb)
		if cmp.find(eg, eb, 1) == 0 {
			return int64(c)
		}
		prev = append(prev[:0], eg...)
	}
	t.Fatal("the bug never shows")
	return 0
}

func TestMismatchReport(t *testing.T) {
	m := buildAcc(t, BuildOptions{})
	const bugAt, seed = 100_000, 7
	want := firstDiff(t, bugAt, seed, 1_000_000)
	waves := t.TempDir()
	rep, err := Run(context.Background(), m, &accRef{bugAt: bugAt}, newAccStim(seed), RunOptions{
		Cycles: 1_000_000, WaveDir: waves, Label: "seed=7",
	})
	var mm *Mismatch
	if !errors.As(err, &mm) {
		t.Fatalf("want a *Mismatch, got %v", err)
	}
	msg := mm.Error()
	t.Logf("report:\n%s", msg)
	if mm.Cycle != want || rep.Cycles != want {
		t.Fatalf("mismatch at cycle %d (report %d), want %d", mm.Cycle, rep.Cycles, want)
	}
	if mm.ReplayErr != nil {
		t.Fatalf("replay: %v", mm.ReplayErr)
	}
	for _, s := range []string{
		fmt.Sprintf("mismatch at cycle %d [seed=7]", want),
		"port     expected  actual",
		fmt.Sprintf("* m_sum    %s      %s", hexw(mm.Expected[outMSum], 8), hexw(mm.Actual[outMSum], 8)),
		"  m_valid  0x1       0x1",
		fmt.Sprintf("> %d", want),
		"s_valid  s_data  m_ready  differs",
		"waveform: " + mm.WavePath,
	} {
		if !strings.Contains(msg, s) {
			t.Errorf("report lacks %q", s)
		}
	}
	if mm.Expected[outMSum] == mm.Actual[outMSum] || mm.Expected[outMValid] != 1 {
		t.Errorf("expected/actual m_sum %#x/%#x with m_valid %d", mm.Expected[outMSum], mm.Actual[outMSum], mm.Expected[outMValid])
	}
	if len(mm.Window) != 8+1+4 || mm.Window[0].Cycle != want-8 || mm.Window[8].Cycle != want {
		t.Fatalf("window: %d cycles from %d", len(mm.Window), mm.Window[0].Cycle)
	}
	for _, w := range mm.Window[:8] {
		if len(w.Differs) != 0 {
			t.Errorf("cycle %d before the mismatch differs: %v", w.Cycle, w.Differs)
		}
	}
	if w := mm.Window[8]; strings.Join(w.Differs, ",") != "m_sum" || w.In[inData] != mm.In[inData] {
		t.Errorf("window row of the mismatch: %+v", w)
	}

	// The VCD holds only the traced window: cycles want-8-16 .. want+4.
	first, end := want-8-16, want+4
	if mm.WaveFirst != first || mm.WaveEnd != end {
		t.Fatalf("wave window %d..%d, want %d..%d", mm.WaveFirst, mm.WaveEnd, first, end)
	}
	st, err := os.Stat(mm.WavePath)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > 16<<10 {
		t.Errorf("VCD is %d bytes; a 29-cycle window should be small", st.Size())
	}
	times, sumAt := readVCD(t, mm.WavePath, "m_sum", 10*want)
	if times[0] != 10*first || times[len(times)-1] != 10*end+5 || len(times) != int(2*(end-first+1)) {
		t.Errorf("VCD times %d..%d (%d dumps), want %d..%d (%d)", times[0], times[len(times)-1], len(times), 10*first, 10*end+5, 2*(end-first+1))
	}
	if sumAt != mm.Actual[outMSum] {
		t.Errorf("VCD m_sum at time %d is %#x, the model output was %#x", 10*want, sumAt, mm.Actual[outMSum])
	}
}

// readVCD returns the timestamps of a VCD and the value of signal name (the
// first one declared with that name) at time at.
func readVCD(t *testing.T, path, name string, at int64) ([]int64, uint64) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var times []int64
	var code string
	var val uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		fs := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "$var") && len(fs) >= 5 && fs[4] == name && code == "":
			code = fs[3]
		case strings.HasPrefix(line, "#"):
			ts, err := strconv.ParseInt(line[1:], 10, 64)
			if err != nil {
				t.Fatalf("bad VCD time %q", line)
			}
			times = append(times, ts)
		case len(times) > 0 && times[len(times)-1] <= at && code != "":
			if len(fs) == 2 && fs[1] == code && strings.HasPrefix(fs[0], "b") {
				v, err := strconv.ParseUint(fs[0][1:], 2, 64)
				if err == nil {
					val = v
				}
			}
		}
	}
	if len(times) == 0 || code == "" {
		t.Fatalf("VCD %s has no times or no %s", path, name)
	}
	return times, val
}

func TestQualifiedBy(t *testing.T) {
	// Without QualifiedBy, m_sum is compared while m_valid is low, where
	// the RTL holds a garbage sum and the reference 0.
	d := accDesign()
	for i := range d.Ports {
		d.Ports[i].QualifiedBy = ""
	}
	m, err := Build(context.Background(), d, BuildOptions{CacheDir: testCache})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, err = Run(context.Background(), m, &accRef{}, newAccStim(3), RunOptions{Cycles: 100_000})
	var mm *Mismatch
	if !errors.As(err, &mm) {
		t.Fatalf("unqualified m_sum: want a mismatch, got %v", err)
	}
	if mm.Expected[outMValid] != 0 || mm.Expected[outMSum] == mm.Actual[outMSum] {
		t.Fatalf("mismatch should be on m_sum while m_valid is low:\n%v", mm)
	}
	// The same with QualifiedBy passes (TestEquivalence) and the report
	// marks the uncompared output with ~.
	mq := buildAcc(t, BuildOptions{})
	_, err = Run(context.Background(), mq, &accRef{bugAt: 3}, newAccStim(3), RunOptions{Cycles: 100_000})
	if !errors.As(err, &mm) {
		t.Fatalf("want a mismatch, got %v", err)
	}
	if mm.Expected[outMValid] != 1 {
		t.Fatalf("qualified m_sum compared while m_valid low:\n%v", mm)
	}
}

func TestQualifiedMarker(t *testing.T) {
	_, out := accDesign().split()
	mm := &Mismatch{Top: "acc8", Cycle: 3, Outputs: out, Inputs: []Port{{Name: "s_valid", Width: 1}},
		In: []uint64{1}, Expected: []uint64{1, 0, 0, 5}, Actual: []uint64{1, 0, 0x2a, 6}}
	msg := mm.Error()
	if !strings.Contains(msg, "~ m_sum") || !strings.Contains(msg, "* m_count  0x0005    0x0006") {
		t.Fatalf("markers:\n%s", msg)
	}
}

func TestPortValidation(t *testing.T) {
	ctx := context.Background()
	bad := func(mod func(*Design), want ...string) {
		t.Helper()
		d := accDesign()
		mod(&d)
		m, err := Build(ctx, d, BuildOptions{CacheDir: testCache})
		if err == nil {
			m.Close()
			t.Fatalf("want an error containing %q", want)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q lacks %q", err, w)
			}
		}
	}
	bad(func(d *Design) { d.Ports[2].Width = 65 }, `port "s_data" is 65 bits wide`, "1..64-bit")
	bad(func(d *Design) { d.Ports[2].Width = 0 }, `port "s_data" is 0 bits wide`)
	bad(func(d *Design) { d.Ports[5].QualifiedBy = "m_count" }, "must be a 1-bit output")
	bad(func(d *Design) { d.Ports[5].QualifiedBy = "nope" }, "not a port")
	bad(func(d *Design) { d.Ports = append(d.Ports, Port{Name: "clk", Width: 1}) }, "clock or the reset")
	bad(func(d *Design) { d.Sources["../x.v"] = nil }, "plain file name")
	// Checked against the verilated header (verilator runs, make does not).
	bad(func(d *Design) { d.Ports[6].Width = 12 }, `port "m_count" is 16 bits wide in module acc8 but described as 12`)
	bad(func(d *Design) { d.Ports[6].Dir = In }, `port "m_count" is an output`)
	bad(func(d *Design) { d.Ports = d.Ports[:6] }, `port "m_count" (output, 16 bits) of module acc8 is missing`)
	bad(func(d *Design) {
		d.Sources["wide.v"] = []byte("module wide(input clk, input rst, input [127:0] w, output [7:0] y);\n assign y = w[7:0] ^ w[127:120];\nendmodule\n")
		d.Top = "wide"
		d.Ports = []Port{{Name: "y", Width: 8, Dir: Out}}
	}, `port "w" (input, 128 bits) of module wide is missing`, "wider than 64 bits are not supported")
	bad(func(d *Design) { d.Clock = "clock" }, `1-bit input "clock"`)
	bad(func(d *Design) { d.Sources["acc8.v"] = []byte("module acc8(input clk; endmodule") }, "verilator failed")
}

func TestResetAndCycleContract(t *testing.T) {
	m := buildAcc(t, BuildOptions{})
	out := make([]uint64, 4)
	step := func(valid, data, ready uint64) {
		m.Step([]uint64{valid, data, ready}, out, 1)
	}
	m.Reset(2)
	if m.Cycle() != 0 {
		t.Fatalf("cycle after reset %d", m.Cycle())
	}
	step(1, 5, 0) // accepted: s_ready=1 since nothing is held
	if out[outSReady] != 1 || out[outMValid] != 0 {
		t.Fatalf("cycle 0: %v", out)
	}
	step(1, 7, 0) // result held, sink not ready: s_ready is 0 in this same cycle
	if out[outSReady] != 0 || out[outMValid] != 1 || out[outMSum] != 5 {
		t.Fatalf("cycle 1: %v", out)
	}
	step(1, 7, 1) // sink ready in this cycle: the combinational s_ready follows
	if out[outSReady] != 1 || out[outMSum] != 5 || out[outMCount] != 1 {
		t.Fatalf("cycle 2: %v", out)
	}
	step(0, 0x1ff, 1) // data wider than the port is masked
	if out[outMCount] != 2 || m.Cycle() != 4 {
		t.Fatalf("cycle 3: %v (cycle %d)", out, m.Cycle())
	}
	if out[outMSum] != 12 {
		t.Fatalf("cycle 3: m_sum %#x", out[outMSum])
	}
	step(0, 0, 1) // not valid: sum_q still loads acc+s_data at the edge
	if out[outMSum] != (12+0xff)&0xff {
		t.Fatalf("cycle 4: m_sum %#x", out[outMSum])
	}
	const held = 12 // loaded with acc+0x1ff&0xff while not valid

	// Reset clears what rst clears; sum_q is not reset and keeps its value.
	m.Reset(3)
	step(0, 0, 0)
	if out[outMValid] != 0 || out[outMCount] != 0 || out[outSReady] != 1 || m.Cycle() != 1 {
		t.Fatalf("after reset: %v (cycle %d)", out, m.Cycle())
	}
	if out[outMSum] != held {
		t.Fatalf("reset changed the unreset sum register: %#x, was %#x", out[outMSum], held)
	}
	// Reinit is a power-on: everything back to 0.
	if err := m.Reinit(); err != nil {
		t.Fatal(err)
	}
	m.Reset(1)
	step(0, 0, 0)
	if out[outMSum] != 0 {
		t.Fatalf("after Reinit m_sum=%#x", out[outMSum])
	}
	// Reset(0) only restarts the cycle count.
	m.Reset(0)
	if m.Cycle() != 0 {
		t.Fatal("Reset(0) kept the cycle count")
	}
}

func TestTraceAPI(t *testing.T) {
	m := buildAcc(t, BuildOptions{})
	if err := m.StartTrace(filepath.Join(t.TempDir(), "x.vcd")); err == nil || !strings.Contains(err.Error(), "without BuildOptions.Trace") {
		t.Fatalf("StartTrace on a model built without Trace: %v", err)
	}
	mt := buildAcc(t, BuildOptions{Trace: true})
	path := filepath.Join(t.TempDir(), "sub", "t.vcd")
	mt.Reset(1)
	in := make([]uint64, 3*10)
	out := make([]uint64, 4*10)
	mt.Step(in, out, 5)
	if err := mt.StartTrace(path); err != nil {
		t.Fatal(err)
	}
	if err := mt.StartTrace(path); err == nil {
		t.Fatal("second StartTrace succeeded")
	}
	mt.Step(in, out, 10)
	if err := mt.StopTrace(); err != nil {
		t.Fatal(err)
	}
	times, _ := readVCD(t, path, "m_sum", 0)
	if times[0] != 50 || times[len(times)-1] != 145 {
		t.Fatalf("trace of cycles 5..14 has times %d..%d", times[0], times[len(times)-1])
	}
	// A second trace on the same instance works too.
	if err := mt.StartTrace(path + "2"); err != nil {
		t.Fatal(err)
	}
	mt.Step(in, out, 2)
	if err := mt.StopTrace(); err != nil {
		t.Fatal(err)
	}
}

type panicRef struct{ accRef }

func (p *panicRef) Cycle(in, out []uint64) {
	if p.count == 50 {
		panic("golden model bug")
	}
	p.accRef.Cycle(in, out)
}

func TestReferencePanic(t *testing.T) {
	m := buildAcc(t, BuildOptions{})
	_, err := Run(context.Background(), m, &panicRef{}, newAccStim(1), RunOptions{Cycles: 10_000})
	if err == nil || !strings.Contains(err.Error(), "golden model bug") {
		t.Fatalf("want the panic as an error, got %v", err)
	}
}

func TestReplayNotReproducible(t *testing.T) {
	m := buildAcc(t, BuildOptions{})
	seed := uint64(10)
	newStim := func() Stimulus { seed++; return &accStim{r: rng(seed)} } // not reproducible
	_, err := Run(context.Background(), m, &accRef{bugAt: 1000}, newStim, RunOptions{Cycles: 100_000})
	var mm *Mismatch
	if !errors.As(err, &mm) {
		t.Fatalf("want a mismatch, got %v", err)
	}
	if mm.ReplayErr == nil || !strings.Contains(mm.Error(), "did not reproduce") {
		t.Fatalf("non-deterministic stimulus not flagged:\n%v", mm)
	}
}

func TestCancel(t *testing.T) {
	m := buildAcc(t, BuildOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	rep, err := Run(ctx, m, &accRef{}, newAccStim(1), RunOptions{Cycles: 1 << 40, Progress: func(done, total int64) {
		if done > 1_000_000 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || rep.Cycles >= 1<<40 {
		t.Fatalf("cancel: %v after %d cycles", err, rep.Cycles)
	}
}

// A cache folder that cannot be made names where it was set: the
// NICGEN_CACHE variable, or the option.
func TestBuildCacheUnusable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NICGEN_CACHE", filepath.Join(file, "cache"))
	_, err := Build(context.Background(), accDesign(), BuildOptions{})
	if err == nil || !strings.Contains(err.Error(), "NICGEN_CACHE="+filepath.Join(file, "cache")) {
		t.Errorf("NICGEN_CACHE under a file: %v, want an error naming the variable", err)
	}
	_, err = Build(context.Background(), accDesign(), BuildOptions{CacheDir: filepath.Join(file, "opt")})
	if err == nil || !strings.Contains(err.Error(), "model cache "+filepath.Join(file, "opt")) {
		t.Errorf("CacheDir under a file: %v, want an error naming the folder", err)
	}
}
