package srp_test

import (
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/blocks/internal/paramtest"
	"github.com/nicgen/nicgen/blocks/srp"
)

func TestRxGoldenParamsComplete(t *testing.T) {
	var p srp.RxParams
	paramtest.Fill(&p)
	if u := paramtest.Unset(p.Golden()); len(u) > 0 {
		t.Errorf("RxParams.Golden leaves %v unset", u)
	}
}

// The slot comes from the network (tau_p = MTU x 8 / link rate) and S2's
// eps; S2's own network (2 Kib packets at 10 Gb/s) gives its 215.04 ns.
func TestRxSlotFromTheNetwork(t *testing.T) {
	p := srp.DefaultRxParams()
	if p.PacketNs != 40.96 || p.SlotFx() != 2818573 { // ceil(1.05 x 40.96 x 2^16)
		t.Errorf("default: tau_p %g, slot %d", p.PacketNs, p.SlotFx())
	}
	src := "network {\n  link_gbps = 10\n  mtu = 256\n  base_rtt_ns = 8600\n}\n" + ipdHardware(32) + "block \"srp_rx\" {}\n"
	r, err := config.Load("s2.hcl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, err = srp.RxOf(r.Config)
	if err != nil {
		t.Fatal(err)
	}
	if p.PacketNs != 204.8 || p.SlotFx() != 14092862 { // S2:L72-74 and Table 1; golden/srp's hand example
		t.Errorf("S2's network: tau_p %g, slot %d", p.PacketNs, p.SlotFx())
	}
}

// A slot that a reservation of n_max packets would move past half the
// clock, or endpoints past the id width, are located errors.
func TestRxConfigErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"block \"srp_rx\" {\n  packet_time = 1000000000\n}\n", "ipd.hcl:12:17: srp_rx: a slot"},
		{"block \"srp_rx\" {\n  n_width = 16\n  time_width = 20\n}\n", "ipd.hcl:12:13: srp_rx: a slot"},
		{"block \"srp_rx\" {\n  epsilon = 0\n}\n", "ipd.hcl:12:13: epsilon = 0 is out of range: must be 0.001..1: eps pays for the control packets"},
		{"block \"srp_rx\" {\n  n_max = 40\n  n_width = 5\n}\n", "ipd.hcl:12:11: srp_rx: n_max 40: want 1 .. 2^5 - 1"},
	} {
		_, err := config.Load("ipd.hcl", []byte(ipdNet+ipdHardware(32)+tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
}
