package main

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

func newVectorsCmd() *cobra.Command {
	var events int
	var seed uint64
	var out, path string
	cmd := &cobra.Command{
		Use:   "vectors BLOCK",
		Short: "Export golden-model test vectors (JSON lines) for the cocotb testbenches",
		Long: `vectors draws a random event sequence for a block of the configuration
(-c FILE; by default the embedded one) (every connection opened before use, strong connection locality, out-of-range
connections and invalid kinds) and computes the expected result of each event
with the block's golden transaction-level model. It writes JSON lines: a header
{"block", "seed", "events", "params", "ports", "kinds"} and then one line per event,
{"conn", "kind", "ecn", "ev", "now", "expect": {"conn", "kind", "ev",
"explored", "frozen", "error"}} ("now" and "frozen" only for blocks that have
those ports). The same block, count and seed always give the same file.
It prints which behaviours the expectations reach.`,
		Example: "  nicgen vectors reps -n 20000 -o build/vectors/reps.jsonl\n  nicgen vectors reps_conf --seed 7 | head\n  nicgen vectors nscc -c docs/examples/400g.hcl -n 1000",
		Args:    oneArg("BLOCK"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := blocks.Lookup(args[0]); err != nil {
				return usageErr("%v", err)
			}
			if events < 1 {
				return usageErr("-n %d: need at least one event", events)
			}
			r, err := loadConfig(path)
			if err != nil {
				return err
			}
			if _, err := selectBlocks(r, args); err != nil {
				return err
			}
			vs, err := blockeq.GenerateVectorsFor(r.Config, args[0], events, seed)
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err := vs.WriteTo(cmd.OutOrStdout())
				return err
			}
			var buf bytes.Buffer
			if _, err := vs.WriteTo(&buf); err != nil {
				return err
			}
			if err := writeAtomic(out, buf.Bytes()); err != nil {
				return fmt.Errorf("vectors %s: %w", args[0], err)
			}
			// The summary goes to stderr so that stdout stays the vectors
			// when no -o is given; here it is just a report.
			w := cmd.ErrOrStderr()
			fmt.Fprintf(w, "%s: %d events, seed %d -> %s\ncoverage (from the golden model):\n%s", args[0], events, seed, out, vs.Coverage)
			if miss := vs.Coverage.Missing(); len(miss) > 0 {
				fmt.Fprintf(w, "warning: these vectors never reach %v (use more events)\n", miss)
			}
			return nil
		},
	}
	addConfigFlag(cmd, &path)
	cmd.Flags().IntVarP(&events, "events", "n", 10000, "events to draw")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "stimulus seed")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file, written atomically (default stdout)")
	return cmd
}
