package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/golden/netsim/isolation"
)

func newIsolationCmd() *cobra.Command {
	def := isolation.DefaultConfig()
	var ccs, attacks string
	var pl plotFlags
	var asJSON bool
	cfg := def
	cmd := &cobra.Command{
		Use:   "isolation",
		Short: "S3's performance-isolation attacks (Table 3.2): a victim and an attacker on one bottleneck",
		Long: `isolation runs S3 Section 3.5's attacks: one victim host with one long-lived
QP and one attacker host share one bottleneck egress (a FIFO that marks ECN
at 20%-80% of a BDP and stamps HPCC's INT). The attacker opens one long-lived
QP (none, the reference), K long-lived QPs to one destination (parallel), a
new QP of one BDP every base RTT (staggered), or the same to the next of D
destinations in turn (shuffled).

Each window control runs with state per connection (each QP its own, opened
at one BDP) and per src/dst (the QPs of a source host and destination share
one state and window, which lives while the pair has an open QP); smartt and
nscc are the blocks' fixed-point golden models on their 800 Gb/s network,
swift and hpcc golden/snyder's float64 references on the thesis's 100 Gb/s
network, and 1rc is s-PERC with 1RC and weights (the sperc_link and
onerc_switch golden models at the bottleneck, onerc_host at each sender).
It prints, per attack, the victim's share of the bottleneck over the
window, the FCT slowdown of a victim message and the verdict (vulnerable
below --vulnerable-below), with S3 Table 3.2's verdict beside it (* where
they differ), and for 1rc how often onerc_host's resume point was exact
and how many packets it sent again. docs/sim.md explains the choices.
The same flags print the same bytes.`,
		Example: "  nicgen scenario isolation\n" +
			"  nicgen scenario isolation --cc swift,1rc --attack parallel,staggered\n" +
			"  nicgen scenario isolation --svg build/isolation.svg --json",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := pl.check(); err != nil {
				return err
			}
			var err error
			if cfg.Controls, err = isolation.ParseControls(ccs); err != nil {
				return usageErr("--cc %q: %v", ccs, err)
			}
			if cfg.Attacks, err = isolation.ParseAttacks(attacks); err != nil {
				return usageErr("--attack %q: %v", attacks, err)
			}
			if err := cfg.Validate(); err != nil {
				return usageErr("%v", err)
			}
			res, err := isolation.Run(cfg)
			if err != nil {
				return fmt.Errorf("isolation: %w", err)
			}
			w := cmd.OutOrStdout()
			var plots []string
			if pl.any() {
				if plots, err = writePlots(pl, res.Plots()); err != nil {
					return fmt.Errorf("isolation: %w", err)
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
	f.StringVar(&ccs, "cc", joinControls(def.Controls), "controls to run, comma-separated: smartt, nscc, swift, hpcc, 1rc")
	f.StringVar(&attacks, "attack", joinAttacks(def.Attacks), "attacks to run, comma-separated: none, parallel, staggered, shuffled")
	f.IntVar(&cfg.Parallel, "parallel", def.Parallel, "K, the attacker's QPs in the parallel attack")
	f.IntVar(&cfg.Destinations, "destinations", def.Destinations, "D, the destinations the shuffled overlay rotates among")
	f.IntVar(&cfg.WarmupRTTs, "warmup", def.WarmupRTTs, "base RTTs before the measurement window")
	f.IntVar(&cfg.WindowRTTs, "window", def.WindowRTTs, "base RTTs of the measurement window")
	f.Float64Var(&cfg.MessageBDPs, "message", def.MessageBDPs, "the victim's message for the FCT slowdown, in BDPs")
	f.Float64Var(&cfg.VulnerableBelow, "vulnerable-below", def.VulnerableBelow, "an attack is vulnerable when the victim's share is below this (0.5 is fair)")
	f.Uint64Var(&cfg.Seed, "seed", def.Seed, "seed of the ECN marking draws")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	pl.add(cmd, "draw bar charts of the victim's share and slowdown to PREFIX-share.EXT and PREFIX-slowdown.EXT (atomically)")
	return cmd
}

func joinControls(cs []isolation.Control) string {
	ss := make([]string, len(cs))
	for i, c := range cs {
		ss[i] = string(c)
	}
	return strings.Join(ss, ",")
}

func joinAttacks(as []isolation.Attack) string {
	ss := make([]string, len(as))
	for i, a := range as {
		ss[i] = string(a)
	}
	return strings.Join(ss, ",")
}
