// Package eda runs the open-source EDA tools on generated Verilog: Verilator
// lint, Icarus parsing and Yosys synthesis with its reports.
package eda

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// Files is a block's Verilog, by file name.
type Files map[string][]byte

// stage writes the files into a fresh temporary folder and returns its path
// and the sorted file names, relative to it: the tools run there, so that
// their messages cite the generated file's own name (irl_tokens.v:1582),
// not a temporary folder that is gone when the message is read.
func stage(files Files) (string, []string, error) {
	dir, err := os.MkdirTemp("", "nicgen-eda-")
	if err != nil {
		return "", nil, err
	}
	var paths []string
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			os.RemoveAll(dir)
			return "", nil, err
		}
		paths = append(paths, name)
	}
	sort.Strings(paths)
	return dir, paths, nil
}

func run(ctx context.Context, dir, tool string, args ...string) (string, error) {
	if _, err := exec.LookPath(tool); err != nil {
		return "", fmt.Errorf("%s is not installed (run scripts/setup.sh): %w", tool, err)
	}
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = orphanless()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// Lint runs verilator --lint-only -Wall (no waivers) and iverilog -g2005 on
// a top module and its submodules. Any warning is a failure.
func Lint(ctx context.Context, top string, files Files) error {
	dir, paths, err := stage(files)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	args := append([]string{"--lint-only", "-Wall", "--top-module", top}, paths...)
	if out, err := run(ctx, dir, "verilator", args...); err != nil || strings.Contains(out, "%Warning") {
		return fmt.Errorf("verilator lint of %s:\n%s", top, out)
	}
	args = append([]string{"-g2005", "-Wall", "-o", filepath.Join(dir, "a.vvp"), "-s", top}, paths...)
	if out, err := run(ctx, dir, "iverilog", args...); err != nil || strings.TrimSpace(out) != "" {
		return fmt.Errorf("iverilog of %s:\n%s", top, out)
	}
	return nil
}

// NoLatches elaborates a top in Yosys (hierarchy, process lowering,
// flattening) and fails if any latch is inferred, or if Yosys's netlist
// check finds a combinational loop, a wire with two drivers or an
// undriven wire. Latches come only from process lowering: the coarse
// synthesis after it (optimisation, memory and arithmetic inference),
// which takes six times as long on the larger blocks, finds no others,
// and nicgen synth runs the whole synthesis.
func NoLatches(ctx context.Context, top string, files Files) error {
	dir, paths, err := stage(files)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	quoted := make([]string, len(paths))
	for i, p := range paths {
		quoted[i] = strconv.Quote(p)
	}
	list := filepath.Join(dir, "latches.txt")
	script := fmt.Sprintf("read_verilog %s; hierarchy -check -top %s; proc; flatten; opt_clean; check -assert; tee -q -o %s select -list t:$dlatch t:$adlatch t:$dlatchsr t:$sr t:$_DLATCH_* t:$_DLATCHSR_* t:$_SR_*",
		strings.Join(quoted, " "), top, list)
	if out, err := run(ctx, dir, "yosys", "-q", "-p", script); err != nil {
		return fmt.Errorf("yosys on %s: %v\n%s", top, err, out)
	}
	b, err := os.ReadFile(list)
	if err != nil {
		return err
	}
	if cells := strings.Fields(string(b)); len(cells) > 0 {
		return fmt.Errorf("yosys inferred %d latches in %s: %s", len(cells), top, strings.Join(cells, " "))
	}
	return nil
}

// Target is a synthesis flow.
type Target string

const (
	Xilinx Target = "xilinx"
	ICE40  Target = "ice40"
)

// SynthReport is what Yosys says of a block.
type SynthReport struct {
	Top      string
	Target   Target
	Cells    map[string]int // cell type -> count
	LUTs     int
	FFs      int
	Carry    int
	DSPs     int
	BRAMs    int
	Latches  int
	LongPath int // longest topological path in cells (Yosys ltp), a proxy for logic depth
	// LUTLevels (xilinx): the most LUTs between two registers, block RAMs
	// or DSPs, carry chains and MUXF7/8 passed through: the logic depth
	LUTLevels int
}

var cellLine = regexp.MustCompile(`^\s+(\S+)\s+(\d+)$`)
var ltpLine = regexp.MustCompile(`Longest topological path in \S+ \(length=(\d+)\)`)

// Synth synthesizes a top with Yosys and fails if any latch is inferred.
func Synth(ctx context.Context, top string, files Files, target Target) (SynthReport, error) {
	r := SynthReport{Top: top, Target: target, Cells: map[string]int{}}
	dir, paths, err := stage(files)
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	var synth string
	switch target {
	case Xilinx:
		synth = "synth_xilinx -top " + top + " -flatten"
	case ICE40:
		synth = "synth_ice40 -top " + top
	default:
		return r, fmt.Errorf("unknown synthesis target %q (xilinx or ice40)", target)
	}
	quoted := make([]string, len(paths))
	for i, p := range paths {
		quoted[i] = strconv.Quote(p)
	}
	script := fmt.Sprintf("read_verilog %s; %s; tee -o %s/stat.txt stat; select -list t:$dlatch t:$_DLATCH_* t:LD* t:LDCE t:LDPE t:$sr; tee -o %s/ltp.txt ltp -noff; write_json %s/netlist.json",
		strings.Join(quoted, " "), synth, dir, dir, dir)
	if out, err := run(ctx, dir, "yosys", "-q", "-p", script); err != nil {
		return r, fmt.Errorf("yosys on %s: %v\n%s", top, err, out)
	}
	stat, err := os.ReadFile(filepath.Join(dir, "stat.txt"))
	if err != nil {
		return r, err
	}
	inCells := false
	for _, line := range strings.Split(string(stat), "\n") {
		if strings.Contains(line, "Number of cells") {
			inCells = true
			continue
		}
		if m := cellLine.FindStringSubmatch(line); inCells && m != nil {
			n, _ := strconv.Atoi(m[2])
			r.Cells[m[1]] = n
		}
	}
	for cell, n := range r.Cells {
		switch {
		case strings.HasPrefix(cell, "LUT"), strings.HasPrefix(cell, "SB_LUT"):
			r.LUTs += n
		case strings.HasPrefix(cell, "FD"), strings.HasPrefix(cell, "SB_DFF"):
			r.FFs += n
		case strings.HasPrefix(cell, "CARRY"), cell == "SB_CARRY":
			r.Carry += n
		case strings.HasPrefix(cell, "DSP"), strings.HasPrefix(cell, "SB_MAC"):
			r.DSPs += n
		case strings.HasPrefix(cell, "RAMB"), strings.HasPrefix(cell, "SB_RAM"):
			r.BRAMs += n
		case strings.Contains(cell, "DLATCH"), strings.HasPrefix(cell, "LD"), cell == "$sr":
			r.Latches += n
		}
	}
	if ltp, err := os.ReadFile(filepath.Join(dir, "ltp.txt")); err == nil {
		if m := ltpLine.FindStringSubmatch(string(ltp)); m != nil {
			r.LongPath, _ = strconv.Atoi(m[1])
		}
	}
	if target == Xilinx {
		b, err := os.ReadFile(filepath.Join(dir, "netlist.json"))
		if err != nil {
			return r, err
		}
		if r.LUTLevels, err = lutLevels(b, top); err != nil {
			return r, err
		}
	}
	if r.Latches > 0 {
		return r, fmt.Errorf("yosys inferred %d latches in %s", r.Latches, top)
	}
	return r, nil
}

// lutLevels is the logic depth of a Yosys JSON netlist: the most LUTs on
// a path between sequential elements (flip-flops, block RAMs, DSPs,
// ports). Carry chains and wide multiplexers (CARRY4, MUXF7/8) are passed
// through without counting as a level.
func lutLevels(netlist []byte, top string) (int, error) {
	var nl struct {
		Modules map[string]struct {
			Cells map[string]struct {
				Type        string            `json:"type"`
				PortDirs    map[string]string `json:"port_directions"`
				Connections map[string][]any  `json:"connections"`
			} `json:"cells"`
		} `json:"modules"`
	}
	if err := json.Unmarshal(netlist, &nl); err != nil {
		return 0, err
	}
	mod, ok := nl.Modules[top]
	if !ok {
		return 0, fmt.Errorf("no module %s in the netlist", top)
	}
	comb := func(t string) (bool, int) {
		switch {
		case strings.HasPrefix(t, "LUT"):
			return true, 1
		case strings.HasPrefix(t, "CARRY"), strings.HasPrefix(t, "MUXF"), t == "INV", t == "BUFG":
			return true, 0
		}
		return false, 0
	}
	type cell struct {
		weight int
		ins    []float64 // bit ids
	}
	driver := map[float64]string{}
	cells := map[string]cell{}
	for name, c := range mod.Cells {
		isComb, w := comb(c.Type)
		if !isComb {
			continue
		}
		var ins []float64
		for port, bits := range c.Connections {
			for _, b := range bits {
				id, isNum := b.(float64)
				if !isNum {
					continue // a constant
				}
				if c.PortDirs[port] == "output" {
					driver[id] = name
				} else {
					ins = append(ins, id)
				}
			}
		}
		cells[name] = cell{weight: w, ins: ins}
	}
	depth := map[string]int{}
	var visit func(name string, guard int) int
	visit = func(name string, guard int) int {
		if d, ok := depth[name]; ok {
			return d
		}
		if guard > len(cells) {
			return 0 // a combinational loop: the loops pass reports it
		}
		c := cells[name]
		d := 0
		for _, b := range c.ins {
			if drv, ok := driver[b]; ok {
				d = max(d, visit(drv, guard+1))
			}
		}
		depth[name] = d + c.weight
		return d + c.weight
	}
	most := 0
	for name := range cells {
		most = max(most, visit(name, 0))
	}
	return most, nil
}

// orphanless makes a tool die with nicgen (Linux's parent-death signal):
// a nicgen stopped by a signal leaves no place and route running.
func orphanless() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
