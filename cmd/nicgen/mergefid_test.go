package main

import (
	"strconv"
	"strings"
	"testing"
)

// scenario merge prints one row per trace; each trace's results stand
// for its ACKs, so there are at most as many results as ACKs and at least
// one ACK per result; the one connection alone merges (its ACKs come
// faster than the pipeline's depth), and a bad clock is a usage error.
func TestScenarioMerge(t *testing.T) {
	t.Parallel()
	out, err := runCLI(t, "scenario", "merge", "--size", "256KiB", "--slots", "10")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(out, "\n") {
		for _, name := range []string{"one connection, CE", "one connection", "8:1 incast", "64:1 incast"} {
			if strings.HasPrefix(l, name+" ") && rows[name] == nil {
				rows[name] = strings.Fields(strings.TrimPrefix(l, name))
				break
			}
		}
	}
	if len(rows) != 4 {
		t.Fatalf("want 4 trace rows, got %d:\n%s", len(rows), out)
	}
	for name, f := range rows {
		acks, _ := strconv.Atoi(f[0])
		results, _ := strconv.Atoi(f[1])
		per, _ := strconv.ParseFloat(f[3], 64)
		if acks == 0 || results == 0 || results > acks || per < 1 {
			t.Errorf("%s: %v", name, f)
		}
	}
	if merged, _ := strconv.Atoi(rows["one connection"][2]); merged == 0 {
		t.Errorf("one connection: no merged result: %v", rows["one connection"])
	}
	if _, err := runCLI(t, "scenario", "merge", "--clock-mhz", "0"); err == nil {
		t.Error("--clock-mhz 0 accepted")
	}
}
