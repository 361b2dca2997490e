package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks"
)

// The record keeps one line per block, replaces a block's line, reads back
// what it wrote, and a datasheet quotes it only for the Verilog measured.
func TestECP5Record(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{"a.v": []byte("module a; endmodule\n"), "b.v": []byte("module b; endmodule\n")}
	d := verilogDigest(files)
	if len(d) != 16 || d != verilogDigest(map[string][]byte{"b.v": files["b.v"], "a.v": files["a.v"]}) {
		t.Fatalf("digest %q is not 16 hex digits or depends on map order", d)
	}
	for _, other := range []map[string][]byte{
		{"a.v": []byte("module a; endmodule \n"), "b.v": files["b.v"]}, // one byte more
		{"a.v": files["a.v"]},                      // a file less
		{"a.v": files["b.v"], "b.v": files["a.v"]}, // swapped contents
	} {
		if verilogDigest(other) == d {
			t.Errorf("different Verilog, same digest %s", d)
		}
	}

	path := filepath.Join(t.TempDir(), "sub", "ecp5.tsv")
	r1 := ecp5Record{Block: "zeta", Digest: d, FreqMHz: 200, Seeds: []float64{140.25, 151.2, 149.5}, Median: 149.5, Uniform: 0.905, Single: 0.034, Critical: "seed 3: 6.69 ns: a -> b"}
	r2 := ecp5Record{Block: "alpha", Digest: "0123456789abcdef", FreqMHz: 250, Seeds: []float64{219}, Median: 219, Uniform: 1, Single: 1, Critical: "x\ty"}
	for _, r := range []ecp5Record{r1, r2, r1} {
		if err := recordECP5(path, r); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "alpha\t") || !strings.HasPrefix(lines[2], "zeta\t") {
		t.Fatalf("want the header and one sorted line per block, got:\n%s", data)
	}
	recs, err := parseECP5Records(path, string(data))
	if err != nil {
		t.Fatal(err)
	}
	if got := recs[1]; got.Median != 149.5 || len(got.Seeds) != 3 || got.Seeds[0] != 140.2 && got.Seeds[0] != 140.3 || got.Digest != d || got.Single != 0.034 {
		t.Errorf("read back %+v, wrote %+v", got, r1)
	}
	if recs[0].Critical != "x y" {
		t.Errorf("a tab in the critical path was not replaced: %q", recs[0].Critical)
	}

	for _, bad := range []struct{ text, want string }{
		{"a\tb\t200\n", "x.tsv:1: 3 tab-separated fields"},
		{"# c\na\tb\t200\t1,x\t1\t1\t1\tp\n", "x.tsv:2: Fmax per seed"},
		{"a\tb\t-1\t1\t1\t1\t1\tp\n", "x.tsv:1: constraint MHz"},
	} {
		if _, err := parseECP5Records("x.tsv", bad.text); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one containing %q", bad.text, err, bad.want)
		}
	}
}

// The embedded record parses, and each of its lines names a block or a
// block's control wrapper.
func TestEmbeddedECP5Record(t *testing.T) {
	t.Parallel()
	recs, err := parseECP5Records(measuredFile, measuredECP5)
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
