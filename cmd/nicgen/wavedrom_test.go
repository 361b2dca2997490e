package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/rates"
)

// Every block's cycle contract, from its golden cycle model, keeps the
// stream rules the diagram shows: every event offered is accepted and
// held unchanged until it is, a result stays valid while it is not taken,
// a plain shell answers every event and a merging one at most every
// event; the WaveDrom document is JSON with one wave per cycle on every
// signal; and docs/pipeline.md holds srp_tx's diagram as generated.
func TestCycleContract(t *testing.T) {
	t.Parallel()
	r, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range r.Blocks {
		tm, err := rates.MeasureTiming(r.Config, name)
		if err != nil {
			t.Fatal(err)
		}
		c, err := cycleContract(r.Config, name, tm)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n := len(c.sValid)
		accepted, taken := 0, 0
		for i := 0; i < n; i++ {
			if c.accepted[i] >= 0 {
				if c.accepted[i] != accepted {
					t.Errorf("%s: cycle %d accepted event %d, want %d", name, i, c.accepted[i], accepted)
				}
				accepted++
			}
			if i+1 < n && c.sValid[i] && !c.sReady[i] && (!c.sValid[i+1] || c.conn[i+1] != c.conn[i]) {
				t.Errorf("%s: cycle %d: an event not taken was not offered again", name, i)
			}
			if c.mValid[i] && c.mR[i] {
				taken++
			}
			if i+1 < n && c.mValid[i] && !c.mR[i] && !c.mValid[i+1] {
				t.Errorf("%s: cycle %d: a result not taken was withdrawn", name, i)
			}
		}
		if accepted != len(contractEvents) {
			t.Errorf("%s: %d of %d events accepted", name, accepted, len(contractEvents))
		}
		if taken == 0 || taken > len(contractEvents) || (tm.PerClock <= 1.0/float64(tm.Depth)+1e-9 && taken != len(contractEvents)) {
			t.Errorf("%s: %d results for %d events (depth %d, %.3f events per clock on one connection)", name, taken, len(contractEvents), tm.Depth, tm.PerClock)
		}
		var doc struct {
			Signal []struct {
				Name string   `json:"name"`
				Wave string   `json:"wave"`
				Data []string `json:"data"`
			} `json:"signal"`
		}
		if err := json.Unmarshal([]byte(c.WaveDrom()), &doc); err != nil {
			t.Fatalf("%s: the WaveDrom document is not JSON: %v", name, err)
		}
		for _, s := range doc.Signal {
			if s.Name != "" && len(s.Wave) != n {
				t.Errorf("%s: signal %s has %d cycles, want %d", name, s.Name, len(s.Wave), n)
			}
			if s.Name == "s_event_conn" && len(s.Data) != len(contractEvents) {
				t.Errorf("%s: %d connection labels, want %d", name, len(s.Data), len(contractEvents))
			}
		}
		if name == "srp_tx" {
			doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "pipeline.md"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(doc), "```wavedrom\n"+c.WaveDrom()+"```\n") {
				t.Errorf("docs/pipeline.md does not hold srp_tx's diagram as generated; `nicgen doc srp_tx` prints it:\n%s", c.WaveDrom())
			}
		}
	}
}
