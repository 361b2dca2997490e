package hdlgen

import "fmt"

// Design is a checked top module with every module it instantiates.
type Design struct {
	Top     *Module
	Modules []*Module // dependencies first, top last; each module once
}

// pass is one named check over one module. Passes only report; they never
// change the design, so their order only matters for naming (last).
type pass struct {
	name string
	run  func(m *Module) []Error
}

var passes = []pass{
	{"widths", checkWidths},
	{"drivers", checkDrivers},
	{"latches", checkLatches},
	{"loops", checkLoops},
	{"usage", checkUsage},
	{"names", assignNames},
}

// Elaborate collects the modules under top and runs every check. The error,
// when not nil, is an Errors listing every problem with its Go location.
func Elaborate(top *Module) (*Design, error) {
	d := &Design{Top: top}
	seen := map[string]*Module{}
	var errs Errors
	var visit func(m *Module)
	visit = func(m *Module) {
		if prev, ok := seen[m.name]; ok {
			if prev != m {
				errs = append(errs, Error{Loc: m.loc, Pass: "elaborate", Module: m.name, Msg: fmt.Sprintf("two different modules are named %s (the other one at %s)", m.name, prev.loc)})
			}
			return
		}
		seen[m.name] = m
		for _, sub := range m.Submodules() {
			visit(sub)
		}
		d.Modules = append(d.Modules, m)
	}
	visit(top)
	for _, m := range d.Modules {
		errs = append(errs, m.errs...)
		for _, p := range passes {
			for _, e := range p.run(m) {
				e.Pass, e.Module = p.name, m.name
				errs = append(errs, e)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs.sorted()
	}
	return d, nil
}

// roots calls f for every expression tree the module uses, in a fixed order:
// continuous assignments, processes, memory ports, instance inputs.
func (m *Module) roots(f func(scope string, n *node, loc Loc)) {
	for _, a := range m.assigns {
		f(a.target.name, a.value, a.loc)
	}
	for _, p := range m.procs {
		var walk func(list []*stmt)
		walk = func(list []*stmt) {
			for _, s := range list {
				switch s.kind {
				case stSet:
					f(p.Name, s.value, s.loc)
				case stIf:
					f(p.Name, s.cond, s.loc)
					walk(s.then)
					walk(s.els)
				}
			}
		}
		walk(p.body)
	}
	for _, mem := range m.mems {
		if mem.rdAddr != nil {
			f(mem.Name+"_rd", mem.rdAddr, mem.rdLoc)
			f(mem.Name+"_rd", mem.rdEn, mem.rdLoc)
		}
		if mem.wrAddr != nil {
			f(mem.Name+"_wr", mem.wrAddr, mem.wrLoc)
			f(mem.Name+"_wr", mem.wrData, mem.wrLoc)
			f(mem.Name+"_wr", mem.wrEn, mem.wrLoc)
		}
	}
	for _, in := range m.insts {
		for _, port := range in.mod.Ports() {
			if n := in.inputs[port.name]; n != nil {
				f(in.Name+"_"+port.name, n, in.inLoc[port.name])
			}
		}
	}
}

// postOrder visits every node reachable from the roots once, operands first.
func (m *Module) postOrder(f func(scope string, n *node)) { m.walk(false, f) }

// postOrderAll is postOrder followed by the nodes that only the properties
// (formal.go) read, so the design's nodes keep their order and names.
func (m *Module) postOrderAll(f func(scope string, n *node)) { m.walk(true, f) }

func (m *Module) walk(props bool, f func(scope string, n *node)) {
	seen := map[*node]bool{}
	var visit func(scope string, n *node)
	visit = func(scope string, n *node) {
		if seen[n] {
			return
		}
		seen[n] = true
		for _, a := range n.args {
			visit(scope, a)
		}
		f(scope, n)
	}
	m.roots(func(scope string, n *node, _ Loc) { visit(scope, n) })
	if props {
		m.propRoots(func(scope string, n *node, _ Loc) { visit(scope, n) })
	}
}
