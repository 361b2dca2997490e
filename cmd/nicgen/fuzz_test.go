package main

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/nicgen/nicgen/blocks/config"
)

// FuzzLoadConfig feeds the loader arbitrary files. It must never panic;
// a rejected file is a config.Errors whose every position is in the file;
// an accepted one builds every block (Load elaborates them) and shows as a
// configuration that resolves to the same blocks. The seed corpus, the
// default, the examples and the malformed corpus, runs in the normal suite:
//
//	go test ./cmd/nicgen -run '^$' -fuzz FuzzLoadConfig
func FuzzLoadConfig(f *testing.F) {
	f.Add(config.DefaultSource())
	for _, pat := range []string{"../../docs/examples/*.hcl", "testdata/badconfig/*.hcl", "testdata/sim/*.hcl"} {
		files, _ := filepath.Glob(pat)
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		r, err := config.Load("fuzz.hcl", src, config.WithCheck(goldenAccepts))
		if err != nil {
			var es config.Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error is not a config.Errors: %T %v", err, err)
			}
			for _, e := range es {
				if e.Pos.File != "fuzz.hcl" || e.Pos.Line < 1 || e.Pos.Col < 1 {
					t.Fatalf("error without a position in the file: %q", e.Error())
				}
			}
			return
		}
		again, err := config.Load("shown.hcl", []byte(r.Show()), config.WithCheck(goldenAccepts))
		if err != nil {
			t.Fatalf("config show output does not load: %v\n%s", err, r.Show())
		}
		if !reflect.DeepEqual(again.Config, r.Config) || !reflect.DeepEqual(again.Blocks, r.Blocks) {
			t.Fatalf("config show output resolves differently:\n%+v\n%+v", again.Config, r.Config)
		}
	})
}
