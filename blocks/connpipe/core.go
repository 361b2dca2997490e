package connpipe

import "github.com/nicgen/nicgen/hdlgen"

// Core is the part of a block's parameters that every block built on the
// shell has: each block's parameter struct embeds it, its build passes the
// fields to its Spec, and the tools (package block) reach it through
// HasCore. The fields are promoted: p.Depth, p.Formal and p.Table read and
// set them on the block's parameters.
type Core struct {
	Depth  int    // datapath stages of the pipelined shell (Spec.Depth, docs/pipeline.md)
	Formal Formal // properties under `ifdef FORMAL (Spec.Formal, docs/formal.md); off by default
	Table  bool   // the table port of the control wrapper (Spec.Table; hardware.control, docs/control.md); off by default

	used *int // set by NeededDepth: receives the stages the datapath's cuts reach
}

// HasCore is a block's parameters that embed a Core, through a pointer to
// them: ShellCore is the embedded Core itself.
type HasCore interface {
	ShellCore() *Core
}

// ShellCore is c: a pointer to a block's parameters satisfies HasCore.
func (c *Core) ShellCore() *Core { return c }

// Used is what the build passes as Spec.Used: nil but while NeededDepth
// counts the stages.
func (c Core) Used() *int { return c.used }

// NeededDepth builds p with depth datapath stages, its build reporting the
// stages its cuts reach (Spec.Used), and returns those stages: the depth
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
