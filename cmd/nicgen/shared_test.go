package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/hdlgen"
)

// toyDesign is a top that instantiates a leaf; inv changes the leaf's
// content but not its name.
func toyDesign(t *testing.T, top string, inv bool) generated {
	t.Helper()
	leaf := hdlgen.NewModule("toy_leaf", "")
	a := leaf.Input("a", 8, "")
	if inv {
		leaf.Assign(leaf.Output("y", 8, ""), a.Not())
	} else {
		leaf.Assign(leaf.Output("y", 8, ""), a)
	}
	m := hdlgen.NewModule(top, "")
	u := m.Instantiate("u", leaf).In("a", m.Input("a", 8, ""))
	m.Assign(m.Output("y", 8, ""), u.Out("y"))
	d, err := hdlgen.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	return generated{block: blocks.Block{Name: top}, design: d, top: top, files: hdlgen.Emit(d, hdlgen.EmitOptions{}), shared: map[string]bool{}}
}

// A module two blocks of one generation use is written once, in the shared
// folder, and both blocks' file lists name it; two different modules of one
// name in two blocks are an error.
func TestSharedModulesOnce(t *testing.T) {
	t.Parallel()
	gens := []generated{toyDesign(t, "toy_a", false), toyDesign(t, "toy_b", false)}
	if err := markShared(gens); err != nil {
		t.Fatal(err)
	}
	for _, g := range gens {
		want := []string{"../shared/toy_leaf.v", g.top + ".v"}
		if got := g.sources(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s sources = %v, want %v", g.top, got, want)
		}
		if got, want := string(g.fileList("verilog-out/"+g.top)), "verilog-out/shared/toy_leaf.v\nverilog-out/"+g.top+"/"+g.top+".v\n"; got != want {
			t.Errorf("%s file list = %q, want %q", g.top, got, want)
		}
	}
	clash := []generated{toyDesign(t, "toy_a", false), toyDesign(t, "toy_c", true)}
	err := markShared(clash)
	if err == nil || !strings.Contains(err.Error(), "two different modules are named toy_leaf") {
		t.Errorf("markShared of a name clash between blocks: %v", err)
	}
}
