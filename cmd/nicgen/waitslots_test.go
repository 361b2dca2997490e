package main

import (
	"fmt"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/rates"
)

// A block whose events are answered one by one takes wait_slots. Such a
// block serves a connection once per pipeline_depth D cycles whatever its
// shell, so k connections get at most k/D events per clock; the plain
// shell also holds every connection behind the one in flight. On the
// golden cycle model (proven equal to the RTL by nicgen equiv), with 32
// slots: the recorded 8:1 incast runs within 10% of min(uniform, 8/D),
// and the uniform load and the 64:1 incast run no slower than the plain
// shell's.
func TestWaitSlotsEndHeadOfLineBlocking(t *testing.T) {
	t.Parallel()
	for _, name := range waitSlotBlocks {
		src := waitBase + fmt.Sprintf("block %q {\n  wait_slots = 32\n}\n", name)
		r, err := config.Load("slots.hcl", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		lr, err := rates.MeasureLoads(r.Config, name)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := config.Load("plain.hcl", []byte(waitBase+fmt.Sprintf("block %q {}\n", name)))
		if err != nil {
			t.Fatal(err)
		}
		pl, err := rates.MeasureLoads(plain.Config, name)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: uniform %.3f, 8:1 %.3f, 64:1 %.3f, one connection %.3f (plain shell: %.3f, %.3f, %.3f, %.3f)",
			name, lr.Uniform, lr.Incast, lr.Incast64, lr.Single, pl.Uniform, pl.Incast, pl.Incast64, pl.Single)
		b, err := blocks.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		d, err := b.Depth(r.Config)
		if err != nil {
			t.Fatal(err)
		}
		if bound := min(lr.Uniform, 8/float64(d)); lr.Incast < 0.9*bound {
			t.Errorf("%s with 32 wait slots: the 8:1 incast runs %.3f events per clock, below 90%% of min(uniform, 8/%d) = %.3f", name, lr.Incast, d, bound)
		}
		if lr.Uniform < pl.Uniform || lr.Incast64 < pl.Incast64 {
			t.Errorf("%s with 32 wait slots: uniform %.3f, 64:1 incast %.3f events per clock, slower than the plain shell's %.3f, %.3f", name, lr.Uniform, lr.Incast64, pl.Uniform, pl.Incast64)
		}
	}
}

// waitBase is the default configuration's network and hardware.
var waitBase = config.DefaultHead(nil)

// waitSlotBlocks are the blocks that take wait_slots.
var waitSlotBlocks = []string{"ecn_ipd", "irl_tokens", "mcast_match", "onerc_switch", "sperc_link", "srp_tx", "wm_ctrl"}
