package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/cmd/nicgen/internal/eda"
)

func newLintCmd() *cobra.Command {
	var path string
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
			for _, g := range gens {
				if err := eda.Lint(cmd.Context(), g.top, g.files); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%-10s clean: verilator --lint-only -Wall (no waivers), iverilog -g2005\n", g.block.Name)
			}
			return nil
		},
	}
	addConfigFlag(cmd, &path)
	return cmd
}

func newSynthCmd() *cobra.Command {
	var target, path string
	cmd := &cobra.Command{
		Use:     "synth BLOCK",
		Short:   "Synthesize a block with Yosys and report LUT, FF, carry, DSP, BRAM and the longest path",
		Example: "  nicgen synth reps\n  nicgen synth reps_conf --target ice40\n  nicgen synth nscc -c docs/examples/400g.hcl",
		Args:    oneArg("BLOCK"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := loadConfig(path)
			if err != nil {
				return err
			}
			gens, err := generateBlocks(r, args, false)
			if err != nil {
				return err
			}
			g := gens[0]
			rep, err := eda.Synth(cmd.Context(), g.top, g.files, eda.Target(target))
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s (%s): LUT %d, FF %d, carry %d, DSP %d, BRAM %d, latches %d, longest path %d cells\n",
				g.block.Name, target, rep.LUTs, rep.FFs, rep.Carry, rep.DSPs, rep.BRAMs, rep.Latches, rep.LongPath)
			return nil
		},
	}
	addConfigFlag(cmd, &path)
	cmd.Flags().StringVar(&target, "target", "xilinx", fmt.Sprintf("synthesis flow: %s or %s", eda.Xilinx, eda.ICE40))
	return cmd
}
