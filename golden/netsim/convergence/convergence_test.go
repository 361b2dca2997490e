package convergence

import (
	"testing"
)

// Scene starts every flow at one BDP; Run runs the controls a --control
// value names, in order, and none for an unknown one.
func TestRunControls(t *testing.T) {
	b := Scene(2, 20_000, 200_000, 50_000, 100)
	if d := Default(); b.InitCwnd < 0.99*d.InitCwnd || b.InitCwnd > 1.01*d.InitCwnd {
		t.Errorf("one BDP at 100 Gb/s: %v packets, want the default's %v", b.InitCwnd, d.InitCwnd)
	}
	rows, err := Run(b, "both")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Control != "swift" || rows[1].Control != "hpcc" || len(rows[0].Runs) == 0 {
		t.Fatalf("both: %+v", rows)
	}
	if p := Plots(rows, b); len(p) != 2 || p[1].Name != "hpcc" || p[1].Lines == nil {
		t.Errorf("plots: %+v", p)
	}
	if rows, err := Run(b, "dctcp"); rows != nil || err != nil {
		t.Errorf("dctcp: %v, %v", rows, err)
	}
}
