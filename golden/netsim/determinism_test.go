package netsim

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/golden/smartt"
)

func runIncast(t *testing.T, v smartt.Variant, size int64, seed uint64) *Result {
	t.Helper()
	p := smartt.DefaultParams(v)
	cfg := ConfigFor(p)
	cfg.MessageBytes = size
	cfg.Seed = seed
	cfg.RecordCwnd = true
	cs, err := GoldenControllers(p, cfg.Senders, false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(cfg, cs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func svgOf(t *testing.T, r *Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := CwndChart(r, "determinism").WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The same configuration and seed give the same numbers, trajectories and
// drawing; another seed gives other numbers (the seed is used).
func TestDeterminism(t *testing.T) {
	for _, v := range variants {
		a := runIncast(t, v, 1<<20, 7)
		b := runIncast(t, v, 1<<20, 7)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs with seed 7 differ:\n%+v\n%+v", v, *a, *b)
		}
		if !bytes.Equal(svgOf(t, a), svgOf(t, b)) {
			t.Errorf("%s: two runs with seed 7 draw different SVGs", v)
		}
		c := runIncast(t, v, 1<<20, 8)
		if c.CompletionNs == a.CompletionNs && c.Trims == a.Trims && c.Marks == a.Marks {
			t.Errorf("%s: seeds 7 and 8 give the same completion, trims and marks: is the seed used?", v)
		}
	}
}

// The cwnd chart is well-formed XML with a title, both axis labels, a
// legend entry and a polyline per sender, and the file is replaced
// atomically (no temporary file is left behind).
func TestCwndSVG(t *testing.T) {
	r := runIncast(t, smartt.NSCC, 256<<10, 1)
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "cwnd.svg")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	title := `nscc 8:1 <256 KiB> & "more"`
	if err := r.WriteCwndSVG(path, title); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		t.Errorf("folder holds %d entries after the write, want only the SVG", len(ents))
	}
	var texts []string
	polylines := 0
	dec := xml.NewDecoder(bytes.NewReader(data))
	inText := false
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
			inText = el.Name.Local == "text"
			if el.Name.Local == "polyline" {
				polylines++
			}
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText {
				texts = append(texts, string(el))
			}
		}
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{title, "time (µs)", "cwnd (KiB)", "sender 0", "sender 7", "BDP/8"} {
		if !strings.Contains(all, want) {
			t.Errorf("SVG text lacks %q", want)
		}
	}
	if polylines != len(r.Senders) {
		t.Errorf("%d polylines, want one per sender (%d)", polylines, len(r.Senders))
	}
}

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		max  float64
		want []float64
	}{
		{10, []float64{0, 2, 4, 6, 8, 10}},
		{683, []float64{0, 200, 400, 600, 800}},
		{1.5, []float64{0, 0.5, 1, 1.5}},
		{0, []float64{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}}, // an empty chart still has axes
	} {
		if got := niceTicks(c.max); !reflect.DeepEqual(got, c.want) {
			t.Errorf("niceTicks(%v) = %v, want %v", c.max, got, c.want)
		}
	}
}
