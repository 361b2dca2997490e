package main

import (
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks/config"
)

// Every block's stage table runs from stage 1 to stage D+3 with no gap
// (the shell's three read stages, then D datapath stages: docs/pipeline.md),
// every stage holds a register, and each value is registered first at one
// stage only.
func TestPipelineStages(t *testing.T) {
	t.Parallel()
	r, err := config.Default()
	if err != nil {
		t.Fatal(err)
	}
	gs, err := generateBlocks(r, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gs {
		depth, err := g.block.Depth(r.Config)
		if err != nil {
			t.Fatal(err)
		}
		rows := pipelineStages(g.design.Top)
		if len(rows) != depth+3 {
			t.Errorf("%s: %d stages, want depth %d + 3", g.block.Name, len(rows), depth)
			continue
		}
		seen := map[string]int{}
		for i, row := range rows {
			if row.stage != i+1 || row.regs == 0 || row.bits < row.regs {
				t.Errorf("%s: row %d is stage %d with %d registers of %d bits", g.block.Name, i, row.stage, row.regs, row.bits)
			}
			for _, f := range row.first {
				if at, dup := seen[f]; dup {
					t.Errorf("%s: %s first at stages %d and %d", g.block.Name, f, at, row.stage)
				}
				seen[f] = row.stage
			}
		}
		if md := stagesMarkdown(rows); strings.Count(md, "\n") != len(rows)+2 {
			t.Errorf("%s: the table has %d lines for %d stages", g.block.Name, strings.Count(md, "\n"), len(rows))
		}
	}
}
