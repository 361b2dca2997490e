package main

import (
	"github.com/spf13/cobra"
)

func newCompletionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `completion prints the script that completes nicgen's commands, flags and
block names in a shell. Load it for the current shell, or install it where
the shell looks for completions.`,
		Example: "  source <(nicgen completion bash)\n" +
			"  nicgen completion zsh > \"${fpath[1]}/_nicgen\"\n" +
			"  nicgen completion fish > ~/.config/fish/completions/nicgen.fish",
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args:      oneArg("shell"),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, w := cmd.Root(), cmd.OutOrStdout()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(w, true)
			case "zsh":
				return root.GenZshCompletion(w)
			case "fish":
				return root.GenFishCompletion(w, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(w)
			}
			return usageErr("completion: unknown shell %q (bash, zsh, fish or powershell)", args[0])
		},
	}
}
