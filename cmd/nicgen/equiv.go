package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func newEquivCmd() *cobra.Command {
	var cycles int64
	var seed uint64
	var waves, path string
	cmd := &cobra.Command{
		Use:   "equiv BLOCK",
		Short: "Prove a block equal to its golden model under Verilator, cycle by cycle",
		Long: `equiv builds the Verilated model of a block (cached), drives it and the block's
golden model with the same random stimulus (event mix with connection locality,
random valid and ready) and compares every output on every cycle. A mismatch
prints the cycle, the events around it and both sides, writes a waveform of that
window to --waves, names the seed that reproduces it, and exits with status 1.`,
		Example: "  nicgen equiv reps --cycles 10000000 --seed 7\n  nicgen equiv nscc -c docs/examples/100g-12us.hcl",
		Args:    oneArg("BLOCK"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := loadConfig(path)
			if err != nil {
				return err
			}
			if _, err := selectBlocks(r, args); err != nil {
				return err
			}
			bench, err := blockeq.NewBench(r.Config, args[0], seed)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			tty := isTerminal(os.Stdout)
			last := time.Now()
			opts := harness.RunOptions{
				Cycles: cycles, Label: fmt.Sprintf("%s seed %d", args[0], seed), WaveDir: waves,
				Progress: func(done, total int64) {
					if time.Since(last) < time.Second && done < total {
						return
					}
					last = time.Now()
					if tty {
						fmt.Fprintf(out, "\r%s: %d / %d cycles (%.0f%%)", args[0], done, total, 100*float64(done)/float64(total))
					} else {
						fmt.Fprintf(out, "%s: %d / %d cycles\n", args[0], done, total)
					}
				},
			}
			rep, err := bench.Run(cmd.Context(), harness.BuildOptions{}, opts)
			if tty {
				fmt.Fprintln(out)
			}
			if err != nil {
				cfgArg := ""
				if path != "" {
					cfgArg = " -c " + path
				}
				return fmt.Errorf("%w\nreproduce with: nicgen equiv %s%s --seed %d --cycles %d", err, args[0], cfgArg, seed, cycles)
			}
			fmt.Fprintf(out, "%s: equivalent to the golden model\n%v\ncoverage (from the golden model):\n%s", args[0], rep, bench.Coverage)
			if miss := bench.Coverage.Missing(); len(miss) > 0 {
				return fmt.Errorf("the run never reached: %v (run more cycles)", miss)
			}
			return nil
		},
	}
	cmd.Flags().Int64Var(&cycles, "cycles", 1_000_000, "cycles to run")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "stimulus seed")
	addConfigFlag(cmd, &path)
	cmd.Flags().StringVar(&waves, "waves", os.TempDir(), "folder for the waveform of a mismatch window")
	return cmd
}
