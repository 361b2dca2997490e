package hdlgen

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// simulate compiles a combinational module with Verilator and evaluates it
// on every input vector: one value per input port, in declaration order.
// It returns one value per output port for each vector. The harness main
// is derived from the port list, so a module and its test never disagree
// on names or order. The emitted Verilog is also linted with -Wall.
func simulate(t *testing.T, top *Module, vectors [][]uint64) [][]uint64 {
	t.Helper()
	if top.HasClock() {
		t.Fatalf("simulate: %s has state; this harness evaluates combinational modules only", top.Name())
	}
	d, err := Elaborate(top)
	if err != nil {
		t.Fatalf("%s does not elaborate:\n%v", top.Name(), err)
	}
	dir := writeDesign(t, Emit(d, EmitOptions{Locators: true, Command: "hdlgen simulate"}))
	files := moduleFiles(top)
	verilatorLint(t, dir, top.Name(), files)
	iverilogParse(t, dir, top.Name(), files)

	var ins, outs []*Signal
	for _, p := range top.Ports() {
		if p.Width() > 64 {
			t.Fatalf("simulate: port %s is %d bits; the harness passes at most 64", p.Name(), p.Width())
		}
		if p.IsInput() {
			ins = append(ins, p)
		} else {
			outs = append(outs, p)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "main.cpp"), []byte(harnessMain(ins, outs)), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--cc", "--exe", "--build", "-j", "2", "--prefix", "Vdut", "--top-module", top.Name(),
		"-Mdir", "obj", "-o", "sim",
		// the harness runs for milliseconds: compile fast rather than well
		"-MAKEFLAGS", "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0"}
	args = append(args, files...)
	args = append(args, "main.cpp")
	if out, err := runTool(t, dir, nil, "verilator", args...); err != nil {
		t.Fatalf("verilator --build: %v\n%s", err, lastLines(out, 40))
	}

	var stdin strings.Builder
	for i, v := range vectors {
		if len(v) != len(ins) {
			t.Fatalf("vector %d has %d values for %d inputs", i, len(v), len(ins))
		}
		for j, x := range v {
			if x&^mask(ins[j].Width()) != 0 {
				t.Fatalf("vector %d: %#x does not fit in %d-bit input %s", i, x, ins[j].Width(), ins[j].Name())
			}
			if j > 0 {
				stdin.WriteByte(' ')
			}
			stdin.WriteString(strconv.FormatUint(x, 16))
		}
		stdin.WriteByte('\n')
	}
	out, err := runTool(t, dir, []byte(stdin.String()), filepath.Join(dir, "obj", "sim"))
	if err != nil {
		t.Fatalf("running the Verilated model: %v\n%s", err, lastLines(out, 20))
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != len(vectors) {
		t.Fatalf("the model printed %d lines for %d vectors:\n%s", len(lines), len(vectors), lastLines(out, 10))
	}
	results := make([][]uint64, len(lines))
	for i, l := range lines {
		fields := strings.Fields(l)
		if len(fields) != len(outs) {
			t.Fatalf("line %d of the model's output has %d values for %d outputs: %q", i, len(fields), len(outs), l)
		}
		results[i] = make([]uint64, len(outs))
		for j, f := range fields {
			v, err := strconv.ParseUint(f, 16, 64)
			if err != nil {
				t.Fatalf("line %d: %v", i, err)
			}
			results[i][j] = v
		}
	}
	return results
}

// harnessMain is a C++ main that reads one line of hexadecimal input values
// per evaluation and prints the output values in hexadecimal.
func harnessMain(ins, outs []*Signal) string {
	var b strings.Builder
	b.WriteString(`#include <cinttypes>
#include <cstdio>
#include "Vdut.h"
#include "verilated.h"

int main(int argc, char** argv) {
    VerilatedContext ctx;
    ctx.commandArgs(argc, argv);
    Vdut dut{&ctx};
`)
	fmt.Fprintf(&b, "    uint64_t in[%d];\n", max(len(ins), 1))
	b.WriteString("    for (;;) {\n")
	fmt.Fprintf(&b, "        for (int i = 0; i < %d; i++) {\n", len(ins))
	b.WriteString("            if (std::scanf(\"%\" SCNx64, &in[i]) != 1) {\n                dut.final();\n                return 0;\n            }\n        }\n")
	for i, p := range ins {
		fmt.Fprintf(&b, "        dut.%s = in[%d];\n", p.Name(), i)
	}
	b.WriteString("        dut.eval();\n        std::printf(\"")
	for i := range outs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("%\" PRIx64 \"")
	}
	b.WriteString("\\n\"")
	for _, p := range outs {
		fmt.Fprintf(&b, ", (uint64_t)dut.%s", p.Name())
	}
	b.WriteString(");\n    }\n}\n")
	return b.String()
}
