package main

import (
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks/scenario"
	"github.com/nicgen/nicgen/golden/netsim/hotspot"
)

func newHotspotCmd() *cobra.Command {
	var path string
	var pl plotFlags
	var o hotspotFlags
	def := hotspot.Default(hotspot.SRP)
	cmd := &cobra.Command{
		Use:   "hotspot",
		Short: "S2's hot spot: SRP against the ECN baseline and no congestion control",
		Long: `hotspot runs S2's hot-spot experiment (golden/netsim/hotspot) on a two-level
tree of 10 Gb/s channels: hot-spot senders send 8-packet messages without
pause to one host while the other hosts (the victims) send uniform random
traffic through the same switches. It runs five networks with the same seed:
the hot spot without congestion control, with ECN (ecn_ipd at the sources)
and with SRP (srp_tx, srp_rx, srp_ttw), and the victims alone without
congestion control and with SRP; then it checks S2's three claims (victim
latency near zero-load under SRP, the hot spot at 1/(1+eps) of its link,
small messages not slowed) with the margins it prints.

The blocks run as their golden models; the same runs with the Verilated
blocks in the loop are a test of verilator-harness/blockeq. The protocol's
parameters (n_min, n_max, epsilon, TTW and its mode, the ECN IPD+, IPD-, t-
and ceiling, widths) come from the configuration's srp_tx, srp_rx, srp_ttw
and ecn_ipd blocks; the network is S2's (2048-bit packets, 26 ns routers,
32 ns channels, 16-packet buffers per VC), so tau_p is 204.8 ns whatever the
configuration's network section says. --svg PREFIX (or --png PREFIX) draws
the hot spot's throughput, the victims' throughput and their latency over
time to PREFIX-throughput.svg, PREFIX-victims.svg and PREFIX-latency.svg.`,
		Example: "  nicgen scenario hotspot\n" +
			"  nicgen scenario hotspot --senders 20 --load 0.6 --svg build/hotspot\n" +
			"  nicgen scenario hotspot -c docs/examples/100g.hcl --check",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := pl.check(); err != nil {
				return err
			}
			r, err := loadConfig(path)
			if err != nil {
				return err
			}
			if _, err := selectBlocks(r, []string{"srp_tx", "srp_rx", "srp_ttw", "ecn_ipd"}); err != nil {
				return err
			}
			proto, err := scenario.NewHotspotProtocol(r.Config)
			if err != nil {
				return err
			}
			if err := o.check(); err != nil {
				return err
			}
			cfg := def
			cfg.HotspotSenders, cfg.VictimLoad, cfg.Seed = o.senders, o.load, o.seed
			cfg.Leaves, cfg.HostsPerLeaf, cfg.Spines = o.leaves, o.hosts, o.spines
			cfg.HotspotPackets, cfg.VictimPackets, cfg.SmallPackets, cfg.SmallShare = o.message, o.victimMsg, o.small, o.share
			cfg.DurationNs, cfg.WarmupNs, cfg.BinNs = 1000*o.durationUs, 1000*o.warmupUs, 1000*o.binUs
			// the configuration's protocol, in tables sized for the network
			proto.Apply(&cfg)
			if err := cfg.Validate(); err != nil {
				return usageErr("%v", err)
			}
			st, err := hotspot.RunStudy(cfg, hotspot.GoldenModels)
			if err != nil {
				return usageErr("%v", err)
			}
			w := cmd.OutOrStdout()
			var svgs []string
			if pl.any() {
				title := fmt.Sprintf("%d:1 hot spot, %d victims at %.0f%% load, %v Gb/s (%s)", cfg.HotspotSenders, st.Runs[0].Victims, 100*cfg.VictimLoad, cfg.LinkGbps, r.Config.Name)
				if svgs, err = writePlots(pl, hotspot.Plots(st.Runs, title)); err != nil {
					return fmt.Errorf("hotspot: %w", err)
				}
			}
			if o.asJSON {
				if err := writeJSON(w, st); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(w, "S2 hot spot: %d hosts (%d leaves of %d, %d spines), %d:1 hot spot of %d-packet messages, victims at %.0f%% load; %.0f us, statistics after %.0f us; seed %d (%s)\n\n",
					cfg.Hosts(), cfg.Leaves, cfg.HostsPerLeaf, cfg.Spines, cfg.HotspotSenders, cfg.HotspotPackets, 100*cfg.VictimLoad, o.durationUs, o.warmupUs, cfg.Seed, r.Config.Name)
				if err := hotspot.WriteTable(w, st.Runs); err != nil {
					return err
				}
				fmt.Fprintln(w)
				if err := st.WriteClaims(w); err != nil {
					return err
				}
				for _, f := range svgs {
					fmt.Fprintf(w, "plot -> %s\n", f)
				}
			}
			if o.mustHold && !st.Holds() {
				return fmt.Errorf("hotspot: a claim of S2 does not hold")
			}
			return nil
		},
	}
	addConfigFlag(cmd, &path)
	f := cmd.Flags()
	f.IntVar(&o.senders, "senders", def.HotspotSenders, "hot-spot senders (S2: 40 of 256 hosts)")
	f.Float64Var(&o.load, "load", def.VictimLoad, "victims' offered load, a share of their link")
	f.IntVar(&o.leaves, "leaves", def.Leaves, "first-level switches")
	f.IntVar(&o.hosts, "hosts-per-leaf", def.HostsPerLeaf, "hosts under each leaf")
	f.IntVar(&o.spines, "spines", def.Spines, "second-level switches (one up-link from every leaf to each)")
	f.IntVar(&o.message, "message", def.HotspotPackets, "packets of a hot-spot message (S2: 8)")
	f.IntVar(&o.victimMsg, "victim-message", def.VictimPackets, "packets of a victim message")
	f.IntVar(&o.small, "small", def.SmallPackets, "packets of a small victim message (below n_min)")
	f.Float64Var(&o.share, "small-share", def.SmallShare, "share of the victims' messages that are small")
	f.Float64Var(&o.durationUs, "duration", def.DurationNs/1000, "simulated time, µs")
	f.Float64Var(&o.warmupUs, "warmup", def.WarmupNs/1000, "statistics start here, µs")
	f.Float64Var(&o.binUs, "bin", def.BinNs/1000, "width of a plotted time bin, µs")
	f.Uint64Var(&o.seed, "seed", def.Seed, "seed of the senders' draw, the victims' traffic and the up-port choices")
	pl.add(cmd, "draw three plots to PREFIX-throughput.EXT, PREFIX-victims.EXT, PREFIX-latency.EXT (atomically)")
	f.BoolVar(&o.asJSON, "json", false, "print the runs and the claims as JSON")
	f.BoolVar(&o.mustHold, "check", false, "exit 1 when a claim does not hold")
	return cmd
}

type hotspotFlags struct {
	senders, leaves, hosts, spines, message, victimMsg, small int
	load, share, durationUs, warmupUs, binUs                  float64
	seed                                                      uint64
	asJSON, mustHold                                          bool
}

// check names the flag of a value the run cannot take.
func (o *hotspotFlags) check() error {
	hosts := o.leaves * o.hosts
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	for _, c := range []struct {
		flag string
		v    int
	}{{"--leaves", o.leaves}, {"--hosts-per-leaf", o.hosts}, {"--spines", o.spines}, {"--message", o.message}, {"--victim-message", o.victimMsg}, {"--small", o.small}} {
		if c.v < 1 || c.v > 65535 {
			return usageErr("%s %d: want 1..65535", c.flag, c.v)
		}
	}
	switch {
	case hosts < 3 || hosts > 1024:
		return usageErr("--leaves %d x --hosts-per-leaf %d = %d hosts: want 3..1024", o.leaves, o.hosts, hosts)
	case o.senders < 1 || o.senders > hosts-1:
		return usageErr("--senders %d: want 1..%d (the hosts but the hot spot)", o.senders, hosts-1)
	case hosts-1-o.senders == 1 && o.load > 0:
		return usageErr("--senders %d leaves one victim, with no destination but itself: want at most %d, or --load 0", o.senders, hosts-3)
	case !finite(o.load) || o.load < 0 || o.load > 1:
		return usageErr("--load %g: want 0..1 of the link rate", o.load)
	case !finite(o.share) || o.share < 0 || o.share > 1:
		return usageErr("--small-share %g: want 0..1", o.share)
	case !finite(o.durationUs) || o.durationUs <= 0 || o.durationUs > 1e6:
		return usageErr("--duration %g: want more than 0 and at most 1e6 µs", o.durationUs)
	case !finite(o.warmupUs) || o.warmupUs < 0 || o.warmupUs >= o.durationUs:
		return usageErr("--warmup %g: want 0 or more and below --duration %g", o.warmupUs, o.durationUs)
	case !finite(o.binUs) || o.binUs <= 0 || o.durationUs/o.binUs > 1e5:
		return usageErr("--bin %g: want more than 0 and at most 100000 bins in --duration %g", o.binUs, o.durationUs)
	}
	return nil
}
