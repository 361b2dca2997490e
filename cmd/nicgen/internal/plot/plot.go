// Package plot draws the charts of the scenarios and of the budget
// explorer with gonum's plot library, as SVG or PNG. The charts' data
// (netsim.Chart, netsim.BarChart, Scatter) say what is drawn; this package
// says how: every chart is 960 x 540 points with its legend in a column
// of its own right of the plot, its title wrapped to the page's width, and
// the same data always gives the same bytes (no date, no random id).
package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"github.com/nicgen/nicgen/golden/netsim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Format is an output format: "svg" or "png".
type Format string

const (
	SVG Format = "svg"
	PNG Format = "png"
)

// Page size, and the legend's column on its right.
const (
	width, height = 960, 540
	legendWidth   = 190
	pngDPI        = 96
)

// palette is Tableau 10: distinct, readable on white, and kind to the
// colour-blind for the first few entries. Beyond ten series it repeats,
// dashed.
var palette = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff}, {0x76, 0xb7, 0xb2, 0xff}, {0x59, 0xa1, 0x4f, 0xff},
	{0xed, 0xc9, 0x48, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff}, {0x9c, 0x75, 0x5f, 0xff}, {0xba, 0xb0, 0xac, 0xff},
}

var (
	refColor  = color.RGBA{0x55, 0x55, 0x55, 0xff}
	gridColor = color.RGBA{0xe0, 0xe0, 0xe0, 0xff}
	refDashes = [][]vg.Length{{vg.Points(6), vg.Points(4)}, {vg.Points(2), vg.Points(3)}, {vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}
	seqDashes = []vg.Length{vg.Points(2), vg.Points(2)}
)

// Lines draws a chart of step functions (each value holds from its X
// until the next) with dashed horizontal reference lines.
func Lines(c netsim.Chart, f Format) ([]byte, error) {
	p := newPlot(c.Title, c.XLabel, c.YLabel)
	leg := plot.NewLegend()
	xmax := 0.0
	for _, s := range c.Series {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("chart %q: series %q has %d x and %d y values", c.Title, s.Name, len(s.X), len(s.Y))
		}
		for _, x := range s.X {
			xmax = math.Max(xmax, x)
		}
		xmax = math.Max(xmax, s.XEnd)
	}
	for i, s := range c.Series {
		if len(s.X) == 0 {
			continue
		}
		xy := make(plotter.XYs, 0, len(s.X)+1)
		for j := range s.X {
			xy = append(xy, plotter.XY{X: s.X[j], Y: s.Y[j]})
		}
		if n := len(s.X); s.XEnd > s.X[n-1] {
			xy = append(xy, plotter.XY{X: s.XEnd, Y: s.Y[n-1]})
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, fmt.Errorf("chart %q, series %q: %w", c.Title, s.Name, err)
		}
		l.StepStyle = plotter.PostStep
		l.LineStyle.Width = vg.Points(1.5)
		l.LineStyle.Color = palette[i%len(palette)]
		if i >= len(palette) {
			l.LineStyle.Dashes = seqDashes
		}
		p.Add(l)
		leg.Add(s.Name, l)
	}
	if err := addRefs(p, &leg, c.Refs, 0, xmax); err != nil {
		return nil, err
	}
	p.X.Min, p.Y.Min = 0, 0
	p.X.Tick.Marker = niceTicker{}
	headroom(p)
	return render(p, &leg, f)
}

// Bars draws a grouped bar chart: a group per category along the x axis,
// a bar per series in each, told apart by colour; a NaN value draws no
// bar.
func Bars(c netsim.BarChart, f Format) ([]byte, error) {
	p := newPlot(c.Title, "", c.YLabel)
	leg := plot.NewLegend()
	n := len(c.Series)
	groupW := vg.Length(width-legendWidth-120) / vg.Length(max(1, len(c.Groups)))
	barW := 0.8 * groupW / vg.Length(max(1, n))
	for j, s := range c.Series {
		if len(s.Values) != len(c.Groups) {
			return nil, fmt.Errorf("bar chart %q: series %q has %d values for %d groups", c.Title, s.Name, len(s.Values), len(c.Groups))
		}
		vs := make(plotter.Values, len(s.Values))
		for i, v := range s.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				v = 0
			}
			vs[i] = math.Max(v, 0)
		}
		b, err := plotter.NewBarChart(vs, barW)
		if err != nil {
			return nil, fmt.Errorf("bar chart %q, series %q: %w", c.Title, s.Name, err)
		}
		b.Color = palette[j%len(palette)]
		b.LineStyle.Width = 0
		if j >= len(palette) {
			b.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(0.5), Dashes: seqDashes}
		}
		b.Offset = (vg.Length(j) - vg.Length(n-1)/2) * barW
		p.Add(b)
		leg.Add(s.Name, b)
	}
	p.NominalX(c.Groups...)
	if err := addRefs(p, &leg, c.Refs, -0.5, float64(len(c.Groups))-0.5); err != nil {
		return nil, err
	}
	p.Y.Min = 0
	headroom(p)
	return render(p, &leg, f)
}

// Scatter is a cloud of points with a front joined through some of them,
// one point ringed, and a dashed bound.
type Scatter struct {
	Title, XLabel, YLabel string
	Points                []ScatterPoint
	FrontName             string // the legend's name of the joined points
	RingName              string // the legend's name of the ringed point
	Bound                 *netsim.Ref
}

// ScatterPoint is a point of a Scatter.
type ScatterPoint struct {
	X, Y  float64
	Front bool // on the joined front
	Ring  bool // ringed
}

// Points draws a Scatter.
func Points(s Scatter, f Format) ([]byte, error) {
	p := newPlot(s.Title, s.XLabel, s.YLabel)
	leg := plot.NewLegend()
	var all, front, ring plotter.XYs
	for _, q := range s.Points {
		all = append(all, plotter.XY{X: q.X, Y: q.Y})
		if q.Front {
			front = append(front, plotter.XY{X: q.X, Y: q.Y})
		}
		if q.Ring {
			ring = append(ring, plotter.XY{X: q.X, Y: q.Y})
		}
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("plot %q: no points", s.Title)
	}
	dots, err := plotter.NewScatter(all)
	if err != nil {
		return nil, err
	}
	dots.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{0x88, 0x88, 0x88, 0xff}, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	p.Add(dots)
	leg.Add("point", dots)
	if len(front) > 0 {
		l, err := plotter.NewLine(front)
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: color.RGBA{0xcc, 0, 0, 0xff}, Width: vg.Points(1.5)}
		fd, err := plotter.NewScatter(front)
		if err != nil {
			return nil, err
		}
		fd.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{0xcc, 0, 0, 0xff}, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		p.Add(l, fd)
		leg.Add(s.FrontName, l, fd)
	}
	if len(ring) > 0 {
		r, err := plotter.NewScatter(ring)
		if err != nil {
			return nil, err
		}
		r.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{0, 0x66, 0xcc, 0xff}, Radius: vg.Points(6), Shape: draw.RingGlyph{}}
		p.Add(r)
		leg.Add(s.RingName, r)
	}
	if s.Bound != nil {
		lo, hi := all[0].X, all[0].X
		for _, q := range all {
			lo, hi = math.Min(lo, q.X), math.Max(hi, q.X)
		}
		if lo == hi {
			lo, hi = lo-1, hi+1
		}
		if err := addRefs(p, &leg, []netsim.Ref{*s.Bound}, lo, hi); err != nil {
			return nil, err
		}
	}
	p.Y.Min = 0
	p.X.Tick.Marker = niceTicker{}
	headroom(p)
	return render(p, &leg, f)
}

func newPlot(title, xl, yl string) *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font.Size = vg.Points(15)
	p.Title.Text = wrap(p.Title.TextStyle, title, vg.Points(width-legendWidth-40))
	p.X.Label.Text, p.Y.Label.Text = xl, yl
	p.X.Label.TextStyle.Font.Size, p.Y.Label.TextStyle.Font.Size = vg.Points(13), vg.Points(13)
	p.Y.Tick.Marker = niceTicker{}
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = gridColor, gridColor
	p.Add(g)
	return p
}

// headroom leaves 5 % above the highest value, so that a line at the
// top (a reference, a window held) stays clear of the frame.
func headroom(p *plot.Plot) {
	p.Y.Max += 0.05 * (p.Y.Max - p.Y.Min)
}

// niceTicker marks 0 and multiples of a 1-2-5 step, five to ten of them
// over the axis, labelled without trailing zeros, with a minor tick between
// majors.
type niceTicker struct{}

func (niceTicker) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		hi = lo + 1
	}
	raw := (hi - lo) / 8
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	dec := int(math.Max(0, -math.Floor(math.Log10(step)+1e-9)))
	var ts []plot.Tick
	for i := math.Ceil(lo / step * 2); i/2*step <= hi+step*1e-9; i++ {
		v := i / 2 * step
		if math.Mod(i, 2) == 0 {
			ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', dec, 64)})
		} else {
			ts = append(ts, plot.Tick{Value: v})
		}
	}
	return ts
}

// addRefs draws each reference as a dashed line from x0 to x1, each with
// a dash pattern of its own.
func addRefs(p *plot.Plot, leg *plot.Legend, refs []netsim.Ref, x0, x1 float64) error {
	for i, r := range refs {
		l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: r.Y}, {X: x1, Y: r.Y}})
		if err != nil {
			return fmt.Errorf("reference %q: %w", r.Name, err)
		}
		l.LineStyle = draw.LineStyle{Color: refColor, Width: vg.Points(1), Dashes: refDashes[i%len(refDashes)]}
		p.Add(l)
		leg.Add(r.Name, l)
	}
	return nil
}

// wrap breaks text at spaces into lines no wider than w in style s (a
// word wider than w alone keeps a line of its own).
func wrap(s text.Style, txt string, w vg.Length) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(txt) {
		if line != "" && s.Width(line+" "+word) > w {
			lines = append(lines, line)
			line = word
			continue
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line), "\n")
}

// render draws p on the page's left and the legend in the column on its
// right, then encodes the page.
func render(p *plot.Plot, leg *plot.Legend, f Format) ([]byte, error) {
	W, H := vg.Points(width), vg.Points(height)
	var c vg.CanvasWriterTo
	switch f {
	case SVG:
		c = vgsvg.New(W, H)
	case PNG:
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(W, H), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))}
	default:
		return nil, fmt.Errorf("plot format %q: want svg or png", f)
	}
	dc := draw.New(c)
	// the page is white under the legend too, not only under the plot
	var page vg.Path
	page.Move(vg.Point{})
	page.Line(vg.Point{X: W})
	page.Line(vg.Point{X: W, Y: H})
	page.Line(vg.Point{Y: H})
	page.Close()
	c.SetColor(color.White)
	c.Fill(page)
	area := dc
	area.Max.X -= vg.Points(legendWidth)
	p.Draw(area)
	side := dc
	side.Min.X = area.Max.X + vg.Points(8)
	side.Max.Y -= vg.Points(40)
	leg.Top, leg.Left = true, true
	leg.Draw(side)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
