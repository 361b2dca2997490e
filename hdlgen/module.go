package hdlgen

import (
	"fmt"
	"sort"
	"strings"
)

type sigKind int

const (
	kindInput sigKind = iota
	kindOutput
	kindWire  // driven by one continuous assignment
	kindVar   // assigned inside one combinational process
	kindReg   // flip-flop output (name_reg)
	kindNext  // flip-flop next value (name_next), assigned in a process or continuously
	kindMemRd // registered read data of a memory port
	kindInstO // output of an instance
	kindParam // Verilog parameter (a constant that users may override)
)

// Signal is a declared, named hardware value. It embeds the Expr that reads it,
// so it can be used wherever a Value is expected.
type Signal struct {
	Expr
	name  string
	width int
	kind  sigKind
	loc   Loc
	doc   string
	group string // port interface banner
	reg   *Reg   // for kindReg and kindNext
	param uint64 // kindParam default
	// kindParam: the values the generator checked (Limit); without a
	// limit, every value of the width
	lo, hi   uint64
	limited  bool
	limitWhy string
	setting  string // an input that is a run-time Setting: its name
	qualBy   string // output only: the 1-bit output that qualifies this one
	memReg   bool   // kindMemRd of a registered read: declared with its table
}

// Name is the Verilog name of the signal.
func (s *Signal) Name() string { return s.name }

// Doc is the signal's documentation.
func (s *Signal) Doc() string { return s.doc }

// Group is the interface banner of a port.
func (s *Signal) Group() string { return s.group }

// QualifiedBy names the 1-bit output that says when this output is meaningful.
func (s *Signal) QualifiedBy() string { return s.qualBy }

// IsInput reports whether the signal is an input port.
func (s *Signal) IsInput() bool { return s.kind == kindInput }

// IsReg reports whether the signal is a register (its value after the
// clock edge; Reg's Next is not).
func (s *Signal) IsReg() bool { return s.kind == kindReg }

// Reg is a flip-flop with an explicit reset policy. Read it through its
// embedded Signal (name_reg); assign its next value through Next.
type Reg struct {
	*Signal
	Next       *Signal
	hasReset   bool
	reset      uint64
	resetParam *Signal // reset to a Verilog parameter instead of a constant
	state      bool    // architectural state: counted by the budget as global state
	// dsp is the product this pipeline register takes directly (unsigned,
	// operands of at most 18 bits): under `ifdef NICGEN_ECP5 the register
	// is the output register of an ECP5 MULT18X18D (emitDSP)
	dsp *node
}

// RegOpt configures a register.
type RegOpt func(*Reg)

// ResetTo resets the register to v on rst.
func ResetTo(v uint64) RegOpt { return func(r *Reg) { r.hasReset, r.reset = true, v } }

// ResetToParam resets the register to the value of a Verilog parameter of
// the same width (a seed an integrator may override).
func ResetToParam(p *Signal) RegOpt {
	return func(r *Reg) { r.hasReset, r.resetParam = true, p }
}

// NoReset leaves the register uninitialised at reset: for wide datapath
// registers whose value is qualified by a valid bit that is reset.
func NoReset() RegOpt { return func(r *Reg) { r.hasReset = false } }

// GlobalState marks the register as architectural state shared by all
// connections (it appears in the state budget); pipeline registers are not.
func GlobalState() RegOpt { return func(r *Reg) { r.state = true } }

// Module is one Verilog module under construction.
type Module struct {
	name     string
	doc      string
	notes    []string // header notes: generation-time parameters and choices
	loc      Loc
	sigs     []*Signal // every named signal, in declaration order
	byName   map[string]*Signal
	regs     []*Reg
	mems     []*Memory
	insts    []*Instance
	procs    []*Process
	assigns  []*assign   // continuous assignments in order
	props    []*property // assertions and assumptions, in order (formal.go)
	errs     []Error
	usesClk  bool
	curGroup string
	counted  bool // a pipeline of it only counts stages (Pipeline.CountOnly)
}

type assign struct {
	target *Signal
	value  *node
	loc    Loc
}

// NewModule starts a module. Its name is the Verilog module and file name.
func NewModule(name, doc string) *Module {
	return &Module{name: name, doc: doc, loc: callerLoc(), byName: map[string]*Signal{}}
}

// Name of the module.
func (m *Module) Name() string { return m.name }

// Doc of the module.
func (m *Module) Doc() string { return m.doc }

// Note adds a line to the module's header comment (a generation-time
// parameter or a resolved choice).
func (m *Module) Note(format string, a ...any) { m.notes = append(m.notes, fmt.Sprintf(format, a...)) }

// Notes are the module's header notes, in the order they were made.
func (m *Module) Notes() []string { return append([]string(nil), m.notes...) }

// Fail records a build error of the module at loc (a misuse that a
// package building on hdlgen detects): Check and Verilog report it.
func (m *Module) Fail(loc Loc, format string, a ...any) { m.errorf(loc, format, a...) }

func (m *Module) errorf(loc Loc, format string, a ...any) {
	m.errs = append(m.errs, Error{Loc: loc, Pass: "build", Module: m.name, Msg: fmt.Sprintf(format, a...)})
}

func (m *Module) declare(name string, width int, kind sigKind, doc string) *Signal {
	return m.declareAt(callerLoc(), name, width, kind, doc)
}

// declareAt is declare at a known source position.
func (m *Module) declareAt(loc Loc, name string, width int, kind sigKind, doc string) *Signal {
	s := &Signal{name: name, width: width, kind: kind, loc: loc, doc: doc}
	s.Expr = Expr{&node{op: opSig, width: width, sig: s, loc: s.loc}}
	if width < 1 {
		m.errorf(s.loc, "%s: width %d must be at least 1", name, width)
		s.Expr.n.width, s.width = 1, 1
	}
	if _, dup := m.byName[name]; !dup { // the names pass reports duplicates
		m.byName[name] = s
	}
	m.sigs = append(m.sigs, s)
	return s
}

// Input declares an input port in the interface group of the last Group call.
func (m *Module) Input(name string, width int, doc string) *Signal {
	return m.port(name, width, kindInput, doc)
}

// Output declares an output port; drive it with Assign.
func (m *Module) Output(name string, width int, doc string) *Signal {
	return m.port(name, width, kindOutput, doc)
}

// Group starts an interface banner for the ports declared after it.
func (m *Module) Group(title string) { m.curGroup = title }

func (m *Module) port(name string, width int, kind sigKind, doc string) *Signal {
	s := m.declare(name, width, kind, doc)
	s.group = m.curGroup
	return s
}

// Qualify says that output o only carries meaning while the 1-bit output
// valid is 1 (a stream's data beside its valid); equivalence checkers and
// testbenches compare o only then.
func (m *Module) Qualify(valid *Signal, outs ...*Signal) {
	for _, o := range outs {
		o.qualBy = valid.name
	}
}

// Param declares a Verilog parameter with a default: a constant that an
// integrator may override at instantiation without regenerating.
func (m *Module) Param(name string, width int, value uint64, doc string) *Signal {
	s := m.declare(name, width, kindParam, doc)
	s.param = value
	if width < 64 && value>>uint(width) != 0 {
		m.errorf(s.loc, "parameter %s = %d does not fit in %d bits", name, value, width)
	}
	return s
}

// Setting declares a constant of the design: a Verilog parameter, or,
// with runTime, an input port cfg_<name in lower case> that a control
// wrapper drives from a register (docs/control.md) and reads as a
// parameter's default value otherwise (Setting reports it: RunTime).
func (m *Module) Setting(name string, width int, value uint64, doc string, runTime bool) *Signal {
	if !runTime {
		return m.Param(name, width, value, doc)
	}
	s := m.Input("cfg_"+strings.ToLower(name), width, doc+" (run time: the control wrapper's PARAM_"+name+")")
	s.param, s.setting = value, name
	if width < 64 && value>>uint(width) != 0 {
		m.errorf(s.loc, "setting %s = %d does not fit in %d bits", name, value, width)
	}
	return s
}

// RunTime reports a Setting taken at run time: its name and default.
func (s *Signal) RunTime() (name string, def uint64, ok bool) {
	return s.setting, s.param, s.setting != ""
}

// Limit states the range of values of a parameter that the generator
// checked (the datasheet prints it, and why): an integrator may override
// the parameter within it. The default must lie in it.
func (s *Signal) Limit(lo, hi uint64, why string) *Signal {
	s.lo, s.hi, s.limited, s.limitWhy = lo, hi, true, why
	return s
}

// ParamRange is a parameter's range (Limit), or every value of its width.
func (s *Signal) ParamRange() (lo, hi uint64, why string) {
	if s.limited {
		return s.lo, s.hi, s.limitWhy
	}
	return 0, mask(s.width), ""
}

// Wire declares a named value driven by one continuous assignment.
func (m *Module) Wire(name string, value Value) *Signal {
	s := m.declare(name, value.node().width, kindWire, "")
	s.Expr.n.signed = value.node().signed
	m.Assign(s, value)
	return s
}

// Var declares a value assigned inside one combinational process.
func (m *Module) Var(name string, width int, doc string) *Signal {
	return m.declare(name, width, kindVar, doc)
}

// Reg declares a flip-flop named name_reg with next value name_next.
func (m *Module) Reg(name string, width int, doc string, opts ...RegOpt) *Reg {
	return m.regAt(callerLoc(), name, width, doc, opts...)
}

// regAt is Reg at a known source position.
func (m *Module) regAt(loc Loc, name string, width int, doc string, opts ...RegOpt) *Reg {
	m.usesClk = true
	q := m.declareAt(loc, name+"_reg", width, kindReg, doc)
	next := m.declareAt(loc, name+"_next", width, kindNext, "")
	r := &Reg{Signal: q, Next: next}
	q.reg, next.reg = r, r
	for _, o := range opts {
		o(r)
	}
	if p := r.resetParam; p != nil && (p.kind != kindParam || p.width != width) {
		m.errorf(q.loc, "%s: reset value %s must be a %d-bit parameter", q.name, p.name, width)
	}
	if r.hasReset && width < 64 && r.reset>>uint(width) != 0 {
		m.errorf(q.loc, "%s: reset value %d does not fit in %d bits", q.name, r.reset, width)
	}
	m.regs = append(m.regs, r)
	return r
}

// Assign drives an output, a wire or a register's next value continuously.
func (m *Module) Assign(target *Signal, value Value) {
	loc := callerLoc()
	switch target.kind {
	case kindOutput, kindWire, kindNext:
	default:
		m.errorf(loc, "cannot assign %s continuously (only outputs, wires and register next values)", target.name)
		return
	}
	m.assigns = append(m.assigns, &assign{target: target, value: value.node(), loc: loc})
}

// Signals returns the declared signals in declaration order.
func (m *Module) Signals() []*Signal { return m.sigs }

// Ports returns the ports in declaration order.
func (m *Module) Ports() []*Signal {
	var ps []*Signal
	for _, s := range m.sigs {
		if s.kind == kindInput || s.kind == kindOutput {
			ps = append(ps, s)
		}
	}
	return ps
}

// Params returns the Verilog parameters with their defaults.
func (m *Module) Params() []*Signal {
	var ps []*Signal
	for _, s := range m.sigs {
		if s.kind == kindParam {
			ps = append(ps, s)
		}
	}
	return ps
}

// ParamValue is the default value of a parameter.
func (s *Signal) ParamValue() uint64 { return s.param }

// HasClock reports whether the module has clk and rst ports (it has state).
func (m *Module) HasClock() bool { return m.usesClk || len(m.mems) > 0 }

// Submodules returns the distinct modules instantiated, sorted by name.
// Module values of one name are one module when their content is the same
// (Elaborate reports them otherwise); the first is returned.
func (m *Module) Submodules() []*Module {
	var out []*Module
	byName := map[string]bool{}
	for _, sub := range m.submodules() {
		if !byName[sub.name] {
			byName[sub.name] = true
			out = append(out, sub)
		}
	}
	return out
}

// submodules returns every distinct module value instantiated, sorted by
// name, then by the Go line that built it.
func (m *Module) submodules() []*Module {
	seen := map[*Module]bool{}
	var out []*Module
	for _, in := range m.insts {
		if !seen[in.mod] {
			seen[in.mod] = true
			out = append(out, in.mod)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].name != out[j].name {
			return out[i].name < out[j].name
		}
		return out[i].loc.String() < out[j].loc.String()
	})
	return out
}

// ParamLiteral is how a value of parameter s is written where it is set
// (an instantiation, a tool's -G): a plain decimal for a parameter the
// emitter declares an integer (its range is checked at elaboration), a
// sized literal otherwise.
func (s *Signal) ParamLiteral(v uint64) string {
	if checkedParam(s) {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%d'd%d", s.width, v)
}
