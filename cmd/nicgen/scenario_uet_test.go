package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// `scenario incast --variant uet_cc` runs uet_cc as every sender's engine:
// its windows are nscc's (the same completion, trims and marks as nscc
// alone), and its entropies are reported, explored and recycled, each
// sender's LFSR seeded apart.
func TestIncastUETEngineCLI(t *testing.T) {
	t.Parallel()
	run := func(variant string) scenarioOut {
		out, err := runCLI(t, "scenario", "incast", "--variant", variant, "--size", "256KiB", "--json")
		if err != nil {
			t.Fatalf("%s: %v\n%s", variant, err, out)
		}
		var r scenarioOut
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: %v\n%s", variant, err, out)
		}
		return r
	}
	nscc, engine := run("nscc"), run("uet_cc")
	if engine.CompletionUs != nscc.CompletionUs || engine.Trims != nscc.Trims || engine.Marks != nscc.Marks {
		t.Errorf("uet_cc's incast differs from nscc's: completion %.3f vs %.3f us, trims %d vs %d, marks %d vs %d",
			engine.CompletionUs, nscc.CompletionUs, engine.Trims, nscc.Trims, engine.Marks, nscc.Marks)
	}
	e := engine.Entropies
	if e == nil || e.Explored == 0 || e.Distinct < int(e.Explored)/2 {
		t.Errorf("entropies %+v: want explored ones, mostly distinct across senders", e)
	}
	if nscc.Entropies != nil {
		t.Errorf("nscc alone reports entropies: %+v", nscc.Entropies)
	}
}

// The incast applies each ACK alone when it arrives: with a configuration
// whose engine merges ACKs or splits its send path, it says so.
func TestIncastSaysWhatItDoesNotModel(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{"../../docs/examples/uet-split.hcl": "uet_cc's split send path", "": ""} {
		args := []string{"scenario", "incast", "--variant", "uet_cc", "--size", "64KiB", "--json"}
		if file != "" {
			args = append(args, "-c", file)
		}
		out, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", file, err, out)
		}
		var r scenarioOut
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: %v\n%s", file, err, out)
		}
		if r.NotModelled != want {
			t.Errorf("%s: not_modelled %q, want %q", file, r.NotModelled, want)
		}
	}
}

// --clock-mhz closes the loop through uet_cc's golden cycle model: the split
// engine of docs/examples/uet-split.hcl is then modelled, merges ACKs
// (fewer window updates than events) and reports its latencies; the
// shared shell answers every event by itself. --clock-mhz is refused for a
// block that is not the engine, and outside 1..10000 MHz.
func TestIncastClockedEngine(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"../../docs/examples/uet-split.hcl", ""} {
		args := []string{"scenario", "incast", "--variant", "uet_cc", "--size", "256KiB", "--clock-mhz", "157", "--json"}
		if file != "" {
			args = append(args, "-c", file)
		}
		out, errOut, err := runCLIStdout(t, args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", file, err, errOut)
		}
		var r scenarioOut
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: %v\n%s", file, err, out)
		}
		e := r.Engine
		switch {
		case r.NotModelled != "" || e == nil || e.ClockMHz != 157:
			t.Errorf("%s: not_modelled %q, engine %+v: want the engine modelled at 157 MHz", file, r.NotModelled, e)
		case file != "" && (e.Updates >= e.Feedback || !strings.Contains(e.Shell, "split")):
			t.Errorf("%s: %s, %d updates for %d events: want the split engine, merging", file, e.Shell, e.Updates, e.Feedback)
		case file == "" && (e.Updates != e.Feedback || !strings.Contains(e.Shell, "shared shell, depth 22")):
			t.Errorf("%s: %s, %d updates for %d events: want the shared shell answering each", file, e.Shell, e.Updates, e.Feedback)
		case e.FeedbackMeanNs <= 0 || e.FeedbackMaxNs < e.FeedbackMeanNs || e.MaxFIFO < 1:
			t.Errorf("%s: engine %+v", file, e)
		}
	}
	for _, args := range [][]string{{"--variant", "nscc", "--clock-mhz", "157"}, {"--variant", "uet_cc", "--clock-mhz", "0.5"}, {"--variant", "uet_cc", "--clock-mhz", "NaN"}} {
		out, err := runCLI(t, append([]string{"scenario", "incast", "--size", "64KiB"}, args...)...)
		if code := exitCode(err); code != 2 || !strings.Contains(err.Error(), "--clock-mhz") {
			t.Errorf("%v: exit %d (%v), want 2 naming --clock-mhz:\n%s", args, code, err, out)
		}
	}
}
