package netsim

import (
	"fmt"
)

// Chart is a line chart of step functions: what is drawn, not how
// (cmd/nicgen/internal/plot draws it).
type Chart struct {
	Title          string
	XLabel, YLabel string // with their units
	Series         []Series
	// Refs are horizontal reference lines (dashed), e.g. a fair share.
	Refs []Ref
}

// Series is one step function: Y holds from each X until the next.
// XEnd extends the last value to that X (ignored when not beyond it).
type Series struct {
	Name string
	X, Y []float64
	XEnd float64
}

// Ref is a labelled horizontal line.
type Ref struct {
	Name string
	Y    float64
}

// Plot is one of a run's charts: a line chart or a bar chart, with the
// name its file takes after the command's prefix (PREFIX-NAME.svg).
type Plot struct {
	Name  string
	Lines *Chart
	Bars  *BarChart
}

// CwndChart is the window of every sender over time, in KiB against
// microseconds, with the fair share of one BDP as a reference. It needs a
// run with Config.RecordCwnd.
func CwndChart(r *Result, title string) Chart {
	c := Chart{
		Title:  title,
		XLabel: "time (µs)",
		YLabel: "cwnd (KiB)",
		Refs: []Ref{{
			Name: fmt.Sprintf("BDP/%d", len(r.Senders)),
			Y:    float64(r.BDPBytes) / float64(len(r.Senders)) / 1024,
		}},
	}
	for _, s := range r.Senders {
		ser := Series{Name: fmt.Sprintf("sender %d", s.Conn), XEnd: s.DoneNs / 1000}
		for _, p := range s.Cwnd {
			ser.X = append(ser.X, p.AtNs/1000)
			ser.Y = append(ser.Y, float64(p.Cwnd)/1024)
		}
		c.Series = append(c.Series, ser)
	}
	return c
}
