package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/eda"
	"github.com/nicgen/nicgen/hdlgen"
)

// lintBlock builds block name of a configuration of 4 connections with
// 2-bit connection ids (every id a connection: the shell refuses none)
// whose block section is body (attributes by name, as a user writes
// them), elaborates it and lints it as generate --check does (Verilator
// -Wall with no waivers, Icarus).
func lintBlock(t *testing.T, name, body string) {
	t.Helper()
	src := config.DefaultHead(map[string]uint64{"connections": 4, "conn_width": 2}) + fmt.Sprintf("block %q {\n%s\n}\n", name, body)
	r, err := config.Load("corner.hcl", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	b, err := blocks.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.Build(r.Config)
	if err != nil {
		t.Fatal(err)
	}
	d, err := hdlgen.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := eda.Lint(context.Background(), d.Top.Name(), hdlgen.Emit(d, hdlgen.EmitOptions{})); err != nil {
		t.Fatal(err)
	}
}

// lru_arb's logic depends on the VC count's relation to its index width
// (a pointer of 2 bits is at or before VC 3 whatever it holds, and
// Verilator -Wall rejects that comparison as constant): every VC count
// the configuration allows, under both policies, lints clean.
func TestLRUArbLintsAtEveryVCCount(t *testing.T) {
	t.Parallel()
	b, err := blocks.Lookup("lru_arb")
	if err != nil {
		t.Fatal(err)
	}
	var lo, hi uint64
	for _, a := range b.Attrs {
		if a.Name == "vcs" {
			lo, hi = a.Lo, a.Hi
		}
	}
	if lo < 2 || hi < lo {
		t.Fatalf("lru_arb's vcs range %d..%d", lo, hi)
	}
	for vcs := lo; vcs <= hi; vcs++ {
		for _, pol := range []string{"lru", "round_robin"} {
			t.Run(fmt.Sprintf("%d-%s", vcs, pol), func(t *testing.T) {
				lintBlock(t, "lru_arb", fmt.Sprintf("  ports = 4\n  vcs = %d\n  policy = %q", vcs, pol))
			})
		}
	}
}

// mcast_match's logic depends on its member count (a member index of
// 2 bits holds every member of 4, none past them, so the shell refuses no
// index), on the flits' and the counters' widths and on the MI ramp
// (a factor of 1 below mi_low_lat has no slope): the corners the
// configuration allows lint clean.
func TestMCastMatchLintsAtItsCorners(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		members, flitW, countW int
		miLow                  string
	}{
		{1, 1, 3, "0.8"}, {2, 4, 6, "0.8"}, {4, 4, 12, "0.8"}, {5, 10, 12, "1"}, {7, 4, 24, "0"}, {63, 4, 12, "0.8"},
	} {
		t.Run(fmt.Sprintf("%d-members-%d-%d-%s", c.members, c.flitW, c.countW, c.miLow), func(t *testing.T) {
			lintBlock(t, "mcast_match", fmt.Sprintf("  matchers = 4\n  members = %d\n  flits_width = %d\n  count_width = %d\n  mi_low = %s",
				c.members, c.flitW, c.countW, c.miLow))
		})
	}
}
