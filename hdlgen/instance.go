package hdlgen

// Instance is a use of another module inside this one.
type Instance struct {
	Name   string
	mod    *Module
	loc    Loc
	inputs map[string]*node
	inLoc  map[string]Loc
	outs   map[string]*Signal
	parent *Module
	params []*Signal // the parent's parameters passed to the module's of the same name
}

// Instantiate places sub inside m. Connect every input with In and read
// outputs with Out; the checks report unconnected inputs.
func (m *Module) Instantiate(name string, sub *Module) *Instance {
	in := &Instance{Name: name, mod: sub, loc: callerLoc(), inputs: map[string]*node{}, inLoc: map[string]Loc{}, outs: map[string]*Signal{}, parent: m}
	if sub.HasClock() {
		m.usesClk = true
	}
	m.insts = append(m.insts, in)
	return in
}

// PassParams declares in m every Verilog parameter of the instantiated
// module, with its default, and passes each to the instance: an
// integrator overrides them at m as at the module itself.
func (in *Instance) PassParams() *Instance {
	for _, p := range in.mod.Params() {
		q := in.parent.Param(p.name, p.width, p.param, p.doc)
		q.lo, q.hi, q.limited, q.limitWhy = p.lo, p.hi, p.limited, p.limitWhy
		in.params = append(in.params, q)
	}
	return in
}

// Param is the parameter name that PassParams declared in the parent, or
// nil.
func (in *Instance) Param(name string) *Signal {
	for _, p := range in.params {
		if p.name == name {
			return p
		}
	}
	return nil
}

// Module is the instantiated module.
func (in *Instance) Module() *Module { return in.mod }

// In connects input port to value.
func (in *Instance) In(port string, value Value) *Instance {
	loc := callerLoc()
	p, ok := in.mod.byName[port]
	switch {
	case !ok || p.kind != kindInput:
		in.parent.errorf(loc, "instance %s: module %s has no input %q", in.Name, in.mod.name, port)
	case in.inputs[port] != nil:
		in.parent.errorf(loc, "instance %s: input %q connected twice", in.Name, port)
	default:
		in.inputs[port] = value.node()
		in.inLoc[port] = loc
	}
	return in
}

// Out reads output port of the instance as a wire named <instance>_<port>.
func (in *Instance) Out(port string) Expr {
	if s, ok := in.outs[port]; ok {
		return s.Expr
	}
	p, ok := in.mod.byName[port]
	if !ok || p.kind != kindOutput {
		in.parent.errorf(callerLoc(), "instance %s: module %s has no output %q", in.Name, in.mod.name, port)
		return Const(1, 0)
	}
	s := in.parent.declare(in.Name+"_"+port, p.width, kindInstO, p.doc)
	s.Expr.n.signed = p.Expr.n.signed
	in.outs[port] = s
	return s.Expr
}
