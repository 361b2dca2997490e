package scenario

import (
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/golden/netsim/hotspot"
)

// The incast of the default configuration's blocks: nscc and smartt
// alone, and uet_cc with its parts named; the default shells model
// everything the incast applies at once.
func TestNewIncast(t *testing.T) {
	c := blocks.DefaultConfig()
	for variant, name := range map[string]string{"nscc": "nscc", "smartt": "smartt", "uet_cc": "uet_cc (nscc and reps)"} {
		in, err := NewIncast(c, variant)
		if err != nil {
			t.Fatalf("%s: %v", variant, err)
		}
		if in.Name != name || in.NumConn < 1 || in.Net.LinkGbps != in.LinkGbps {
			t.Errorf("%s: %+v", variant, in)
		}
	}
	if _, err := NewIncast(c, "no_such_block"); err == nil {
		t.Error("an unknown block accepted")
	}
}

// Every scenario finds its blocks in the default configuration, and a
// block that does not run in one is refused by name.
func TestScenarioParts(t *testing.T) {
	c := blocks.DefaultConfig()
	if n, err := DefaultMergeSlots(c); err != nil || n < 12 {
		t.Errorf("DefaultMergeSlots: %d, %v", n, err)
	}
	if slots, conf, err := SplitSlots(c); err != nil || slots < 8 || conf {
		t.Errorf("SplitSlots: %d %v %v", slots, conf, err)
	}
	hp, err := NewHotspotProtocol(c)
	if err != nil {
		t.Fatal(err)
	}
	var cfg hotspot.Config
	hp.Apply(&cfg)
	if cfg.Epsilon != 0.05 {
		t.Errorf("the hot spot's epsilon %v, want srp_rx's 0.05", cfg.Epsilon)
	}
	if _, err := NewIncast(c, "reps"); err == nil || err.Error() != `block "reps" does not run in the incast` {
		t.Errorf("reps in the incast: %v", err)
	}
}
