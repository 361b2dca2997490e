package main

import (
	"strconv"
	"strings"
	"testing"
)

// scenario split prints one row per trace. One connection at the link
// rate (an event every 20-41 ns) arrives faster than the shared engine's
// one event per 22 cycles (147 ns at 150 MHz), so its events wait there,
// longer and longer; the split engine's send path takes that
// connection's event every 3 cycles (20 ns), so an event waits at most
// for one that arrived in the same cycles. Its entropies and bytes in
// flight equal the shared engine's (MeasureSplit fails otherwise), and
// without marks the windows the sends see are the shared engine's.
func TestScenarioSplit(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "scenario", "split", "--size", "1MiB")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(out, "\n") {
		for _, name := range []string{"one connection, 16 KiB ACKs", "one connection, CE", "one connection"} {
			if strings.HasPrefix(l, name+" ") && rows[name] == nil {
				rows[name] = strings.Fields(strings.TrimPrefix(l, name))
				break
			}
		}
	}
	if len(rows) != 3 {
		t.Fatalf("want 3 trace rows, got %d:\n%s", len(rows), out)
	}
	for name, f := range rows {
		maxWait, _ := strconv.Atoi(f[3])
		sharedWait, _ := strconv.Atoi(f[len(f)-1])
		if maxWait > 3 || sharedWait < 1000 {
			t.Errorf("%s: the split engine's longest wait %d cycles (want at most 3), the shared engine's %d (want 1000 and more): %v", name, maxWait, sharedWait, f)
		}
	}
	for _, name := range []string{"one connection", "one connection, 16 KiB ACKs"} {
		if d, diff := rows[name][6], rows[name][9]; d != "0" || diff != "0.00%" {
			t.Errorf("%s: without marks, may_send differs on %s sends and the windows by up to %s", name, d, diff)
		}
	}
	if _, err := runCLI(t, "scenario", "split", "--slots", "1"); err == nil {
		t.Error("--slots 1 accepted")
	}
}
