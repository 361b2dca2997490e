package main

import "github.com/spf13/cobra"

// noArgs is cobra.NoArgs as a usage error (exit status 2).
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErr("%s takes no arguments, got %q", cmd.CommandPath(), args)
	}
	return nil
}

// oneArg is cobra.ExactArgs(1) as a usage error that names the argument.
func oneArg(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usageErr("%s takes one %s, got %d arguments %q", cmd.CommandPath(), what, len(args), args)
		}
		return nil
	}
}
