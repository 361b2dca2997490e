package hdlgen

import (
	"fmt"
	"sort"
	"strings"
)

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
//
// A module is identified by its content: two module values with one name
// that emit the same Verilog are one module (emitted once); two that
// differ are an error naming both Go lines, wherever they sit.
func Elaborate(top *Module) (*Design, error) {
	d := &Design{Top: top}
	var all []*Module // every distinct module value, dependencies first
	seen := map[*Module]bool{}
	var counted []string
	var visit func(m *Module)
	visit = func(m *Module) {
		if seen[m] {
			return
		}
		seen[m] = true
		if m.counted {
			counted = append(counted, m.name)
		}
		for _, sub := range m.submodules() {
			visit(sub)
		}
		all = append(all, m)
	}
	visit(top)
	if len(counted) > 0 {
		return nil, fmt.Errorf("hdlgen: %s was built only to count its pipeline stages (Pipeline.CountOnly): it cannot be elaborated", strings.Join(counted, ", "))
	}
	var errs Errors
	for _, m := range all {
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
	kept, errs := unique(all)
	if len(errs) > 0 {
		return nil, errs.sorted()
	}
	d.Modules = kept
	return d, nil
}

// unique keeps one module value per name, in order, and reports names held
// by modules of different content.
func unique(mods []*Module) ([]*Module, Errors) {
	var kept []*Module
	var errs Errors
	first := map[string]*Module{}
	text := map[*Module]string{}
	body := func(m *Module) string {
		if t, ok := text[m]; !ok {
			t = emitModule(m, EmitOptions{})
			text[m] = t
		}
		return text[m]
	}
	for _, m := range mods {
		prev, ok := first[m.name]
		if !ok {
			first[m.name] = m
			kept = append(kept, m)
			continue
		}
		if body(prev) != body(m) {
			errs = append(errs, Error{Loc: m.loc, Pass: "elaborate", Module: m.name,
				Msg: fmt.Sprintf("two different modules are named %s (the other one is built at %s): give each a name of its own, for example with the parameter that differs", m.name, prev.loc)})
		}
	}
	return kept, errs
}

// CheckShared reports a module name that two designs (the blocks of one
// generation, which an integrator compiles together) give to modules of
// different content. Modules of the same name and content are one module,
// which may be emitted once for all of them.
func CheckShared(designs ...*Design) error {
	var all []*Module
	for _, d := range designs {
		all = append(all, d.Modules...)
	}
	if _, errs := unique(all); len(errs) > 0 {
		for i := range errs {
			errs[i].Pass = "shared"
		}
		return errs.sorted()
	}
	return nil
}

// Shared returns the names of the modules that more than one of the designs
// use (same name and, after CheckShared, same content), sorted.
func Shared(designs ...*Design) []string {
	count := map[string]int{}
	for _, d := range designs {
		for _, m := range d.Modules {
			if m != d.Top {
				count[m.name]++
			}
		}
	}
	var names []string
	for n, c := range count {
		if c > 1 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
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
