package main

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scenario hotspot and convergence draw their plots as well-formed SVG
// files (and PNG files with --png), one line per run, named from the
// prefix, and name them.
func TestScenarioPlots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		args  []string
		files []string
		lines []string
	}{
		{[]string{"scenario", "hotspot", "--duration", "100", "--warmup", "20", "--svg", filepath.Join(dir, "hs"), "--png", filepath.Join(dir, "hs.png")},
			[]string{"hs-throughput.svg", "hs-victims.svg", "hs-latency.svg", "hs-throughput.png", "hs-victims.png", "hs-latency.png"}, []string{"none", "ecn", "srp", "none (no hot spot)", "srp (no hot spot)"}},
		{[]string{"scenario", "convergence", "--flows", "4", "--duration", "600", "--svg", filepath.Join(dir, "cv.svg")},
			[]string{"cv-swift.svg", "cv-swift-block.svg", "cv-hpcc.svg", "cv-hpcc-block.svg"}, []string{"plain", "vai", "sf", "vai+sf"}},
	} {
		out, err := runCLI(t, c.args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		for _, f := range c.files {
			path := filepath.Join(dir, f)
			if !strings.Contains(out, "plot -> "+path) {
				t.Errorf("%v does not name %s:\n%s", c.args, path, out)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(f, ".png") {
				if _, err := png.Decode(bytes.NewReader(data)); err != nil {
					t.Errorf("%s is not a PNG: %v", f, err)
				}
				continue
			}
			var doc struct {
				XMLName xml.Name
			}
			if err := xml.Unmarshal(data, &doc); err != nil || doc.XMLName.Local != "svg" {
				t.Errorf("%s is not an SVG document: %v", f, err)
			}
			for _, l := range c.lines {
				if !strings.Contains(string(data), ">"+l+"<") {
					t.Errorf("%s has no line %q", f, l)
				}
			}
		}
	}
}

// Every command that draws checks its --svg and --png paths before it
// runs: a path under a regular file is refused with a usage error naming
// the flag, and nothing is simulated first (the output is empty).
func TestPlotPathsCheckedFirst(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(file, "sub", "plot")
	for _, cmd := range [][]string{
		{"scenario", "incast"},
		{"scenario", "hotspot"},
		{"scenario", "isolation"},
		{"scenario", "convergence"},
		{"scenario", "collective"},
		{"budget", "--explore", "nscc"},
	} {
		for _, flag := range []string{"--svg", "--png"} {
			args := append(append([]string{}, cmd...), flag, bad)
			out, err := runCLI(t, args...)
			if exitCode(err) != 2 || !strings.Contains(err.Error(), flag) {
				t.Errorf("%v: exit %d, error %v; want exit 2 naming %s", args, exitCode(err), err, flag)
			}
			if strings.TrimSpace(out) != "" {
				t.Errorf("%v: printed before refusing:\n%s", args, out)
			}
		}
	}
}
