package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mknodChar makes a character device node in a temporary folder (never one
// under /dev): major 1, minor 3 is the null device, 1/7 the full device.
// It needs root (the test suite runs as root); otherwise the test skips.
func mknodChar(t *testing.T, name string, minor int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|minor); err != nil {
		t.Skipf("mknod %s: %v (needs root)", p, err)
	}
	return p
}

func isCharDevice(t *testing.T, p string) bool {
	t.Helper()
	st, err := os.Lstat(p)
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// An output named by a device is written through, never renamed over: the
// node is still a device afterwards. An output named by a symbolic link
// replaces the file it leads to and keeps the link.
func TestOutputsWriteThroughDevicesAndLinks(t *testing.T) {
	t.Parallel()
	null := mknodChar(t, "null", 3)
	dir := t.TempDir()
	events := filepath.Join(dir, "events.jsonl")
	os.WriteFile(events, []byte(`{"conn":0,"kind":"open"}`+"\n"), 0o644)
	for _, args := range [][]string{
		{"vectors", "reps", "-n", "10", "-o", null},
		{"sim", "reps", "--events", events, "-o", null},
		{"scenario", "incast", "--senders", "2", "--size", "64KiB", "--svg", null},
	} {
		if out, err := runCLI(t, args...); err != nil {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
		if !isCharDevice(t, null) {
			t.Fatalf("%v replaced the device %s", args, null)
		}
	}
	real := filepath.Join(dir, "real.jsonl")
	os.WriteFile(real, []byte("old\n"), 0o644)
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink("real.jsonl", link); err != nil {
		t.Fatal(err)
	}
	if out, err := runCLI(t, "vectors", "reps", "-n", "10", "-o", link); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symbolic link %s was replaced", link)
	}
	if b, _ := os.ReadFile(real); !bytes.HasPrefix(b, []byte(`{"block":"reps"`)) {
		t.Errorf("the link's file was not written through: %.40q", b)
	}
	// generate's tree holds files only: a device in its place is refused,
	// and nothing is written
	tree := t.TempDir()
	os.MkdirAll(filepath.Join(tree, "reps"), 0o755)
	dev := filepath.Join(tree, "reps", "reps.v")
	if err := os.Rename(null, dev); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "generate", "--blocks", "reps", "-o", tree)
	if err == nil || !strings.Contains(err.Error(), "not a regular file") || !isCharDevice(t, dev) {
		t.Errorf("generate over a device: %v\n%s", err, out)
	}
}

// Every command that prints to standard output exits 1 when the writes
// fail (a full device), naming standard output.
func TestStandardOutputOnAFullDevice(t *testing.T) {
	t.Parallel()
	full := mknodChar(t, "full", 7)
	for _, args := range [][]string{
		{"version"},
		{"budget"},
		{"config", "show"},
		{"sim", "reps", "--schema"},
		{"equiv", "profiles"},
		{"doc", "reps"},
		{"help"},
	} {
		f, err := os.OpenFile(full, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		code := run(args, f, &stderr)
		f.Close()
		if code != 1 || !strings.Contains(stderr.String(), "writing standard output: no space left on device") {
			t.Errorf("%v on a full device: exit %d, %q; want exit 1 naming standard output", args, code, stderr.String())
		}
	}
}

// --blocks names a block once however often it is given: reps,reps
// writes what reps writes (the shared modules stay in the block's folder).
func TestGenerateBlocksDeduplicated(t *testing.T) {
	t.Parallel()
	one, two := t.TempDir(), t.TempDir()
	if out, err := runCLI(t, "generate", "--blocks", "reps", "-o", one); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if out, err := runCLI(t, "generate", "--blocks", "reps,reps", "-o", two); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	a, b := listFiles(t, one), listFiles(t, two)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("--blocks reps,reps wrote %v, --blocks reps %v", b, a)
	}
}
