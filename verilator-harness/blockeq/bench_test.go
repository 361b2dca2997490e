package blockeq

import (
	"testing"

	"github.com/nicgen/nicgen/blocks/reps"
	"github.com/nicgen/nicgen/hdlgen"
)

// BenchmarkRepsProducer measures the Go side alone: stimulus, golden
// pipeline and coverage, per cycle.
func BenchmarkRepsProducer(b *testing.B) {
	p := reps.DefaultParams()
	m, err := reps.Paper(p)
	if err != nil {
		b.Fatal(err)
	}
	d, err := hdlgen.Elaborate(m)
	if err != nil {
		b.Fatal(err)
	}
	hd := DesignOf(d)
	ref, err := RepsReference(hd, GoldenRepsParams(p), NewCoverage(true))
	if err != nil {
		b.Fatal(err)
	}
	stim := NewEventStimulus(hd, DefaultProfile(p.NumConn, p.TimeW, 400), 1)()
	pm := newPortMap(hd)
	in := make([]uint64, len(pm.in))
	out := make([]uint64, len(pm.out))
	prev := make([]uint64, len(pm.out))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		stim.Next(prev, in)
		ref.Cycle(in, out)
		prev, out = out, prev
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cycles/s")
}
