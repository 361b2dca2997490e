package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/eda"
	"github.com/nicgen/nicgen/hdlgen"
)

// edgeBase is the network and hardware of the sweep below: the default
// configuration's, with 64 connections, so that the tables are small.
var edgeBase = config.DefaultHead(map[string]uint64{"connections": 64})

// A configuration that loads builds and lints (docs/config.md): every
// whole-number attribute of every block, set alone to the least and to the
// greatest value its documented range allows, is either refused by the
// loader with errors in the file, at the attribute's line, or builds and
// lints clean (Verilator -Wall, Icarus); the values just outside the range
// are refused there. A value the block cannot take must never reach the
// DSL's checks.
func TestEveryRangeEdgeBuilds(t *testing.T) {
	t.Parallel()
	for _, b := range blocks.All() {
		for _, a := range b.Attrs {
			if a.Kind != block.Whole {
				continue
			}
			edges := []uint64{a.Lo, a.Hi, a.Hi + 1}
			if a.Lo > 0 {
				edges = append(edges, a.Lo-1)
			}
			for _, v := range edges {
				outside := v < a.Lo || v > a.Hi
				t.Run(fmt.Sprintf("%s/%s=%d", b.Name, a.Name, v), func(t *testing.T) {
					t.Parallel() // about 400 cases of half a second: they fill idle cores
					src := edgeBase + fmt.Sprintf("block %q {\n  %s = %d\n}\n", b.Name, a.Name, v)
					r, err := config.Load("edge.hcl", []byte(src), config.WithCheck(goldenAccepts))
					if outside && err == nil {
						t.Fatalf("%d is outside %d..%d, and loads", v, a.Lo, a.Hi)
					}
					if err != nil {
						var es config.Errors
						if !errors.As(err, &es) || len(es) == 0 {
							t.Fatalf("refused without a position: %T %v", err, err)
						}
						for _, e := range es {
							if e.Pos.File != "edge.hcl" || e.Pos.Line < 10 || strings.Contains(e.Msg, "cannot be built") {
								t.Errorf("refused, but not at the attribute (line 11 of the file):\n%v", e)
							}
						}
						return
					}
					m, err := b.Build(r.Config)
					if err != nil {
						t.Fatalf("loads, but does not build:\n%v", err)
					}
					d, err := hdlgen.Elaborate(m)
					if err != nil {
						t.Fatalf("loads, but does not elaborate:\n%v", err)
					}
					if err := eda.Lint(context.Background(), d.Top.Name(), hdlgen.Emit(d, hdlgen.EmitOptions{})); err != nil {
						t.Errorf("loads, but does not lint:\n%v", err)
					}
				})
			}
		}
	}
}
