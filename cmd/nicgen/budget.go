package main

import (
	"fmt"
	"github.com/nicgen/nicgen/blocks/control"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/hdlgen"
)

type budgetOut struct {
	Block        string               `json:"block"`
	Connections  int                  `json:"connections"`
	PerConnBits  int                  `json:"per_connection_bits"`
	PerConnBytes int                  `json:"per_connection_bytes"`
	GlobalBits   int                  `json:"global_bits"`
	TableBits    int                  `json:"table_bits"`
	TableKiB     float64              `json:"table_kib"`
	Paper        *paperOut            `json:"paper,omitempty"`
	Fields       []hdlgen.BudgetField `json:"fields"`
}

type paperOut struct {
	PerConnBits  int    `json:"per_connection_bits,omitempty"`
	PerConnBytes int    `json:"per_connection_bytes,omitempty"`
	GlobalBytes  int    `json:"global_bytes,omitempty"`
	Source       string `json:"source"`
}

func budgets(r *config.Resolved, names []string) ([]budgetOut, error) {
	sel, err := selectBlocks(r, names)
	if err != nil {
		return nil, err
	}
	var out []budgetOut
	for _, b := range sel {
		m, err := b.Build(r.Config)
		if err != nil {
			return nil, err
		}
		out = append(out, budgetOf(r.Config, b, m))
	}
	return out, nil
}

// budgetOf derives a block's state budget from its declaration.
func budgetOf(cfg blocks.Config, b blocks.Block, m *hdlgen.Module) budgetOut {
	bud := hdlgen.StateBudget(m)
	o := budgetOut{
		Block: b.Name, Connections: bud.Connections,
		PerConnBits: bud.PerConnBits(), PerConnBytes: (bud.PerConnBits() + 7) / 8,
		GlobalBits: bud.GlobalBits(), TableBits: bud.TableBits(),
		TableKiB: float64(bud.TableBits()) / 8 / 1024,
		Fields:   append(bud.PerConn, bud.Global...),
	}
	if pf, ok := b.Paper(cfg); ok {
		o.Paper = &paperOut{PerConnBits: pf.PerConnBits, PerConnBytes: pf.PerConnBytes, GlobalBytes: pf.GlobalBytes, Source: pf.Source}
	}
	return o
}

func printBudgetText(w io.Writer, bs []budgetOut) {
	for i, b := range bs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s: %d bits (%s) per connection, %d bits global\n", b.Block, b.PerConnBits, plural(float64(b.PerConnBytes), "byte"), b.GlobalBits)
		fmt.Fprintf(w, "  state table: %d connections x %d bits = %d bits (%.1f KiB of SRAM)\n", b.Connections, b.PerConnBits, b.TableBits, b.TableKiB)
		if b.Paper != nil {
			fmt.Fprintf(w, "  paper: %s\n", paperLine(b))
		} else {
			fmt.Fprintln(w, "  paper: no paper figure")
		}
		fmt.Fprintf(w, "  %-28s %6s  %-15s %s\n", "field", "bits", "scope", "meaning")
		for _, f := range b.Fields {
			fmt.Fprintf(w, "  %-28s %6d  %-15s %s\n", f.Name, f.Width, f.Scope, f.Doc)
		}
	}
}

func printBudgetMarkdown(w io.Writer, bs []budgetOut) {
	for _, b := range bs {
		fmt.Fprintf(w, "### %s\n\n", b.Block)
		fmt.Fprintf(w, "%d bits (%s) per connection, %d bits global; %d connections need %d bits (%.1f KiB).", b.PerConnBits, plural(float64(b.PerConnBytes), "byte"), b.GlobalBits, b.Connections, b.TableBits, b.TableKiB)
		if b.Paper != nil {
			fmt.Fprintf(w, " Paper: %s.", paperLine(b))
		} else {
			fmt.Fprint(w, " Paper: no paper figure.")
		}
		fmt.Fprint(w, "\n\n| field | bits | scope | meaning |\n|---|---:|---|---|\n")
		for _, f := range b.Fields {
			fmt.Fprintf(w, "| `%s` | %d | %s | %s |\n", f.Name, f.Width, f.Scope, strings.ReplaceAll(f.Doc, "|", "\\|"))
		}
		fmt.Fprintln(w)
	}
}

func newBudgetCmd() *cobra.Command {
	var asJSON, asMarkdown bool
	var path, compare, exploreBlock, shardArg, report string
	var pl plotFlags
	var selectID int
	cmd := &cobra.Command{
		Use:   "budget [block...]",
		Short: "Print the per-connection and global state of blocks",
		Long: `budget derives each block's state from its declaration (the fields of its
per-connection table and its global registers) and prints bits per field,
totals, the SRAM for all connections, and the paper's figure where a seed
gives one.`,
		Example: "  nicgen budget\n  nicgen budget reps --json\n  nicgen budget -c docs/examples/100g-12us.hcl --markdown\n  nicgen budget -c docs/examples/400g.hcl --compare docs/examples/800g.hcl\n  nicgen budget --explore nscc --svg nscc.svg\n  nicgen budget --explore nscc --select 12",
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := loadConfig(path)
			if err != nil {
				return err
			}
			if exploreBlock != "" && shardArg != "" {
				if pl.any() || selectID != 0 || asJSON || len(args) > 0 {
					return usageErr("--shard measures a campaign's shard into --report: no --svg, --png, --select, --json or block arguments")
				}
				return runExploreShard(cmd, r, exploreBlock, shardArg, report)
			}
			if exploreBlock != "" {
				if report != "" {
					return usageErr("--report goes with --shard")
				}
				return runExplore(cmd, r, exploreBlock, args, asJSON, pl, selectID)
			}
			if pl.any() || selectID != 0 || shardArg != "" || report != "" {
				return usageErr("--svg, --png, --select, --shard and --report go with --explore BLOCK")
			}
			bs, err := budgets(r, args)
			if err != nil {
				return err
			}
			if compare != "" {
				other, err := loadConfig(compare)
				if err != nil {
					return err
				}
				cs, err := budgetCompare(r, other, args)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), cs)
				}
				printCompare(cmd.OutOrStdout(), r, other, cs)
				return nil
			}
			switch {
			case asJSON:
				return writeJSON(cmd.OutOrStdout(), bs)
			case asMarkdown:
				printBudgetMarkdown(cmd.OutOrStdout(), bs)
			default:
				printBudgetText(cmd.OutOrStdout(), bs)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&asMarkdown, "markdown", false, "print Markdown tables")
	cmd.Flags().StringVar(&compare, "compare", "", "compare with the budgets of a second configuration FILE, field by field")
	cmd.Flags().StringVar(&exploreBlock, "explore", "", "sweep the widths and units of BLOCK's state fields (smartt, nscc, reps): bits, SRAM, block RAMs and the error against the float64 reference per point")
	pl.add(cmd, "with --explore: draw the bits-against-error plot, Pareto front marked, to this EXT file")
	cmd.Flags().IntVar(&selectID, "select", 0, "with --explore: print the HCL that selects point ID")
	cmd.Flags().StringVar(&shardArg, "shard", "", "with --explore: measure shard i/n of the sweep (the points numbered i+1, i+1+n, ...) into --report, for nicgen campaign explore")
	cmd.Flags().StringVar(&report, "report", "", "with --shard: the shard's record (JSON), written atomically")
	addConfigFlag(cmd, &path)
	return cmd
}

// paperLine compares a block's budget with the seed's figure.
func paperLine(b budgetOut) string {
	p := b.Paper
	if p.PerConnBits > 0 {
		verdict := "matches"
		if p.PerConnBits != b.PerConnBits {
			verdict = "differs"
		}
		return fmt.Sprintf("%d bits per connection (%s): %s", p.PerConnBits, p.Source, verdict)
	}
	verdict := "within"
	if b.PerConnBits > 8*p.PerConnBytes {
		verdict = "above"
	}
	line := fmt.Sprintf("%d bytes (%d bits) per flow (%s): ours %d bits, %s", p.PerConnBytes, 8*p.PerConnBytes, p.Source, b.PerConnBits, verdict)
	if p.GlobalBytes > 0 {
		line += fmt.Sprintf("; %d bytes global in the paper, %d bits here", p.GlobalBytes, b.GlobalBits)
	}
	return line
}

// budgetDiff is one block's budget in two configurations.
type budgetDiff struct {
	Block  string       `json:"block"`
	A      *budgetOut   `json:"a,omitempty"` // nil: the block is not in A
	B      *budgetOut   `json:"b,omitempty"`
	Fields []fieldDelta `json:"fields"`
}

type fieldDelta struct {
	Name  string `json:"name"`
	ABits int    `json:"a_bits"` // 0: not in A
	BBits int    `json:"b_bits"`
}

// budgetCompare lines up the budgets of the blocks of two configurations
// (the named ones, or every block of either).
func budgetCompare(a, b *config.Resolved, names []string) ([]budgetDiff, error) {
	if len(names) == 0 {
		seen := map[string]bool{}
		for _, n := range append(append([]string{}, a.Blocks...), b.Blocks...) {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		sort.Strings(names)
	}
	var out []budgetDiff
	for _, n := range names {
		d := budgetDiff{Block: n}
		for i, r := range []*config.Resolved{a, b} {
			if !r.Has(n) {
				continue
			}
			bs, err := budgets(r, []string{n})
			if err != nil {
				return nil, err
			}
			if i == 0 {
				d.A = &bs[0]
			} else {
				d.B = &bs[0]
			}
		}
		if d.A == nil && d.B == nil {
			return nil, usageErr("block %q is in neither configuration", n)
		}
		idx := map[string]int{}
		add := func(bo *budgetOut, a bool) {
			if bo == nil {
				return
			}
			for _, f := range bo.Fields {
				// a wrapped block's fields are its core's: paired by the
				// bare block's names with a configuration without control
				name := strings.TrimPrefix(f.Name, control.CoreInstance+".")
				i, ok := idx[name]
				if !ok {
					i = len(d.Fields)
					idx[name] = i
					d.Fields = append(d.Fields, fieldDelta{Name: name})
				}
				if a {
					d.Fields[i].ABits = f.Width
				} else {
					d.Fields[i].BBits = f.Width
				}
			}
		}
		add(d.A, true)
		add(d.B, false)
		out = append(out, d)
	}
	return out, nil
}

func printCompare(w io.Writer, a, b *config.Resolved, ds []budgetDiff) {
	fmt.Fprintf(w, "A: %s\nB: %s\n", a.Config.Name, b.Config.Name)
	for _, d := range ds {
		fmt.Fprintf(w, "\n%s:", d.Block)
		bits := func(bo *budgetOut) string {
			if bo == nil {
				return "absent"
			}
			return fmt.Sprintf("%d bits x %d connections = %.1f KiB", bo.PerConnBits, bo.Connections, bo.TableKiB)
		}
		fmt.Fprintf(w, " A %s; B %s", bits(d.A), bits(d.B))
		if d.A != nil && d.B != nil {
			fmt.Fprintf(w, "; B - A = %+d bits per connection, %+.1f KiB", d.B.PerConnBits-d.A.PerConnBits, d.B.TableKiB-d.A.TableKiB)
		}
		fmt.Fprintf(w, "\n  %-28s %6s %6s %6s\n", "field", "A", "B", "B - A")
		for _, f := range d.Fields {
			if f.ABits == f.BBits {
				continue
			}
			fmt.Fprintf(w, "  %-28s %6d %6d %+6d\n", f.Name, f.ABits, f.BBits, f.BBits-f.ABits)
		}
		same := 0
		for _, f := range d.Fields {
			if f.ABits == f.BBits {
				same++
			}
		}
		if same > 0 {
			fmt.Fprintf(w, "  (%d fields of the same width not shown)\n", same)
		}
	}
}
