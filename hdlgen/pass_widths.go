package hdlgen

import "fmt"

// checkWidths reports every width or signedness error recorded by the
// builder (properties included), the widths of assignments, conditions,
// property conditions, memory ports and instance connections, and values
// that belong to another module.
func checkWidths(m *Module) []Error {
	var errs []Error
	bad := func(loc Loc, format string, a ...any) {
		errs = append(errs, Error{Loc: loc, Msg: fmt.Sprintf(format, a...)})
	}
	own := map[*Signal]bool{}
	for _, s := range m.sigs {
		own[s] = true
	}
	m.postOrderAll(func(_ string, n *node) {
		if n.err != "" {
			bad(n.loc, "%s", n.err)
		}
		if n.op == opSig && n.sig != nil && !own[n.sig] {
			bad(n.loc, "%s is a signal of another module", n.sig.name)
		}
	})
	for _, a := range m.assigns {
		if a.value.width != a.target.width {
			bad(a.loc, "assignment of a %d-bit value to %d-bit %s", a.value.width, a.target.width, a.target.name)
		}
	}
	for _, p := range m.procs {
		var walk func(list []*stmt)
		walk = func(list []*stmt) {
			for _, s := range list {
				switch s.kind {
				case stSet:
					if s.value.width != s.target.width {
						bad(s.loc, "process %s: assignment of a %d-bit value to %d-bit %s", p.Name, s.value.width, s.target.width, s.target.name)
					}
				case stIf:
					if s.cond.width != 1 {
						bad(s.loc, "process %s: condition is %d bits, must be 1", p.Name, s.cond.width)
					}
					walk(s.then)
					walk(s.els)
				}
			}
		}
		walk(p.body)
	}
	for _, mem := range m.mems {
		aw := mem.AddrWidth()
		if mem.rdAddr != nil {
			if mem.rdAddr.width != aw {
				bad(mem.rdLoc, "memory %s: read address is %d bits, depth %d needs %d", mem.Name, mem.rdAddr.width, mem.Depth, aw)
			}
			if mem.rdEn.width != 1 {
				bad(mem.rdLoc, "memory %s: read enable is %d bits", mem.Name, mem.rdEn.width)
			}
		}
		if mem.wrAddr != nil {
			if mem.wrAddr.width != aw {
				bad(mem.wrLoc, "memory %s: write address is %d bits, depth %d needs %d", mem.Name, mem.wrAddr.width, mem.Depth, aw)
			}
			if mem.wrData.width != mem.Layout.width {
				bad(mem.wrLoc, "memory %s: write data is %d bits, the word is %d", mem.Name, mem.wrData.width, mem.Layout.width)
			}
			if mem.wrEn.width != 1 {
				bad(mem.wrLoc, "memory %s: write enable is %d bits", mem.Name, mem.wrEn.width)
			}
		}
	}
	for _, p := range m.props {
		if p.cond.width != 1 {
			bad(p.loc, "%s %s: condition is %d bits, must be 1", p.keyword(), p.name, p.cond.width)
		}
	}
	for _, in := range m.insts {
		for _, port := range in.mod.Ports() {
			n := in.inputs[port.name]
			switch {
			case n == nil:
			case n.width != port.width:
				bad(in.inLoc[port.name], "instance %s: input %s is %d bits, connected to a %d-bit value", in.Name, port.name, port.width, n.width)
			case n.signed != port.Expr.n.signed:
				bad(in.inLoc[port.name], "instance %s: input %s is %s, connected to a %s value (use AsUnsigned or AsSigned)", in.Name, port.name, signedness(port.Expr.n.signed), signedness(n.signed))
			}
		}
	}
	return errs
}

func signedness(signed bool) string {
	if signed {
		return "signed"
	}
	return "unsigned"
}
