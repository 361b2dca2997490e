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
// parameters are sources. A process is followed statement by statement
// (see processDeps), so a variable computed and then read further down the
// same process is not a loop.
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
		pd, order, first := processDeps(p)
		for _, t := range order {
			deps[t] = append(deps[t], pd[t].list...)
			where[t] = first[t]
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

// sigSet is a set of signals that remembers insertion order, so that the
// loop messages do not depend on map iteration.
type sigSet struct {
	list []*Signal
	has  map[*Signal]bool
}

func newSigSet() *sigSet { return &sigSet{has: map[*Signal]bool{}} }

func (s *sigSet) add(x *Signal) {
	if !s.has[x] {
		s.has[x] = true
		s.list = append(s.list, x)
	}
}

func (s *sigSet) addAll(o *sigSet) {
	for _, x := range o.list {
		s.add(x)
	}
}

func (s *sigSet) clone() *sigSet {
	c := newSigSet()
	c.addAll(s)
	return c
}

// processDeps follows a process in statement order with blocking
// semantics: a read of a signal the process has already assigned on the
// current path stands for the value assigned there, and every assignment
// also depends on the conditions of the ifs around it. It returns, for each
// assigned signal (in order of first assignment, with that location), the
// signals its value at the end of the process depends on. A register next
// value starts as the register (the process holds it by default); a
// variable that is not assigned on some path adds nothing for that path,
// since the latch pass reports it.
func processDeps(p *Process) (map[*Signal]*sigSet, []*Signal, map[*Signal]Loc) {
	var order []*Signal
	first := map[*Signal]Loc{}
	var collect func(list []*stmt)
	collect = func(list []*stmt) {
		for _, s := range list {
			if s.kind == stSet {
				if _, ok := first[s.target]; !ok {
					first[s.target] = s.loc
					order = append(order, s.target)
				}
			}
			collect(s.then)
			collect(s.els)
		}
	}
	collect(p.body)

	type env map[*Signal]*sigSet
	start := env{}
	for _, t := range order {
		if t.kind == kindNext && t.reg != nil {
			held := newSigSet()
			held.add(t.reg.Signal)
			start[t] = held
		}
	}
	copyEnv := func(e env) env {
		c := env{}
		for k, v := range e {
			c[k] = v
		}
		return c
	}
	readInto := func(d *sigSet, n *node, e env) {
		reads(n, func(s *Signal, _ *node) {
			if cur, ok := e[s]; ok {
				d.addAll(cur)
			} else {
				d.add(s)
			}
		})
	}
	var walk func(list []*stmt, ctrl *sigSet, e env)
	walk = func(list []*stmt, ctrl *sigSet, e env) {
		for _, s := range list {
			switch s.kind {
			case stSet:
				d := ctrl.clone()
				readInto(d, s.value, e)
				e[s.target] = d
			case stIf:
				c := ctrl.clone()
				readInto(c, s.cond, e)
				thenEnv, elseEnv := copyEnv(e), copyEnv(e)
				walk(s.then, c, thenEnv)
				walk(s.els, c, elseEnv)
				for _, t := range order {
					a, inThen := thenEnv[t]
					b, inElse := elseEnv[t]
					switch {
					case inThen && inElse:
						merged := a.clone()
						merged.addAll(b)
						e[t] = merged
					case inThen:
						e[t] = a
					case inElse:
						e[t] = b
					}
				}
			}
		}
	}
	final := copyEnv(start)
	walk(p.body, newSigSet(), final)
	return final, order, first
}
