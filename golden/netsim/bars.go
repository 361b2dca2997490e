package netsim

import (
	"bytes"
	"fmt"
	"io"
	"math"
)

// BarChart is a grouped bar chart, drawn as a self-contained SVG in the
// style of Chart: one group of bars per category along the x axis, one bar
// per series in every group, the series told apart by colour (legend on
// the right), and dashed horizontal reference lines.
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

// WriteSVG draws the chart.
func (c BarChart) WriteSVG(w io.Writer) error {
	for _, s := range c.Series {
		if len(s.Values) != len(c.Groups) {
			return fmt.Errorf("bar chart %q: series %q has %d values for %d groups", c.Title, s.Name, len(s.Values), len(c.Groups))
		}
	}
	ymax := 0.0
	for _, s := range c.Series {
		for _, v := range s.Values {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				ymax = math.Max(ymax, v)
			}
		}
	}
	for _, r := range c.Refs {
		ymax = math.Max(ymax, r.Y)
	}
	yt := niceTicks(ymax * 1.05)
	yhi := yt[len(yt)-1]
	plotW, plotH := float64(svgW-padLeft-padRight), float64(svgH-padTop-padBot)
	py := func(y float64) float64 { return padTop + plotH - math.Min(y, yhi)/yhi*plotH }
	groupW := plotW / float64(max(1, len(c.Groups)))
	// the bars take 80% of a group, the rest is the gap between groups
	barW := 0.8 * groupW / float64(max(1, len(c.Series)))

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="12">`+"\n", svgW, svgH, svgW, svgH)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgW, svgH)
	fmt.Fprintf(&b, `<text x="%d" y="26" font-size="16" font-weight="bold">%s</text>`+"\n", padLeft, esc(c.Title))
	b.WriteString(`<g stroke="#e0e0e0" stroke-width="1">` + "\n")
	for _, v := range yt {
		fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%s" y2="%s"/>`+"\n", padLeft, f1(py(v)), f1(padLeft+plotW), f1(py(v)))
	}
	b.WriteString("</g>\n")
	b.WriteString(`<g fill="#333">` + "\n")
	for _, v := range yt {
		fmt.Fprintf(&b, `<text x="%d" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", padLeft-8, f1(py(v)), tickLabel(v))
	}
	for i, g := range c.Groups {
		x := float64(padLeft) + (float64(i)+0.5)*groupW
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", f1(x), f1(padTop+plotH+18), esc(g))
	}
	b.WriteString("</g>\n")
	fmt.Fprintf(&b, `<text transform="translate(22 %s) rotate(-90)" text-anchor="middle" font-size="13">%s</text>`+"\n", f1(padTop+plotH/2), esc(c.YLabel))

	for j, s := range c.Series {
		fmt.Fprintf(&b, `<g fill="%s">`+"\n", palette[j%len(palette)])
		for i, v := range s.Values {
			if math.IsNaN(v) {
				continue
			}
			x := float64(padLeft) + float64(i)*groupW + 0.1*groupW + float64(j)*barW
			top := py(math.Max(v, 0))
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s"%s/>`+"\n", f1(x), f1(top), f1(barW), f1(padTop+plotH-top), barHatch(j))
		}
		b.WriteString("</g>\n")
	}
	for _, r := range c.Refs {
		fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-dasharray="6 4"/>`+"\n", padLeft, f1(py(r.Y)), f1(padLeft+plotW), f1(py(r.Y)))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%s" height="%s" fill="none" stroke="#333"/>`+"\n", padLeft, padTop, f1(plotW), f1(plotH))

	lx := float64(padLeft) + plotW + 16
	for j, s := range c.Series {
		y := float64(padTop) + 8 + float64(j)*18
		fmt.Fprintf(&b, `<rect x="%s" y="%s" width="24" height="10" fill="%s"%s/>`+"\n", f1(lx), f1(y-5), palette[j%len(palette)], barHatch(j))
		fmt.Fprintf(&b, `<text x="%s" y="%s" dominant-baseline="middle">%s</text>`+"\n", f1(lx+30), f1(y), esc(s.Name))
	}
	for k, r := range c.Refs {
		y := float64(padTop) + 8 + float64(len(c.Series)+k)*18 + 6
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-dasharray="6 4"/>`+"\n", f1(lx), f1(y), f1(lx+24), f1(y))
		fmt.Fprintf(&b, `<text x="%s" y="%s" dominant-baseline="middle">%s</text>`+"\n", f1(lx+30), f1(y), esc(r.Name))
	}
	b.WriteString("</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// barHatch outlines the bars of series beyond the palette, whose colours
// repeat, so that they stay distinguishable.
func barHatch(j int) string {
	if j < len(palette) {
		return ""
	}
	return ` stroke="#333" stroke-dasharray="2 2"`
}
