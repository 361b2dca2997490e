package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nicgen/nicgen/cmd/nicgen/internal/plot"
	"github.com/nicgen/nicgen/golden/netsim"
	"github.com/spf13/cobra"
)

// plotFlags are a command's --svg and --png: the plots it draws, as SVG,
// as PNG or both, to a file or to files named after a prefix.
type plotFlags struct {
	svg, png string
}

// add registers --svg and --png; what describes the files, with EXT for
// the extension (svg or png).
func (o *plotFlags) add(cmd *cobra.Command, what string) {
	cmd.Flags().StringVar(&o.svg, "svg", "", strings.ReplaceAll(what, "EXT", "svg"))
	cmd.Flags().StringVar(&o.png, "png", "", strings.ReplaceAll(what, "EXT", "png"))
}

func (o plotFlags) any() bool { return o.svg != "" || o.png != "" }

// plotOutput is one requested plot file: its format and its path (or
// prefix, for commands that draw several plots).
type plotOutput struct {
	f    plot.Format
	path string
}

// outputs are the requested formats with their paths, SVG first.
func (o plotFlags) outputs() []plotOutput {
	var out []plotOutput
	for _, x := range []plotOutput{{plot.SVG, o.svg}, {plot.PNG, o.png}} {
		if x.path != "" {
			out = append(out, x)
		}
	}
	return out
}

// check refuses, before a run, a path no file can be written at.
func (o plotFlags) check() error {
	for _, x := range o.outputs() {
		if err := checkWritable(x.path); err != nil {
			return usageErr("--%s: %v", x.f, err)
		}
	}
	return nil
}

// drawPlot draws one plot in format f.
func drawPlot(p netsim.Plot, f plot.Format) ([]byte, error) {
	switch {
	case p.Lines != nil:
		return plot.Lines(*p.Lines, f)
	case p.Bars != nil:
		return plot.Bars(*p.Bars, f)
	}
	return nil, fmt.Errorf("plot %q has no chart", p.Name)
}

// writePlots draws every plot in every requested format first, then
// writes each to PREFIX-NAME.EXT (PREFIX the flag's value without its
// extension) through a temporary file and a rename; it returns the files
// written.
func writePlots(o plotFlags, plots []netsim.Plot) ([]string, error) {
	type file struct {
		name string
		data []byte
	}
	var files []file
	for _, x := range o.outputs() {
		prefix := strings.TrimSuffix(x.path, filepath.Ext(x.path))
		if filepath.Ext(x.path) != "."+string(x.f) {
			prefix = x.path
		}
		for _, p := range plots {
			data, err := drawPlot(p, x.f)
			if err != nil {
				return nil, err
			}
			files = append(files, file{prefix + "-" + p.Name + "." + string(x.f), data})
		}
	}
	var names []string
	for _, f := range files {
		if err := writeAtomic(f.name, f.data); err != nil {
			return names, err
		}
		names = append(names, f.name)
	}
	return names, nil
}

// writeChart draws one chart to each requested file as given.
func writeChart(o plotFlags, c netsim.Chart) ([]string, error) {
	var names []string
	for _, x := range o.outputs() {
		data, err := plot.Lines(c, x.f)
		if err != nil {
			return names, err
		}
		if err := writeAtomic(x.path, data); err != nil {
			return names, err
		}
		names = append(names, x.path)
	}
	return names, nil
}
