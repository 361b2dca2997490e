package main

import (
	"encoding/json"
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
