package rates

import (
	"math"
	"testing"

	"github.com/nicgen/nicgen/blocks"
)

// TestMeasureLoads: on the golden cycle model of each default block, one
// connection alone gets one event every pipeline_depth cycles (the
// contract, docs/pipeline.md); connections drawn uniformly from the
// block's (4096, or srp_rx's 4 endpoints) collide within a depth with a
// bounded probability, so the rate is near one per clock for many;
// the recorded incast's few connections lie in between.
func TestMeasureLoads(t *testing.T) {
	t.Parallel()
	cfg := blocks.DefaultConfig()
	depth, conns := map[string]int{}, map[string]int{}
	for _, b := range blocks.All() {
		d, err := b.Depth(cfg)
		if err != nil {
			t.Fatal(err)
		}
		n, err := b.NumConn(cfg)
		if err != nil {
			t.Fatal(err)
		}
		depth[b.Name], conns[b.Name] = d, n
	}
	for _, b := range blocks.Names() {
		lr, err := MeasureLoads(cfg, b)
		if err != nil {
			t.Fatal(err)
		}
		d := float64(depth[b])
		if math.Abs(lr.Single-1/d) > 1e-3 {
			t.Errorf("%s: one connection %.4f events per clock, want 1/%d", b, lr.Single, depth[b])
		}
		// an event collides with one of the d-1 in flight with probability
		// (d-1)/n and then waits at most d-1 cycles: a floor on the rate
		floor := 1 / (1 + (d-1)*(d-1)/float64(conns[b]))
		if lr.Uniform < floor-0.01 || lr.Uniform > 1 {
			t.Errorf("%s: uniform load %.4f events per clock, want at least %.4f", b, lr.Uniform, floor)
		}
		if lr.Incast < lr.Single-1e-9 || lr.Incast > 1 || lr.IncastConns != 8 {
			t.Errorf("%s: incast %.4f events per clock over %d connections", b, lr.Incast, lr.IncastConns)
		}
		if lr.Incast64 < lr.Single-1e-9 || lr.Incast64 > 1 {
			t.Errorf("%s: 64:1 incast %.4f events per clock", b, lr.Incast64)
		}
		t.Logf("%s (depth %d): uniform %.4f, incast %.4f, 64:1 %.4f, one connection %.4f", b, depth[b], lr.Uniform, lr.Incast, lr.Incast64, lr.Single)
	}
}
