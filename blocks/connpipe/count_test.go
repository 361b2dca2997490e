package connpipe_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/connpipe"
)

// TestCountedDepthIsBuilt: every block's stage count (what NeededDepth
// returns and the configuration derives pipeline_depth from), taken
// without building the registers between the stages (hdlgen's
// Pipeline.CountOnly), is the stage its datapath's cuts reach when it is
// really built, at the maximum depth, as the Verilog header notes it.
func TestCountedDepthIsBuilt(t *testing.T) {
	def := blocks.DefaultConfig()
	for _, b := range blocks.All() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			built := func(count *int) string {
				p := reflect.New(reflect.TypeOf(def.Params[b.Name]))
				p.Elem().Set(reflect.ValueOf(def.Params[b.Name]))
				core := p.Interface().(connpipe.HasCore).ShellCore()
				core.Depth = connpipe.MaxDepth
				if count != nil {
					connpipe.CountInto(core, count)
				}
				c := def.Clone()
				c.Params[b.Name] = p.Elem().Interface()
				m, err := b.Build(c)
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range m.Notes() {
					if strings.HasPrefix(n, "pipeline: the datapath's cuts end") {
						return n
					}
				}
				t.Fatalf("no note of the stages reached in %q", m.Notes())
				return ""
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
