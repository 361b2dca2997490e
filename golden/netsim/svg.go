package netsim

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
)

// Chart is a line chart of step functions, drawn as a self-contained SVG.
type Chart struct {
	Title          string
	XLabel, YLabel string
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

// Layout of the plot, in SVG user units.
const (
	svgW, svgH                        = 960, 540
	padLeft, padRight, padTop, padBot = 80, 190, 48, 60
)

// palette is Tableau 10: distinct, readable on white, and kind to the
// colour-blind for the first few entries. Beyond ten series it repeats
// with a dash pattern.
var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// WriteSVG draws the chart.
func (c Chart) WriteSVG(w io.Writer) error {
	xmax, ymax := 0.0, 0.0
	for _, s := range c.Series {
		for i := range s.X {
			xmax = math.Max(xmax, s.X[i])
			ymax = math.Max(ymax, s.Y[i])
		}
		xmax = math.Max(xmax, s.XEnd)
	}
	for _, r := range c.Refs {
		ymax = math.Max(ymax, r.Y)
	}
	xt := niceTicks(xmax)
	yt := niceTicks(ymax * 1.05)
	xhi, yhi := xt[len(xt)-1], yt[len(yt)-1]
	plotW, plotH := float64(svgW-padLeft-padRight), float64(svgH-padTop-padBot)
	px := func(x float64) float64 { return padLeft + x/xhi*plotW }
	py := func(y float64) float64 { return padTop + plotH - y/yhi*plotH }

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif" font-size="12">`+"\n", svgW, svgH, svgW, svgH)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgW, svgH)
	fmt.Fprintf(&b, `<text x="%d" y="26" font-size="16" font-weight="bold">%s</text>`+"\n", padLeft, esc(c.Title))

	// Grid, ticks and tick labels.
	b.WriteString(`<g stroke="#e0e0e0" stroke-width="1">` + "\n")
	for _, v := range xt {
		fmt.Fprintf(&b, `<line x1="%s" y1="%d" x2="%s" y2="%s"/>`+"\n", f1(px(v)), padTop, f1(px(v)), f1(padTop+plotH))
	}
	for _, v := range yt {
		fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%s" y2="%s"/>`+"\n", padLeft, f1(py(v)), f1(padLeft+plotW), f1(py(v)))
	}
	b.WriteString("</g>\n")
	b.WriteString(`<g fill="#333">` + "\n")
	for _, v := range xt {
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", f1(px(v)), f1(padTop+plotH+18), tickLabel(v))
	}
	for _, v := range yt {
		fmt.Fprintf(&b, `<text x="%d" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", padLeft-8, f1(py(v)), tickLabel(v))
	}
	b.WriteString("</g>\n")
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%s" height="%s" fill="none" stroke="#333"/>`+"\n", padLeft, padTop, f1(plotW), f1(plotH))
	fmt.Fprintf(&b, `<text x="%s" y="%d" text-anchor="middle" font-size="13">%s</text>`+"\n", f1(padLeft+plotW/2), svgH-18, esc(c.XLabel))
	fmt.Fprintf(&b, `<text transform="translate(22 %s) rotate(-90)" text-anchor="middle" font-size="13">%s</text>`+"\n", f1(padTop+plotH/2), esc(c.YLabel))

	// Data, clipped to the plot.
	fmt.Fprintf(&b, `<clipPath id="plot"><rect x="%d" y="%d" width="%s" height="%s"/></clipPath>`+"\n", padLeft, padTop, f1(plotW), f1(plotH))
	b.WriteString(`<g clip-path="url(#plot)" fill="none" stroke-width="1.5" stroke-linejoin="round">` + "\n")
	for _, r := range c.Refs {
		fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-dasharray="6 4"/>`+"\n", padLeft, f1(py(r.Y)), f1(padLeft+plotW), f1(py(r.Y)))
	}
	for i, s := range c.Series {
		if len(s.X) == 0 {
			continue
		}
		fmt.Fprintf(&b, `<polyline stroke="%s"%s points="%s"/>`+"\n", palette[i%len(palette)], dash(i), stepPoints(s, px, py))
	}
	b.WriteString("</g>\n")

	// Legend, right of the plot.
	lx := float64(padLeft) + plotW + 16
	for i, s := range c.Series {
		y := float64(padTop) + 8 + float64(i)*18
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2.5"%s/>`+"\n", f1(lx), f1(y), f1(lx+24), f1(y), palette[i%len(palette)], dash(i))
		fmt.Fprintf(&b, `<text x="%s" y="%s" dominant-baseline="middle">%s</text>`+"\n", f1(lx+30), f1(y), esc(s.Name))
	}
	for j, r := range c.Refs {
		y := float64(padTop) + 8 + float64(len(c.Series)+j)*18 + 6
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#555" stroke-dasharray="6 4"/>`+"\n", f1(lx), f1(y), f1(lx+24), f1(y))
		fmt.Fprintf(&b, `<text x="%s" y="%s" dominant-baseline="middle">%s</text>`+"\n", f1(lx+30), f1(y), esc(r.Name))
	}
	b.WriteString("</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// stepPoints draws a step function, dropping points that land on the same
// tenth of a unit as the one before (long runs change the window every ACK).
func stepPoints(s Series, px, py func(float64) float64) string {
	var b bytes.Buffer
	lastX, lastY := "", ""
	add := func(x, y float64) {
		sx, sy := f1(px(x)), f1(py(y))
		if sx == lastX && sy == lastY {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(sx + "," + sy)
		lastX, lastY = sx, sy
	}
	for i := range s.X {
		if i > 0 {
			add(s.X[i], s.Y[i-1])
		}
		add(s.X[i], s.Y[i])
	}
	if n := len(s.X); s.XEnd > s.X[n-1] {
		add(s.XEnd, s.Y[n-1])
	}
	return b.String()
}

// dash gives series beyond the palette a dash pattern so that they stay
// distinguishable.
func dash(i int) string {
	if i < len(palette) {
		return ""
	}
	return ` stroke-dasharray="2 2"`
}

// niceTicks returns 0 and multiples of a 1-2-5 step up to the first one at
// or beyond max, about five to ten of them.
func niceTicks(max float64) []float64 {
	if !(max > 0) {
		max = 1
	}
	raw := max / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ts []float64
	for i := 0; ; i++ {
		v := float64(i) * step
		ts = append(ts, v)
		if v >= max {
			return ts
		}
	}
}

func tickLabel(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func esc(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
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

// WriteFileAtomic writes data through a temporary file in the same folder
// and a rename, so that a reader never sees half a file.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	return nil
}

// WriteCwndSVG draws CwndChart(r, title) to path, atomically.
func (r *Result) WriteCwndSVG(path, title string) error {
	var b bytes.Buffer
	if err := CwndChart(r, title).WriteSVG(&b); err != nil {
		return err
	}
	return WriteFileAtomic(path, b.Bytes())
}
