package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/eda"
)

func newGenerateCmd() *cobra.Command {
	var dirs outDirs
	var names []string
	var locators, check, asJSON bool
	var path string
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Write the Verilog, file lists, FuseSoC cores, constraints and datasheets of every configured block",
		Long: `generate elaborates every block of the configuration, runs the hdlgen checks and
writes one Verilog-2005 file per module, a .f file list and a FuseSoC core
(.core) per block under the output folder, XDC and SDC timing constraints for
the configured clock, and a Markdown datasheet per block. With --check it also
lints every block with Verilator -Wall and Icarus and elaborates it in Yosys
(processes lowered, hierarchy flattened, the netlist checked), failing on any
warning, latch, combinational loop or wire with two drivers, one block per
core; nicgen synth synthesizes it for a device.

Nothing is written half: everything is generated in memory, then every file
is written to a temporary file beside its target and, only once all of them
are written, renamed onto its target. A bad configuration, a failing block,
a read-only folder or a full disk leaves the previous outputs as they were.
A lock (.nicgen.lock in the output folder) keeps two runs on one folder
from interleaving.

Without -o the outputs are the repository's verilog-out, constraints and
docs/datasheets; with -o DIR everything goes under DIR (DIR/<block>,
DIR/constraints, DIR/datasheets) unless --constraints or --datasheets say
otherwise. The paths in a block's .f list are the files' paths as given on
the command line, so the list works from the folder generate ran in.

It records what it wrote in .nicgen.files in the Verilog folder, and removes
the files an earlier generate there wrote and this one no longer does (a
control wrapper switched off, a block left out of the configuration); with
--blocks, only those blocks' files. A file generate never wrote stays.`,
		Example: "  nicgen generate\n  nicgen generate -o build/rtl --blocks reps --check\n  nicgen generate -c docs/examples/400g.hcl -o build/400g",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := loadConfig(path)
			if err != nil {
				return err
			}
			gens, err := generateBlocks(r, names, locators)
			if err != nil {
				return err
			}
			files, owner, err := ownedOutputFiles(r, gens, dirs)
			if err != nil {
				return err
			}
			type checkOut struct {
				Block     string `json:"block"`
				LintClean bool   `json:"lint_clean"`
				Latches   int    `json:"latches"`
			}
			var checks []checkOut
			if check {
				// the blocks are checked side by side, one per core, and
				// reported in order; the first failure in that order is
				// the error
				errs := checkAll(cmd.Context(), gens, func(g generated) {
					fmt.Fprintf(cmd.ErrOrStderr(), "%s: lint (Verilator, Icarus) and netlist check (Yosys)...\n", g.block.Name)
				})
				for i, g := range gens {
					if errs[i] != nil {
						return errs[i]
					}
					checks = append(checks, checkOut{Block: g.block.Name, LintClean: true})
					if !asJSON {
						fmt.Fprintf(cmd.OutOrStdout(), "%-10s lint clean (verilator -Wall, iverilog), no latch, loop or second driver (yosys)\n", g.block.Name)
					}
				}
			}
			written, err := writeOwnedFiles(files, owner, len(names) == 0, dirs.verilog, dirs.all())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					Checks []checkOut `json:"checks,omitempty"`
					Files  []string   `json:"files"`
				}{checks, written})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d files under %s, %s and %s\n", len(written), dirs.verilog, dirs.constraints, dirs.datasheets)
			return nil
		},
	}
	addOutDirFlags(cmd, &dirs)
	addConfigFlag(cmd, &path)
	cmd.Flags().StringSliceVar(&names, "blocks", nil, fmt.Sprintf("blocks to generate (default: every block of the configuration; blocks: %v)", blocks.Names()))
	cmd.Flags().BoolVar(&locators, "locators", false, "append // @[file.go:line] source locators")
	cmd.Flags().BoolVar(&check, "check", false, "lint every block and check it in Yosys before writing")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the checks and the files written as JSON")
	return cmd
}

// addOutDirFlags gives a command the output folders. Without -o they are
// the repository's verilog-out, constraints and docs/datasheets. With
// -o DIR, everything goes under DIR: the constraints to DIR/constraints and
// the datasheets to DIR/datasheets, unless their own flags say otherwise.
func addOutDirFlags(cmd *cobra.Command, dirs *outDirs) {
	cmd.Flags().StringVarP(&dirs.verilog, "out", "o", "verilog-out", "folder of the Verilog, .f lists and FuseSoC cores; with -o, the constraints and datasheets go under it too")
	cmd.Flags().StringVar(&dirs.constraints, "constraints", "constraints", "folder of the XDC and SDC timing constraints (default with -o DIR: DIR/constraints)")
	cmd.Flags().StringVar(&dirs.datasheets, "datasheets", "docs/datasheets", "folder of the Markdown datasheets (default with -o DIR: DIR/datasheets)")
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		f := c.Flags()
		if f.Changed("out") {
			if dirs.verilog == "" {
				return usageErr("-o: an empty folder name")
			}
			if !f.Changed("constraints") {
				dirs.constraints = filepath.Join(dirs.verilog, "constraints")
			}
			if !f.Changed("datasheets") {
				dirs.datasheets = filepath.Join(dirs.verilog, "datasheets")
			}
		}
		for _, d := range []struct{ flag, v string }{{"constraints", dirs.constraints}, {"datasheets", dirs.datasheets}} {
			if d.v == "" {
				return usageErr("--%s: an empty folder name", d.flag)
			}
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}

// checkAll runs checkGenerated on every block, runtime.NumCPU() at a
// time, calling start as each begins; errs[i] is gens[i]'s.
func checkAll(ctx context.Context, gens []generated, start func(generated)) []error {
	errs := make([]error, len(gens))
	sem := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	for i, g := range gens {
		wg.Add(1)
		sem <- struct{}{}
		start(g)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = checkGenerated(ctx, g)
		}()
	}
	wg.Wait()
	return errs
}

func checkGenerated(ctx context.Context, g generated) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := eda.Lint(ctx, g.top, g.files); err != nil {
		return err
	}
	return eda.NoLatches(ctx, g.top, g.files)
}
