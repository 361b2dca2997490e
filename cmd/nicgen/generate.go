package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/eda"
)

func newGenerateCmd() *cobra.Command {
	var outDir, constraintsDir string
	var names []string
	var locators, check bool
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Write the Verilog of every configured block",
		Long: `generate elaborates every block of the configuration, runs the hdlgen checks and
writes one Verilog-2005 file per module and a .f file list per block under the
output folder. With --check it also lints every block with Verilator -Wall and
Icarus and synthesizes it with Yosys, failing on any warning or latch.`,
		Example: "  nicgen generate\n  nicgen generate -o build/rtl --blocks reps --check",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := blocks.DefaultConfig()
			gens, err := generateBlocks(cfg, names, locators)
			if err != nil {
				return err
			}
			if check {
				for _, g := range gens {
					if err := checkGenerated(cmd.Context(), g); err != nil {
						return err
					}
					fmt.Fprintf(cmd.OutOrStdout(), "%-10s lint clean (verilator -Wall, iverilog), no latches (yosys)\n", g.block.Name)
				}
			}
			written, err := writeFiles(outputFiles(cfg, gens, outDir, constraintsDir))
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d files under %s and %s\n", len(written), outDir, constraintsDir)
			return nil
		},
	}
	cmd.Flags().StringVarP(&outDir, "out", "o", "verilog-out", "output folder")
	cmd.Flags().StringVar(&constraintsDir, "constraints", "constraints", "folder for the XDC and SDC timing constraints")
	cmd.Flags().StringSliceVar(&names, "blocks", nil, fmt.Sprintf("blocks to generate (default all: %v)", blocks.Names()))
	cmd.Flags().BoolVar(&locators, "locators", false, "append // @[file.go:line] source locators")
	cmd.Flags().BoolVar(&check, "check", false, "lint and synthesize every block before writing")
	return cmd
}

func checkGenerated(ctx context.Context, g generated) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := eda.Lint(ctx, g.top, g.files); err != nil {
		return err
	}
	_, err := eda.Synth(ctx, g.top, g.files, eda.Xilinx)
	return err
}
