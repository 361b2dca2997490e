// Package reps is the golden model of nicgen's two REPS load-balancing
// blocks:
//
//   - reps, the REPS paper design (seed S4): a per-connection circular
//     buffer of recycled entropy values (EVs) with validity bits, random
//     exploration from one global 32-bit Galois LFSR, and freezing mode
//     (Model, Step);
//   - reps_conf, Algorithm 4 of the SMaRTT-REPS conference paper (seed S0):
//     sequential exploration, one cached entropy per connection (ConfModel,
//     ConfStep).
//
// It was written from the behavioural contract docs/blocks/reps.md, the
// seeds (shared/seeds/004_*.txt, 000_*.txt) and the seed specification
// (ALGORITHMS.md sections 4, 5, 9 and 12.3), never from the DSL blocks or the
// generated Verilog: the two implementations meet only in the equivalence
// tests.
//
// There are two levels. The transaction level (Step, ConfStep, Model.Step,
// ConfModel.Step) executes one event against one connection's word. The
// cycle level (Pipeline) wraps a transaction model in the pipelined shell
// of the RTL (docs/pipeline.md, golden/pipe: pipe.ReadStages = 3 read
// stages, then a datapath of Params.Depth = D stages; latency D+5) so that
// the harness can compare port values cycle by cycle.
//
// Every field of the state honours the width the RTL gives it: arithmetic is
// modulo 2^width and time comparisons use serial-number arithmetic, so the
// model wraps exactly where the hardware does.
package reps
