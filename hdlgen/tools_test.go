package hdlgen

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The real-tool tests run the emitted Verilog through Verilator, Icarus and
// Yosys. A missing tool is a failure, not a skip: CI installs all three
// (scripts/setup.sh), and a silently skipped lint would let warnings in.

func requireTool(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not installed (not on PATH): the hdlgen real-tool tests need verilator, iverilog and yosys; install them (scripts/setup.sh does)", name)
	}
	return path
}

// runTool runs a tool in dir and returns its combined output.
func runTool(t testing.TB, dir string, stdin []byte, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, requireTool(t, name), args...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// writeDesign writes the emitted files into a new temporary directory.
func writeDesign(t testing.TB, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// moduleFiles lists the file of m and of every module below it, m first.
func moduleFiles(m *Module) []string {
	seen := map[string]bool{}
	var files []string
	var visit func(m *Module)
	visit = func(m *Module) {
		if seen[m.name] {
			return
		}
		seen[m.name] = true
		files = append(files, m.name+".v")
		for _, sub := range m.Submodules() {
			visit(sub)
		}
	}
	visit(m)
	return files
}

// verilatorLint requires zero warnings from verilator --lint-only -Wall.
func verilatorLint(t testing.TB, dir, top string, files []string) {
	t.Helper()
	args := append([]string{"--lint-only", "-Wall", "--top-module", top}, files...)
	out, err := runTool(t, dir, nil, "verilator", args...)
	if err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("verilator --lint-only -Wall --top-module %s %s: %v\n%s%s", top, strings.Join(files, " "), err, out, listing(dir, files))
	}
}

// iverilogParse requires Icarus Verilog to accept the files as Verilog-2005.
func iverilogParse(t testing.TB, dir, top string, files []string) {
	t.Helper()
	args := append([]string{"-g2005", "-Wall", "-o", os.DevNull, "-s", top}, files...)
	out, err := runTool(t, dir, nil, "iverilog", args...)
	if err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("iverilog -g2005 -s %s %s: %v\n%s", top, strings.Join(files, " "), err, out)
	}
}

// latchCells are the Yosys cell types of every kind of latch, before and
// after technology mapping.
const latchCells = "t:$dlatch t:$adlatch t:$dlatchsr t:$_DLATCH_* t:$_DLATCHSR_*"

// yosysNoLatches synthesises top and requires that no latch was inferred.
func yosysNoLatches(t testing.TB, dir, top string, files []string) {
	t.Helper()
	script := "read_verilog " + strings.Join(files, " ") + "; synth -top " + top + "; select -assert-none " + latchCells
	out, err := runTool(t, dir, nil, "yosys", "-q", "-p", script)
	if err != nil {
		t.Errorf("yosys -p %q: %v\n%s", script, err, lastLines(out, 30))
	}
}

func listing(dir string, files []string) string {
	var b strings.Builder
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			continue
		}
		b.WriteString("---- " + f + "\n")
		for i, l := range strings.Split(string(text), "\n") {
			fmt.Fprintf(&b, "%4d  %s\n", i+1, l)
		}
	}
	return b.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// checkWithTools elaborates top, emits it with and without locators, and
// runs every module through Verilator, Icarus and Yosys.
func checkWithTools(t *testing.T, top *Module) {
	t.Helper()
	d, err := Elaborate(top)
	if err != nil {
		t.Fatalf("%s does not elaborate:\n%v", top.Name(), err)
	}
	for _, locators := range []bool{true, false} {
		dir := writeDesign(t, Emit(d, EmitOptions{Locators: locators, Command: "hdlgen tools test"}))
		for _, m := range d.Modules {
			files := moduleFiles(m)
			verilatorLint(t, dir, m.Name(), files)
			iverilogParse(t, dir, m.Name(), files)
			if locators { // synthesis does not read comments: once is enough
				yosysNoLatches(t, dir, m.Name(), files)
			}
		}
	}
}

func TestExampleRealTools(t *testing.T) {
	checkWithTools(t, exampleModules())
}

// TestRealToolChecksBite makes sure the tool checks above can fail: a
// hand-written latch must be found by Yosys, an unused input must be
// reported by Verilator and a syntax error by Icarus.
func TestRealToolChecksBite(t *testing.T) {
	dir := t.TempDir()
	bad := "`default_nettype none\n" +
		"module latchy (input wire en, input wire [3:0] d, input wire [3:0] spare, output reg [3:0] q);\n" +
		"always @* begin\n    if (en) q = d;\nend\nendmodule\n"
	if err := os.WriteFile(filepath.Join(dir, "latchy.v"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "read_verilog latchy.v; synth -top latchy; select -assert-none " + latchCells
	if out, err := runTool(t, dir, nil, "yosys", "-q", "-p", script); err == nil {
		t.Errorf("yosys found no latch in latchy.v:\n%s", out)
	}
	out, err := runTool(t, dir, nil, "verilator", "--lint-only", "-Wall", "--top-module", "latchy", "latchy.v")
	if err == nil || !strings.Contains(out, "spare") {
		t.Errorf("verilator -Wall did not report the unused input spare: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.v"), []byte("module broken (input wire a;\nendmodule\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := runTool(t, dir, nil, "iverilog", "-g2005", "-o", os.DevNull, "broken.v"); err == nil {
		t.Errorf("iverilog accepted a syntax error:\n%s", out)
	}
}

// A parameter with a range narrower than its width is checked when the
// design is elaborated: in range, Verilator, Icarus and Yosys take it; out
// of range, even past the parameter's width (5000 would be 904 in 13
// bits), each of them stops. A child module's parameter, set through its
// parent's, is checked in both.
func TestParameterRangeStopsElaboration(t *testing.T) {
	t.Parallel()
	child := NewModule("hdlgen_prange_child", "A child that reads the parameter.")
	n := child.Param("NUM_CONN", 13, 4096, "connections in use").Limit(2, 4096, "the table's depth")
	ca := child.Input("a", 13, "")
	child.Assign(child.Output("y", 1, ""), ca.Expr.Lt(n.Expr))
	child.Assign(child.Output("low", 4, "the parameter's low bits, a part-select"), n.Expr.Slice(3, 0))
	top := NewModule("hdlgen_prange", "A parent passing its parameter down.")
	a := top.Input("a", 13, "")
	in := top.Instantiate("u_child", child).PassParams().In("a", a)
	top.Assign(top.Output("y", 1, ""), in.Out("y").And(a.Expr.Ne(in.Param("NUM_CONN").Expr)))
	top.Assign(top.Output("low", 4, ""), in.Out("low"))
	d, err := Elaborate(top)
	if err != nil {
		t.Fatal(err)
	}
	dir := writeDesign(t, Emit(d, EmitOptions{}))
	files := []string{child.Name() + ".v", top.Name() + ".v"}
	for _, c := range []struct {
		value string
		ok    bool
	}{{"", true}, {"2", true}, {"4096", true}, {"1", false}, {"4097", false}, {"5000", false}} {
		v := []string{"verilator", "--lint-only", "-Wall", "--top-module", top.Name()}
		iv := []string{"iverilog", "-g2005", "-Wall", "-o", filepath.Join(dir, "sim.out"), "-s", top.Name()}
		ys := "read_verilog " + strings.Join(files, " ") + "; "
		if c.value != "" {
			v = append(v, "-GNUM_CONN="+c.value)
			iv = append(iv, "-P"+top.Name()+".NUM_CONN="+c.value)
			ys += "chparam -set NUM_CONN " + c.value + " " + top.Name() + "; "
		}
		ys += "hierarchy -check -top " + top.Name() + "; proc"
		for _, args := range [][]string{append(v, files...), append(iv, files...), {"yosys", "-q", "-p", ys}} {
			out, err := runTool(t, dir, nil, args[0], args[1:]...)
			if c.ok && (err != nil || strings.TrimSpace(out) != "") {
				t.Errorf("NUM_CONN %q: %s: %v\n%s", c.value, args[0], err, lastLines(out, 10))
			}
			if !c.ok && (err == nil || !strings.Contains(out, "nicgen_parameter_NUM_CONN_out_of_range_2_to_4096")) {
				t.Errorf("NUM_CONN %s: %s did not stop: %v\n%s", c.value, args[0], err, lastLines(out, 10))
			}
		}
	}
}
