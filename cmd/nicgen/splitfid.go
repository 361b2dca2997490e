package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks/block"
	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	buet "github.com/nicgen/nicgen/blocks/uet"
	"github.com/nicgen/nicgen/golden/netsim"
	guet "github.com/nicgen/nicgen/golden/uet"
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
			bp, err := block.ParamsOf[buet.Params](r.Config, "uet_cc")
			if err != nil {
				return err
			}
			if slots == 0 {
				slots = max(bp.CC.MergeSlots, 8)
			}
			if slots < 2 || slots > 32 {
				return usageErr("--slots %d: want 2..32", slots)
			}
			if bp.UseConf {
				return usageErr("the configuration's uet_cc uses reps_conf: the split engine is built with reps")
			}
			// the configuration's engine, split, its window path merging
			sp := bp
			sp.Split = true
			sp.CC.MergeSlots, sp.CC.MergeAcks, sp.CC.MergeNacks = slots, true, true
			sp.CC.SizeW = max(sp.CC.SizeW, 16)
			if sp.CC.Depth, err = bsmartt.DepthFor(sp.CC); err != nil {
				return err
			}
			if sp.Depth, err = buet.NeededDepth(sp); err != nil {
				return err
			}
			gp := sp.Golden()
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "uet_cc split: send path depth %d, window path %s depth %d with %d slots, clock %g MHz, messages of %s\n",
				sp.Depth, gp.CC.Variant, gp.Window.Depth, slots, clockMHz, size)
			shared := bp
			shared.Split = false
			if shared.Depth, err = buet.NeededDepth(shared); err != nil {
				return err
			}
			fmt.Fprintf(out, "shared engine (for its waits): one shell of depth %d\n", shared.Depth)
			fmt.Fprintln(out, "trace                        events   sends  waited  max wait  updates  events/update  may_send differs  mean diff  p99 diff  max diff  shared: waited  max wait")
			trtt := uint32(2 * gp.CC.Derive().TrttNs)
			one, err := recordUET(gp, 1, msg)
			if err != nil {
				return err
			}
			for _, tr := range []struct {
				name string
				evs  []guet.Event
			}{
				{"one connection", one},
				{"one connection, 16 KiB ACKs", coalesceACKs(one, 16<<10)},
				{"one connection, CE", markACKs(one, trtt)},
			} {
				arrive := make([]int64, len(tr.evs))
				for i := range tr.evs {
					arrive[i] = int64(float64(tr.evs[i].Now-tr.evs[0].Now) * clockMHz / 1000)
				}
				f, err := guet.MeasureSplit(gp, tr.evs, arrive)
				if err != nil {
					return fmt.Errorf("%s: %w", tr.name, err)
				}
				sw, smax, err := guet.SharedWaits(shared.Golden(), tr.evs, arrive)
				if err != nil {
					return fmt.Errorf("%s: %w", tr.name, err)
				}
				fmt.Fprintf(out, "%-27s %7d %7d %7d %9d %8d %14.2f %17d %9.2f%% %8.2f%% %8.2f%% %15d %9d\n", tr.name, f.Events, f.Sends, f.Waited, f.MaxWait,
					f.WindowUpdates, f.MeanMembers, f.MaySendDiffers, 100*f.MeanRel, 100*f.P99Rel, 100*f.MaxRel, sw, smax)
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

// uetRecorder records the events a uet_cc model steps.
type uetRecorder struct {
	m   netsim.UETStepper
	evs *[]guet.Event
}

func (r uetRecorder) Step(e guet.Event) guet.Result {
	*r.evs = append(*r.evs, e)
	return r.m.Step(e)
}

// recordUET is the event stream, in time order, of a closed-loop run of
// senders uet_cc golden engines (shared), each sending msg bytes to one
// receiver; sender i's events are its connection i's.
func recordUET(p guet.Params, senders int, msg int64) ([]guet.Event, error) {
	p.Window = guet.WindowPath{}
	ncfg := netsim.ConfigFor(p.CC)
	ncfg.Senders, ncfg.MessageBytes = senders, msg
	if err := ncfg.Validate(); err != nil {
		return nil, err
	}
	ctrls, engines, err := netsim.GoldenEngines(p, senders)
	if err != nil {
		return nil, err
	}
	var evs []guet.Event
	for i, e := range engines {
		e.M = uetRecorder{m: e.M, evs: &evs}
		ctrls[i] = e
	}
	if _, err := netsim.Run(ncfg, ctrls); err != nil {
		return nil, err
	}
	if _, err := netsim.EntropyTotals(engines); err != nil {
		return nil, err
	}
	return evs, nil
}

// coalesceACKs replaces a connection's unmarked ACKs, in runs broken by
// a marked ACK, a NACK, a timeout or an open (not by its sends), by ACKs
// of up to limit bytes, each at the place and with the RTT, entropy and
// time of its last member: a receiver that ACKs every limit bytes and a
// marked packet at once.
func coalesceACKs(evs []guet.Event, limit uint32) []guet.Event {
	var out []guet.Event
	pending := map[uint32]int{} // connection -> index in out of its open ACK
	for _, e := range evs {
		if e.Kind == guet.KindSend {
			out = append(out, e)
			continue
		}
		if e.Kind != guet.KindAck || e.ECN {
			delete(pending, e.Conn)
			out = append(out, e)
			continue
		}
		if i, ok := pending[e.Conn]; ok && out[i].Size+e.Size <= limit {
			size := out[i].Size + e.Size
			out = append(out[:i], out[i+1:]...) // the ACK goes out when its last member arrives
			for c, j := range pending {
				if j > i {
					pending[c] = j - 1
				}
			}
			e.Size = size
		}
		pending[e.Conn] = len(out)
		out = append(out, e)
	}
	return out
}

// markACKs marks every ACK and raises its RTT to at least rtt.
func markACKs(evs []guet.Event, rtt uint32) []guet.Event {
	out := append([]guet.Event(nil), evs...)
	for i := range out {
		if out[i].Kind == guet.KindAck {
			out[i].ECN, out[i].RTT = true, max(out[i].RTT, rtt)
		}
	}
	return out
}
