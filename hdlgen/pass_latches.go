package hdlgen

import "fmt"

// checkLatches reports a process variable that is not assigned on every path
// through its process: in hardware it would have to remember its old value,
// which is a latch. Register next values are exempt: a process that assigns
// one starts by holding the register's value.
func checkLatches(m *Module) []Error {
	var errs []Error
	for _, p := range m.procs {
		firstSet := map[*Signal]Loc{}
		var order []*Signal
		var collect func(list []*stmt)
		collect = func(list []*stmt) {
			for _, s := range list {
				if s.kind == stSet && s.target.kind == kindVar {
					if _, ok := firstSet[s.target]; !ok {
						firstSet[s.target] = s.loc
						order = append(order, s.target)
					}
				}
				collect(s.then)
				collect(s.els)
			}
		}
		collect(p.body)
		assigned := definitelyAssigned(p.body)
		for _, v := range order {
			if !assigned[v] {
				errs = append(errs, Error{Loc: firstSet[v], Msg: fmt.Sprintf("process %s: %s is not assigned on every path (a latch); give it a default at the top of the process", p.Name, v.name)})
			}
		}
	}
	return errs
}

// definitelyAssigned is the set of signals assigned on every path of list.
func definitelyAssigned(list []*stmt) map[*Signal]bool {
	out := map[*Signal]bool{}
	for _, s := range list {
		switch s.kind {
		case stSet:
			out[s.target] = true
		case stIf:
			a, b := definitelyAssigned(s.then), definitelyAssigned(s.els)
			for sig := range a {
				if b[sig] {
					out[sig] = true
				}
			}
		}
	}
	return out
}
