package netsim

// BarChart is a grouped bar chart: one group of bars per category along
// the x axis, one bar per series in every group, and dashed horizontal
// reference lines (cmd/nicgen/internal/plot draws it).
type BarChart struct {
	Title  string
	YLabel string
	// Groups name the categories, left to right.
	Groups []string
	// Series hold one value per group; a NaN value draws no bar.
	Series []BarSeries
	Refs   []Ref
}

// BarSeries is one bar in each group.
type BarSeries struct {
	Name   string
	Values []float64
}
