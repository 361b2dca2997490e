package hdlgen

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/sergi/go-diff/diffmatchpatch"
)

var dateRe = regexp.MustCompile(`\b(19|20)\d\d-\d\d-\d\d\b|(?i)\bdate\b`)

var update = flag.Bool("update", false, "rewrite the golden files in testdata from the emitter's output")

// goldenOptions are the options of the golden files; the header records
// the command that regenerates them.
func goldenOptions(locators bool) EmitOptions {
	return EmitOptions{
		Locators: locators,
		Command:  "go test ./hdlgen -run TestEmitGolden -update",
		Config:   []string{fmt.Sprintf("exampleModules() of hdlgen/example_test.go, locators %v", locators)},
	}
}

// goldenName is the testdata file holding the emitted file name.
func goldenName(file string, locators bool) string {
	base := strings.TrimSuffix(file, ".v")
	if locators {
		return filepath.Join("testdata", base+".locators.v.golden")
	}
	return filepath.Join("testdata", base+".v.golden")
}

// emitExample builds the example design from scratch and emits it.
func emitExample(t *testing.T, o EmitOptions) map[string][]byte {
	t.Helper()
	d, err := Elaborate(exampleModules())
	if err != nil {
		t.Fatalf("the example design does not elaborate:\n%v", err)
	}
	return Emit(d, o)
}

func sortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func TestEmitGolden(t *testing.T) {
	want := map[string]bool{}
	for _, locators := range []bool{false, true} {
		files := emitExample(t, goldenOptions(locators))
		for _, name := range sortedNames(files) {
			path := goldenName(name, locators)
			want[path] = true
			got := files[name]
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			golden, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s: %v (run go test ./hdlgen -update to create it)", path, err)
				continue
			}
			if !bytes.Equal(golden, got) {
				t.Errorf("%s (locators %v) differs from %s (- golden, + emitted; run go test ./hdlgen -update if the change is intended):\n%s",
					name, locators, path, unifiedDiff(string(golden), string(got)))
			}
		}
	}
	// a golden file of a module that no longer exists is stale
	stale, err := filepath.Glob(filepath.Join("testdata", "ex_*.v.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range stale {
		if want[path] {
			continue
		}
		if *update {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s matches no emitted module (run go test ./hdlgen -update to remove it)", path)
	}
}

// unifiedDiff renders a line diff of want and got with three lines of
// context around each change, in the style of diff -u.
func unifiedDiff(want, got string) string {
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToChars(want, got)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines)

	type line struct {
		mark byte
		text string
		old  int // line number in want (for the hunk headers)
		new  int
	}
	var all []line
	oldNo, newNo := 1, 1
	for _, d := range diffs {
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l == "" {
				continue
			}
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				all = append(all, line{' ', l, oldNo, newNo})
				oldNo++
				newNo++
			case diffmatchpatch.DiffDelete:
				all = append(all, line{'-', l, oldNo, newNo})
				oldNo++
			case diffmatchpatch.DiffInsert:
				all = append(all, line{'+', l, oldNo, newNo})
				newNo++
			}
		}
	}
	const context = 3
	show := make([]bool, len(all))
	for i, l := range all {
		if l.mark == ' ' {
			continue
		}
		for j := max(0, i-context); j <= min(len(all)-1, i+context); j++ {
			show[j] = true
		}
	}
	var out strings.Builder
	for i := 0; i < len(all); {
		if !show[i] {
			i++
			continue
		}
		j := i
		for j < len(all) && show[j] {
			j++
		}
		fmt.Fprintf(&out, "@@ -%d +%d @@\n", all[i].old, all[i].new)
		for _, l := range all[i:j] {
			out.WriteByte(l.mark)
			out.WriteString(l.text)
			if !strings.HasSuffix(l.text, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = j
	}
	return out.String()
}

func TestUnifiedDiff(t *testing.T) {
	want := "a\nb\nc\nd\ne\nf\ng\nh\n"
	got := "a\nb\nc\nD\ne\nf\ng\nh\n"
	diff := unifiedDiff(want, got)
	expect := "@@ -1 +1 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n"
	if diff != expect {
		t.Errorf("unifiedDiff:\n%s\nwant:\n%s", diff, expect)
	}
	if d := unifiedDiff(want, want); d != "" {
		t.Errorf("diff of equal texts is %q", d)
	}
}

// TestEmitTwiceSameBytes builds the example from scratch several times: map
// iteration order, pointer values or anything else that varies between runs
// must not reach the output.
func TestEmitTwiceSameBytes(t *testing.T) {
	for _, locators := range []bool{false, true} {
		first := emitExample(t, goldenOptions(locators))
		for run := 0; run < 4; run++ {
			again := emitExample(t, goldenOptions(locators))
			if len(again) != len(first) {
				t.Fatalf("run %d emitted %d files, the first run %d", run, len(again), len(first))
			}
			for name, b := range first {
				if !bytes.Equal(b, again[name]) {
					t.Fatalf("run %d: %s (locators %v) differs from the first run:\n%s", run, name, locators, unifiedDiff(string(b), string(again[name])))
				}
			}
		}
	}
	// elaborating the same modules again must not change the output either
	top := exampleModules()
	d1, err := Elaborate(top)
	if err != nil {
		t.Fatal(err)
	}
	e1 := Emit(d1, goldenOptions(true))
	d2, err := Elaborate(top)
	if err != nil {
		t.Fatal(err)
	}
	e2 := Emit(d2, goldenOptions(true))
	for name, b := range e1 {
		if !bytes.Equal(b, e2[name]) {
			t.Fatalf("%s changes when the same modules are elaborated twice:\n%s", name, unifiedDiff(string(b), string(e2[name])))
		}
	}
}

func TestEmitWithoutLocators(t *testing.T) {
	with := emitExample(t, goldenOptions(true))
	without := emitExample(t, goldenOptions(false))
	for _, name := range sortedNames(with) {
		if !bytes.Contains(with[name], []byte("@[")) {
			t.Errorf("%s has no locator although Locators is true", name)
		}
		if i := bytes.Index(without[name], []byte("@[")); i >= 0 {
			lineNo := bytes.Count(without[name][:i], []byte("\n")) + 1
			t.Errorf("%s:%d has a locator although Locators is false", name, lineNo)
		}
	}
}

// TestEmitHeader checks the file frame the style requires: the generator
// version and command, no date, the `resetall/timescale/default_nettype
// header, `resetall at the end, and clk and rst as the first ports.
func TestEmitHeader(t *testing.T) {
	files := emitExample(t, goldenOptions(false))
	for _, name := range sortedNames(files) {
		text := string(files[name])
		for _, want := range []string{
			"Generated by nicgen hdlgen " + Version,
			" * Command: go test ./hdlgen -run TestEmitGolden -update\n",
			"`resetall\n`timescale 1ns / 1ps\n`default_nettype none\n",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		if !strings.HasSuffix(text, "endmodule\n\n`resetall\n") {
			t.Errorf("%s does not end with endmodule and `resetall", name)
		}
		if d := dateRe.FindString(text); d != "" {
			t.Errorf("%s contains %q: the header must not record a date", name, d)
		}
	}
	if acc := string(files["ex_acc.v"]); !strings.Contains(acc, "(\n    input  wire clk,\n    input  wire rst,\n") {
		t.Errorf("ex_acc.v does not start its ports with clk and rst")
	}
}
