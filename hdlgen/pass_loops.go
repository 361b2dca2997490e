package hdlgen

import (
	"fmt"
	"sort"
	"strings"
)

// reads calls f for every signal a node tree reads (through casts and ops).
func reads(n *node, f func(s *Signal, n *node)) {
	seen := map[*node]bool{}
	var walk func(n *node)
	walk = func(n *node) {
		if seen[n] {
			return
		}
		seen[n] = true
		if n.op == opSig {
			f(n.sig, n)
		}
		for _, a := range n.args {
			walk(a)
		}
	}
	walk(n)
}

// combGraph maps each combinationally driven signal to the signals its value
// depends on within the same cycle. Registers, memory read data, inputs and
// parameters are sources. A process is conservative: each signal it assigns
// depends on everything it reads.
func (m *Module) combGraph() (map[*Signal][]*Signal, map[*Signal]Loc) {
	deps := map[*Signal][]*Signal{}
	where := map[*Signal]Loc{}
	add := func(t *Signal, n *node) {
		reads(n, func(s *Signal, _ *node) { deps[t] = append(deps[t], s) })
	}
	for _, a := range m.assigns {
		add(a.target, a.value)
		where[a.target] = a.loc
	}
	for _, p := range m.procs {
		var all []*node
		targets := map[*Signal]Loc{}
		var walk func(list []*stmt)
		walk = func(list []*stmt) {
			for _, s := range list {
				switch s.kind {
				case stSet:
					all = append(all, s.value)
					if _, ok := targets[s.target]; !ok {
						targets[s.target] = s.loc
					}
				case stIf:
					all = append(all, s.cond)
					walk(s.then)
					walk(s.els)
				}
			}
		}
		walk(p.body)
		for t, loc := range targets {
			for _, n := range all {
				add(t, n)
			}
			where[t] = loc
		}
	}
	for _, in := range m.insts {
		subDeps := in.mod.outputInputDeps()
		for port, out := range in.outs {
			where[out] = in.loc
			for _, inPort := range subDeps[port] {
				if n := in.inputs[inPort]; n != nil {
					add(out, n)
				}
			}
		}
	}
	return deps, where
}

// outputInputDeps maps each output port to the input ports it depends on
// combinationally (sorted), so a parent can check loops through an instance.
func (m *Module) outputInputDeps() map[string][]string {
	deps, _ := m.combGraph()
	out := map[string][]string{}
	for _, p := range m.Ports() {
		if p.kind != kindOutput {
			continue
		}
		seen := map[*Signal]bool{}
		var ins []string
		var walk func(s *Signal)
		walk = func(s *Signal) {
			if seen[s] {
				return
			}
			seen[s] = true
			if s.kind == kindInput {
				ins = append(ins, s.name)
			}
			for _, d := range deps[s] {
				walk(d)
			}
		}
		walk(p)
		sort.Strings(ins)
		out[p.name] = ins
	}
	return out
}

// checkLoops reports combinational cycles, naming every signal on the cycle
// and the Go line that drives it.
func checkLoops(m *Module) []Error {
	deps, where := m.combGraph()
	const (
		white = iota
		grey
		black
	)
	color := map[*Signal]int{}
	var stack []*Signal
	var errs []Error
	var visit func(s *Signal)
	visit = func(s *Signal) {
		color[s] = grey
		stack = append(stack, s)
		for _, d := range deps[s] {
			switch color[d] {
			case white:
				visit(d)
			case grey:
				i := len(stack) - 1
				for stack[i] != d {
					i--
				}
				var parts []string
				for _, c := range stack[i:] {
					parts = append(parts, fmt.Sprintf("%s (%s)", c.name, where[c]))
				}
				parts = append(parts, d.name)
				errs = append(errs, Error{Loc: where[d], Msg: "combinational loop: " + strings.Join(parts, " -> ")})
			}
		}
		stack = stack[:len(stack)-1]
		color[s] = black
	}
	for _, s := range m.sigs {
		if color[s] == white {
			visit(s)
		}
	}
	return errs
}
