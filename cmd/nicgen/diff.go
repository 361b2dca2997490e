package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks"
)

// unifiedDiff renders a line diff of two texts with a few lines of context.
func unifiedDiff(w io.Writer, name string, want, got string) {
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToChars(want, got)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines)
	fmt.Fprintf(w, "--- %s (committed)\n+++ %s (generated)\n", name, name)
	const context = 3
	for i, d := range diffs {
		text := strings.SplitAfter(d.Text, "\n")
		if len(text) > 0 && text[len(text)-1] == "" {
			text = text[:len(text)-1]
		}
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			if i > 0 && len(text) > context {
				for _, l := range text[:context] {
					fmt.Fprint(w, " "+l)
				}
			}
			if i < len(diffs)-1 {
				if len(text) > 2*context {
					fmt.Fprintln(w, "@@")
				}
				start := max(0, len(text)-context)
				if i == 0 || len(text) > context {
					for _, l := range text[start:] {
						fmt.Fprint(w, " "+l)
					}
				} else {
					for _, l := range text {
						fmt.Fprint(w, " "+l)
					}
				}
			}
		case diffmatchpatch.DiffDelete:
			for _, l := range text {
				fmt.Fprint(w, "-"+l)
			}
		case diffmatchpatch.DiffInsert:
			for _, l := range text {
				fmt.Fprint(w, "+"+l)
			}
		}
	}
}

func newDiffCmd() *cobra.Command {
	var dir, constraintsDir string
	cmd := &cobra.Command{
		Use:   "diff",
		Short: "Show how the committed Verilog differs from what the code generates",
		Long: `diff regenerates every block in memory and compares it with the files under
the output folder (verilog-out/ by default), printing a unified diff. It exits
with status 1 on any drift, so CI keeps the committed Verilog honest.`,
		Example: "  nicgen diff",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			gens, err := generateBlocks(blocks.DefaultConfig(), nil, false)
			if err != nil {
				return err
			}
			want := outputFiles(blocks.DefaultConfig(), gens, dir, constraintsDir)
			have := map[string][]byte{}
			for _, root := range []string{dir, constraintsDir} {
				err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					b, err := os.ReadFile(p)
					have[p] = b
					return err
				})
				if err != nil && !os.IsNotExist(err) {
					return err
				}
			}
			names := map[string]bool{}
			for n := range want {
				names[n] = true
			}
			for n := range have {
				names[n] = true
			}
			sorted := make([]string, 0, len(names))
			for n := range names {
				sorted = append(sorted, n)
			}
			sort.Strings(sorted)
			drift := 0
			out := cmd.OutOrStdout()
			for _, n := range sorted {
				w, inWant := want[n]
				h, inHave := have[n]
				switch {
				case !inHave:
					fmt.Fprintf(out, "missing: %s (run nicgen generate)\n", n)
					drift++
				case !inWant:
					fmt.Fprintf(out, "stale: %s is not generated any more\n", n)
					drift++
				case string(w) != string(h):
					unifiedDiff(out, n, string(h), string(w))
					drift++
				}
			}
			if drift > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d files under %s and %s differ from what nicgen generates; run nicgen generate and commit", drift, dir, constraintsDir)}
			}
			fmt.Fprintf(out, "%s and %s are up to date (%d files)\n", dir, constraintsDir, len(sorted))
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "out", "o", "verilog-out", "folder of committed Verilog")
	cmd.Flags().StringVar(&constraintsDir, "constraints", "constraints", "folder of committed timing constraints")
	return cmd
}
