package hdlgen

import "fmt"

// Memory is a state table: Depth words of a Layout, one synchronous read port
// with registered data and one write port. It is written so that FPGA tools
// infer block RAM: no reset, read-before-write at the same address (a read
// and a write of the same word in one cycle return the old word; the block
// must forward the new one itself).
type Memory struct {
	Name          string
	Depth         int
	Layout        *Layout
	PerConnection bool // one word per connection: counted per connection by the budget
	loc           Loc
	rdAddr, rdEn  *node
	wrAddr, wrEn  *node
	wrData        *node
	rdData        *Signal
	rdLoc, wrLoc  Loc
	// ReadRegistered: the read data passes the RAM's output register, and
	// the table is emitted twice: portable Verilog, and under
	// `ifdef NICGEN_ECP5 Lattice ECP5 DP16KD block RAMs with that register
	// inside (REGMODE OUTREG)
	regOut bool
	rdMid  string // the portable branch's first read register
}

// AddrWidth is the width of an address.
func (mem *Memory) AddrWidth() int { return BitsFor(uint64(mem.Depth - 1)) }

// Memory declares a state table.
func (m *Module) Memory(name string, depth int, layout *Layout, perConnection bool) *Memory {
	mem := &Memory{Name: name, Depth: depth, Layout: layout, PerConnection: perConnection, loc: callerLoc()}
	if depth < 2 {
		m.errorf(mem.loc, "memory %s: depth %d must be at least 2", name, depth)
	}
	for _, e := range layout.errs {
		m.errorf(mem.loc, "memory %s: layout %s: %s", name, layout.name, e)
	}
	m.mems = append(m.mems, mem)
	return mem
}

// Read issues a read of addr on the cycles where en is 1; the word appears
// in the returned register on the next cycle and holds while en is 0.
func (m *Module) Read(mem *Memory, addr, en Value) *Signal {
	if mem.rdData != nil {
		m.errorf(callerLoc(), "memory %s: second read port (one is supported)", mem.Name)
		return mem.rdData
	}
	mem.rdAddr, mem.rdEn, mem.rdLoc = addr.node(), en.node(), callerLoc()
	mem.rdData = m.declare(mem.Name+"_rd_reg", mem.Layout.width, kindMemRd, fmt.Sprintf("registered read data of %s", mem.Name))
	return mem.rdData
}

// ReadRegistered issues a read of addr on the cycles where en is 1; the
// word passes the RAM's read register and its output register, so it
// appears in the returned signal two cycles later (the output register is
// always enabled). Block RAMs have both registers inside (Xilinx DOB_REG,
// Lattice OUTREG): nothing of the fabric sits between the RAM and the
// first register its data meets. The emitter writes the table as portable
// Verilog and, under `ifdef NICGEN_ECP5, as ECP5 DP16KD instances with
// OUTREG (Yosys 0.23 does not infer it), for depths up to 16384.
func (m *Module) ReadRegistered(mem *Memory, addr, en Value) *Signal {
	loc := callerLoc()
	if mem.rdData != nil {
		m.errorf(loc, "memory %s: second read port (one is supported)", mem.Name)
		return mem.rdData
	}
	mem.rdAddr, mem.rdEn, mem.rdLoc = addr.node(), en.node(), loc
	mem.regOut, mem.rdMid = true, mem.Name+"_rd_reg"
	mem.rdData = m.declare(mem.Name+"_q", mem.Layout.width, kindMemRd, fmt.Sprintf("read data of %s after the RAM's output register", mem.Name))
	mem.rdData.memReg = true
	m.usesClk = true
	return mem.rdData
}

// ECP5Mode is the DP16KD data width used for a table of depth words, and
// the number of block RAMs across a word of width bits; 0 when the depth
// needs more than one RAM deep (the portable branch is used then).
func ECP5Mode(depth, width int) (ramWidth, rams int) {
	for _, c := range []struct{ depth, width int }{{1024, 18}, {2048, 9}, {4096, 4}, {8192, 2}, {16384, 1}} {
		if depth <= c.depth {
			return c.width, (width + c.width - 1) / c.width
		}
	}
	return 0, 0
}

// Write stores data at addr on the cycles where en is 1.
func (m *Module) Write(mem *Memory, addr, data, en Value) {
	if mem.wrData != nil {
		m.errorf(callerLoc(), "memory %s: second write port (one is supported)", mem.Name)
		return
	}
	mem.wrAddr, mem.wrData, mem.wrEn, mem.wrLoc = addr.node(), data.node(), en.node(), callerLoc()
}

// Memories returns the module's state tables.
func (m *Module) Memories() []*Memory { return m.mems }
