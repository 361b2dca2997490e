package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// listFiles is every file under dir, by slash path from dir.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// With -o alone, every output goes under that folder: nothing is written
// to the repository's constraints/ or docs/datasheets/ (a first run inside
// a clone used to overwrite committed files).
func TestGenerateOutAloneWritesUnderIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	before, _ := os.ReadFile("../../constraints/reps.xdc")
	out, err := runCLI(t, "generate", "-o", filepath.Join(dir, "build"), "--blocks", "reps_conf")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	files := strings.Join(listFiles(t, dir), "\n")
	for _, want := range []string{"build/reps_conf/reps_conf.v", "build/reps_conf/reps_conf.f", "build/constraints/reps_conf.xdc", "build/datasheets/reps_conf.md"} {
		if !strings.Contains(files, want) {
			t.Errorf("%s not written; files:\n%s", want, files)
		}
	}
	if _, err := os.Stat("constraints"); err == nil {
		t.Error("generate -o wrote constraints/ in the working folder")
	}
	if after, _ := os.ReadFile("../../constraints/reps.xdc"); string(after) != string(before) {
		t.Error("generate -o changed the repository's constraints")
	}
	// the .f list names the files by their path from where generate ran
	f, _ := os.ReadFile(filepath.Join(dir, "build/reps_conf/reps_conf.f"))
	if want := filepath.ToSlash(filepath.Join(dir, "build/reps_conf/reps_conf.v")) + "\n"; string(f) != want {
		t.Errorf(".f list %q, want %q", f, want)
	}
}

// A generation that cannot be written whole writes nothing: here the
// datasheet folder's name is taken by a file, so the last outputs fail
// after the Verilog was written to its temporary files.
func TestGenerateAllOrNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "datasheets"), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "generate", "-o", dir, "--blocks", "reps_conf")
	if err == nil {
		t.Fatalf("generate succeeded with its datasheet folder blocked:\n%s", out)
	}
	if !strings.Contains(err.Error(), "nothing was changed") || strings.Contains(err.Error(), "<nil>") {
		t.Errorf("error %q", err)
	}
	files := listFiles(t, dir)
	for _, f := range files {
		if f != "datasheets" && f != ".nicgen.lock" {
			t.Errorf("left behind: %s (files: %v)", f, files)
		}
	}
}

// -o naming a folder for a one-file output is an error that says so,
// with no stray temporary file; equiv checks --report before it runs.
func TestOutputNamingAFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, err := runCLI(t, "sim", "reps", "--events", "testdata/sim/reps.jsonl", "-o", dir)
	if err == nil || !strings.Contains(err.Error(), "it is a folder") {
		t.Errorf("sim -o DIR: %v\n%s", err, out)
	}
	out, err = runCLI(t, "vectors", "reps", "-n", "10", "-o", dir)
	if err == nil || !strings.Contains(err.Error(), "it is a folder") {
		t.Errorf("vectors -o DIR: %v\n%s", err, out)
	}
	out, err = runCLI(t, "equiv", "reps", "--cycles", "1000000000000", "--report", dir)
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "--report") || strings.Contains(out, "cycles") {
		t.Errorf("equiv --report DIR: exit %d, %v\n%s", exitCode(err), err, out)
	}
	if files := listFiles(t, dir); len(files) > 0 {
		t.Errorf("left behind: %v", files)
	}
}

// The output folder's lock excludes a second holder until it is released.
func TestOutputLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	unlock, err := lockFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, ".nicgen.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Errorf("a second lock while the first is held: %v, want EWOULDBLOCK", err)
	}
	unlock()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Errorf("the lock after release: %v", err)
	}
}

// A refused write leaves no folder it created, and no lock file in one:
// the outputs' folders are new, the datasheets' is blocked by a file.
func TestRefusedWriteLeavesNoFolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "blocked"), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "generate", "-o", filepath.Join(dir, "new", "v"), "--constraints", filepath.Join(dir, "new", "c"),
		"--datasheets", filepath.Join(dir, "blocked", "d"), "--blocks", "reps_conf")
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("generate with its datasheet folder blocked: %v\n%s", err, out)
	}
	if files := listFiles(t, dir); len(files) != 1 || files[0] != "blocked" {
		t.Errorf("left behind: %v", files)
	}
}

// generate removes what an earlier generate into the same folders wrote
// and it no longer does (the manifest .nicgen-files): switching the
// control wrappers off removes their Verilog, headers and constraints; a
// run of some blocks leaves the others' files; a file generate never
// wrote stays.
func TestGenerateRemovesStaleFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := func(control bool) string {
		f := filepath.Join(dir, fmt.Sprintf("control-%v.hcl", control))
		src := waitBase[:strings.LastIndex(waitBase, "}")] + fmt.Sprintf("  control = %v\n}\nblock \"lru_arb\" {}\nblock \"reps\" {}\n", control)
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	out := filepath.Join(dir, "out")
	gen := func(c string, blocks ...string) {
		args := []string{"generate", "-c", c, "-o", out}
		if len(blocks) > 0 {
			args = append(args, "--blocks", strings.Join(blocks, ","))
		}
		if o, err := runCLI(t, args...); err != nil {
			t.Fatalf("%v\n%s", err, o)
		}
	}
	ctl := func() []string {
		var names []string
		for _, f := range listFiles(t, out) {
			if strings.Contains(f, "_ctl") {
				names = append(names, f)
			}
		}
		return names
	}
	mine := filepath.Join(out, "reps", "notes.txt")
	gen(cfg(true))
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(ctl()) == 0 {
		t.Fatal("no control wrapper written")
	}
	gen(cfg(false), "reps")
	for _, f := range ctl() {
		if strings.Contains(f, "reps_ctl") {
			t.Errorf("reps's wrapper left: %s", f)
		}
	}
	if n := len(ctl()); n == 0 {
		t.Error("a run of reps alone removed lru_arb's wrapper")
	}
	gen(cfg(false))
	if names := ctl(); len(names) != 0 {
		t.Errorf("wrapper files left with control off: %v", names)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a file generate never wrote was removed: %v", err)
	}
}
