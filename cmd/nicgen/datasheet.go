package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/datasheet"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/rates"
)

// blockDatasheet is the Markdown datasheet of a generated block: its rates
// on the golden cycle model, the record of its Verilog's place and route,
// its cycle contract, stage table and state budget, worded by package
// datasheet.
func blockDatasheet(r *config.Resolved, g generated) ([]byte, error) {
	name := g.block.Name
	t, err := rates.MeasureTiming(r.Config, name)
	if err != nil {
		return nil, fmt.Errorf("datasheet of %s: %w", name, err)
	}
	loads, err := rates.MeasureLoads(r.Config, name)
	if err != nil {
		return nil, fmt.Errorf("datasheet of %s: %w", name, err)
	}
	rec, err := lookupECP5(g.top, g.files)
	if err != nil {
		return nil, err
	}
	ct, err := cycleContract(r.Config, name, t)
	if err != nil {
		return nil, fmt.Errorf("datasheet of %s: %w", name, err)
	}
	core := datasheet.Core(g.design, name)
	stages := datasheet.Stages{Module: core.Name()}
	if rows := pipelineStages(core); len(rows) > 0 {
		stages.Table = stagesMarkdown(rows)
	}
	bud := budgetOf(r.Config, g.block, g.design.Top)
	state := datasheet.State{PerConnBits: bud.PerConnBits, PerConnBytes: bud.PerConnBytes, GlobalBits: bud.GlobalBits,
		Connections: bud.Connections, TableBits: bud.TableBits, TableKiB: bud.TableKiB, Fields: bud.Fields}
	if bud.Paper != nil {
		state.Paper = paperLine(bud)
	}
	return datasheet.Markdown(datasheet.Facts{
		Resolved: r, ConfigLines: headerConfig(r), Block: g.block, Design: g.design, Control: g.ctl,
		Timing: t, Loads: loads, Measured: rec, RecordFile: measuredFile,
		Contract: datasheet.Contract{WaveDrom: ct.WaveDrom(), Conns: connList()},
		Stages:   stages, State: state,
	}), nil
}

func newDocCmd() *cobra.Command {
	var path string
	cmd := &cobra.Command{
		Use:   "doc BLOCK",
		Short: "Print a block's Markdown datasheet, generated from its declaration",
		Long: `doc prints the datasheet of a block: its ports with their meaning (from the
hdlgen port docs), Verilog parameters, modules, latency and throughput
(measured on the golden cycle model), per-connection and global state with
the budget, and the resolved options of the configuration. generate writes
the same text to docs/datasheets/BLOCK.md, which nicgen diff checks.`,
		Example: "  nicgen doc reps\n  nicgen doc nscc -c docs/examples/400g.hcl > nscc-400g.md",
		Args:    oneArg("BLOCK"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := loadConfig(path)
			if err != nil {
				return err
			}
			gens, err := generateBlocks(r, args, false)
			if err != nil {
				return err
			}
			ds, err := blockDatasheet(r, gens[0])
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(ds)
			return err
		},
	}
	addConfigFlag(cmd, &path)
	return cmd
}

// plural is the datasheet's way of writing a count, which budget's text
// shares.
func plural(n float64, unit string) string { return datasheet.Plural(n, unit) }
