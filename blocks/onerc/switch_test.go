package onerc_test

import (
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/blocks/internal/paramtest"
	"github.com/nicgen/nicgen/blocks/onerc"
	"github.com/nicgen/nicgen/hdlgen"
)

func TestSwitchGoldenParamsComplete(t *testing.T) {
	var p onerc.SwitchParams
	paramtest.Fill(&p)
	if u := paramtest.Unset(p.Golden()); len(u) > 0 {
		t.Errorf("SwitchParams.Golden leaves %v unset", u)
	}
}

const head = "network {\n  link_gbps = 100\n  mtu = 4096\n  base_rtt_ns = 12000\n}\nhardware {\n  clock_mhz = 200\n  connections = 64\n  time_width = 32\n}\n"

// miss chooses A-27's handling of an epoch without entry; the slots must
// be a power of two that the connection id holds, and an unknown choice,
// a zero width and a depth beyond the shell's are located errors.
func TestSwitchConfig(t *testing.T) {
	r, err := config.Load("sw.hcl", []byte(head+"block \"onerc_switch\" {\n  miss = \"pass\"\n  slots = 64\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := onerc.SwitchOf(r.Config)
	if err != nil || !p.MissPass || p.NumConn != 64 || p.Depth != onerc.DefaultSwitchParams().Depth {
		t.Fatalf("miss = pass, 64 slots: %+v, %v", p, err)
	}
	for _, tc := range []struct{ src, want string }{
		{"block \"onerc_switch\" {\n  miss = \"keep\"\n}\n", "sw.hcl:12:10: miss = \"keep\": want one of drop, pass"},
		{"block \"onerc_switch\" {\n  slots = 24\n}\n", "sw.hcl:12:11: slots = 24: want a power of two"},
		{"block \"onerc_switch\" {\n  window_width = 0\n}\n", "sw.hcl:12:18: window_width = 0 is out of range"},
		{"block \"onerc_switch\" {\n  pipeline_depth = 99\n}\n", "sw.hcl:12:20: pipeline_depth = 99"},
	} {
		_, err := config.Load("sw.hcl", []byte(head+tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
}

// The same parameters give the same Verilog, byte for byte; the datapath
// reaches 15 stages at the defaults (the entry's mux, the 12 steps of the
// division, the threshold, the result), and a shallower pipeline_depth
// keeps the first cuts.
func TestSwitchVerilogAndDepth(t *testing.T) {
	emit := func(p onerc.SwitchParams) string {
		m, err := onerc.Switch(p)
		if err != nil {
			t.Fatal(err)
		}
		d, err := hdlgen.Elaborate(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(hdlgen.Emit(d, hdlgen.EmitOptions{})["onerc_switch.v"])
	}
	p := onerc.DefaultSwitchParams()
	if p.Depth != 15 {
		t.Fatalf("default depth %d, want 15", p.Depth)
	}
	first := emit(p)
	for i := 0; i < 4; i++ {
		if emit(p) != first {
			t.Fatalf("run %d emitted different Verilog", i+2)
		}
	}
	p.Depth = 3
	if v := emit(p); v == first || !strings.Contains(v, "s3_") {
		t.Fatal("depth 3 emitted the same Verilog, or no third stage")
	}
}
