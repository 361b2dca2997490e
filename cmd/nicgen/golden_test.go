package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata from the current output")

// checkGolden compares got with a golden file and prints a line diff
// (go-diff) on a mismatch; -update rewrites the file instead.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/nicgen -run '%s' -update writes it)", err, t.Name())
	}
	if string(want) != got {
		var b strings.Builder
		unifiedDiff(&b, path, string(want), got)
		t.Errorf("output differs from %s (- golden, + got; go test ./cmd/nicgen -run '%s' -update rewrites it):\n%s", path, t.Name(), b.String())
	}
}
