package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/config"
	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/rates"
	"github.com/nicgen/nicgen/golden/smartt"
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
			bp, err := block.ParamsOf[bsmartt.Params](r.Config, "nscc")
			if err != nil {
				return err
			}
			if slots == 0 {
				slots = max(bp.MergeSlots, 12)
			}
			if slots < 2 || slots > 32 {
				return usageErr("--slots %d: want 2..32", slots)
			}
			// the merging configuration of nscc: merged ACKs (and NACKs)
			// of up to 32 KiB
			mp := bp
			mp.MergeSlots, mp.MergeAcks, mp.MergeNacks = slots, true, true
			mp.SizeW = max(mp.SizeW, 16)
			depth, err := bsmartt.DepthFor(mp)
			if err != nil {
				return err
			}
			gp := mp.Golden()
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "nscc, %d slots, depth %d, clock %g MHz, messages of %s\n", slots, depth, clockMHz, size)
			fmt.Fprintln(out, "trace                  ACKs  results  merged  ACKs/result  compared  mean diff  p99 diff  max diff  input waits")
			for _, tr := range []struct {
				name    string
				senders int
				allCE   bool
			}{{"one connection", 1, false}, {"one connection, CE", 1, true}, {"8:1 incast", 8, false}, {"64:1 incast", 64, false}} {
				// CE: every ACK marked, with an RTT of at least two
				// target RTTs (a marked ACK at the base RTT is nscc's
				// no-op, S1 Algorithm 1)
				trtt := uint32(2 * gp.Derive().TrttNs)
				evs, err := rates.RecordIncast(gp, tr.senders, msg)
				if err != nil {
					return err
				}
				arrive := make([]int64, len(evs))
				for i := range evs {
					if tr.allCE && evs[i].Kind == smartt.KindAck {
						evs[i].ECN, evs[i].RTT = true, max(evs[i].RTT, trtt)
					}
					arrive[i] = int64(float64(evs[i].Now-evs[0].Now) * clockMHz / 1000)
				}
				d, err := smartt.MeasureMergeDivergence(gp, depth, slots, mp.MergeNacks, evs, arrive)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "%-20s %6d  %7d  %6d  %11.2f  %8d  %8.2f%%  %7.2f%%  %7.2f%%  %12d\n", tr.name, d.Events, d.Results, d.Merged,
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
