package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/eda"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/measured"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/rates"
)

// lintOut is one block's lint verdict (--json).
type lintOut struct {
	Block string   `json:"block"`
	Clean bool     `json:"clean"`
	Tools []string `json:"tools"`
}

// synthOut is a synthesis report (--json).
type synthOut struct {
	Block     string `json:"block"`
	Target    string `json:"target"`
	LUTs      int    `json:"luts"`
	FFs       int    `json:"ffs"`
	Carry     int    `json:"carry"`
	DSPs      int    `json:"dsps"`
	BRAMs     int    `json:"brams"`
	Latches   int    `json:"latches"`
	LUTLevels int    `json:"lut_levels,omitempty"` // xilinx
	LongPath  int    `json:"longest_path_cells,omitempty"`
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func newLintCmd() *cobra.Command {
	var path string
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "lint [block...]",
		Short:   "Lint generated blocks with verilator --lint-only -Wall and iverilog",
		Example: "  nicgen lint\n  nicgen lint reps\n  nicgen lint -c docs/examples/800g.hcl",
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := loadConfig(path)
			if err != nil {
				return err
			}
			gens, err := generateBlocks(r, args, false)
			if err != nil {
				return err
			}
			var outs []lintOut
			for _, g := range gens {
				if err := eda.Lint(cmd.Context(), g.top, g.files); err != nil {
					return err
				}
				outs = append(outs, lintOut{Block: g.block.Name, Clean: true, Tools: []string{"verilator --lint-only -Wall", "iverilog -g2005"}})
				if !asJSON {
					fmt.Fprintf(cmd.OutOrStdout(), "%-10s clean: verilator --lint-only -Wall (no waivers), iverilog -g2005\n", g.block.Name)
				}
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), outs)
			}
			return nil
		},
	}
	addConfigFlag(cmd, &path)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newSynthCmd() *cobra.Command {
	var target, path string
	var run ecp5Run
	cmd := &cobra.Command{
		Use:   "synth BLOCK",
		Short: "Synthesize a block (Yosys) and, for ECP5, place and route it (nextpnr-ecp5) and report Fmax",
		Long: `Synthesize a block with Yosys and report its cells.

--target ecp5 also places and routes the block on an LFE5U-85F, speed 8
(nextpnr-ecp5), inside a wrapper that registers every port, and reports
Fmax (the median over --seeds placer seeds), utilisation and the critical
path by signal names. It takes 1-5 minutes per seed for a wide block.
--target xilinx reports the logic depth: LUT levels between registers.`,
		Example: "  nicgen synth reps --target ecp5\n  nicgen synth reps_conf --target ice40\n  nicgen synth nscc -c docs/examples/400g.hcl",
		Args:    oneArg("BLOCK"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := loadConfig(path)
			if err != nil {
				return err
			}
			switch eda.Target(target) {
			case eda.Xilinx, eda.ICE40, eda.ECP5:
			default:
				return usageErr("--target %q: want %s, %s or %s", target, eda.Xilinx, eda.ICE40, eda.ECP5)
			}
			if eda.Target(target) != eda.ECP5 {
				for _, f := range []string{"record", "report", "first-seed"} {
					if cmd.Flags().Changed(f) {
						return usageErr("--%s: for --target ecp5 only", f)
					}
				}
			}
			gens, err := generateBlocks(r, args, false)
			if err != nil {
				return err
			}
			g := gens[0]
			if eda.Target(target) == eda.ECP5 {
				if run.freq == 0 {
					run.freq = r.Config.ClockMHz
				}
				return synthECP5(cmd, r.Config, g, run)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: synthesis with Yosys (%s)...\n", g.block.Name, target)
			rep, err := eda.Synth(cmd.Context(), g.top, g.files, eda.Target(target))
			if err != nil {
				return err
			}
			if run.asJSON {
				o := synthOut{Block: g.block.Name, Target: target, LUTs: rep.LUTs, FFs: rep.FFs, Carry: rep.Carry, DSPs: rep.DSPs, BRAMs: rep.BRAMs, Latches: rep.Latches}
				if eda.Target(target) == eda.Xilinx {
					o.LUTLevels = rep.LUTLevels
				} else {
					o.LongPath = rep.LongPath
				}
				return writeJSON(cmd.OutOrStdout(), o)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s (%s): LUT %d, FF %d, carry %d, DSP %d, BRAM %d, latches %d",
				g.block.Name, target, rep.LUTs, rep.FFs, rep.Carry, rep.DSPs, rep.BRAMs, rep.Latches)
			if eda.Target(target) == eda.Xilinx {
				fmt.Fprintf(cmd.OutOrStdout(), ", logic depth %d LUT levels between registers\n", rep.LUTLevels)
			} else {
				fmt.Fprintf(cmd.OutOrStdout(), ", longest path %d cells (Yosys ltp -noff)\n", rep.LongPath)
			}
			return nil
		},
	}
	addConfigFlag(cmd, &path)
	cmd.Flags().StringVar(&target, "target", "xilinx", fmt.Sprintf("synthesis flow: %s, %s or %s", eda.Xilinx, eda.ICE40, eda.ECP5))
	cmd.Flags().IntVar(&run.seeds, "seeds", 1, "ecp5: placer seeds (1, 2, ...); Fmax is their median")
	cmd.Flags().IntVar(&run.first, "first-seed", 1, "ecp5: the first placer seed (seeds first-seed .. first-seed+seeds-1; a campaign's array task runs one)")
	cmd.Flags().Float64Var(&run.freq, "freq", 0, "ecp5: the frequency nextpnr places for, MHz (default: hardware.clock_mhz)")
	cmd.Flags().StringVar(&run.keep, "keep", "", "ecp5: keep the files of the last seed's run in this folder")
	cmd.Flags().StringVar(&run.record, "record", "", "ecp5: write the result into this record (the datasheets quote "+measuredFile+" for the Verilog it was measured on)")
	cmd.Flags().StringVar(&run.report, "report", "", "ecp5: write the report as JSON to this file (a campaign's record: nicgen campaign merge)")
	cmd.Flags().BoolVar(&run.asJSON, "json", false, "print JSON (ecp5: the seeds' results on standard error as they come, the report as JSON at the end)")
	return cmd
}

// synthECP5 places and routes a block once per seed and prints Fmax (the
// median), utilisation and the critical path of the median run.
// ecp5Run is how synth --target ecp5 runs: its flags.
type ecp5Run struct {
	freq                 float64
	seeds, first         int
	keep, record, report string
	asJSON               bool
}

func synthECP5(cmd *cobra.Command, cfg blocks.Config, g generated, run ecp5Run) error {
	freq, seeds, keep, record, asJSON := run.freq, run.seeds, run.keep, run.record, run.asJSON
	if seeds < 1 {
		return usageErr("--seeds %d: at least 1", seeds)
	}
	if run.first < 1 {
		return usageErr("--first-seed %d: at least 1", run.first)
	}
	if run.report != "" {
		if err := checkWritable(run.report); err != nil {
			return usageErr("--report: %v", err)
		}
	}
	if record != "" {
		// a record that cannot be read or written fails now, not after
		// minutes of place and route
		if _, err := measured.Read(record); err != nil {
			return err
		}
		if err := checkWritable(record); err != nil {
			return err
		}
	}
	var ports []eda.Port
	for _, p := range g.design.Top.Ports() {
		ports = append(ports, eda.Port{Name: p.Name(), Width: p.Width(), Input: p.IsInput()})
	}
	var reps []eda.ECP5Report
	for s := run.first; s < run.first+seeds; s++ {
		o := eda.ECP5Options{FreqMHz: freq, Seed: s}
		if keep != "" && s == run.first+seeds-1 {
			o.KeepDir = keep
		}
		rep, err := eda.PlaceRouteECP5(cmd.Context(), g.top, ports, g.files, o)
		if err != nil {
			return err
		}
		seedOut := cmd.OutOrStdout()
		if asJSON {
			seedOut = cmd.ErrOrStderr()
		}
		fmt.Fprintf(seedOut, "%s (ecp5 LFE5U-85F speed 8, seed %d): Fmax %.1f MHz (%s %.0f MHz)\n",
			g.top, s, rep.FmaxMHz, passFail(rep.FmaxMHz >= freq), freq)
		reps = append(reps, rep)
	}
	perSeed := make([]float64, len(reps))
	for i, r := range reps {
		perSeed[i] = r.FmaxMHz
	}
	sort.Slice(reps, func(i, j int) bool { return reps[i].FmaxMHz < reps[j].FmaxMHz })
	med := reps[len(reps)/2]
	var util []string
	for _, cell := range []string{"TRELLIS_COMB", "TRELLIS_FF", "CCU2C", "MULT18X18D", "DP16KD", "TRELLIS_RAMW"} {
		if u, ok := med.Util[cell]; ok {
			util = append(util, fmt.Sprintf("%s %d/%d", cell, u[0], u[1]))
		}
	}
	out := cmd.OutOrStdout()
	lr, err := rates.MeasureLoads(cfg, g.block.Name)
	if err != nil {
		return err
	}
	f := med.FmaxMHz
	rec := measured.Record{Block: g.top, Digest: measured.Digest(g.files), FreqMHz: freq, Seeds: perSeed, Median: med.FmaxMHz,
		Uniform: lr.Uniform, Single: lr.Single, Critical: fmt.Sprintf("seed %d: %s", med.Seed, med.Summary())}
	if record != "" {
		if err := recordECP5(record, rec); err != nil {
			return err
		}
	}
	mhz := func(x float64) float64 { return math.Round(x*100) / 100 }
	seedsMHz := make([]float64, len(perSeed))
	for i, x := range perSeed {
		seedsMHz[i] = mhz(x)
	}
	o := ecp5Out{Top: g.top, Device: "LFE5U-85F speed 8", ConstraintMHz: freq, FirstSeed: run.first, SeedsMHz: seedsMHz, MedianMHz: mhz(f),
		MedianSeed: med.Seed, Critical: med.Summary(), Util: map[string]ecp5Use{},
		Events: ecp5Events{Uniform: lr.Uniform, Incast: lr.Incast, IncastConns: lr.IncastConns, Incast64: lr.Incast64, OneConnection: lr.Single},
		Record: record, Digest: rec.Digest}
	for cell, u := range med.Util {
		o.Util[cell] = ecp5Use{Used: u[0], Available: u[1]}
	}
	if run.report != "" {
		b, _ := json.MarshalIndent(o, "", "  ")
		if err := writeAtomic(run.report, append(b, '\n')); err != nil {
			return err
		}
	}
	if asJSON {
		return writeJSON(out, o)
	}
	fmt.Fprintf(out, "%s: median Fmax %.1f MHz over %d seed(s) at a %.0f MHz constraint\n", g.top, med.FmaxMHz, len(reps), freq)
	fmt.Fprintf(out, "utilisation: %s\n", strings.Join(util, ", "))
	fmt.Fprintf(out, "critical path (seed %d): %s\n", med.Seed, med.Summary())
	fmt.Fprintf(out, "events per clock (golden cycle model) and at Fmax: uniform over %d connections %.3f (%.1f Mevents/s), recorded %d:1 incast %.3f (%.1f Mevents/s), one connection %.3f (%.1f Mevents/s, one event every %.1f ns), recorded 64:1 incast %.3f (%.1f Mevents/s)\n",
		connections(cfg, g.block.Name), lr.Uniform, lr.Uniform*f, lr.IncastConns, lr.Incast, lr.Incast*f, lr.Single, lr.Single*f, 1000/(lr.Single*f), lr.Incast64, lr.Incast64*f)
	if record != "" {
		fmt.Fprintf(out, "recorded in %s (Verilog %s)\n", record, rec.Digest)
	}
	return nil
}

// ecp5Out is a place-and-route report (synth --target ecp5 --json).
type ecp5Out struct {
	Top           string             `json:"top"`
	Device        string             `json:"device"`
	ConstraintMHz float64            `json:"constraint_mhz"`
	FirstSeed     int                `json:"first_seed"`
	SeedsMHz      []float64          `json:"seeds_mhz"` // Fmax per placer seed, seeds first_seed, first_seed+1, ...
	MedianMHz     float64            `json:"median_mhz"`
	MedianSeed    int                `json:"median_seed"`
	Critical      string             `json:"critical_path"` // of the median seed
	Util          map[string]ecp5Use `json:"utilisation"`
	Events        ecp5Events         `json:"events_per_clock"` // golden cycle model
	Record        string             `json:"record,omitempty"`
	Digest        string             `json:"verilog_digest"`
}

type ecp5Use struct {
	Used      int `json:"used"`
	Available int `json:"available"`
}

type ecp5Events struct {
	Uniform       float64 `json:"uniform"`
	Incast        float64 `json:"recorded_incast"`
	IncastConns   int     `json:"recorded_incast_connections"`
	Incast64      float64 `json:"recorded_incast_64"`
	OneConnection float64 `json:"one_connection"`
}

func connections(cfg blocks.Config, name string) int {
	b, err := blocks.Lookup(name)
	if err != nil {
		return 0
	}
	n, _ := b.NumConn(cfg)
	return n
}

func passFail(ok bool) string {
	if ok {
		return "meets"
	}
	return "misses"
}
