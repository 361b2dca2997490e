package reps_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/nicgen/nicgen/blocks/reps"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// TestRepsRandomPowerOn runs the equivalence with every register and every
// state-table word at a random power-on value (Verilator --x-initial unique
// and --x-assign unique with a different seed per run). It passes only if
// reset initialises every control register the outputs depend on and if
// `open` initialises every field of a connection's word that the datapath
// reads: the stimulus opens every connection first and the golden model
// knows nothing of the random values.
func TestRepsRandomPowerOn(t *testing.T) {
	blockeq.NeedVerilator(t)
	t.Parallel()
	type variant struct {
		name  string
		build func() (*hdlgen.Module, error)
		ref   func(harness.Design) (harness.Reference, error)
		conns int
		timeW int
	}
	sp := stressParams()
	cp := reps.DefaultConfParams()
	cp.NumConn, cp.ConnW = 64, 8
	for _, v := range []variant{
		{"reps", func() (*hdlgen.Module, error) { return reps.Paper(sp) }, func(d harness.Design) (harness.Reference, error) {
			return RepsReference(d, sp.Golden(), nil)
		}, sp.NumConn, sp.TimeW},
		{"reps_conf", func() (*hdlgen.Module, error) { return reps.Conf(cp) }, func(d harness.Design) (harness.Reference, error) {
			return RepsConfReference(d, cp.Golden(), nil)
		}, cp.NumConn, 32},
	} {
		for _, seed := range []uint64{11, 12} {
			t.Run(fmt.Sprintf("%s/seed%d", v.name, seed), func(t *testing.T) {
				m, err := v.build()
				if err != nil {
					t.Fatal(err)
				}
				d, err := hdlgen.Elaborate(m)
				if err != nil {
					t.Fatal(err)
				}
				hd := blockeq.DesignOf(d)
				model, err := harness.Build(context.Background(), hd, harness.BuildOptions{XInitialUnique: true, RandSeed: seed})
				if err != nil {
					t.Fatal(err)
				}
				defer model.Close()
				ref, err := v.ref(hd)
				if err != nil {
					t.Fatal(err)
				}
				prof := DefaultProfile(v.conns, v.timeW, 8)
				prof.ConnSpan = uint64(v.conns) // opened connections only, and no range errors
				prof.KindWeights[0] = 0.02
				prof.OpenFirst = uint64(v.conns)
				rep, err := harness.Run(context.Background(), model, ref, NewEventStimulus(hd, prof, seed), harness.RunOptions{
					Cycles: 500_000, Label: fmt.Sprintf("%s x-initial unique seed %d", v.name, seed), WaveDir: t.TempDir(),
				})
				if err != nil {
					t.Fatal(err)
				}
				t.Log(rep)
			})
		}
	}
}
