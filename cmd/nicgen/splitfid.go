package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks/scenario"
)

// newSplitFidelityCmd is `nicgen scenario split`: uet_cc's split engine
// on recorded closed-loop traces, at a clock.
func newSplitFidelityCmd() *cobra.Command {
	var path, size string
	var clockMHz float64
	var slots int
	cmd := &cobra.Command{
		Use:   "split",
		Short: "uet_cc's split engine on recorded traces: input waits, and its windows against the shared engine's",
		Long: `split records the events (opens, sends, ACKs, NACKs) of closed-loop runs of
uet_cc golden engines on the network model, lets each event arrive at the
block at its time on a clock of --clock-mhz, and runs the trace through the
split engine's golden cycle model (docs/blocks/uet_cc.md, "Split send
path"), which nicgen equiv proves equal to the RTL, and through the shared
engine's per-event model. Traces: one connection at the link rate with an
ACK per packet; the same with each run of unmarked ACKs coalesced up to 16
KiB (a marked ACK goes alone, as a UEC receiver's ACK_Gen_Trigger does);
and the same with every ACK ECN-marked and its RTT raised to two target
RTTs. It prints, per trace,
the events that waited because the engine's input was not ready and the
longest wait, the window updates and the events each stood for, the sends
whose may_send differs from the shared engine's, and the relative
difference of the window each send saw (mean, 99th percentile, largest).
The traces are recorded through the shared engine: this measures the
split alone, not a closed loop through it.`,
		Example: "  nicgen scenario split\n  nicgen scenario split -c docs/examples/uet-split.hcl --clock-mhz 150",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			msg, r, err := replayArgs(size, clockMHz, path)
			if err != nil {
				return err
			}
			def, usesConf, err := scenario.SplitSlots(r.Config)
			if err != nil {
				return err
			}
			if slots == 0 {
				slots = def
			}
			if slots < 2 || slots > 32 {
				return usageErr("--slots %d: want 2..32", slots)
			}
			if usesConf {
				return usageErr("the configuration's uet_cc uses reps_conf: the split engine is built with reps")
			}
			sr, err := scenario.NewSplitReplay(r.Config, slots)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "uet_cc split: send path depth %d, window path %s depth %d with %d slots, clock %g MHz, messages of %s\n",
				sr.SendDepth, sr.WindowVariant, sr.WindowDepth, slots, clockMHz, size)
			fmt.Fprintf(out, "shared engine (for its waits): one shell of depth %d\n", sr.SharedDepth)
			fmt.Fprintln(out, "trace                        events   sends  waited  max wait  updates  events/update  may_send differs  mean diff  p99 diff  max diff  shared: waited  max wait")
			traces, err := sr.Traces(msg)
			if err != nil {
				return err
			}
			for _, tr := range traces {
				f, err := sr.Measure(tr, clockMHz)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "%-27s %7d %7d %7d %9d %8d %14.2f %17d %9.2f%% %8.2f%% %8.2f%% %15d %9d\n", tr.Name, f.Events, f.Sends, f.Waited, f.MaxWait,
					f.WindowUpdates, f.MeanMembers, f.MaySendDiffers, 100*f.MeanRel, 100*f.P99Rel, 100*f.MaxRel, f.SharedWaited, f.SharedMaxWait)
			}
			return nil
		},
	}
	addConfigFlag(cmd, &path)
	cmd.Flags().StringVar(&size, "size", "4MiB", "message of the connection")
	cmd.Flags().Float64Var(&clockMHz, "clock-mhz", 150, "the block's clock: an event at time t ns arrives in cycle t x clock")
	cmd.Flags().IntVar(&slots, "slots", 0, "the window path's merge slots (default: the configuration's nscc merge_slots, at least 8)")
	return cmd
}
