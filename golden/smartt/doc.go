// Package smartt is the golden model of nicgen's two SMaRTT sender-side
// congestion-control blocks:
//
//   - smartt (Variant Conf), S0 Algorithm 1 (the SMaRTT-REPS conference
//     paper, seed S0): per-ack Fair / Multiplicative Decrease and Fair /
//     Multiplicative Increase, Wait-to-Decrease, QuickAdapt (qa_scaling
//     0.8) and FastIncrease; timeouts act like trims;
//   - nscc (Variant NSCC), S1 Algorithms 1-4 (the journal paper behind the
//     UEC NSCC, seed S1, with the UEC reference simulator as tie-breaker):
//     MD once per base RTT from an RTT average, the ECN + low RTT no-op,
//     accumulated increases applied every 8 MTU or base RTT, QuickAdapt
//     (qa_scaling 1, optionally delay-triggered) and FastIncrease.
//
// It was written from the behavioural contract docs/blocks/smartt.md, the
// seeds (shared/seeds/000_*.txt, 001_*.txt) and the seed specification
// (ALGORITHMS.md sections 1-3, 9 and 12), never from the DSL blocks or the
// generated Verilog: the two implementations meet only in the equivalence
// tests.
//
// There are four levels:
//
//   - the sub-blocks of contract Section 4, one pure function per DSL
//     module: QuickAdapt, FastIncrease, WTD and Clamp, with the
//     reciprocal divider of golden/fixed (Div, and its ROM RecipTable);
//   - the transaction level: Step executes one event on one connection's
//     word (State) and Model owns the state table (paged, allocated on
//     first touch; a step does not allocate);
//   - the cycle level: Pipeline wraps a Model in the pipelined shell of the
//     RTL (docs/pipeline.md, golden/pipe: a datapath of Params.Depth = D
//     stages after pipe.ReadStages = 3 read stages, latency D+5, a
//     registered s_event_ready from a two-entry input buffer, one event of
//     a connection every D cycles, D+5 credits)
//     so that the harness can compare ports cycle by cycle;
//   - the float64 reference (FloatModel): the papers' formulas in float64
//     with the same steps and choices, and Accuracy, which compares it with
//     the fixed-point Model on an event trace.
//
// Every field honours the width the RTL gives it: the window is c = cwnd *
// 2^F in CwndW+F bits, the byte counters saturate at ByteW bits, the
// per-connection timestamps are 24-bit stamps of 16 ns compared with serial
// arithmetic, and every constant is derived once (Params.Derive) with the
// contract's float64 rounding. Choices the contract leaves open or gets
// wrong are marked "Choice beyond the contract" where they are made:
// ZeroStampExpired (a zero stamp reads as long ago), the error result
// echoing conn and kind, the saturation of an unclamped window, and
// AdjustPeriod off applying the adjustment on every ack.
package smartt
