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
	var dirs outDirs
	var path string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff",
		Short: "Show how the committed outputs differ from what the code generates",
		Long: `diff regenerates every block of the configuration in memory and compares it
with the files under the output folders (verilog-out/, constraints/ and
docs/datasheets/ by default), printing a unified diff. It exits with status 1
on any drift, so CI keeps the committed outputs honest.`,
		Example: "  nicgen diff\n  nicgen diff -c docs/examples/400g.hcl -o build/400g/rtl --constraints build/400g/xdc --datasheets build/400g/doc",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := loadConfig(path)
			if err != nil {
				return err
			}
			gens, err := generateBlocks(r, nil, false)
			if err != nil {
				return err
			}
			want, err := outputFiles(r, gens, dirs)
			if err != nil {
				return err
			}
			have := map[string][]byte{}
			for _, root := range dirs.all() {
				err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					if d.Name() == ".nicgen.lock" || d.Name() == manifestName {
						return nil // generate's lock and record, not outputs
					}
					b, err := os.ReadFile(p)
					have[p] = b
					return err
				})
				if err != nil && !os.IsNotExist(err) {
					return err
				}
			}
			if len(have) == 0 {
				// nothing generated here at all: most likely run from
				// another folder than the repository root
				return usageErr("no generated files under %s (from %s): run nicgen diff in the folder that holds them (the repository root for the defaults), or name them with -o, --constraints and --datasheets", strings.Join(dirs.all(), ", "), cwdOrDot())
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
			type fileDrift struct {
				File   string `json:"file"`
				Status string `json:"status"`         // missing, stale or changed
				Diff   string `json:"diff,omitempty"` // unified, committed against generated
			}
			var drifts []fileDrift
			for _, n := range sorted {
				w, inWant := want[n]
				h, inHave := have[n]
				d := fileDrift{File: n}
				switch {
				case !inHave:
					d.Status = "missing"
				case !inWant:
					d.Status = "stale"
				case string(w) != string(h):
					var b strings.Builder
					unifiedDiff(&b, n, string(h), string(w))
					d.Status, d.Diff = "changed", b.String()
				default:
					continue
				}
				drift++
				drifts = append(drifts, d)
				switch {
				case asJSON:
				case d.Status == "missing":
					fmt.Fprintf(out, "missing: %s (run nicgen generate)\n", n)
				case d.Status == "stale":
					fmt.Fprintf(out, "stale: %s is not generated any more\n", n)
				default:
					fmt.Fprint(out, d.Diff)
				}
			}
			where := strings.Join(dirs.all(), ", ")
			if asJSON {
				if err := writeJSON(out, struct {
					UpToDate bool        `json:"up_to_date"`
					Folders  []string    `json:"folders"`
					Files    int         `json:"files"`
					Drift    []fileDrift `json:"drift"`
				}{drift == 0, dirs.all(), len(sorted), append([]fileDrift{}, drifts...)}); err != nil {
					return err
				}
			}
			if drift > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d files under %s differ from what nicgen generates; run nicgen generate and commit", drift, where)}
			}
			if !asJSON {
				fmt.Fprintf(out, "%s are up to date (%d files)\n", where, len(sorted))
			}
			return nil
		},
	}
	addOutDirFlags(cmd, &dirs)
	addConfigFlag(cmd, &path)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the drift as JSON: every file missing, stale or changed, with its unified diff")
	return cmd
}

// cwdOrDot is the working folder, for messages.
func cwdOrDot() string {
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return "."
}
