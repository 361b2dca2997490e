package hdlgen

import (
	"fmt"
	"sort"
)

// Mutation replaces one named value of a built design: the deliberately
// broken variant of a block that a formal check must catch (docs/formal.md),
// applied to the design instead of written as a branch in the block's code.
type Mutation struct {
	// Module names the module that holds the value; "" is the top.
	Module string
	// Node names the value: a Named expression or a Wire of that module.
	Node string
	// With is the value's replacement, a function of its original value
	// and of the module's other values by name (get: a Named expression,
	// a port, a wire or a register; an unknown name is an error). It must
	// keep the width.
	With func(orig Expr, get func(name string) Expr) Expr
}

// Mutate applies mutations to the design under top, before Elaborate. The
// replaced value keeps its name, so the emitted Verilog differs only in
// its logic. A module, a value or a name that get does not find is an
// error: a mutation that silently changes nothing would prove nothing.
func Mutate(top *Module, ms ...Mutation) error {
	mods := map[string]*Module{}
	var walk func(m *Module)
	walk = func(m *Module) {
		if _, ok := mods[m.name]; ok {
			return
		}
		mods[m.name] = m
		for _, s := range m.submodules() {
			walk(s)
		}
	}
	walk(top)
	for _, mu := range ms {
		m := top
		if mu.Module != "" {
			var ok bool
			if m, ok = mods[mu.Module]; !ok {
				return fmt.Errorf("mutation of %s: no module %s under %s", mu.Node, mu.Module, top.name)
			}
		}
		named := m.namedNodes()
		var missing []string
		get := func(name string) Expr {
			if n, ok := named[name]; ok {
				return Expr{n}
			}
			if s, ok := m.byName[name]; ok {
				return s.Expr
			}
			missing = append(missing, name)
			return Const(1, 0)
		}
		target, ok := named[mu.Node]
		var asg *assign
		if !ok {
			for _, a := range m.assigns {
				if a.target.name == mu.Node && a.target.kind == kindWire {
					asg = a
				}
			}
			if asg == nil {
				return fmt.Errorf("mutation: module %s has no named value or wire %s", m.name, mu.Node)
			}
			target = asg.value
		}
		orig := *target // the original value, unnamed
		orig.name, orig.user = "", false
		repl := mu.With(Expr{&orig}, get)
		if len(missing) > 0 {
			sort.Strings(missing)
			return fmt.Errorf("mutation of %s.%s: no value named %v", m.name, mu.Node, missing)
		}
		if repl.n.width != target.width {
			return fmt.Errorf("mutation of %s.%s: a %d-bit replacement for a %d-bit value", m.name, mu.Node, repl.n.width, target.width)
		}
		if asg != nil {
			asg.value = repl.n
			continue
		}
		// the node becomes a copy wire of the replacement, keeping its name
		name, user, loc := target.name, target.user, target.loc
		*target = node{op: opConcat, width: repl.n.width, signed: repl.n.signed, args: []*node{repl.n}, loc: loc, name: name, user: user}
	}
	return nil
}

// namedNodes maps the names given with Named to their nodes.
func (m *Module) namedNodes() map[string]*node {
	out := map[string]*node{}
	m.postOrderAll(func(_ string, n *node) {
		if n.user && n.name != "" {
			if _, dup := out[n.name]; !dup {
				out[n.name] = n
			}
		}
	})
	return out
}

// Operand is operand i of e's operation (a mutation's view of the value it
// replaces: Mux(sel, a, b) has sel, a, b). An operand that does not exist
// is an error at the caller's line.
func (e Expr) Operand(i int) Expr {
	if i < 0 || i >= len(e.n.args) {
		return Const(1, 0).fail("Operand(%d) of a value with %d operands", i, len(e.n.args))
	}
	return Expr{e.n.args[i]}
}
