package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// isolationArgs is a short study: every control and attack, 20 base RTTs
// of warm-up and 60 of window.
var isolationArgs = []string{"scenario", "isolation", "--warmup", "20", "--window", "60"}

// The table is golden: same flags, same bytes
// (go test ./cmd/nicgen -run TestIsolationGolden -update rewrites it).
func TestIsolationGolden(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, isolationArgs...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkGolden(t, filepath.Join("testdata", "isolation.golden"), out)
}

// --json prints the rows, --svg draws two bar charts with one bar series
// per row and names them.
func TestIsolationJSONAndPlots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := append(append([]string{}, isolationArgs...), "--cc", "swift,1rc", "--attack", "none,parallel", "--svg", filepath.Join(dir, "iso.svg"))
	out, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, f := range []string{"iso-share.svg", "iso-slowdown.svg"} {
		path := filepath.Join(dir, f)
		if !strings.Contains(out, "plot -> "+path) {
			t.Errorf("output does not name %s:\n%s", path, out)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ XMLName xml.Name }
		if err := xml.Unmarshal(data, &doc); err != nil || doc.XMLName.Local != "svg" {
			t.Errorf("%s is not an SVG document: %v", f, err)
		}
		for _, name := range []string{"swift per-connection", "swift per-src/dst", "1rc per-connection, weighted", "parallel"} {
			if !strings.Contains(string(data), ">"+name+"<") {
				t.Errorf("%s has no label %q", f, name)
			}
		}
	}
	out, err = runCLI(t, append(args[:len(args)-2], "--json")...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var res struct {
		Rows []struct {
			Control string
			Cells   []struct {
				Attack      string
				VictimShare float64 `json:"victim_share"`
				Verdict     string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if len(res.Rows) != 3 || len(res.Rows[0].Cells) != 2 || res.Rows[0].Cells[1].Attack != "parallel" || res.Rows[0].Cells[1].Verdict != "vulnerable" {
		t.Errorf("--json: %+v: want swift's two rows and 1rc's, swift per connection vulnerable to parallel", res)
	}
}

// Bad flags exit with status 2 and say what is wrong.
func TestIsolationBadFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--cc", "dcqcn"}, `--cc "dcqcn": control "dcqcn": want one of smartt, nscc, swift, hpcc, 1rc`},
		{[]string{"--attack", "ring"}, `--attack "ring": attack "ring": want one of none, parallel, staggered, shuffled`},
		{[]string{"--attack", ""}, "no attack"},
		{[]string{"--parallel", "1"}, "parallel QPs 1: want 2..64"},
		{[]string{"--window", "3"}, "window 3 RTTs: want 10..100000"},
		{[]string{"--vulnerable-below", "0.7"}, "vulnerable below a share of 0.7"},
	} {
		out, err := runCLI(t, append([]string{"scenario", "isolation"}, c.args...)...)
		if code := exitCode(err); code != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: exit %d, error %v: want 2 and %q\n%s", c.args, code, err, c.want, out)
		}
	}
}
