package snyder_test

import (
	gsnyder "github.com/nicgen/nicgen/golden/snyder"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
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
type RTLHPCC struct{ S *blockeq.RTLStepper }

// NewRTLHPCC maps hpcc's ports.
func NewRTLHPCC(b blockeq.Built) (RTLHPCC, error) {
	s, err := blockeq.NewRTLStepper(b.Model, b.Design, hpccIns, hpccOuts)
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

var swiftIns = []string{"conn", "kind", "now", "delay", "hops", "acked"}

// swiftInsOf is the event fields the block has (SwiftFxParams.UsesNow).
func swiftInsOf(p gsnyder.SwiftFxParams) []string {
	if p.UsesNow() {
		return swiftIns
	}
	return append(swiftIns[:2:2], swiftIns[3:]...)
}

var swiftOuts = []string{"conn", "kind", "cwnd", "target", "congested", "decreased", "error"}

// RTLSwift is the Verilated swift behind golden/snyder's SwiftFxStepper
// (the convergence simulator's block).
type RTLSwift struct {
	S   *blockeq.RTLStepper
	now bool
}

// NewRTLSwift maps swift's ports for parameters p.
func NewRTLSwift(b blockeq.Built, p gsnyder.SwiftFxParams) (RTLSwift, error) {
	s, err := blockeq.NewRTLStepper(b.Model, b.Design, swiftInsOf(p), swiftOuts)
	return RTLSwift{s, p.UsesNow()}, err
}

// StepTo runs one event through the hardware.
func (c RTLSwift) StepTo(e *gsnyder.SwiftFxEvent, r *gsnyder.SwiftFxResult) {
	var f [7]uint64
	in := []uint64{uint64(e.Conn), uint64(e.Kind), e.Now, e.Delay, e.Hops, e.Acked}
	if !c.now {
		in = append(in[:2], in[3:]...)
	}
	c.S.Step(in, f[:])
	*r = gsnyder.SwiftFxResult{Conn: uint32(f[0]), Kind: gsnyder.SwiftKind(f[1]), Cwnd: f[2], Target: f[3],
		Congested: f[4] == 1, Decreased: f[5] == 1, Error: f[6] == 1}
}
