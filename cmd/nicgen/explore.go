package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/blocks/explore"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/plot"
	"github.com/nicgen/nicgen/golden/netsim"
)

// The state explorer (nicgen budget --explore): each block sweeps its own
// state (block.Desc.Explore) and package explore numbers, costs and
// prints the points; this file is the command's flags, the -c hint and
// the plot.

// sweep sweeps block name of the configuration (explore.Options: measure
// or not, only some points).
func sweep(cfg blocks.Config, name string, progress io.Writer, measure bool, only func(key string) bool) (*explore.Result, error) {
	b, err := blocks.Lookup(name)
	if err != nil {
		return nil, err
	}
	if !b.CanExplore() {
		return nil, fmt.Errorf("block %q declares no state to explore (--explore knows %s)", name, explorable())
	}
	return b.Explore(cfg, explore.Options{Measure: measure, Only: only, Progress: progress})
}

// explorable names the blocks with a sweep, "a, b and c".
func explorable() string {
	var names []string
	for _, b := range blocks.All() {
		if b.CanExplore() {
			names = append(names, b.Name)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// printExplore is the sweep's table and the hint to select a point;
// configArg is the " -c FILE" of the command.
func printExplore(w io.Writer, r *explore.Result, configArg string) {
	explore.WriteText(w, r)
	fmt.Fprintf(w, "nicgen budget --explore %s%s --select ID prints the block's section with a point's settings\n", r.Block, configArg)
}

// explorePlot is bits per connection against the worst incast change:
// the Pareto front joined, the default ringed and the bound dashed.
func explorePlot(r *explore.Result) plot.Scatter {
	s := plot.Scatter{
		Title:     fmt.Sprintf("%s: bits per connection against the 8:1 incast completion change from float64 (%d points)", r.Block, len(r.Points)),
		XLabel:    "state per connection (bits)",
		YLabel:    "worst 8:1 incast completion change from float64 (%)",
		FrontName: "Pareto front",
		RingName:  "default",
	}
	if r.Bounds != nil {
		s.Bound = &netsim.Ref{Name: fmt.Sprintf("bound: %g %%", 100*r.Bounds.Incast), Y: 100 * r.Bounds.Incast}
	}
	for _, p := range r.Points {
		s.Points = append(s.Points, plot.ScatterPoint{X: float64(p.Bits), Y: 100 * p.WorstIncast(), Front: p.Pareto, Ring: p.Default})
	}
	return s
}

func runExplore(cmd *cobra.Command, r *config.Resolved, block string, args []string, asJSON bool, pl plotFlags, selectID int) error {
	if len(args) > 0 {
		return usageErr("--explore takes its block as its value; drop the arguments %v", args)
	}
	if !r.Has(block) {
		if _, err := blocks.Lookup(block); err != nil {
			return usageErr("--explore: %v", err)
		}
		return usageErr("--explore: block %q is not in the configuration", block)
	}
	if err := pl.check(); err != nil {
		return err
	}
	res, err := sweep(r.Config, block, cmd.ErrOrStderr(), selectID == 0, nil)
	if err != nil {
		return usageErr("--explore: %v", err)
	}
	if selectID != 0 {
		if selectID < 1 || selectID > len(res.Points) {
			return usageErr("--select %d: %s has points 1..%d", selectID, block, len(res.Points))
		}
		_, err := io.WriteString(cmd.OutOrStdout(), selectSection(r, block, res.Points[selectID-1]))
		return err
	}
	if pl.any() {
		if res.Points[0].Error == nil {
			return usageErr("--%s: %s has no float64 reference, so no error to plot", pl.outputs()[0].f, block)
		}
		for _, x := range pl.outputs() {
			data, err := plot.Points(explorePlot(res), x.f)
			if err != nil {
				return err
			}
			if err := writeAtomic(x.path, data); err != nil {
				return err
			}
		}
	}
	if asJSON {
		return writeJSON(cmd.OutOrStdout(), res)
	}
	configArg := ""
	if !r.Embedded {
		configArg = " -c " + r.File
	}
	printExplore(cmd.OutOrStdout(), res, configArg)
	return nil
}

// selectSection is block's section of the configuration with a point's
// settings: the values the file sets, the point's in place of its own
// (a pasted section keeps the user's other options).
func selectSection(r *config.Resolved, block string, p explore.Point) string {
	mine := map[string]bool{}
	for _, x := range p.Settings {
		mine[x.Attr] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "block %q {\n", block)
	for _, s := range r.Sections {
		if s.Type != "block" || s.Label != block {
			continue
		}
		for _, st := range s.Settings {
			if st.Source == config.SourceSet && !st.Info && !mine[st.Name] {
				fmt.Fprintf(&b, "  %s = %s\n", st.Name, st.Value)
			}
		}
	}
	for _, x := range p.Settings {
		fmt.Fprintf(&b, "  %s = %d\n", x.Attr, x.Value)
	}
	b.WriteString("}\n")
	return b.String()
}
