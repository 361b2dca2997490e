package main

import (
	"context"
	"os"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/eda"
	"github.com/nicgen/nicgen/hdlgen"
)

// The integration example (docs/integration/uet_nic.v, hand-written)
// around the default uet_cc lints as the generated blocks do (Verilator
// -Wall without waivers, Icarus); its cocotb test (cocotb/uet_nic) runs
// it as a NIC would. (Its one process is clocked; Yosys's latch check of
// the whole, 70 s for uet_cc's datapath, is left to generate --check of
// uet_cc.)
func TestIntegrationExampleLints(t *testing.T) {
	t.Parallel()
	b, err := blocks.Lookup("uet_cc")
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.Build(blocks.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	d, err := hdlgen.Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	files := eda.Files(hdlgen.Emit(d, hdlgen.EmitOptions{}))
	src, err := os.ReadFile("../../docs/integration/uet_nic.v")
	if err != nil {
		t.Fatal(err)
	}
	files["uet_nic.v"] = src
	if err := eda.Lint(context.Background(), "uet_nic", files); err != nil {
		t.Fatal(err)
	}
}
