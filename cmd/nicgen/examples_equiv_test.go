package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks/config"
)

// Every block of every example configuration is equivalent to its golden
// model: a golden-parameter conversion or a derivation that only the
// default configuration exercised could not hide. 500,000 cycles each (the
// default configuration's millions run in package blockeq).
func TestEquivExampleConfigs(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../docs/examples/*.hcl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example configurations: %v", err)
	}
	for _, f := range files {
		r, err := config.LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range r.Blocks {
			t.Run(filepath.Base(f)+"/"+b, func(t *testing.T) {
				// two at a time (GOMAXPROCS): each is a Verilator build
				// and a run, independent of the others
				t.Parallel()
				out, err := runCLI(t, "equiv", b, "-c", f, "--cycles", "500000", "--waves", t.TempDir())
				if err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				if !strings.Contains(out, b+": equivalent to the golden model") {
					t.Errorf("equiv %s -c %s:\n%s", b, f, out)
				}
			})
		}
	}
}
