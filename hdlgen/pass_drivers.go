package hdlgen

import "fmt"

// checkDrivers reports signals with no driver or with more than one:
// outputs, wires, variables and register next values, instance inputs, and
// memories missing a port.
func checkDrivers(m *Module) []Error {
	var errs []Error
	bad := func(loc Loc, format string, a ...any) {
		errs = append(errs, Error{Loc: loc, Msg: fmt.Sprintf(format, a...)})
	}
	type driver struct {
		what string
		loc  Loc
	}
	drivers := map[*Signal][]driver{}
	for _, a := range m.assigns {
		drivers[a.target] = append(drivers[a.target], driver{"continuous assignment", a.loc})
	}
	for _, p := range m.procs {
		seen := map[*Signal]bool{}
		var walk func(list []*stmt)
		walk = func(list []*stmt) {
			for _, s := range list {
				if s.kind == stSet && !seen[s.target] {
					seen[s.target] = true
					drivers[s.target] = append(drivers[s.target], driver{"process " + p.Name, s.loc})
				}
				walk(s.then)
				walk(s.els)
			}
		}
		walk(p.body)
	}
	for _, s := range m.sigs {
		ds := drivers[s]
		switch s.kind {
		case kindOutput, kindWire, kindVar, kindNext:
			if len(ds) == 0 {
				what := s.name
				if s.kind == kindNext {
					what = fmt.Sprintf("register %s (its next value %s)", s.reg.Signal.name, s.name)
				}
				bad(s.loc, "%s is never assigned", what)
			}
			if len(ds) > 1 {
				bad(ds[1].loc, "%s has several drivers: %s at %s and %s at %s", s.name, ds[0].what, ds[0].loc, ds[1].what, ds[1].loc)
			}
			if s.kind == kindVar && len(ds) == 1 && ds[0].what == "continuous assignment" {
				bad(ds[0].loc, "variable %s must be assigned in a process (use Wire for continuous values)", s.name)
			}
		default:
			if len(ds) > 0 {
				bad(ds[0].loc, "%s cannot be assigned", s.name)
			}
		}
	}
	for _, in := range m.insts {
		for _, port := range in.mod.Ports() {
			if port.kind == kindInput && in.inputs[port.name] == nil {
				bad(in.loc, "instance %s: input %s of module %s is not connected", in.Name, port.name, in.mod.name)
			}
		}
	}
	for _, mem := range m.mems {
		if mem.rdData == nil {
			bad(mem.loc, "memory %s is never read", mem.Name)
		}
		if mem.wrData == nil {
			bad(mem.loc, "memory %s is never written", mem.Name)
		}
	}
	return errs
}
