package harness

import (
	"context"
	"testing"
	"time"
)

// The benchmarks count cycles in b.N (ns/op is ns per cycle) and report
// cycles/s. Run them with a fixed count, e.g.
//
//	go test -run '^$' -bench . -benchtime 20000000x ./verilator-harness/

// modelAloneStim steps the model n cycles over one batch of inputs drawn
// from st (reused) and returns the rate in cycles per second.
func modelAloneStim(m *Model, st Stimulus, n int) float64 {
	const batch = 4096
	nIn, nOut := len(m.in), len(m.out)
	in := make([]uint64, batch*nIn)
	out := make([]uint64, batch*nOut)
	for i := 0; i < batch; i++ {
		st.Next(nil, in[i*nIn:(i+1)*nIn]) // nil: a fresh draw every cycle
	}
	m.Reset(2)
	start := time.Now()
	for done := 0; done < n; done += batch {
		m.step(in, out, min(batch, n-done))
	}
	return float64(n) / time.Since(start).Seconds()
}

// reportEndToEnd reports the run's rate and, for long enough runs, the
// model-alone rate over the same number of cycles and the ratio.
func reportEndToEnd(b *testing.B, m *Model, rep Report, st Stimulus) {
	b.ReportMetric(rep.CyclesPerSec, "cycles/s")
	if b.N >= 1_000_000 {
		alone := modelAloneStim(m, st, b.N)
		b.ReportMetric(alone, "model-cycles/s")
		b.ReportMetric(rep.CyclesPerSec/alone, "ratio")
		b.Logf("%v; model alone %.2f Mcycles/s", rep, alone/1e6)
	}
}

func BenchmarkModelAlone(b *testing.B) {
	m := buildAcc(b, BuildOptions{})
	b.ResetTimer()
	b.ReportMetric(modelAloneStim(m, newAccStim(99)(), b.N), "cycles/s")
}

func BenchmarkEndToEnd(b *testing.B) {
	m := buildAcc(b, BuildOptions{})
	b.ResetTimer()
	rep, err := Run(context.Background(), m, &accRef{}, newAccStim(1), RunOptions{Cycles: int64(b.N)})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	reportEndToEnd(b, m, rep, newAccStim(99)())
}
