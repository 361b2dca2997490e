package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/hdlgen"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "nicgen",
		Short: "Generate and verify NIC congestion-control and load-balancing hardware",
		Long: `nicgen generates synthesizable Verilog for NIC datapath blocks (REPS, SMaRTT, ...)
from a Go DSL, proves it equal cycle by cycle to hand-written golden models under
Verilator, and reports the per-connection state budget of every block.`,
		Example:       "  nicgen generate && nicgen budget",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       hdlgen.Version,
	}
	root.AddCommand(newGenerateCmd(), newBudgetCmd(), newLintCmd(), newSynthCmd(), newEquivCmd(), newDiffCmd(), newVectorsCmd(), newScenarioCmd(), newVersionCmd())
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the nicgen version",
		Example: "  nicgen version",
		Args:    cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "nicgen "+hdlgen.Version)
		},
	}
}
