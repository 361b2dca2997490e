package blockeq

import (
	"context"
	"testing"
	"time"

	"github.com/nicgen/nicgen/blocks"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// BenchmarkProducer measures the Go side of every block alone: its
// stimulus, golden cycle model and coverage, per cycle (what the harness
// runs on the core beside the Verilated model).
func BenchmarkProducer(b *testing.B) {
	for _, block := range blocks.Names() {
		b.Run(block, func(b *testing.B) {
			bench, err := NewBench(blocks.DefaultConfig(), block, 1)
			if err != nil {
				b.Fatal(err)
			}
			pm := NewPortMap(bench.Design)
			in := make([]uint64, len(pm.in))
			out := make([]uint64, len(pm.out))
			prev := make([]uint64, len(pm.out))
			stim := bench.Stim()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				stim.Next(prev, in)
				bench.Ref.Cycle(in, out)
				prev, out = out, prev
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/cycle")
		})
	}
}

// BenchmarkEquivalence measures, in one run, the end-to-end equivalence
// rate of every block (stimulus, golden model, Verilated model
// and comparison) and the Verilated model alone fed from a prepared buffer;
// the ratio of the two is the harness's overhead figure.
func BenchmarkEquivalence(b *testing.B) {
	for _, block := range blocks.Names() {
		b.Run(block, func(b *testing.B) {
			bench, err := NewBench(blocks.DefaultConfig(), block, 1)
			if err != nil {
				b.Fatal(err)
			}
			model, err := harness.Build(context.Background(), bench.Design, harness.BuildOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer model.Close()
			const cycles = 4_000_000
			// model alone: inputs prepared beforehand by the same stimulus
			nIn, nOut := len(model.Inputs()), len(model.Outputs())
			const batch = 4096
			in := make([]uint64, batch*nIn)
			stim := bench.Stim()
			prev := make([]uint64, nOut)
			for i := 0; i < batch; i++ {
				bench.Ref.Cycle(in[i*nIn:(i+1)*nIn], prev)
				stim.Next(prev, in[i*nIn:(i+1)*nIn])
			}
			out := make([]uint64, batch*nOut)
			b.ResetTimer()
			var alone, e2e, jobs2 float64
			for i := 0; i < b.N; i++ {
				if err := model.Reinit(); err != nil {
					b.Fatal(err)
				}
				model.Reset(2)
				start := time.Now()
				for done := 0; done < cycles; done += batch {
					model.Step(in, out, batch)
				}
				alone = cycles / time.Since(start).Seconds()
				rep, err := harness.Run(context.Background(), model, bench.Ref, bench.Stim, harness.RunOptions{Cycles: cycles})
				if err != nil {
					b.Fatal(err)
				}
				e2e = rep.CyclesPerSec
				// both cores on one campaign: two shards at once
				start = time.Now()
				shards := Shard{Index: 0, Count: 1}.Split(2)
				runs, err := RunShards(context.Background(), blocks.DefaultConfig(), block, "mixed", 1, 2*cycles, shards, 2,
					harness.BuildOptions{}, func(Shard, uint64) harness.RunOptions { return harness.RunOptions{} }, nil)
				if err != nil {
					b.Fatal(err)
				}
				var n int64
				for _, r := range runs {
					if r.Err != nil {
						b.Fatal(r.Err)
					}
					n += r.Report.Cycles
				}
				jobs2 = float64(n) / time.Since(start).Seconds()
			}
			b.ReportMetric(e2e/1e6, "Mcycles/s_end_to_end")
			b.ReportMetric(alone/1e6, "Mcycles/s_model_alone")
			b.ReportMetric(e2e/alone, "ratio")
			b.ReportMetric(jobs2/1e6, "Mcycles/s_jobs2")
		})
	}
}

// TestProducerDoesNotAllocate: the stimulus, the golden cycle model and the
// coverage of every registered block run without allocating per cycle
// (pages of the golden state table are allocated on first touch, so the
// measurement starts after a warm-up over every connection).
func TestProducerDoesNotAllocate(t *testing.T) {
	for _, block := range blocks.Names() {
		bench, err := NewBench(blocks.DefaultConfig(), block, 1)
		if err != nil {
			t.Fatal(err)
		}
		pm := NewPortMap(bench.Design)
		in := make([]uint64, len(pm.in))
		out := make([]uint64, len(pm.out))
		prev := make([]uint64, len(pm.out))
		stim := bench.Stim()
		step := func() {
			stim.Next(prev, in)
			bench.Ref.Cycle(in, out)
			prev, out = out, prev
		}
		for range 200_000 {
			step()
		}
		if a := testing.AllocsPerRun(20_000, step); a != 0 {
			t.Errorf("%s: %v allocations per cycle", block, a)
		}
	}
}
