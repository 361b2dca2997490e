package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/blocks/scenario"
	"github.com/nicgen/nicgen/golden/netsim"
)

// newMergeFidelityCmd is `nicgen scenario merge`: how far merged ACKs move
// nscc's windows from per-ACK ones, on recorded closed-loop traces.
func newMergeFidelityCmd() *cobra.Command {
	var path, size string
	var clockMHz float64
	var slots int
	cmd := &cobra.Command{
		Use:   "merge",
		Short: "How far merging ACKs moves nscc's windows from per-ACK ones",
		Long: `merge records the ACKs of closed-loop runs of the golden nscc senders on the
network model (one connection, and 8:1 and 64:1 incasts; the one connection
also with every ACK ECN-marked and its RTT raised to two target RTTs), lets each ACK arrive at the block at its
time on a clock of --clock-mhz, and runs the trace through the per-ACK model
and through the merging shell (docs/pipeline.md, "Merge stage"). It prints,
per trace, how many results the shell gave and how many events each stood
for, and the relative difference between each merged result's window and
the per-ACK window after the last ACK it stands for (mean, 99th percentile,
largest; results whose per-ACK window is above 8 MTU). The traces are
recorded without merging: this measures the merge alone, not a closed loop
through it.`,
		Example: "  nicgen scenario merge\n  nicgen scenario merge --clock-mhz 164 --slots 12",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			msg, r, err := replayArgs(size, clockMHz, path)
			if err != nil {
				return err
			}
			def, err := scenario.DefaultMergeSlots(r.Config)
			if err != nil {
				return err
			}
			if slots == 0 {
				slots = def
			}
			if slots < 2 || slots > 32 {
				return usageErr("--slots %d: want 2..32", slots)
			}
			m, err := scenario.NewMergeReplay(r.Config, slots)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "nscc, %d slots, depth %d, clock %g MHz, messages of %s\n", slots, m.Depth, clockMHz, size)
			fmt.Fprintln(out, "trace                  ACKs  results  merged  ACKs/result  compared  mean diff  p99 diff  max diff  input waits")
			for _, tr := range netsim.MergeTraces() {
				d, err := m.Measure(tr, msg, clockMHz)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "%-20s %6d  %7d  %6d  %11.2f  %8d  %8.2f%%  %7.2f%%  %7.2f%%  %12d\n", tr.Name, d.Events, d.Results, d.Merged,
					d.MeanMembers, d.Compared, 100*d.MeanRel, 100*d.P99Rel, 100*d.MaxRel, d.InputStalled)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&path, "config", "c", "", configFlagHelp)
	cmd.Flags().StringVar(&size, "size", "1MiB", "message size per sender")
	cmd.Flags().Float64Var(&clockMHz, "clock-mhz", 150, "the block's clock: an ACK at time t ns arrives in cycle t x clock")
	cmd.Flags().IntVar(&slots, "slots", 0, "merge slots (default: the configuration's nscc merge_slots, at least 12)")
	return cmd
}

// replayArgs reads the flags of a scenario that replays recorded traces
// at a clock: the message size, the clock, and the configuration.
func replayArgs(size string, clockMHz float64, path string) (int64, *config.Resolved, error) {
	msg, err := parseBytes(size)
	if err != nil {
		return 0, nil, usageErr("--size %q: %v", size, err)
	}
	if clockMHz <= 0 || clockMHz > 1000 {
		return 0, nil, usageErr("--clock-mhz %g: want a clock above 0 and at most 1000", clockMHz)
	}
	r, err := loadConfig(path)
	return msg, r, err
}
