package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks/config"
)

// runCLIsafe is runCLI that turns a panic into a test failure naming what
// was run, so one bad input does not hide the others.
func runCLIsafe(t *testing.T, args ...string) (out string, err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("nicgen %s panicked: %v", strings.Join(args, " "), p)
		}
	}()
	return runCLI(t, args...)
}

// namedAt is what the line an error points at defines (file:line:col at
// the start of msg): an attribute's name, or a block's type and label;
// nothing for an error at 1:1, which is about the file (a section that is
// missing).
func namedAt(file, msg string) []string {
	m := regexp.MustCompile(`^[^:]+:(\d+):(\d+): `).FindStringSubmatch(msg)
	src, err := os.ReadFile(file)
	if m == nil || err != nil || m[1]+":"+m[2] == "1:1" {
		return nil
	}
	n, _ := strconv.Atoi(m[1])
	lines := strings.Split(string(src), "\n")
	if n < 1 || n > len(lines) {
		return nil
	}
	if a := regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=`).FindStringSubmatch(lines[n-1]); a != nil {
		return a[1:2]
	}
	if b := regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:"([^"]*)")?\s*\{`).FindStringSubmatch(lines[n-1]); b != nil {
		return b[1:3]
	}
	return nil
}

// mentions reports whether msg has name as a word of its own.
func mentions(msg, name string) bool {
	return regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(name) + `($|[^A-Za-z0-9_])`).MatchString(msg)
}

// Every malformed configuration of the corpus is an error with its
// file:line:column (golden), exit status 2, no panic, nothing on stdout and
// no file written; every command that takes -c says the same.
func TestBadConfigurations(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/badconfig/*.hcl")
	if len(files) < 25 {
		t.Fatalf("the corpus has %d malformed configurations, want at least 25", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".hcl")
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			outDirs := []string{"-o", filepath.Join(dir, "v"), "--constraints", filepath.Join(dir, "c"), "--datasheets", filepath.Join(dir, "d")}
			out, err := runCLIsafe(t, append([]string{"generate", "-c", f}, outDirs...)...)
			if code := exitCode(err); code != 2 {
				t.Fatalf("exit status %d, want 2 (err %v)\n%s", code, err, out)
			}
			if out != "" {
				t.Errorf("printed on a bad configuration:\n%s", out)
			}
			msg := "nicgen: " + err.Error() + "\n"
			checkGolden(t, strings.TrimSuffix(f, ".hcl")+".golden", msg)
			if !strings.HasPrefix(err.Error(), f+":") {
				t.Errorf("error does not start with the file:line:column: %q", err.Error())
			}
			// computed apart from the golden file: the message names what
			// its line defines (the field, or the section)
			if names := namedAt(f, err.Error()); len(names) > 0 && !slices.ContainsFunc(names, func(n string) bool { return n != "" && mentions(firstLine(err.Error()), n) }) {
				t.Errorf("the error points at the line of %v but does not name it: %q", names, firstLine(err.Error()))
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("files written for a bad configuration: %v", entries)
			}
			for _, args := range [][]string{
				{"config", "show"}, {"config", "check"}, {"budget"}, {"lint"}, {"synth", "reps"}, {"equiv", "reps"},
				{"doc", "reps"}, {"sim", "reps", "--events", "testdata/sim/reps.jsonl"}, {"scenario", "incast"},
				{"scenario", "hotspot"}, append([]string{"diff"}, outDirs...),
			} {
				out, err := runCLIsafe(t, append(args, "-c", f)...)
				if exitCode(err) != 2 || "nicgen: "+err.Error()+"\n" != msg {
					t.Errorf("nicgen %s -c %s: exit %d, %v\nwant the same error as generate:\n%s", strings.Join(args, " "), f, exitCode(err), err, msg)
				}
				if out != "" {
					t.Errorf("nicgen %s printed on a bad configuration:\n%s", strings.Join(args, " "), out)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("files written for a bad configuration: %v", entries)
			}
		})
	}
}

func TestMissingConfigFile(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "budget", "-c", "testdata/no-such-file.hcl")
	want := "testdata/no-such-file.hcl:1:1: cannot read the configuration: no such file or directory"
	if exitCode(err) != 2 || err.Error() != want {
		t.Errorf("exit %d, %v\nwant %s\n%s", exitCode(err), err, want, out)
	}
}

func exampleConfigs(t *testing.T) []string {
	files, _ := filepath.Glob("../../docs/examples/*.hcl")
	if len(files) < 3 {
		t.Fatalf("%d example configurations under docs/examples, want 100g, 400g and 800g", len(files))
	}
	return files
}

// Each example loads, shows (golden), generates and lints clean.
func TestExampleConfigurations(t *testing.T) {
	t.Parallel()
	for _, f := range exampleConfigs(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".hcl")
		t.Run(name, func(t *testing.T) {
			out, err := runCLI(t, "config", "show", "-c", f)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			checkGolden(t, filepath.Join("testdata", "examples", name+".show.golden"), out)

			dir := t.TempDir()
			out, err = runCLI(t, "generate", "-c", f, "-o", filepath.Join(dir, "v"), "--constraints", filepath.Join(dir, "c"), "--datasheets", filepath.Join(dir, "d"))
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			r, err := config.LoadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range r.Blocks {
				v, err := os.ReadFile(filepath.Join(dir, "v", b, b+".v"))
				if err != nil {
					t.Fatal(err)
				}
				for _, want := range []string{" * Command: nicgen generate -c " + f + "\n", " * Config: " + r.Config.Name + "\n", " * Config: file " + f + ", sha256 " + r.SHA256[:16] + "\n"} {
					if !strings.Contains(string(v), want) {
						t.Errorf("%s.v header lacks %q", b, want)
					}
				}
				for _, g := range []string{filepath.Join("v", b, b+".core"), filepath.Join("c", b+".xdc"), filepath.Join("d", b+".md")} {
					if _, err := os.Stat(filepath.Join(dir, g)); err != nil {
						t.Errorf("not written: %s", g)
					}
				}
			}
			out, err = runCLI(t, "lint", "-c", f)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if n := strings.Count(out, "clean: verilator --lint-only -Wall"); n != len(r.Blocks) {
				t.Errorf("%d of %d blocks linted clean:\n%s", n, len(r.Blocks), out)
			}
		})
	}
}

// `config show` prints a configuration of the same build: loading its
// output gives the same blocks.
func TestConfigShowRoundTrip(t *testing.T) {
	t.Parallel()
	for _, f := range append(exampleConfigs(t), "") {
		r, err := loadConfig(f)
		if err != nil {
			t.Fatal(err)
		}
		again, err := config.Load("shown.hcl", []byte(r.Show()))
		if err != nil {
			t.Fatalf("%s: config show output does not load: %v\n%s", f, err, r.Show())
		}
		if !reflect.DeepEqual(again.Config, r.Config) || !reflect.DeepEqual(again.Blocks, r.Blocks) {
			t.Errorf("%s: config show output resolves to\n%+v\nwant\n%+v", f, again.Config, r.Config)
		}
	}
}

func TestConfigShowDefault(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "config", "show")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/config_show_default.golden", out)
	def, err := runCLI(t, "config", "default")
	if err != nil || def != string(config.DefaultSource()) {
		t.Errorf("config default: %v\n%s", err, def)
	}
	chk, err := runCLI(t, "config", "check", "-c", "../../docs/examples/400g.hcl")
	if err != nil || chk != "../../docs/examples/400g.hcl: ok: 400g (400 Gb/s, 9 KiB MTU, 6 us base RTT, 16384 connections, 322.265625 MHz); blocks nscc, reps, reps_conf\n" {
		t.Errorf("config check: %v\n%s", err, chk)
	}
}

// A block outside the configuration is a usage error.
func TestBlockOutsideConfiguration(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"budget", "smartt"}, {"lint", "smartt"}, {"equiv", "smartt"}, {"doc", "smartt"}, {"generate", "--blocks", "smartt"}, {"scenario", "incast", "--variant", "smartt"}} {
		out, err := runCLI(t, append(args, "-c", "../../docs/examples/400g.hcl")...)
		want := `block "smartt" is not in the configuration ../../docs/examples/400g.hcl (its blocks: nscc, reps, reps_conf)`
		if exitCode(err) != 2 || err.Error() != want {
			t.Errorf("%v: exit %d, %v\nwant %s\n%s", args, exitCode(err), err, want, out)
		}
	}
}

// Budgets follow the configuration (the 800g example trims REPS to
// 8-bit EVs and minimal pointers: 193 - 64 - 9 bits).
func TestBudgetFollowsConfiguration(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "budget", "reps", "-c", "../../docs/examples/800g.hcl")
	if err != nil {
		t.Fatal(err)
	}
	want := "reps: 120 bits (15 bytes) per connection, 32 bits global\n  state table: 65536 connections x 120 bits = 7864320 bits (960.0 KiB of SRAM)\n"
	if !strings.HasPrefix(out, want) {
		t.Errorf("budget:\n%s\nwant prefix\n%s", out, want)
	}
}

// The attribute reference of docs/config.md is generated from the schema
// and the embedded default.
func TestConfigReference(t *testing.T) {
	t.Parallel()
	const path = "../../docs/config.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- reference:begin -->\n", "<!-- reference:end -->"
	i, j := strings.Index(string(b), begin), strings.Index(string(b), end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q section", path, begin, end)
	}
	want := string(b[:i+len(begin)]) + "\n" + config.Reference() + string(b[j:])
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(b) != want {
		var d strings.Builder
		unifiedDiff(&d, path, string(b), want)
		t.Errorf("the attribute reference of %s is out of date (go test ./cmd/nicgen -run TestConfigReference -update):\n%s", path, d.String())
	}
}
