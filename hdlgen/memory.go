package hdlgen

import (
	"fmt"
	"math/bits"
)

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

	// banking (SetBanks): the table is split by its high address bits into
	// banks of one block RAM depth each, read at once; each bank has its
	// own read data register, so no multiplexer sits between a block RAM
	// and its register (the caller selects the bank a cycle later)
	banks   int
	rdLo    *node
	rdBanks []*Signal
	wrLo    *node
	wrHi    *node
}

// SetBanks splits the table into n banks of Depth/n words (n a power of
// two that divides Depth); call it before Read and Write, and read with
// ReadBanks.
func (m *Module) SetBanks(mem *Memory, n int) {
	loc := callerLoc()
	switch {
	case mem.rdAddr != nil || mem.wrAddr != nil:
		m.errorf(loc, "memory %s: SetBanks after Read or Write", mem.Name)
	case n < 1 || n&(n-1) != 0 || mem.Depth%n != 0 || mem.Depth/n < 2 || (mem.Depth/n)&(mem.Depth/n-1) != 0:
		m.errorf(loc, "memory %s: %d banks: a power of two that divides depth %d into banks of a power of two words (2 or more)", mem.Name, n, mem.Depth)
	default:
		mem.banks = n
	}
}

// Banks is the number of banks (1 unless SetBanks split the table).
func (mem *Memory) Banks() int { return max(mem.banks, 1) }

func (mem *Memory) bankAddrWidth() int {
	return mem.AddrWidth() - bits.TrailingZeros(uint(mem.Banks()))
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
	if mem.Banks() > 1 {
		m.errorf(callerLoc(), "memory %s has %d banks: read it with ReadBanks", mem.Name, mem.Banks())
	}
	if mem.rdData != nil {
		m.errorf(callerLoc(), "memory %s: second read port (one is supported)", mem.Name)
		return mem.rdData
	}
	mem.rdAddr, mem.rdEn, mem.rdLoc = addr.node(), en.node(), callerLoc()
	mem.rdData = m.declare(mem.Name+"_rd_reg", mem.Layout.width, kindMemRd, fmt.Sprintf("registered read data of %s", mem.Name))
	mem.rdBanks = []*Signal{mem.rdData}
	return mem.rdData
}

// ReadBanks issues a read of addr in every bank of a banked table (its
// low address bits); bank i's word appears in the i-th returned register
// on the next cycle. The word at addr is the one of bank addr's high bits.
func (m *Module) ReadBanks(mem *Memory, addr, en Value) []*Signal {
	loc := callerLoc()
	if mem.rdData != nil {
		m.errorf(loc, "memory %s: second read port (one is supported)", mem.Name)
		return mem.rdBanks
	}
	mem.rdAddr, mem.rdEn, mem.rdLoc = addr.node(), en.node(), loc
	lw := mem.bankAddrWidth()
	if mem.Banks() > 1 {
		mem.rdLo = Expr{addr.node()}.Keep(lw-1, 0).Named(mem.Name + "_rd_addr").n
	}
	for i := 0; i < mem.Banks(); i++ {
		name := fmt.Sprintf("%s_rd_b%d_reg", mem.Name, i)
		if mem.Banks() == 1 {
			name = mem.Name + "_rd_reg"
		}
		mem.rdBanks = append(mem.rdBanks, m.declare(name, mem.Layout.width, kindMemRd, fmt.Sprintf("registered read data of %s, bank %d", mem.Name, i)))
	}
	mem.rdData = mem.rdBanks[0]
	return mem.rdBanks
}

// Write stores data at addr on the cycles where en is 1.
func (m *Module) Write(mem *Memory, addr, data, en Value) {
	if mem.wrData != nil {
		m.errorf(callerLoc(), "memory %s: second write port (one is supported)", mem.Name)
		return
	}
	mem.wrAddr, mem.wrData, mem.wrEn, mem.wrLoc = addr.node(), data.node(), en.node(), callerLoc()
	if mem.Banks() > 1 {
		lw := mem.bankAddrWidth()
		a := Expr{addr.node()}
		mem.wrLo = a.Keep(lw-1, 0).Named(mem.Name + "_wr_addr").n
		mem.wrHi = a.Keep(a.Width()-1, lw).Named(mem.Name + "_wr_bank").n
	}
}

// Memories returns the module's state tables.
func (m *Module) Memories() []*Memory { return m.mems }
