// Package hdlgen describes hardware as Go values and emits Verilog-2005.
//
// A block is a Go function that takes its parameters and returns a
// *Module. Ports, registers (Reg), wires (Wire), process variables (Var),
// parameters (Param) and state tables (Memory, with a Layout of named
// fields) are declared once, with widths; every other fact is derived from
// that declaration: the Verilog, the state budget (StateBudget), the port
// lists of test harnesses. Values are Expr: operations never change widths
// silently, so widening (ZExt, SExt, AddX, SubX, MulX), narrowing (Trunc,
// Slice) and saturation (AddSat, SubSat) are spelled out, and fixed-point
// arithmetic (Fixed) names its rounding and its overflow policy.
//
// # Passes
//
// Elaborate collects a top module and the modules it instantiates and runs
// these passes over each, in order. They only report; none changes the
// design except naming, which comes last. Mistakes found while building (a
// continuous assignment to an input, a second memory port, an unknown
// instance port) are reported alongside, as pass build.
//
//   - widths: every width or signedness error recorded while building
//     (mismatched operands, a Mux select wider than 1 bit, a Slice out of
//     range, a constant that does not fit), and the widths of assignments,
//     if conditions, property conditions (1 bit), memory ports and
//     instance connections.
//   - drivers: outputs, wires, variables and register next values with no
//     driver or with more than one; unconnected instance inputs; memories
//     never read or written.
//   - latches: a process variable not assigned on every path (assign a
//     default at the top of the process). Register next values hold the
//     register by default and are exempt.
//   - loops: combinational cycles, through wires, processes (followed
//     statement by statement) and combinational paths of instances.
//     Registers and memory read data break cycles.
//   - usage: inputs, registers, wires, variables, parameters, instance
//     outputs and intermediate values of which some bits are never read.
//     Verilator's -Wall would warn about them; here the error points at the
//     Go line. Bits dropped on purpose (Keep, which Fixed rounding and
//     wrap-around use) are read into a wire named _unused, which Verilator
//     accepts by its name. A read by a property counts (see Properties).
//   - names: every name must be a Verilog identifier (a letter, then
//     letters, digits and _), not a Verilog-2005 or SystemVerilog keyword,
//     not clk or rst, and unique within its module; property names are
//     names of the module too. A value the designer
//     named (Named) keeps its name; the other intermediate values become
//     _<scope>_<k>, numbered within the signal, process, memory port or
//     instance input that first uses them, so an edit in one place does not
//     rename the rest. Registers are <name>_reg with next value <name>_next;
//     an instance output is <instance>_<port>; a memory is <name>_mem with
//     read data <name>_rd_reg.
//
// # Reading a check error
//
// Elaborate returns an Errors value, sorted by Go location, one problem per
// line:
//
//	blocks/acc/acc.go:42: widths: module acc: Add of 8-bit and 7-bit values: widths must match (use ZExt, SExt or Trunc)
//
// The location is the line of the block (outside this package) that created
// the offending object: the operation, the declaration, the assignment or
// the instance. Then come the pass, the module, and the message.
//
// # Emitting
//
// Emit returns one file per module, keyed by file name. The output passes
// verilator --lint-only -Wall with no waivers, and the same design always
// gives the same bytes. EmitOptions.Locators appends // @[file.go:line] to
// the lines that come from a line of a block.
//
// # Properties
//
// Assert and Assume declare invariants: 1-bit values over inputs,
// registers, memory read data and anything built from them, that must be
// 1 in every reachable state (an assertion) or that a checker may take as
// 1 (an assumption, a constraint on the environment or a fact proved
// elsewhere). TableInvariant states a property of every word of a state
// table, by its fields: it is asserted of the word written on every write
// and assumed of the read data (the induction over the table, sound when
// the table starts from words that satisfy it). Implies is the usual shape
// of a property.
//
// The emitter writes them at the end of the module under `ifdef FORMAL: the
// wires only properties read, and one always @* block of labelled
// immediate assert and assume statements, which Yosys reads with
// read_verilog -formal. In the other branch, whatever only properties read
// is read into a wire named _unused_formal, so the file stays clean under
// verilator -Wall without FORMAL. Values only properties read are named
// after the design's, so a module emits the same design text with or
// without properties, and a module without properties emits exactly what
// it emitted before properties existed. The proofs of nicgen's blocks are
// in package formal (docs/formal.md).
package hdlgen
