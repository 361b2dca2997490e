package datasheet

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/measured"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/rates"
	"github.com/nicgen/nicgen/hdlgen"
)

// factsOf is the facts of block name in r with made-up rates (this
// package only words them), no record and no stage table.
func factsOf(t *testing.T, r *config.Resolved, name string) Facts {
	t.Helper()
	b, err := blocks.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	d, err := b.Elaborate(r.Config)
	if err != nil {
		t.Fatal(err)
	}
	return Facts{
		Resolved: r, ConfigLines: []string{r.Config.Name}, Block: b, Design: d,
		Timing:     rates.Timing{Latency: 9, PerClock: 64.0 / 253, Mixed: 1, Depth: 4, Burst: 64},
		Loads:      rates.Loads{Uniform: 0.9, Incast: 0.5, IncastConns: 8, Incast64: 0.75, Single: 0.25},
		RecordFile: "rec.tsv",
		Contract:   Contract{WaveDrom: "{}\n", Conns: "0, 1"},
		State:      State{PerConnBits: 12, PerConnBytes: 2, Connections: 4, TableBits: 48, TableKiB: 48.0 / 8 / 1024},
	}
}

// verilogPort is a port declaration of a module's Verilog header, as
// hdlgen emits it: "input  wire [19:0] s_event_rtt,".
var verilogPort = regexp.MustCompile(`(?m)^\s*(input|output)\s+(?:wire|reg)\s+(?:\[(\d+):0\]\s+)?(\w+)\s*,?\s*$`)

// The datasheet of every default block lists each port of the block's
// Verilog, with the direction and width of its declaration there, once,
// and each module of its design.
func TestPortsAsTheVerilogDeclaresThem(t *testing.T) {
	t.Parallel()
	r, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range r.Blocks {
		f := factsOf(t, r, name)
		ds := string(Markdown(f))
		top := f.Design.Top.Name()
		verilog := string(hdlgen.Emit(f.Design, hdlgen.EmitOptions{})[top+".v"])
		head, _, ok := strings.Cut(verilog, "\n);")
		if !ok {
			t.Fatalf("%s.v has no port list", top)
		}
		ports := verilogPort.FindAllStringSubmatch(head, -1)
		if len(ports) < 4 {
			t.Fatalf("%s.v: found %d ports", top, len(ports))
		}
		_, portSection, _ := strings.Cut(ds, "\n## Ports\n")
		portSection, _, _ = strings.Cut(portSection, "\n## ")
		if rows := strings.Count(portSection, "\n| `"); rows != len(ports) {
			t.Errorf("%s: %d port rows, the Verilog declares %d ports", name, rows, len(ports))
		}
		for _, p := range ports {
			width := 1
			if p[2] != "" {
				msb, _ := strconv.Atoi(p[2])
				width = msb + 1
			}
			if row := fmt.Sprintf("\n| `%s` | %s | %d | ", p[3], p[1], width); strings.Count(portSection, row) != 1 {
				t.Errorf("%s: no single row %q", name, row[1:])
			}
		}
		for _, m := range f.Design.Modules {
			if !strings.Contains(ds, fmt.Sprintf("| `%s` | `%s.v` |", m.Name(), m.Name())) {
				t.Errorf("%s: module %s is not listed", name, m.Name())
			}
		}
	}
}

// A datasheet quotes the record of its Verilog, with the critical path in
// the stage table's paragraph, and without one says how to measure it.
func TestMeasuredOrNot(t *testing.T) {
	t.Parallel()
	r, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	f := factsOf(t, r, "nscc")
	f.Stages = Stages{Module: "nscc", Table: "| stage |\n"}
	ds := string(Markdown(f))
	if want := "| Fmax, measured | not measured for this Verilog: `nicgen synth nscc --target ecp5 --seeds 3 --record rec.tsv` measures it |"; !strings.Contains(ds, want) {
		t.Errorf("without a record, no %q:\n%s", want, ds)
	}
	clk := r.Config.ClockMHz
	for _, median := range []float64{clk + 10, clk - 10} {
		f.Measured = &measured.Record{Block: "nscc", FreqMHz: 200, Seeds: []float64{median - 1, median, median + 1}, Median: median, Uniform: 0.5, Single: 0.25, Critical: "seed 2: a -> $nextpnr -> b"}
		ds := string(Markdown(f))
		verdict := map[bool]string{true: "meets", false: "misses"}[median >= clk]
		want := fmt.Sprintf("| Fmax, measured | %s MHz on an ECP5 LFE5U-85F speed 8 (nextpnr-ecp5, median of 3 placer seeds: %s, %s, %s MHz, at a 200 MHz constraint): %s the configured %s MHz. At %s MHz: %.1f Mevents/s",
			fmtFloat(median), fmtFloat(median-1), fmtFloat(median), fmtFloat(median+1), verdict, fmtFloat(clk), fmtFloat(median), median/2)
		if !strings.Contains(ds, want) || strings.Contains(ds, "not measured") {
			t.Errorf("median %v MHz: no %q:\n%s", median, want, ds)
		}
		if want := fmt.Sprintf("one event every %.1f ns for one connection alone", 4000/median); !strings.Contains(ds, want) {
			t.Errorf("median %v MHz: no %q", median, want)
		}
		if !strings.Contains(ds, "The slowest path of the median placer seed (measured above): seed 2: a -> b.") {
			t.Errorf("median %v MHz: the critical path is not in the stages' paragraph:\n%s", median, ds)
		}
	}
	f.Stages.Table = ""
	if strings.Contains(string(Markdown(f)), "## Pipeline stages") {
		t.Errorf("a stage section without stage registers")
	}
}

// The one-connection rate is worded by what the rate says of the shell:
// one event per depth cycles, back to back at depth 1, or the merge stage
// folding events when it is faster than the depth allows.
func TestOneConnectionWording(t *testing.T) {
	t.Parallel()
	r, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	f := factsOf(t, r, "reps")
	clk := fmtFloat(r.Config.ClockMHz)
	for _, c := range []struct {
		depth    int
		perClock float64
		want     string
	}{
		{4, 64.0 / 253, "| throughput, one connection | one event every 4 cycles ("},
		{1, 1, "| throughput, one connection | one event per clock, back to back ("},
		{9, 0.5, "| throughput, one connection | one event every 2 cycles (" + fmtFloat(2000/r.Config.ClockMHz) + " ns at " + clk + " MHz) for back-to-back events of one connection, faster than its pipeline depth 9: the merge stage folds them |"},
	} {
		f.Timing.Depth, f.Timing.PerClock = c.depth, c.perClock
		if ds := string(Markdown(f)); !strings.Contains(ds, c.want) {
			t.Errorf("depth %d, %v events per clock: no %q", c.depth, c.perClock, c.want)
		}
	}
}

func TestPlural(t *testing.T) {
	t.Parallel()
	for n, want := range map[float64]string{1: "1 event", 2: "2 events", 0.5: "0.5 events", 0.125: "0.125 events", 0: "0 events"} {
		if got := Plural(n, "event"); got != want {
			t.Errorf("Plural(%v) = %q, want %q", n, got, want)
		}
	}
}
