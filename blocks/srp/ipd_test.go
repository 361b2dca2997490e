package srp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/blocks/internal/paramtest"
	"github.com/nicgen/nicgen/blocks/srp"
	"github.com/nicgen/nicgen/hdlgen"
)

// The converter to the golden parameters sets every field.
func TestIPDGoldenParamsComplete(t *testing.T) {
	var p srp.IPDParams
	paramtest.Fill(&p)
	if u := paramtest.Unset(p.Golden()); len(u) > 0 {
		t.Errorf("IPDParams.Golden leaves %v unset", u)
	}
}

const ipdNet = "network {\n  link_gbps = 800\n  mtu = 4096\n  base_rtt_ns = 8600\n}\n"

func ipdHardware(timeW int) string {
	return fmt.Sprintf("hardware {\n  clock_mhz = 200\n  connections = 64\n  time_width = %d\n}\n", timeW)
}

// The datapath's cuts reach 9 stages at the defaults; a shallower
// pipeline_depth keeps the first cuts (and clocks slower), as on every
// block.
func TestIPDDepth(t *testing.T) {
	p := srp.DefaultIPDParams()
	if p.Depth != 9 {
		t.Errorf("default depth %d, want 9 (the cuts of docs/blocks/srp.md)", p.Depth)
	}
	r, err := config.Load("ipd.hcl", []byte(ipdNet+ipdHardware(32)+"block \"ecn_ipd\" {\n  pipeline_depth = 4\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p, err = srp.IPDOf(r.Config); err != nil || p.Depth != 4 {
		t.Fatalf("pipeline_depth = 4: %+v, %v", p, err)
	}
	m, err := srp.IPD(p)
	if err != nil {
		t.Fatal(err)
	}
	d, err := hdlgen.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	v := string(hdlgen.Emit(d, hdlgen.EmitOptions{})["ecn_ipd.v"])
	if want := "latency 9 cycles, same connection every 4 cycles"; !strings.Contains(v, want) {
		t.Errorf("depth 4: the Verilog's header lacks %q", want)
	}
}

// Parameters under which the lazy decrements are not exact, or the
// divider cannot be built, are errors at the attribute that causes them.
func TestIPDConfigErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"block \"ecn_ipd\" {\n  ipd_max = 500\n}\n", "ipd.hcl:12:13: ecn_ipd: IPD ceiling 500 is below IPD+ 800"},
		{"block \"ecn_ipd\" {\n  ipd_increase = 200000\n}\n", "ipd.hcl:12:18: ecn_ipd: IPD ceiling 100000 is below IPD+ 200000"},
		{"block \"ecn_ipd\" {\n  ipd_max = 10000000000\n}\n", "ipd.hcl:12:13: ecn_ipd: an IPD of 10000000000 takes 200000000 intervals"},
		{"block \"ecn_ipd\" {\n  decrease_period = 2000\n}\n", "ipd.hcl:12:21: ecn_ipd: an IPD of 100000 takes 2000 intervals of 2000 ticks to decay, more than half the 20-bit clock's range"},
	} {
		timeW := 32
		if strings.Contains(tc.src, "decrease_period") {
			timeW = 20
		}
		_, err := config.Load("ipd.hcl", []byte(ipdNet+ipdHardware(timeW)+tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
	// S2's values at a 1 ns tick and a 48-bit clock build
	r, err := config.Load("ipd.hcl", []byte(ipdNet+ipdHardware(48)+"block \"ecn_ipd\" {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := srp.IPDOf(r.Config)
	if err != nil || p.TimeW != 48 {
		t.Fatalf("48-bit time: %+v, %v", p, err)
	}
	if _, err := srp.IPD(p); err != nil {
		t.Errorf("48-bit time: %v", err)
	}
}
