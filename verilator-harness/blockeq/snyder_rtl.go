package blockeq

import (
	gsnyder "github.com/nicgen/nicgen/golden/snyder"
)

// The Verilated blocks of package snyder behind golden/snyder's steppers,
// so that its convergence simulations run the generated hardware in the
// loop (TestHPCCConvergenceRTLInTheLoop, TestSwiftConvergenceRTLInTheLoop).
// Their equivalence benches are the blocks' own stimuli and coverage
// (blocks/snyder, block.Desc.Stimulus) run by the generic bench, or by
// the cycle bench in the merging shell (block.Desc.Cycle).

var hpccIns = []string{"conn", "kind", "seq", "snd_nxt", "qlen", "tx_bytes", "ts"}
var hpccOuts = []string{"conn", "kind", "cwnd", "u", "congested", "moved", "error"}

// RTLHPCC is the Verilated hpcc behind golden/snyder's HPCCFxStepper.
type RTLHPCC struct{ S *RTLStepper }

// NewRTLHPCC maps hpcc's ports.
func NewRTLHPCC(b Built) (RTLHPCC, error) {
	s, err := NewRTLStepper(b.Model, b.Design, hpccIns, hpccOuts)
	return RTLHPCC{s}, err
}

// StepTo runs one event through the hardware.
func (c RTLHPCC) StepTo(e *gsnyder.HPCCFxEvent, r *gsnyder.HPCCFxResult) {
	var f [7]uint64
	in := [7]uint64{uint64(e.Conn), uint64(e.Kind), e.Seq, e.SndNxt, e.QLen, e.TxB, e.Ts}
	c.S.Step(in[:], f[:])
	*r = gsnyder.HPCCFxResult{Conn: uint32(f[0]), Kind: gsnyder.HPCCKind(f[1]), Cwnd: f[2], U: f[3],
		Congested: f[4] == 1, Moved: f[5] == 1, Error: f[6] == 1}
}
