// Package golden is the root of nicgen's hand-written golden models.
//
// Each subpackage (golden/reps, ...) is a plain-Go model of one block,
// written from the block's behavioural contract in docs/blocks and from the
// seed papers, never from the DSL description in blocks/ or from the
// generator in hdlgen/. The equivalence harness runs the generated Verilog
// and a golden model on the same stimulus and compares them; that comparison
// proves something only while the two sides stay independent, so nothing
// under golden/ may import another package of this module (imports_test.go
// enforces it).
package golden
