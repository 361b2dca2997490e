package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/threecpo"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/eda"
	gthreecpo "github.com/nicgen/nicgen/golden/threecpo"
	"github.com/nicgen/nicgen/hdlgen"
)

// lintBuilt elaborates a built module and lints it as generate --check
// does (Verilator -Wall with no waivers, Icarus).
func lintBuilt(t *testing.T, m *hdlgen.Module, err error) {
	t.Helper()
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
	for vcs := 2; vcs <= gthreecpo.MaxArbVCs; vcs++ {
		for _, pol := range []gthreecpo.ArbPolicy{gthreecpo.ArbLRU, gthreecpo.ArbRoundRobin} {
			t.Run(fmt.Sprintf("%d-%v", vcs, pol), func(t *testing.T) {
				p := threecpo.DefaultLRUArbParams()
				p.VCs, p.Policy, p.NumConn, p.ConnW = vcs, pol, 4, 2
				p.Depth = connpipe.MustDepth(threecpo.NeededArbDepth(p))
				m, err := threecpo.LRUArb(p)
				lintBuilt(t, m, err)
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
	for _, c := range []struct{ members, flitW, countW, lo int }{
		{1, 1, 3, 4}, {2, 4, 6, 4}, {4, 4, 12, 4}, {5, 10, 12, 5}, {7, 4, 24, 0}, {63, 4, 12, 4},
	} {
		t.Run(fmt.Sprintf("%d-members-%d-%d-%d", c.members, c.flitW, c.countW, c.lo), func(t *testing.T) {
			p := threecpo.DefaultMCastMatchParams()
			p.Members, p.FlitW, p.CountW, p.MILowNum, p.NumConn, p.ConnW = c.members, c.flitW, c.countW, uint32(c.lo), 4, 2
			p.Depth = connpipe.MustDepth(threecpo.NeededMatchDepth(p))
			m, err := threecpo.MCastMatch(p)
			lintBuilt(t, m, err)
		})
	}
}
