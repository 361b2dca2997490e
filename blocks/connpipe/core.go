package connpipe

import "github.com/nicgen/nicgen/hdlgen"

// Core is the part of a block's parameters that every block built on the
// shell has: each block's parameter struct embeds it, its build passes it
// to its Spec as it is (Spec embeds it too), and the tools (package block)
// reach it through HasCore. The fields are promoted: p.Depth, p.Formal and
// p.Table read and set them on the block's parameters and on a Spec.
type Core struct {
	// Depth is the number of datapath stages (1..MaxDepth): events of one
	// connection are Depth cycles apart, events of different connections
	// one cycle apart (docs/pipeline.md).
	Depth int
	// Formal asks for the shell's and the block's properties (Spec's
	// WordInvariants and ResultInvariants), emitted under `ifdef FORMAL
	// (docs/formal.md); off by default.
	Formal Formal
	// Table adds the table port (hardware.control; off by default),
	// through which a control wrapper reads and writes connections' words
	// (docs/control.md): a beat of the event
	// stream whose s_event_op is not 0 is a table operation on its
	// connection, not an event. Bit 0 copies the word the datapath would
	// start from into m_table_rdata (registered in the datapath's first
	// stage); bit 1 writes s_table_wdata, read in the last stage, in the
	// word's place. The datapath does not fire for it (Step.Fire is 0),
	// its kind and fields are ignored (only a connection out of range is
	// an error), and its result carries its op in m_result_op and zeros in
	// every result field. It follows the events before it and precedes
	// those after it, as an event would. Not with Formal.Invariants: a
	// written word need not satisfy them.
	Table bool

	used *int // set by NeededDepth: receives the stages the datapath's cuts reach
}

// HasCore is a block's parameters that embed a Core, through a pointer to
// them: ShellCore is the embedded Core itself.
type HasCore interface {
	ShellCore() *Core
}

// ShellCore is c: a pointer to a block's parameters satisfies HasCore.
func (c *Core) ShellCore() *Core { return c }

// counting is whether the build only counts the stages its datapath's
// cuts reach (NeededDepth), into *c.used.
func (c Core) counting() bool { return c.used != nil }

// NeededDepth builds p with depth datapath stages, its build reporting the
// stages its cuts reach, and returns those stages: the depth
// the block needs when depth is MaxDepth.
func NeededDepth[P any, PP interface {
	*P
	HasCore
}](p P, depth int, build func(P) (*hdlgen.Module, error)) (int, error) {
	var n int
	c := PP(&p).ShellCore()
	c.Depth, c.used = depth, &n
	if _, err := build(p); err != nil {
		return 0, err
	}
	return n, nil
}

// MustDepth is a needed depth of parameters known to build (a block's
// defaults and its proofs' configurations); it panics otherwise.
func MustDepth(d int, err error) int {
	if err != nil {
		panic(err)
	}
	return d
}
