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

// lru_arb's logic depends on the VC count's relation to its index width
// (a pointer of 2 bits is at or before VC 3 whatever it holds, and
// Verilator -Wall rejects that comparison as constant): every VC count
// the configuration allows, under both policies, lints clean.
func TestLRUArbLintsAtEveryVCCount(t *testing.T) {
	for vcs := 2; vcs <= gthreecpo.MaxArbVCs; vcs++ {
		for _, pol := range []gthreecpo.ArbPolicy{gthreecpo.ArbLRU, gthreecpo.ArbRoundRobin} {
			t.Run(fmt.Sprintf("%d-%v", vcs, pol), func(t *testing.T) {
				p := threecpo.DefaultLRUArbParams()
				p.VCs, p.Policy, p.NumConn, p.ConnW = vcs, pol, 4, 2
				p.Depth = connpipe.MustDepth(threecpo.NeededArbDepth(p))
				m, err := threecpo.LRUArb(p)
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
			})
		}
	}
}
