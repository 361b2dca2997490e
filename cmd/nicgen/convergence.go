package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/golden/netsim/convergence"
)

func newConvergenceCmd() *cobra.Command {
	var flows int
	var staggerUs, durationUs, binUs, gbps float64
	var control string
	var pl plotFlags
	var asJSON bool
	def := convergence.Default()
	cmd := &cobra.Command{
		Use:   "convergence",
		Short: "S3's staggered incast: Swift and HPCC with and without Variable AI and Sampling Frequency",
		Long: `convergence runs the thesis's 16-1 staggered incast (S3 Section 3.3.4):
flows join one bottleneck at a fixed interval, each starting at one BDP, and
the run measures how long after the last join Jain's index of their rates
(over 50 us bins) reaches 0.95 for good, its mean over the first 500 us, the
utilisation and the queue, for Swift and HPCC, each plain, with Variable AI,
with Sampling Frequency and with both. hpcc and hpcc-block also run SF in
the other reading of A-38 (docs/blocks/hpcc.md): "sf+rtt" and "vai+sf+rtt"
keep the per-RTT reference move beside SF's period (the block's
sf_keeps_rtt_update), where "sf" and "vai+sf" let the period replace it
while congested (the default).

The controls "swift" and "hpcc" are the float64 references of golden/snyder;
"swift-block" is the swift block's bit-exact golden model in its default
arithmetic (docs/blocks/swift.md), which the equivalence tests prove equal
to the generated Verilog and which the Verilated block reproduces in this
scene run for run (TestSwiftConvergenceRTLInTheLoop); "hpcc-block" is the
hpcc block's golden model in the same way (docs/blocks/hpcc.md). --control
all runs the four, both the two references.`,
		Example: "  nicgen scenario convergence\n  nicgen scenario convergence --control swift-block\n  nicgen scenario convergence --control swift --flows 32 --stagger 10",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := pl.check(); err != nil {
				return err
			}
			b := convergence.Scene(flows, 1000*staggerUs, 1000*durationUs, 1000*binUs, gbps)
			if flows < 2 || flows > 1024 {
				return usageErr("--flows %d: want 2..1024", flows)
			}
			if !(gbps > 0 && gbps <= 1e4) || !(staggerUs >= 0) || !(binUs > 0) || !(durationUs > 0 && durationUs <= 1e6) ||
				float64(flows-1)*staggerUs >= durationUs || durationUs/binUs > 1e5 {
				return usageErr("--gbps %g, --stagger %g, --duration %g, --bin %g: want a rate up to 10 Tb/s, every join before the end of at most 1 s, at most 100000 bins", gbps, staggerUs, durationUs, binUs)
			}
			rows, err := convergence.Run(b, control)
			if err != nil {
				return usageErr("%v", err)
			}
			if rows == nil {
				return usageErr("--control %q: want swift, swift-block, hpcc, hpcc-block, both (swift and hpcc) or all", control)
			}
			w := cmd.OutOrStdout()
			var plots []string
			if pl.any() {
				if plots, err = writePlots(pl, convergence.Plots(rows, b)); err != nil {
					return fmt.Errorf("convergence: %w", err)
				}
			}
			if asJSON {
				return writeJSON(w, rows)
			}
			fmt.Fprintf(w, "%d flows joining %g us apart at %g Gb/s, one BDP (%.1f packets of %d B) each, %g us; swift and hpcc: float64 references, swift-block and hpcc-block: the blocks' golden models (golden/snyder)\n",
				b.Flows, staggerUs, b.LinkGbps, b.InitCwnd, b.MTU, durationUs)
			fmt.Fprintf(w, "hpcc's SF in both readings of A-38: sf, vai+sf: SF's period replaces the per-RTT reference move while congested (the default); sf+rtt, vai+sf+rtt: the move kept beside it (sf_keeps_rtt_update)\n\n")
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "control\tmode\tJain >= 0.95 after (us)\tJain first 500 us\tJain last 10%\tutilisation\tqueue mean\tqueue max\t")
			for _, r := range rows {
				for _, x := range r.Runs {
					conv := "never"
					if x.ConvergeNs >= 0 {
						conv = fmt.Sprintf("%.0f", x.ConvergeNs/1000)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%.3f\t%.3f\t%.3f\t%.1f\t%d\t\n", r.Control, x.Mode, conv, x.JainEarly, x.JainLast, x.Utilisation, x.MeanQueue, x.MaxQueue)
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, f := range plots {
				fmt.Fprintf(w, "plot -> %s\n", f)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&flows, "flows", def.Flows, "flows sharing the bottleneck")
	f.Float64Var(&staggerUs, "stagger", def.StaggerNs/1000, "µs between two joins")
	f.Float64Var(&durationUs, "duration", def.DurationNs/1000, "simulated time, µs")
	f.Float64Var(&binUs, "bin", def.BinNs/1000, "µs per bin of Jain's index")
	f.Float64Var(&gbps, "gbps", def.LinkGbps, "link rate")
	f.StringVar(&control, "control", "all", "swift, swift-block, hpcc, hpcc-block, both (swift and hpcc) or all")
	f.BoolVar(&asJSON, "json", false, "print the runs as JSON")
	pl.add(cmd, "draw Jain's index over time to PREFIX-CONTROL.EXT per control (atomically)")
	return cmd
}
