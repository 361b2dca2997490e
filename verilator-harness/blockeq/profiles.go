package blockeq

import (
	"fmt"
	"sort"
)

// Profiles are named stimulus mixes. "mixed" is the default random
// workload and must reach every behaviour of a block; the others are
// adversarial: they push one corner hard and are run for equivalence only.
var profileDocs = map[string]string{
	"mixed":        "random event mix with connection locality and backpressure (the default)",
	"same-conn":    "every event on one connection: a same-connection hazard on every cycle",
	"all-ecn":      "every ack ECN-marked",
	"all-loss":     "REPS: timeouts and nacks only between sends; SMaRTT: trims and timeouts only",
	"idle":         "long idle gaps on the event stream (valid 10% of cycles)",
	"backpressure": "the result stream is ready 20% of cycles",
	"extremes":     "extreme field values: widest sizes, RTTs and counters, EVs 0 and all ones",
	"wrap":         "time advances fast, so timestamps wrap at their counter width every few thousand events",
	"hazard":       "connections 0..k-1 in turn, an event offered every cycle, so each connection returns every k events, k = 1..17 (every pipeline depth + 1) in phases of 512 events; the result stream is ready 80% of cycles",
}

// lineRateDocs are the profiles of the line-rate loads, which drive a
// merging shell (docs/pipeline.md, "Merge stage") where it folds, waits
// and fills: an event offered on every cycle, results always taken unless
// the profile says otherwise. Only the blocks that merge (smartt, nscc)
// take them.
var lineRateDocs = map[string]string{
	"line-rate": "one connection on every cycle, ACKs of one MTU only: the 800 Gb/s connection with per-packet ACKs, and faster",
	"incast-2":  "ACKs (30% ECN-marked, 10% smaller than the MTU) on 2 connections, in random order, one on every cycle",
	"incast-8":  "as incast-2 on 8 connections",
	"incast-64": "as incast-2 on 64 connections",
	"ce-burst":  "ACKs on 4 connections, one on every cycle, ECN-marked in runs of 1..16 ACKs and unmarked in the next run",
	"barriers":  "ACKs on 4 connections, one on every cycle, with opens, NACKs and timeouts (a fifth of the events) between them",
}

// LineRateProfiles lists the line-rate profiles, sorted.
func LineRateProfiles() []string { return sortedKeys(lineRateDocs) }

// ProfileNames lists the profiles, sorted (the line-rate ones included).
func ProfileNames() []string {
	return append(sortedKeys(profileDocs), LineRateProfiles()...)
}

func sortedKeys(m map[string]string) []string {
	var n []string
	for k := range m {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// ProfileDoc describes a profile.
func ProfileDoc(name string) string {
	if d, ok := lineRateDocs[name]; ok {
		return d + " (smartt and nscc only)"
	}
	return profileDocs[name]
}

func checkProfile(name string) error {
	_, ok := profileDocs[name]
	_, lr := lineRateDocs[name]
	if !ok && !lr {
		return fmt.Errorf("unknown stimulus profile %q (profiles: %v)", name, ProfileNames())
	}
	return nil
}

// checkProfileFor refuses a line-rate profile for a block that does not
// take it.
func checkProfileFor(block, name string) error {
	if err := checkProfile(name); err != nil {
		return err
	}
	if _, lr := lineRateDocs[name]; lr && block != "smartt" && block != "nscc" {
		return fmt.Errorf("stimulus profile %q drives a merging shell's ACKs: blocks smartt and nscc take it, not %s", name, block)
	}
	return nil
}
