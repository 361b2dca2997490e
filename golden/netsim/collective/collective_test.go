package collective

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// The thesis's all-reduce (S3:L1581-1590) on 64 GPUs, at 64 and 32
// initiators under the three controls, with the margins docs/sim.md
// states:
//
//   - Table 6.1's window reaches 95% of the links' bound at 64
//     initiators (S3: hand-tuned, the best the network gives);
//   - 3CPO reaches 85% of the window's effective bandwidth and of the
//     bound (the thesis: within 2% of the window; measured here 91% of
//     the window's at 64 initiators and 96% at 32, docs/blocks/3cpo.md
//     "The gap to the hand-tuned window");
//   - no CC pays in latency: its average packet latency is at least 3
//     times the window's, and 3CPO's below it;
//   - matching spaces each initiator's writes to N x 10 cycles (its 1/N
//     share of every member's link) within 10%;
//   - every watermark after every probe lies in [WM_MIN, WM_MAX]; at 32
//     initiators the second half stays within 10% of WM_MAX and every
//     initiator ends at WM_MAX;
//   - at 64 initiators with irl_tokens's max_cost doubled (1152), so that
//     a send can pay the matched tokens of 63 others' reads and writes
//     (about 640 a transaction) and what the start-up left, 3CPO is within
//     the thesis's 2% of the window and every initiator's watermarks end
//     at WM_MAX (docs/blocks/3cpo.md: at 576 the tokens left unpaid slow
//     the last writes).
func TestCollectiveFigures(t *testing.T) {
	st := DefaultStudy()
	st.Initiators = []int{64, 32}
	res, err := st.Run()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := res.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", b.String())
	c := st.Base
	for _, n := range st.Initiators {
		none, win, cpo := res.Find(n, None), res.Find(n, Window), res.Find(n, ThreeCPO)
		if n == 64 && win.EffBW < 0.95*win.Bound {
			t.Errorf("%d initiators: the window's effective bandwidth %.3f is below 95%% of the bound %.3f", n, win.EffBW, win.Bound)
		}
		if cpo.EffBW < 0.85*win.EffBW || cpo.EffBW < 0.85*cpo.Bound {
			t.Errorf("%d initiators: 3CPO's effective bandwidth %.3f is below 85%% of the window's %.3f or of the bound %.3f", n, cpo.EffBW, win.EffBW, cpo.Bound)
		}
		if none.AvgLat < 3*win.AvgLat || cpo.AvgLat >= none.AvgLat {
			t.Errorf("%d initiators: average latency none %.0f, window %.0f, 3CPO %.0f: want none at least 3 x the window's and above 3CPO's", n, none.AvgLat, win.AvgLat, cpo.AvgLat)
		}
		if math.Abs(cpo.Spacing-cpo.SpacingIdeal) > 0.1*cpo.SpacingIdeal {
			t.Errorf("%d initiators: 3CPO spaces writes %.1f cycles apart, want %.0f within 10%%", n, cpo.Spacing, cpo.SpacingIdeal)
		}
		if cpo.WMMin < float64(c.WM.WMMin) || cpo.WMMax > float64(c.WM.WMMax) {
			t.Errorf("%d initiators: watermarks %.1f..%.1f outside [%d, %d]", n, cpo.WMMin, cpo.WMMax, c.WM.WMMin, c.WM.WMMax)
		}
		if n == 32 && (cpo.WMLateMin < 0.9*float64(c.WM.WMMax) || cpo.WMFinalMin != float64(c.WM.WMMax)) {
			t.Errorf("%d initiators: second half %.0f..%.0f, last %.0f..%.0f: want within 10%% of WM_MAX and ending at it", n, cpo.WMLateMin, cpo.WMLateMax, cpo.WMFinalMin, cpo.WMFinalMax)
		}
		if cpo.Probes == 0 || cpo.IRLEvents < 2*int64(n)*cpo.Cycles {
			t.Errorf("%d initiators: %d probes, %d irl_tokens events in %d cycles: want probes and two port cycles per initiator per cycle", n, cpo.Probes, cpo.IRLEvents, cpo.Cycles)
		}
	}
	c.Initiators, c.Control = 64, ThreeCPO
	c.IRL.MaxCost = 2 * c.IRL.MaxCost
	u, err := GoldenUnits(c)
	if err != nil {
		t.Fatal(err)
	}
	cpo, err := Run(c, u)
	if err != nil {
		t.Fatal(err)
	}
	win := res.Find(64, Window)
	t.Logf("64 initiators, max_cost %d: 3CPO %.3f (%.1f%% of the window's %.3f), latency %.0f/%d/%d, last watermarks %.0f..%.0f",
		c.IRL.MaxCost, cpo.EffBW, 100*cpo.EffBW/win.EffBW, win.EffBW, cpo.AvgLat, cpo.P99Lat, cpo.MaxLat, cpo.WMFinalMin, cpo.WMFinalMax)
	if cpo.EffBW < 0.98*win.EffBW || cpo.WMFinalMin != float64(c.WM.WMMax) {
		t.Errorf("64 initiators, max_cost %d: 3CPO %.3f against the window's %.3f, last watermarks from %.0f: want within 2%% and every one at WM_MAX",
			c.IRL.MaxCost, cpo.EffBW, win.EffBW, cpo.WMFinalMin)
	}
}

// A small run: 8 GPUs, all initiators, 16 transactions (the RTL-in-the-
// loop test's setting, verilator-harness/blockeq).
func small() Config {
	c := Default()
	c.GPUs, c.Initiators, c.Transactions = 8, 8, 16
	c.IRLPorts, c.WMInstances = 16, 16
	return c
}

// The same configuration gives the same run, and every control finishes.
func TestCollectiveDeterministic(t *testing.T) {
	for _, ctl := range Controls {
		c := small()
		c.Control = ctl
		var runs [2]*Result
		for i := range runs {
			u, err := GoldenUnits(c)
			if err != nil {
				t.Fatal(err)
			}
			if runs[i], err = Run(c, u); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(runs[0], runs[1]) {
			t.Errorf("%s: two runs differ", ctl)
		}
		r := runs[0]
		if r.EffFlits != int64(2*c.Initiators*c.Transactions*c.GPUs*c.DataFlits) || r.EffBW > r.Bound {
			t.Errorf("%s: %d effective flits, %.3f against the bound %.3f", ctl, r.EffFlits, r.EffBW, r.Bound)
		}
	}
}

// Table 6.1's windows, and between its counts the next count's.
func TestTableWindow(t *testing.T) {
	for n, w := range map[int]int{64: 3, 32: 5, 16: 12, 8: 24, 4: 48, 2: 128, 1: 128, 3: 48, 20: 5, 100: 3} {
		if got := TableWindow(n); got != w {
			t.Errorf("TableWindow(%d) = %d, want %d", n, got, w)
		}
	}
}

// Bad configurations are errors, and 3CPO needs its units.
func TestCollectiveConfigErrors(t *testing.T) {
	for name, mod := range map[string]func(*Config){
		"one GPU":           func(c *Config) { c.GPUs = 1 },
		"no initiator":      func(c *Config) { c.Initiators = 0 },
		"too many":          func(c *Config) { c.Initiators = c.GPUs + 1 },
		"no transaction":    func(c *Config) { c.Transactions = 0 },
		"control":           func(c *Config) { c.Control = "aimd" },
		"hops":              func(c *Config) { c.Hops = 0 },
		"small buffer":      func(c *Config) { c.BufferFlits = 4 },
		"ports":             func(c *Config) { c.IRLPorts = 15 },
		"WM_MAX mismatched": func(c *Config) { c.IRL.WMMax = 1000 },
	} {
		c := small()
		mod(&c)
		if _, err := Run(c, Units{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Run(small(), Units{}); err == nil {
		t.Error("3CPO without units: no error")
	}
}
