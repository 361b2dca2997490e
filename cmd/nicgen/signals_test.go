package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGTERM and SIGINT at random moments of a generate over an earlier
// configuration's outputs, most of them while it writes its files: the
// folders always hold one configuration's complete outputs, the earlier
// or the new, and no temporary file.
func TestSignalsLeaveOneWholeOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "nicgen")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cfgs := [2]string{}
	for i, control := range []bool{false, true} {
		cfgs[i] = filepath.Join(dir, fmt.Sprintf("c%d.hcl", i))
		src := waitBase[:strings.LastIndex(waitBase, "}")] + fmt.Sprintf("  control = %v\n}\nblock \"lru_arb\" {}\nblock \"reps_conf\" {}\nblock \"srp_ttw\" {}\n", control)
		if err := os.WriteFile(cfgs[i], []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	gen := func(i int) *exec.Cmd {
		return exec.Command(bin, "generate", "-c", cfgs[i], "-o", out)
	}
	snapshot := func() map[string][]byte {
		files := map[string][]byte{}
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				files[p] = b
			}
			return err
		})
		return files
	}
	equal := func(a, b map[string][]byte) bool {
		if len(a) != len(b) {
			return false
		}
		for p, x := range a {
			if y, ok := b[p]; !ok || !bytes.Equal(x, y) {
				return false
			}
		}
		return true
	}
	// each configuration's complete outputs, and how long a generate takes
	var want [2]map[string][]byte
	var took time.Duration
	for _, i := range []int{1, 0} {
		start := time.Now()
		if o, err := gen(i).CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, o)
		}
		took = max(took, time.Since(start))
		want[i] = snapshot()
	}
	r := rand.New(rand.NewPCG(1, 2))
	cur := 0
	for trial := 0; trial < 12; trial++ {
		next := 1 - cur
		sig := []syscall.Signal{syscall.SIGTERM, syscall.SIGINT}[trial%2]
		c := gen(next)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		if trial%3 == 0 {
			time.Sleep(time.Duration(r.Int64N(int64(took))))
		} else {
			// while the files are written: once the first temporary
			// file is there, and up to 2 ms later
			for deadline := time.Now().Add(2 * took); time.Now().Before(deadline) && !hasTemp(out); {
				time.Sleep(100 * time.Microsecond)
			}
			time.Sleep(time.Duration(r.Int64N(int64(2 * time.Millisecond))))
		}
		c.Process.Signal(sig)
		err := c.Wait()
		got := snapshot()
		switch {
		case equal(got, want[next]):
			cur = next
		case equal(got, want[cur]):
			if err == nil {
				t.Errorf("trial %d: generate exited 0 but left the earlier outputs", trial)
			}
		default:
			var extra []string
			for p := range got {
				if _, ok := want[next][p]; !ok {
					if _, ok := want[cur][p]; !ok {
						extra = append(extra, p)
					}
				}
			}
			t.Fatalf("trial %d (%v): the folder holds neither configuration's outputs whole (files of neither: %v)\n%s", trial, sig, extra, stderr.String())
		}
	}
}

// hasTemp reports whether a generate's temporary file is under dir.
func hasTemp(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".nicgen-") {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}
