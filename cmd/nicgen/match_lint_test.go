package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/threecpo"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/eda"
	"github.com/nicgen/nicgen/hdlgen"
)

// mcast_match's logic depends on its member count (a member index of
// 2 bits holds every member of 4, none past them, so the shell refuses no
// index), on the flits' and the counters' widths and on the MI ramp
// (a factor of 1 below mi_low_lat has no slope): the corners the
// configuration allows lint clean.
func TestMCastMatchLintsAtItsCorners(t *testing.T) {
	for _, c := range []struct{ members, flitW, countW, lo int }{
		{1, 1, 3, 4}, {2, 4, 6, 4}, {4, 4, 12, 4}, {5, 10, 12, 5}, {7, 4, 24, 0}, {63, 4, 12, 4},
	} {
		t.Run(fmt.Sprintf("%d-members-%d-%d-%d", c.members, c.flitW, c.countW, c.lo), func(t *testing.T) {
			p := threecpo.DefaultMCastMatchParams()
			p.Members, p.FlitW, p.CountW, p.MILowNum, p.NumConn, p.ConnW = c.members, c.flitW, c.countW, uint32(c.lo), 4, 2
			p.Depth = connpipe.MustDepth(threecpo.NeededMatchDepth(p))
			m, err := threecpo.MCastMatch(p)
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
