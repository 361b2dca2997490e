package config

import (
	"strings"
	"testing"
)

// DefaultHead writes a hardware value over the default's and adds one the
// default leaves out; the head loads with a block after it, and without
// settings it is the default's network and hardware as written.
func TestDefaultHead(t *testing.T) {
	head := DefaultHead(map[string]uint64{"connections": 16, "conn_width": 4})
	r, err := Load("head.hcl", []byte(head+"block \"reps_conf\" {}\n"))
	if err != nil {
		t.Fatalf("%v\n%s", err, head)
	}
	hw, _ := r.Section("hardware", "")
	if c, w := settingOf(hw, "connections"), settingOf(hw, "conn_width"); c.Value != "16" || c.Source != SourceSet || w.Value != "4" || w.Source != SourceSet {
		t.Errorf("connections %+v, conn_width %+v\n%s", c, w, head)
	}
	plain := DefaultHead(nil)
	if !strings.HasPrefix(plain, "network {") || !strings.Contains(string(defaultSrc), plain[:len(plain)-1]) || strings.Contains(plain, "block ") {
		t.Errorf("the default's head:\n%s", plain)
	}
}
