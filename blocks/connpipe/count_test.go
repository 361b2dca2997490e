package connpipe_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/hdlgen"
)

// TestCountedDepthIsBuilt: every block's stage count (what NeededDepth
// returns and the configuration derives pipeline_depth from), taken
// without building the registers between the stages (hdlgen's
// Pipeline.CountOnly), is the stage its datapath's cuts reach when it is
// really built at the maximum depth, as the Verilog header notes it: for
// every block of the embedded default and of every example configuration.
func TestCountedDepthIsBuilt(t *testing.T) {
	examples, err := filepath.Glob("../../docs/examples/*.hcl")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no example configurations: %v", err)
	}
	loads := map[string]func() (*config.Resolved, error){"default": func() (*config.Resolved, error) { return config.Default() }}
	for _, path := range examples {
		loads[filepath.Base(path)] = func() (*config.Resolved, error) { return config.LoadFile(path) }
	}
	for name, load := range loads {
		r, err := load()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, b := range r.Blocks {
			t.Run(name+"/"+b, func(t *testing.T) {
				t.Parallel()
				d, err := blocks.Lookup(b)
				if err != nil {
					t.Fatal(err)
				}
				built := func(count *int) string {
					p := reflect.New(reflect.TypeOf(r.Config.Params[b]))
					p.Elem().Set(reflect.ValueOf(r.Config.Params[b]))
					core := p.Interface().(connpipe.HasCore).ShellCore()
					core.Depth = connpipe.MaxDepth
					if count != nil {
						connpipe.CountInto(core, count)
					}
					c := r.Config.Clone()
					c.Control = false
					c.Params[b] = p.Elem().Interface()
					m, err := d.Build(c)
					if err != nil {
						t.Fatal(err)
					}
					// the shell's note: in the module itself, or in the first
					// submodule that has one (uet_cc's split send path)
					var find func(m *hdlgen.Module) string
					find = func(m *hdlgen.Module) string {
						for _, n := range m.Notes() {
							if strings.HasPrefix(n, "pipeline: the datapath's cuts end") {
								return n
							}
						}
						for _, sub := range m.Submodules() {
							if n := find(sub); n != "" {
								return n
							}
						}
						return ""
					}
					n := find(m)
					if n == "" {
						t.Fatalf("no note of the stages reached in %s", m.Name())
					}
					return n
				}
				var n int
				counting := built(&n)
				full := built(nil)
				want := fmt.Sprintf("pipeline: the datapath's cuts end in stage %d of %d", n+connpipe.ReadStages, connpipe.MaxDepth+connpipe.ReadStages)
				if full != want || counting != want {
					t.Errorf("counted %d stages (%q), built: %q", n, counting, full)
				}
			})
		}
	}
}
