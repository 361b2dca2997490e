package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/golden/netsim/newflow"
)

func newNewflowCmd() *cobra.Command {
	c := newflow.Default()
	var weights []uint
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "newflow",
		Short: "1RC's headline: a new flow gets its fair share within one RTT, speculative drops in order",
		Long: `newflow plays S3 Section 5.2's scene with the golden models of the three 1RC
blocks: old flows of weight 1 share a link (sperc_link has settled at b = C /
old), and a new flow opens on a host that had --weight connections at the
epoch's start. Its first control packet joins the link (b per unit of
weight) and fills the port's window table (onerc_switch, rate_to_window(b));
onerc_host numbers its speculative packets, sent at line rate behind it, and
the port drops them from max(1, window / weight) on, in order. One RTT
later the host learns let_through, resumes from its first dropped packet
and paces the rest at b / weight.

It prints, per weight, b, the window, let_through, the resume point and the
rate, the new flow's delivered rate over its first RTT and the next, the
packets dropped and whether the receiver saw every packet once and in
order, and the first RTT of the same flow at a port without 1RC.
docs/blocks/onerc.md has the scene.`,
		Example: "  nicgen scenario newflow\n  nicgen scenario newflow --weight 1,2,4 --old 7\n  nicgen scenario newflow --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(weights) == 0 {
				return usageErr("--weight: give at least one weight")
			}
			var runs []*newflow.Comparison
			for _, w := range weights {
				if w < 1 || w > 255 {
					return usageErr("--weight %d: want 1..255 (onerc_host's 8-bit weights)", w)
				}
				run, err := newflow.Compare(c, uint64(w))
				if err != nil {
					return usageErr("%v", err)
				}
				runs = append(runs, run)
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(w, runs)
			}
			return writeNewflow(w, c, runs)
		},
	}
	f := cmd.Flags()
	f.UintSliceVar(&weights, "weight", []uint{1, 2}, "weights of the new flow (its host's connections at the epoch's start), comma-separated")
	f.IntVar(&c.Old, "old", c.Old, "flows already on the link")
	f.Float64Var(&c.LinkGbps, "link-gbps", c.LinkGbps, "the link's rate")
	f.IntVar(&c.MessagePackets, "packets", c.MessagePackets, "the new flow's message, packets")
	f.BoolVar(&asJSON, "json", false, "print the runs as JSON")
	return cmd
}

func writeNewflow(w io.Writer, c newflow.Config, runs []*newflow.Comparison) error {
	bw := &errWriter{w: w}
	bw.printf("%d flows on a %g Gb/s link of %d B packets, %g us each way, epochs of %g us; a new flow of %d packets joins at %g us\n",
		c.Old, c.LinkGbps, c.MTU, c.PropNs/1000, c.EpochNs/1000, c.MessagePackets, c.JoinNs/1000)
	for _, run := range runs {
		r := run.With
		bw.printf("\nweight %d (onerc_host: %d):\n", run.Weight, r.Weight)
		bw.printf("  sperc_link b     %.3f Gb/s per unit of weight\n", float64(r.B)/1000)
		bw.printf("  window           %d packets (rate_to_window(b))\n", r.Window)
		bw.printf("  let_through      %d (max(1, window / weight))\n", r.LetThrough)
		bw.printf("  resume           packet %d\n", r.Resume)
		bw.printf("  rate             %.3f Gb/s (b / weight)\n", r.FairGbps)
		bw.printf("  first RTT        %.1f Gb/s, next RTT %.1f Gb/s (without 1RC: %.1f in the first RTT)\n", r.FirstRTTGbps, r.SteadyGbps, run.Without.FirstRTTGbps)
		if len(r.Dropped) > 0 {
			bw.printf("  dropped          %d speculative packets, %d..%d, in order %v\n", len(r.Dropped), r.Dropped[0], r.Dropped[len(r.Dropped)-1], inSequence(r.Dropped))
		}
		bw.printf("  delivered        %d packets, each once and in order: %v\n", len(r.Delivered), r.InOrder)
	}
	return bw.err
}

func inSequence(xs []uint64) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i] != xs[i-1]+1 {
			return false
		}
	}
	return true
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
