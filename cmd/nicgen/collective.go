package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/golden/netsim/collective"
)

func newCollectiveCmd() *cobra.Command {
	st := collective.DefaultStudy()
	var initiators []uint
	var controls string
	var pl plotFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "collective",
		Short: "3CPO's all-reduce (S3 chapter 6): no CC, Table 6.1's windows and 3CPO at each initiator count",
		Long: `collective runs S3 chapter 6's all-reduce, cycle by cycle: GPUs of one
multicast group behind one switch (16 B flits, 9-flit data packets, one flit
per cycle per link, 150-cycle switches on 3-hop paths, 180-cycle memory,
output-queued ports with request and response VCs). Each initiator does
--transactions read reductions, each followed by its write multicast, under
no congestion control, the static window of S3 Table 6.1 for the initiator
count, and 3CPO: the irl_tokens and wm_ctrl golden models (the blocks'
exact models) gate every request, a probe per initiator drives wm_ctrl, and
multicast matching charges each send the flits of the other senders'
requests.

It prints, per initiator count and control, the effective bandwidth (the
thesis's maximum is 2; the bound beside it counts the 1-flit requests and
acks), the packet latency (average, 99th percentile, maximum), and for 3CPO
the spacing of each initiator's writes against N x 10 cycles and the
watermarks' range. docs/sim.md explains the choices. --max-cost sets
irl_tokens's max_cost, which also bounds how much of the matched tokens an
initiator owes one send pays (docs/blocks/3cpo.md, "The gap to the
hand-tuned window"). The same flags print the same bytes.`,
		Example: "  nicgen scenario collective\n" +
			"  nicgen scenario collective --initiators 64,8 --control window,3cpo\n" +
			"  nicgen scenario collective --gpus 16 --transactions 32 --svg build/collective --json",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := pl.check(); err != nil {
				return err
			}
			st.Initiators = st.Initiators[:0]
			for _, n := range initiators {
				if n < 1 || int(n) > st.Base.GPUs {
					return usageErr("--initiators %d: want 1..%d (--gpus)", n, st.Base.GPUs)
				}
				st.Initiators = append(st.Initiators, int(n))
			}
			if len(st.Initiators) == 0 {
				return usageErr("--initiators: give at least one count")
			}
			st.Controls = nil
			for _, s := range strings.Split(controls, ",") {
				c, err := collective.ParseControl(strings.TrimSpace(s))
				if err != nil {
					return usageErr("--control %q: %v", controls, err)
				}
				st.Controls = append(st.Controls, c)
			}
			st.Base.IRLPorts = max(st.Base.IRLPorts, 2*st.Base.GPUs)
			for _, n := range st.Initiators {
				c := st.Base
				c.Initiators = n
				if err := c.Validate(); err != nil {
					return usageErr("%v", err)
				}
			}
			res, err := st.Run()
			if err != nil {
				return fmt.Errorf("collective: %w", err)
			}
			w := cmd.OutOrStdout()
			var plots []string
			if pl.any() {
				if plots, err = writePlots(pl, res.Plots()); err != nil {
					return fmt.Errorf("collective: %w", err)
				}
			}
			if asJSON {
				return writeJSON(w, res)
			}
			if err := res.WriteTable(w); err != nil {
				return err
			}
			for _, p := range plots {
				fmt.Fprintf(w, "plot -> %s\n", p)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&st.Base.GPUs, "gpus", st.Base.GPUs, "GPUs in the multicast group (up to 1024)")
	f.UintSliceVar(&initiators, "initiators", []uint{64, 32, 16, 8, 4, 2, 1}, "initiator counts to run, comma-separated")
	f.IntVar(&st.Base.Transactions, "transactions", st.Base.Transactions, "transactions per initiator (a read reduction and its write multicast)")
	f.StringVar(&controls, "control", "none,window,3cpo", "controls to run, comma-separated: none, window, 3cpo")
	f.IntVar(&st.Base.Window, "window", 0, "the static window per operation type (0: S3 Table 6.1's for the initiator count)")
	f.IntVar(&st.Base.Hops, "hops", st.Base.Hops, "switches on a path (latency only; 3: the thesis's two-level tree)")
	f.IntVar(&st.Base.BufferFlits, "buffer", st.Base.BufferFlits, "flits of each output port's request VC")
	f.Int32Var(&st.Base.IRL.MaxCost, "max-cost", st.Base.IRL.MaxCost, "irl_tokens's max_cost: the most tokens one send takes, its own flits and the matched tokens it pays (the rest waits for the next send)")
	f.BoolVar(&asJSON, "json", false, "print the runs as JSON")
	pl.add(cmd, "draw PREFIX-bandwidth.EXT, PREFIX-latency.EXT and PREFIX-watermark.EXT (atomically)")
	return cmd
}
