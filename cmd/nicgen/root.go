package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/eda"
	"github.com/nicgen/nicgen/hdlgen"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "nicgen",
		Short: "Generate and verify NIC congestion-control and load-balancing hardware",
		Long: `nicgen generates synthesizable Verilog for NIC datapath blocks (REPS, SMaRTT, ...)
from a Go DSL, proves it equal cycle by cycle to hand-written golden models under
Verilator, and reports the per-connection state budget of every block.`,
		Example:       "  nicgen generate && nicgen budget\n  nicgen config show -c docs/examples/400g.hcl",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       hdlgen.Version,
	}
	root.CompletionOptions.DisableDefaultCmd = true // ours has an example and exit statuses
	// Bad flags are usage errors (exit status 2) in every command.
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageErr("%v", err)
	})
	root.AddCommand(newGenerateCmd(), newBudgetCmd(), newLintCmd(), newSynthCmd(), newEquivCmd(), newCampaignCmd(), newDiffCmd(),
		newVectorsCmd(), newScenarioCmd(), newConfigCmd(), newSimCmd(), newDocCmd(), newCompletionCmd(), newVersionCmd())
	registerBlockCompletion(root)
	// an unknown command is a usage error too (cobra's legacyArgs would
	// make it a plain error, exit status 1)
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf("; did you mean %q?", s[0])
			}
			return usageErr("%s (commands: nicgen help)", msg)
		}
		return nil
	}
	root.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() == "help" {
			c.Example = "  nicgen help generate"
			// an unknown topic is a usage error (cobra's prints the
			// usage and exits 0)
			c.Run = nil
			c.RunE = func(_ *cobra.Command, args []string) error {
				target, rest, err := root.Find(args)
				if err != nil || target == nil || (len(rest) > 0 && target.HasSubCommands()) {
					return usageErr("unknown help topic %q (commands: nicgen help)", strings.Join(args, " "))
				}
				return target.Help()
			}
		}
	}
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the nicgen version",
		Example: "  nicgen version",
		Args:    noArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "nicgen "+hdlgen.Version)
		},
	}
}

// registerBlockCompletion completes BLOCK arguments with the blocks of the
// -c configuration (all blocks without one, or when it does not load), and
// the values of --target, --profile and --variant.
func registerBlockCompletion(root *cobra.Command) {
	complete := func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		if f := cmd.Flags().Lookup("config"); f != nil && f.Value.String() != "" {
			if r, err := config.LoadFile(f.Value.String()); err == nil {
				return r.Blocks, cobra.ShellCompDirectiveNoFileComp
			}
		}
		return blocks.Names(), cobra.ShellCompDirectiveNoFileComp
	}
	values := func(v ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return v, cobra.ShellCompDirectiveNoFileComp
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		switch c.Name() {
		case "equiv", "synth", "sim", "doc", "vectors", "budget", "lint":
			c.ValidArgsFunction = complete
		}
		for flag, vals := range map[string][]string{
			"target":  {string(eda.Xilinx), string(eda.ICE40), string(eda.ECP5)},
			"profile": blockeq.ProfileNames(),
			"variant": {"nscc", "smartt", "uet_cc"},
		} {
			if c.Flags().Lookup(flag) != nil {
				c.RegisterFlagCompletionFunc(flag, values(vals...))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
