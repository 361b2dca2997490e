package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks/scenario"
	"github.com/nicgen/nicgen/golden/netsim"
)

func newScenarioCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenario",
		Short: "Run the golden models in closed loop on a simulated network, as the papers' experiments",
		Long: `scenario runs the golden models of the blocks in small deterministic
discrete-event networks and prints what the papers plot: the SMaRTT and UEC
incast (completion time, fairness, queue, trims), SRP's hot spot, Swift's and
HPCC's convergence, 3CPO's collective and isolation attacks, 1RC's new flow;
merge and split measure the merging shell and uet_cc's split engine on
recorded traces. Each subcommand's help gives its flags and what it prints.`,
		Example: "  nicgen scenario incast --senders 8 --variant nscc --size 8MiB\n  nicgen scenario hotspot\n  nicgen scenario convergence --control both",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newIncastCmd(), newHotspotCmd(), newConvergenceCmd(), newNewflowCmd(), newIsolationCmd(), newCollectiveCmd(), newMergeFidelityCmd(), newSplitFidelityCmd())
	return cmd
}

func newIncastCmd() *cobra.Command {
	var senders int
	var variant, size, path string
	var pl plotFlags
	var seed uint64
	var float, asJSON bool
	var clockMHz float64
	cmd := &cobra.Command{
		Use:   "incast",
		Short: "N:1 incast through one bottleneck port",
		Long: `incast starts N senders at once, each sending one message to the same receiver
through one switch port at the link rate of the model's network (800 Gb/s,
4096 B MTU, 8.6 us base RTT). The port has a one-BDP queue with RED/ECN marking
at dequeue (20%/80%) and trims packets that would overflow it; trimmed headers,
ACKs and NACKs travel at high priority. Every sender runs its own golden model,
fixed point or (--float) the float64 reference.

With -c FILE the senders run the configuration's block (its network and
options) instead of the papers' setting.

It prints the completion time of the whole incast against the ideal (total
bytes at link rate), Jain's fairness index of the per-sender throughputs, the
peak queue, trims and ECN marks, and one line per sender. The same flags and
seed always print the same numbers. --svg FILE and --png FILE draw every
sender's window over time.`,
		Example: "  nicgen scenario incast --senders 8 --variant nscc --size 8MiB\n" +
			"  nicgen scenario incast --variant smartt --size 1MiB --svg build/incast.svg\n" +
			"  nicgen scenario incast --size 256KiB --float\n" +
			"  nicgen scenario incast --variant uet_cc --size 1MiB\n" +
			"  nicgen scenario incast -c docs/examples/400g.hcl --senders 16",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := pl.check(); err != nil {
				return err
			}
			engine := variant == "uet_cc"
			if !engine {
				if vs := scenario.WindowVariants(); !slices.Contains(vs, variant) {
					return usageErr("--variant %q: want %s or %s", variant, vs[0], vs[1])
				}
			} else if float {
				return usageErr("--float: uet_cc has no float64 reference (its parts' references are nscc's and smartt's)")
			}
			if clockMHz != 0 && !engine {
				return usageErr("--clock-mhz: only uet_cc, the engine a NIC drops in, runs at cycle level: add --variant uet_cc")
			}
			if clockMHz != 0 && !(clockMHz >= 1 && clockMHz <= 10000) {
				return usageErr("--clock-mhz %v: want 1..10000 MHz (0: every event applied at once)", clockMHz)
			}
			msg, err := parseBytes(size)
			if err != nil {
				return usageErr("--size %q: %v", size, err)
			}
			if senders < 1 {
				return usageErr("--senders %d: need at least one", senders)
			}
			r, err := loadConfig(path)
			if err != nil {
				return err
			}
			if _, err := selectBlocks(r, []string{variant}); err != nil {
				return err
			}
			in, err := scenario.NewIncast(r.Config, variant)
			if err != nil {
				return err
			}
			if senders > in.NumConn {
				return usageErr("--senders %d: the model has %d connections", senders, in.NumConn)
			}
			cfg := in.Net
			cfg.Senders = senders
			cfg.MessageBytes = msg
			cfg.Seed = seed
			cfg.RecordCwnd = pl.any()
			if err := cfg.Validate(); err != nil {
				return usageErr("%v", err)
			}
			// the simulation stops at 1 s of simulated time: refuse at
			// once what cannot finish by then even at line rate
			horizonNs := 1e9
			if cfg.MaxSimNs > 0 {
				horizonNs = float64(cfg.MaxSimNs)
			}
			if ideal := float64(senders) * float64(msg) * 8 / cfg.LinkGbps; ideal > horizonNs/2 {
				most := int64(horizonNs / 2 * cfg.LinkGbps / 8 / float64(senders))
				return usageErr("--size %q: %d senders of %s take at least %.0f ms at %v Gb/s, and the simulation stops at %.0f ms: want at most %s per sender", size, senders, netsim.FormatBytes(msg), ideal/1e6, cfg.LinkGbps, horizonNs/1e6, netsim.FormatBytes(most))
			}
			res, err := in.Run(cfg, float, clockMHz)
			if err != nil {
				return err
			}
			model := "fixed-point golden model"
			if float {
				model = "float64 reference model"
			}
			if clockMHz != 0 {
				model = fmt.Sprintf("golden cycle model at %v MHz", clockMHz)
			}
			w := cmd.OutOrStdout()
			var plots []string
			if pl.any() {
				title := fmt.Sprintf("%s %d:1 incast, %s per sender, %v Gb/s, base RTT %d ns, %s (%s)", in.Name, senders, netsim.FormatBytes(msg),
					in.LinkGbps, in.BaseRTTNs, r.Config.Name, model)
				if plots, err = writeChart(pl, netsim.CwndChart(res.Result, title)); err != nil {
					return fmt.Errorf("incast: %w", err)
				}
			}
			if asJSON {
				out := scenarioOut{Variant: variant, Model: model, NotModelled: res.NotModelled, Senders: senders, MessageBytes: msg,
					LinkGbps: in.LinkGbps, BaseRTTNs: int64(in.BaseRTTNs), CompletionUs: res.CompletionNs / 1000,
					IdealUs: res.IdealNs / 1000, FloorUs: res.FloorNs / 1000, Slowdown: res.Slowdown, Jain: res.Jain,
					PeakQueueBytes: res.PeakQueueBytes, PeakQueueBDP: res.PeakQueueBDP, Trims: res.Trims, Marks: res.Marks, SVG: pl.svg, PNG: pl.png,
					Entropies: res.Entropies, Engine: res.Engine}
				return writeJSON(w, out)
			}
			fmt.Fprintf(w, "%s (%s)\n", in.Name, model)
			if res.NotModelled != "" {
				fmt.Fprintf(w, "not modelled: the configuration's %s; every ACK is applied alone, when it arrives (--clock-mhz runs the engine at cycle level, merging and split send path included)\n", res.NotModelled)
			}
			if err := res.WriteSummary(w); err != nil {
				return err
			}
			if ents := res.Entropies; ents != nil {
				fmt.Fprintf(w, "entropies (reps in uet_cc): %d sends explored, %d recycled, %d distinct values\n", ents.Explored, ents.Recycled, ents.Distinct)
			}
			if eng := res.Engine; eng != nil {
				fmt.Fprintf(w, "engine       %s at %v MHz: feedback applied %.1f ns after arrival (mean; max %.1f), %d events in %d window updates; input FIFO at most %d events; a send's entropy out %.1f ns after its decision (max)\n",
					eng.Shell, eng.ClockMHz, eng.FeedbackMeanNs, eng.FeedbackMaxNs, eng.Feedback, eng.Updates, eng.MaxFIFO, eng.SendWaitMaxNs)
			}
			for _, f := range plots {
				fmt.Fprintf(w, "cwnd trajectories -> %s\n", f)
			}
			return nil
		},
	}
	addConfigFlag(cmd, &path)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON (times in µs)")
	cmd.Flags().IntVar(&senders, "senders", 8, "incast degree N")
	cmd.Flags().StringVar(&variant, "variant", "nscc", "congestion control: nscc (S1, UEC NSCC), smartt (S0), or uet_cc (the configuration's window controller and load balancer in one engine, which also chooses every packet's entropy)")
	cmd.Flags().StringVar(&size, "size", "8MiB", "message per sender: bytes, or a number with KiB, MiB, GiB, KB, MB, GB")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the RED marking and switch arbitration draws")
	pl.add(cmd, "draw every sender's cwnd over time to this EXT file (atomically)")
	cmd.Flags().BoolVar(&float, "float", false, "run the float64 reference models instead of the fixed-point ones")
	cmd.Flags().Float64Var(&clockMHz, "clock-mhz", 0, "with --variant uet_cc: run every sender's engine at cycle level at this clock (MHz), its golden cycle model in the loop (shell, merge slots, split send path); 0 applies every event at once")
	return cmd
}

// parseBytes reads a size such as 4096, 256KiB, 8MiB or 1MB.
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1},
	}
	const want = "want a whole number of bytes, or a number with KiB, MiB, GiB, KB, MB or GB (such as 8MiB or 1.5MiB)"
	num, mult := strings.TrimSpace(s), int64(1)
	for _, big := range []string{"TiB", "PiB", "EiB", "TB", "PB", "EB"} {
		if strings.HasSuffix(strings.ToLower(num), strings.ToLower(big)) {
			return 0, fmt.Errorf("larger than 1 TiB")
		}
	}
	for _, u := range units {
		if len(num) > len(u.suffix) && strings.EqualFold(num[len(num)-len(u.suffix):], u.suffix) {
			num, mult = strings.TrimSpace(num[:len(num)-len(u.suffix)]), u.mult
			break
		}
	}
	if n, err := strconv.ParseInt(num, 10, 64); err == nil {
		if n < 1 {
			return 0, fmt.Errorf("not positive: %s", want)
		}
		if n > (1<<40)/mult {
			return 0, fmt.Errorf("larger than 1 TiB")
		}
		return n * mult, nil
	}
	// a fraction of a unit, such as 1.5MiB: a whole number of bytes
	f, err := strconv.ParseFloat(num, 64)
	switch {
	case err != nil || math.IsNaN(f) || strings.ContainsAny(num, "eExXpP_") || mult == 1:
		return 0, fmt.Errorf("%s", want)
	case f <= 0:
		return 0, fmt.Errorf("not positive: %s", want)
	case f*float64(mult) > 1<<40:
		return 0, fmt.Errorf("larger than 1 TiB")
	case f*float64(mult) != math.Trunc(f*float64(mult)):
		return 0, fmt.Errorf("%s of %d bytes is not a whole number of bytes", s, mult)
	}
	return int64(f * float64(mult)), nil
}

// scenarioOut is an incast result (--json), times in µs.
type scenarioOut struct {
	Variant        string  `json:"variant"`
	Model          string  `json:"model"`
	NotModelled    string  `json:"not_modelled,omitempty"` // the configured shell's feature the scenario does not model
	Senders        int     `json:"senders"`
	MessageBytes   int64   `json:"message_bytes"`
	LinkGbps       float64 `json:"link_gbps"`
	BaseRTTNs      int64   `json:"base_rtt_ns"`
	CompletionUs   float64 `json:"completion_us"`
	IdealUs        float64 `json:"ideal_us"`
	FloorUs        float64 `json:"floor_us"`
	Slowdown       float64 `json:"completion_over_ideal"`
	Jain           float64 `json:"jain"`
	PeakQueueBytes int64   `json:"peak_queue_bytes"`
	PeakQueueBDP   float64 `json:"peak_queue_bdp"`
	Trims          int64   `json:"trims"`
	Marks          int64   `json:"marks"`
	SVG            string  `json:"svg,omitempty"`
	PNG            string  `json:"png,omitempty"`
	// Entropies is uet_cc's (its load balancer's) account of the sends.
	Entropies *netsim.Entropies `json:"entropies,omitempty"`
	// Engine is the clocked engines' account (--clock-mhz).
	Engine *netsim.IncastEngine `json:"engine,omitempty"`
}
