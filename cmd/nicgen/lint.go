package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/eda"
)

func newLintCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "lint [block...]",
		Short:   "Lint generated blocks with verilator --lint-only -Wall and iverilog",
		Example: "  nicgen lint\n  nicgen lint reps",
		RunE: func(cmd *cobra.Command, args []string) error {
			gens, err := generateBlocks(blocks.DefaultConfig(), args, false)
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
}

func newSynthCmd() *cobra.Command {
	var target string
	cmd := &cobra.Command{
		Use:     "synth BLOCK",
		Short:   "Synthesize a block with Yosys and report LUT, FF, carry, DSP, BRAM and the longest path",
		Example: "  nicgen synth reps\n  nicgen synth reps_conf --target ice40",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			gens, err := generateBlocks(blocks.DefaultConfig(), args, false)
			if err != nil {
				return err
			}
			g := gens[0]
			r, err := eda.Synth(cmd.Context(), g.top, g.files, eda.Target(target))
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s (%s): LUT %d, FF %d, carry %d, DSP %d, BRAM %d, latches %d, longest path %d cells\n",
				g.block.Name, target, r.LUTs, r.FFs, r.Carry, r.DSPs, r.BRAMs, r.Latches, r.LongPath)
			return nil
		},
	}
	cmd.Flags().StringVar(&target, "target", "xilinx", fmt.Sprintf("synthesis flow: %s or %s", eda.Xilinx, eda.ICE40))
	return cmd
}
