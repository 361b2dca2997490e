package hdlgen

import (
	"fmt"
	"math/big"
)

// checkUsage reports signals, or bits of signals, that nothing reads: inputs,
// registers, wires, variables, memory read data, instance outputs and
// parameters. Verilator's -Wall reports them too; reporting them here, at
// the Go line that declared them, keeps the emitted Verilog lint-clean
// without waivers. A read by a property counts: the emitter reads what only
// properties read into a wire named _unused_formal when FORMAL is not
// defined.
func checkUsage(m *Module) []Error {
	used, usedTemp, temps := m.readBits(true)
	var errs []Error
	if m.HasClock() {
		anyReset := false
		for _, r := range m.regs {
			anyReset = anyReset || r.hasReset
		}
		for _, in := range m.insts {
			anyReset = anyReset || in.mod.HasClock() // rst goes to the instance
		}
		if !anyReset {
			errs = append(errs, Error{Loc: m.loc, Msg: "module has state but no register with a reset, so rst would be unused"})
		}
	}
	for _, in := range m.insts {
		for _, p := range in.mod.Ports() {
			if p.kind == kindOutput && in.outs[p.name] == nil {
				errs = append(errs, Error{Loc: in.loc, Msg: fmt.Sprintf("instance %s: output %s of module %s is never read (read it with Out); every output of an instance must be used", in.Name, p.name, in.mod.name)})
			}
		}
	}
	passed := map[*Signal]bool{} // parameters passed to an instance (PassParams)
	for _, in := range m.insts {
		for _, p := range in.params {
			passed[p] = true
		}
	}
	for _, s := range m.sigs {
		switch s.kind {
		case kindOutput, kindNext:
			continue // read outside the module, or by the register itself
		}
		if (s.kind == kindParam || s.setting != "") && s.limited && (s.param < s.lo || s.param > s.hi) {
			errs = append(errs, Error{Loc: s.loc, Msg: fmt.Sprintf("parameter %s: default %d outside its range %d..%d", s.name, s.param, s.lo, s.hi)})
		}
		if passed[s] {
			continue
		}
		u := used[s]
		if u == nil {
			what := "is never read"
			if s.kind == kindInstO {
				what = "(an instance output) is never read; every output of an instance must be used"
			}
			errs = append(errs, Error{Loc: s.loc, Msg: fmt.Sprintf("%s %s", s.name, what)})
			continue
		}
		for lo := 0; lo < s.width; lo++ {
			if u.Bit(lo) == 1 {
				continue
			}
			hi := lo
			for hi+1 < s.width && u.Bit(hi+1) == 0 {
				hi++
			}
			errs = append(errs, Error{Loc: s.loc, Msg: fmt.Sprintf("bits [%d:%d] of %s are never read", hi, lo, s.name)})
			lo = hi
		}
	}
	for _, n := range temps {
		u := usedTemp[n]
		if u == nil {
			continue // only reachable through a cast that is itself read
		}
		for lo := 0; lo < n.width; lo++ {
			if u.Bit(lo) == 1 {
				continue
			}
			hi := lo
			for hi+1 < n.width && u.Bit(hi+1) == 0 {
				hi++
			}
			errs = append(errs, Error{Loc: n.loc, Msg: fmt.Sprintf("bits [%d:%d] of this %d-bit %s are never read: narrow the operands before the operation", hi, lo, n.width, opNames[n.op])})
			lo = hi
		}
	}
	return errs
}

// readBits marks the bits of signals and of intermediate values (with a
// wire) that the design reads, and with props also those the properties
// read. temps lists the intermediate values in visiting order.
func (m *Module) readBits(props bool) (used map[*Signal]*big.Int, usedTemp map[*node]*big.Int, temps []*node) {
	used = map[*Signal]*big.Int{}
	usedTemp = map[*node]*big.Int{}
	setBits := func(u *big.Int, hi, lo int) {
		for i := lo; i <= hi; i++ {
			u.SetBit(u, i, 1)
		}
	}
	// markNode records that bits hi..lo of n are read, looking through casts
	var markNode func(n *node, hi, lo int)
	markNode = func(n *node, hi, lo int) {
		switch {
		case n.op == opCast:
			markNode(n.args[0], hi, lo)
		case n.op == opSig:
			u := used[n.sig]
			if u == nil {
				u = new(big.Int)
				used[n.sig] = u
			}
			setBits(u, hi, lo)
		case n.hasWire():
			u := usedTemp[n]
			if u == nil {
				u = new(big.Int)
				usedTemp[n] = u
			}
			setBits(u, hi, lo)
		}
	}
	m.walk(props, func(_ string, n *node) {
		if n.hasWire() {
			temps = append(temps, n)
		}
		if n.op == opCast {
			return // its readers mark through it
		}
		for _, a := range n.args {
			if n.op == opSlice && !n.drop {
				markNode(a, n.hi, n.lo)
			} else {
				markNode(a, a.width-1, 0)
			}
		}
	})
	m.roots(func(_ string, n *node, _ Loc) { markNode(n, n.width-1, 0) })
	for _, r := range m.regs {
		if r.resetParam != nil {
			markNode(r.resetParam.Expr.n, r.resetParam.width-1, 0)
		}
	}
	if props {
		m.propRoots(func(_ string, n *node, _ Loc) { markNode(n, n.width-1, 0) })
	}
	return used, usedTemp, temps
}
