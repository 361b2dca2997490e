package eda

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/hdlgen"
)

// TestPlaceRouteECP5 places and routes a small reps_conf (16 connections)
// on the ECP5 with the real Yosys and nextpnr-ecp5: the flow runs, reports
// an Fmax and a critical path by signal names, and maps the state table to
// DP16KD block RAMs with their output register (the NICGEN_ECP5 branch).
// The wide default blocks take minutes each: they are measured by make
// bench and nicgen synth, not here.
func TestPlaceRouteECP5(t *testing.T) {
	if _, err := NextpnrECP5(); err != nil {
		t.Fatalf("%v (make test installs it with scripts/setup.sh)", err)
	}
	cfg, err := config.Load("small.hcl", []byte(config.DefaultHead(map[string]uint64{"connections": 16, "conn_width": 4})+`block "reps_conf" {}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := blocks.Lookup("reps_conf")
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.Build(cfg.Config)
	if err != nil {
		t.Fatal(err)
	}
	d, err := hdlgen.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	files := Files{}
	for name, b := range hdlgen.Emit(d, hdlgen.EmitOptions{Command: "test"}) {
		files[name] = b
	}
	var ports []Port
	for _, s := range d.Top.Ports() {
		ports = append(ports, Port{Name: s.Name(), Width: s.Width(), Input: s.IsInput()})
	}
	keep := filepath.Join(t.TempDir(), "run")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	r, err := PlaceRouteECP5(ctx, d.Top.Name(), ports, files, ECP5Options{FreqMHz: 200, Seed: 1, KeepDir: keep})
	if err != nil {
		t.Fatal(err)
	}
	if r.FmaxMHz <= 0 || len(r.Path) == 0 || !strings.Contains(r.Summary(), " -> ") {
		t.Fatalf("no Fmax or critical path: %+v", r)
	}
	if u := r.Util["DP16KD"]; u[0] < 1 {
		t.Errorf("the state table is not in block RAM: %v", r.Util)
	}
	netlist, err := os.ReadFile(filepath.Join(keep, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(netlist), `"REGMODE_B": "OUTREG"`) {
		t.Errorf("no DP16KD with its output register in the netlist")
	}
	t.Logf("reps_conf, 16 connections: Fmax %.1f MHz; %s", r.FmaxMHz, r.Summary())
}

// TestWrapperRegistersEveryPort checks the timing wrapper: every input bit
// comes from the shift chain and every output is folded into dout.
func TestWrapperRegistersEveryPort(t *testing.T) {
	w := wrapper("blk", []Port{{"clk", 1, true}, {"rst", 1, true}, {"a", 3, true}, {"b", 1, true}, {"y", 2, false}, {"z", 1, false}})
	for _, want := range []string{
		"reg [4:0] chain;", "i_a <= chain[2:0];", "i_b <= chain[3:3];",
		"oreg <= {o_y, o_z};", "dout <= ^oreg;", "blk u_dut (.clk(clk), .rst(rst), .a(i_a), .b(i_b), .y(o_y), .z(o_z));",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("wrapper lacks %q:\n%s", want, w)
		}
	}
}

// TestLUTLevels counts LUTs between registers on a hand-made netlist: a
// flip-flop, two LUTs, a carry cell, a LUT, a flip-flop (3 levels), beside
// a one-LUT path.
func TestLUTLevels(t *testing.T) {
	netlist := `{"modules": {"top": {"cells": {
	  "ff0": {"type": "FDRE", "port_directions": {"D": "input", "Q": "output"}, "connections": {"D": [9], "Q": [2]}},
	  "l1": {"type": "LUT2", "port_directions": {"I0": "input", "I1": "input", "O": "output"}, "connections": {"I0": [2], "I1": ["0"], "O": [3]}},
	  "l2": {"type": "LUT3", "port_directions": {"I0": "input", "O": "output"}, "connections": {"I0": [3], "O": [4]}},
	  "c": {"type": "CARRY4", "port_directions": {"DI": "input", "O": "output"}, "connections": {"DI": [4], "O": [5]}},
	  "l3": {"type": "LUT6", "port_directions": {"I0": "input", "O": "output"}, "connections": {"I0": [5], "O": [6]}},
	  "ff1": {"type": "FDRE", "port_directions": {"D": "input", "Q": "output"}, "connections": {"D": [6], "Q": [7]}},
	  "l4": {"type": "LUT1", "port_directions": {"I0": "input", "O": "output"}, "connections": {"I0": [7], "O": [9]}}
	}}}}`
	n, err := lutLevels([]byte(netlist), "top")
	if err != nil || n != 3 {
		t.Fatalf("lutLevels = %d, %v; want 3", n, err)
	}
}
