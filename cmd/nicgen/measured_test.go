package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/measured"
)

// synth --record writes the record through writeAtomic, making its
// folder, with one line per top module: the lines package measured puts.
func TestRecordECP5(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "ecp5.tsv")
	r1 := measured.Record{Block: "zeta", Digest: "fedcba9876543210", FreqMHz: 200, Seeds: []float64{151.2}, Median: 151.2, Uniform: 0.905, Single: 0.034, Critical: "a -> b"}
	r2 := measured.Record{Block: "alpha", Digest: "0123456789abcdef", FreqMHz: 250, Seeds: []float64{219}, Median: 219, Uniform: 1, Single: 1, Critical: "c -> d"}
	for _, r := range []measured.Record{r1, r2, r1} {
		if err := recordECP5(path, r); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := measured.Format([]measured.Record{r2, r1}); string(data) != string(want) {
		t.Errorf("wrote\n%s\nwant\n%s", data, want)
	}
}

// The embedded record parses, and each of its lines names a block or a
// block's control wrapper.
func TestEmbeddedECP5Record(t *testing.T) {
	t.Parallel()
	recs, err := measured.Parse(measuredFile, measuredECP5)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if _, err := blocks.Lookup(strings.TrimSuffix(r.Block, "_ctl")); err != nil {
			t.Errorf("%s: %v", measuredFile, err)
		}
	}
}

// A record that cannot be read fails synth --record before place and
// route, naming the file and line, and is left as it was.
func TestSynthRecordCheckedFirst(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "ecp5.tsv")
	const text = "# header\nreps_conf\tnot enough fields\n"
	if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "synth", "reps_conf", "--target", "ecp5", "--record", bad)
	if err == nil || !strings.Contains(err.Error(), bad+":2: 2 tab-separated fields") {
		t.Fatalf("err %v, want one naming %s:2\n%s", err, bad, out)
	}
	if strings.Contains(out, "Fmax") {
		t.Errorf("placed and routed before reading the record:\n%s", out)
	}
	if got, _ := os.ReadFile(bad); string(got) != text {
		t.Errorf("the record was rewritten:\n%s", got)
	}
}

// A configuration whose Verilog was not measured gets no figure of other
// hardware: its datasheet says so.
func TestDatasheetNotMeasured(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "doc", "reps_conf", "-c", filepath.Join("..", "..", "docs", "examples", "400g.hcl"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "| Fmax, measured | not measured for this Verilog") || strings.Contains(out, "MHz on an ECP5") {
		t.Errorf("the 400g datasheet quotes a measurement of other Verilog:\n%s", out)
	}
}
