// Package convergence simulates the thesis's staggered incast (S3
// Section 3.3.4; scene.go) for the controls `nicgen scenario convergence`
// compares: Swift and HPCC as their float64 references and as the swift
// and hpcc blocks' golden models (golden/snyder), each in every mode of
// Variable AI and Sampling Frequency. The algorithm packages know nothing
// of it: a flow is an algorithm behind Window.
package convergence

import (
	"slices"

	"github.com/nicgen/nicgen/golden/netsim"
	"github.com/nicgen/nicgen/golden/snyder"
)

// Default is the thesis's 16-1 staggered incast (DefaultBottleneck).
func Default() Bottleneck { return DefaultBottleneck() }

// Scene is the default incast with flows joining staggerNs apart on links
// of linkGbps for durationNs, Jain's index taken over bins of binNs, and
// every flow starting at one BDP (the unloaded RTT at the link rate).
func Scene(flows int, staggerNs, durationNs, binNs, linkGbps float64) Bottleneck {
	b := Default()
	b.Flows, b.StaggerNs, b.DurationNs, b.BinNs, b.LinkGbps = flows, staggerNs, durationNs, binNs, linkGbps
	b.InitCwnd = b.LinkGbps / 8 * b.BaseRTT() / float64(b.MTU)
	return b
}

// Row is one control's runs on the scene, one per mode.
type Row struct {
	Control string            `json:"control"`
	Runs    []*ConvergeResult `json:"runs"`
}

// Run runs b under control: "swift" or "hpcc" (the float64 references),
// "swift-block" or "hpcc-block" (the blocks' golden models), "both"
// (swift and hpcc) or "all" (the four). It returns one Row per control
// run, in the order swift, swift-block, hpcc, hpcc-block, and none for
// any other control.
func Run(b Bottleneck, control string) ([]Row, error) {
	runs := []struct {
		name string
		in   []string // the values of control that run it
		run  func() ([]*ConvergeResult, error)
	}{
		{"swift", []string{"swift", "both", "all"}, func() ([]*ConvergeResult, error) {
			return SwiftConvergence(b, snyder.DefaultSwift())
		}},
		{"swift-block", []string{"swift-block", "all"}, func() ([]*ConvergeResult, error) {
			return SwiftFxConvergence(b, snyder.DefaultSwiftFx(), GoldenSwiftFx)
		}},
		{"hpcc", []string{"hpcc", "both", "all"}, func() ([]*ConvergeResult, error) {
			return HPCCConvergence(b, snyder.DefaultHPCC(b.LinkGbps, b.MTU, b.BaseRTT()))
		}},
		{"hpcc-block", []string{"hpcc-block", "all"}, func() ([]*ConvergeResult, error) {
			return HPCCFxConvergence(b, snyder.DefaultHPCCFx(), GoldenHPCCFx)
		}},
	}
	var rows []Row
	for _, r := range runs {
		if !slices.Contains(r.in, control) {
			continue
		}
		rs, err := r.run()
		if err != nil {
			return nil, err
		}
		rows = append(rows, Row{r.name, rs})
	}
	return rows, nil
}

// Plots draws Jain's index over time for every row, one plot per row
// named after its control.
func Plots(rows []Row, b Bottleneck) []netsim.Plot {
	var plots []netsim.Plot
	for _, r := range rows {
		c := JainChart(r.Runs, r.Control, b)
		plots = append(plots, netsim.Plot{Name: r.Control, Lines: &c})
	}
	return plots
}
