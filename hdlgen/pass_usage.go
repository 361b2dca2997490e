package hdlgen

import (
	"fmt"
	"math/big"
)

// checkUsage reports signals, or bits of signals, that nothing reads: inputs,
// registers, wires, variables, memory read data, instance outputs and
// parameters. Verilator's -Wall reports them too; reporting them here, at
// the Go line that declared them, keeps the emitted Verilog lint-clean
// without waivers.
func checkUsage(m *Module) []Error {
	used := map[*Signal]*big.Int{}
	mark := func(s *Signal, hi, lo int) {
		u := used[s]
		if u == nil {
			u = new(big.Int)
			used[s] = u
		}
		for i := lo; i <= hi; i++ {
			u.SetBit(u, i, 1)
		}
	}
	m.postOrder(func(_ string, n *node) {
		for _, a := range n.args {
			if a.op != opSig {
				continue
			}
			if n.op == opSlice {
				mark(a.sig, n.hi, n.lo)
			} else {
				mark(a.sig, a.sig.width-1, 0)
			}
		}
	})
	m.roots(func(_ string, n *node, _ Loc) {
		if n.op == opSig {
			mark(n.sig, n.sig.width-1, 0)
		}
	})
	var errs []Error
	if m.HasClock() {
		anyReset := false
		for _, r := range m.regs {
			anyReset = anyReset || r.hasReset
		}
		if !anyReset {
			errs = append(errs, Error{Loc: m.loc, Msg: "module has state but no register with a reset, so rst would be unused"})
		}
	}
	for _, s := range m.sigs {
		switch s.kind {
		case kindOutput, kindNext:
			continue // read outside the module, or by the register itself
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
	return errs
}
