package plot

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/golden/netsim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// svgTexts parses an SVG document and returns its text elements.
func svgTexts(t *testing.T, data []byte) []string {
	t.Helper()
	var texts []string
	dec := xml.NewDecoder(bytes.NewReader(data))
	inText, root := false, ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = el.Name.Local
			}
			inText = el.Name.Local == "text"
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				texts = append(texts, string(el))
			}
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return texts
}

// decodePNG checks a PNG's size: the page at 96 dpi.
func decodePNG(t *testing.T, data []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != width*pngDPI/72 || b.Dy() != height*pngDPI/72 {
		t.Errorf("PNG of %dx%d pixels, want %dx%d", b.Dx(), b.Dy(), width*pngDPI/72, height*pngDPI/72)
	}
}

// renderTwice draws twice in each format and checks that the bytes agree.
func renderTwice(t *testing.T, draw func(Format) ([]byte, error)) (svg, pngData []byte) {
	t.Helper()
	for _, f := range []Format{SVG, PNG} {
		a, err := draw(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := draw(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the same chart drew different bytes", f)
		}
		if f == SVG {
			svg = a
		} else {
			pngData = a
		}
	}
	return svg, pngData
}

// A line chart: every text is in the SVG (escaped where XML needs it),
// the PNG decodes at the page's size, and the bytes repeat.
func TestLines(t *testing.T) {
	title := `nscc 8:1 <256 KiB> & "more"`
	c := netsim.Chart{Title: title, XLabel: "time (µs)", YLabel: "cwnd (KiB)",
		Series: []netsim.Series{{Name: "sender 0", X: []float64{0, 5, 9}, Y: []float64{10, 4, 6}, XEnd: 12}, {Name: "sender 1", X: []float64{0, 3}, Y: []float64{8, 2}}},
		Refs:   []netsim.Ref{{Name: "BDP/2", Y: 5}}}
	svg, p := renderTwice(t, func(f Format) ([]byte, error) { return Lines(c, f) })
	all := strings.Join(svgTexts(t, svg), "\n")
	for _, want := range []string{title, "time (µs)", "cwnd (KiB)", "sender 0", "sender 1", "BDP/2"} {
		if !strings.Contains(all, want) {
			t.Errorf("SVG text lacks %q:\n%s", want, all)
		}
	}
	decodePNG(t, p)
	bad := c
	bad.Series = []netsim.Series{{Name: "x", X: []float64{1, 2}, Y: []float64{1}}}
	if _, err := Lines(bad, SVG); err == nil || !strings.Contains(err.Error(), `series "x" has 2 x and 1 y values`) {
		t.Errorf("a series with fewer y than x: %v", err)
	}
	if _, err := Lines(c, "pdf"); err == nil {
		t.Errorf("format pdf accepted")
	}
}

// A long title is wrapped into lines that each fit the page beside the
// legend, every word kept in order.
func TestTitleWraps(t *testing.T) {
	long := strings.Repeat("a configuration with a long name and its figures, ", 6)
	p := plot.New()
	p.Title.TextStyle.Font.Size = vg.Points(15)
	limit := vg.Points(width - legendWidth - 40)
	got := wrap(p.Title.TextStyle, long, limit)
	lines := strings.Split(got, "\n")
	if len(lines) < 2 {
		t.Fatalf("not wrapped: %q", got)
	}
	for _, l := range lines {
		if p.Title.TextStyle.Width(l) > limit {
			t.Errorf("line %q is %v wide, more than %v", l, p.Title.TextStyle.Width(l), limit)
		}
	}
	if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(long), " ") {
		t.Errorf("wrapping changed the words: %q", got)
	}
	svg, err := Lines(netsim.Chart{Title: long, Series: []netsim.Series{{Name: "s", X: []float64{0, 1}, Y: []float64{1, 2}}}}, SVG)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, x := range svgTexts(t, svg) {
		if strings.HasPrefix(long, x) || strings.Contains(long, x) && len(x) > 20 {
			n++
		}
	}
	if n != len(lines) {
		t.Errorf("the SVG has %d title lines, want %d", n, len(lines))
	}
}

// A bar chart names its groups and series; a NaN draws no bar; a series
// of the wrong length is an error.
func TestBars(t *testing.T) {
	c := netsim.BarChart{Title: "share", YLabel: "share of delivered bytes", Groups: []string{"none", "parallel"},
		Series: []netsim.BarSeries{{Name: "swift", Values: []float64{0.5, 0.2}}, {Name: "1rc", Values: []float64{0.49, math.NaN()}}},
		Refs:   []netsim.Ref{{Name: "fair 0.5", Y: 0.5}, {Name: "vulnerable below 0.4", Y: 0.4}}}
	svg, p := renderTwice(t, func(f Format) ([]byte, error) { return Bars(c, f) })
	all := strings.Join(svgTexts(t, svg), "\n")
	for _, want := range []string{"share", "share of delivered bytes", "none", "parallel", "swift", "1rc", "fair 0.5", "vulnerable below 0.4"} {
		if !strings.Contains(all, want) {
			t.Errorf("SVG text lacks %q", want)
		}
	}
	decodePNG(t, p)
	c.Series[1].Values = c.Series[1].Values[:1]
	if _, err := Bars(c, SVG); err == nil || !strings.Contains(err.Error(), `series "1rc" has 1 values for 2 groups`) {
		t.Errorf("a short series: %v", err)
	}
}

// The explorer's scatter: the front, the ringed point and the bound are in
// the legend; no points is an error.
func TestPoints(t *testing.T) {
	s := Scatter{Title: "nscc", XLabel: "state per connection (bits)", YLabel: "error (%)", FrontName: "Pareto front", RingName: "default",
		Bound:  &netsim.Ref{Name: "bound: 1 %", Y: 1},
		Points: []ScatterPoint{{X: 120, Y: 0.8, Front: true}, {X: 150, Y: 0.2, Front: true, Ring: true}, {X: 160, Y: 0.5}}}
	svg, p := renderTwice(t, func(f Format) ([]byte, error) { return Points(s, f) })
	all := strings.Join(svgTexts(t, svg), "\n")
	for _, want := range []string{"nscc", "state per connection (bits)", "error (%)", "Pareto front", "default", "bound: 1 %"} {
		if !strings.Contains(all, want) {
			t.Errorf("SVG text lacks %q", want)
		}
	}
	decodePNG(t, p)
	if _, err := Points(Scatter{Title: "empty"}, PNG); err == nil {
		t.Errorf("no points drew")
	}
}

// Ticks: 0 and a 1-2-5 step, labelled at the step's precision, a minor
// tick between labels.
func TestTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (niceTicker{}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		{0, 10, []string{"0", "2", "4", "6", "8", "10"}},
		{0, 683, []string{"0", "100", "200", "300", "400", "500", "600"}},
		{0, 0.7, []string{"0.0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7"}},
		{0, 0, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
	} {
		if got := labels(c.lo, c.hi); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ticks over %v..%v: %v, want %v", c.lo, c.hi, got, c.want)
		}
	}
}
