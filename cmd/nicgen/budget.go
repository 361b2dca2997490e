package main

import (
	"encoding/json"
	"fmt"
	"io"
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
	var path string
	cmd := &cobra.Command{
		Use:   "budget [block...]",
		Short: "Print the per-connection and global state of blocks",
		Long: `budget derives each block's state from its declaration (the fields of its
per-connection table and its global registers) and prints bits per field,
totals, the SRAM for all connections, and the paper's figure where a seed
gives one.`,
		Example: "  nicgen budget\n  nicgen budget reps --json\n  nicgen budget -c docs/examples/100g-12us.hcl --markdown",
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := loadConfig(path)
			if err != nil {
				return err
			}
			bs, err := budgets(r, args)
			if err != nil {
				return err
			}
			switch {
			case asJSON:
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(bs)
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
