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
