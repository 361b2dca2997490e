package hdlgen

// Process is a combinational always block. Statements run in order with
// blocking semantics. Every variable it assigns must be assigned on every
// path (the latch pass checks this); register next values it assigns hold
// the register's value by default.
type Process struct {
	Name  string
	loc   Loc
	body  []*stmt
	stack []*[]*stmt
	mod   *Module
}

type stmtKind int

const (
	stSet stmtKind = iota
	stIf
)

type stmt struct {
	kind   stmtKind
	target *Signal
	value  *node
	cond   *node
	then   []*stmt
	els    []*stmt
	loc    Loc
}

// Comb adds a combinational process whose statements are built by body.
func (m *Module) Comb(name string, body func(p *Process)) *Process {
	p := &Process{Name: name, loc: callerLoc(), mod: m}
	p.stack = []*[]*stmt{&p.body}
	body(p)
	m.procs = append(m.procs, p)
	return p
}

func (p *Process) add(s *stmt) { cur := p.stack[len(p.stack)-1]; *cur = append(*cur, s) }

// Set assigns value to a variable or to a register (its next value).
func (p *Process) Set(target any, value Value) {
	loc := callerLoc()
	var s *Signal
	switch t := target.(type) {
	case *Reg:
		s = t.Next
	case *Signal:
		s = t
		if s.kind == kindReg {
			s = s.reg.Next
		}
	default:
		p.mod.errorf(loc, "process %s: Set target must be a *Reg or a *Signal", p.Name)
		return
	}
	if s.kind != kindVar && s.kind != kindNext {
		p.mod.errorf(loc, "process %s: %s cannot be assigned in a process (only Var and Reg)", p.Name, s.name)
		return
	}
	p.add(&stmt{kind: stSet, target: s, value: value.node(), loc: loc})
}

// IfStmt lets a chain of ElseIf and Else follow an If.
type IfStmt struct {
	p    *Process
	last *stmt
}

// If runs then when cond (1 bit) is 1.
func (p *Process) If(cond Value, then func()) *IfStmt {
	s := &stmt{kind: stIf, cond: cond.node(), loc: callerLoc()}
	p.add(s)
	p.nest(&s.then, then)
	return &IfStmt{p: p, last: s}
}

func (p *Process) nest(list *[]*stmt, body func()) {
	p.stack = append(p.stack, list)
	body()
	p.stack = p.stack[:len(p.stack)-1]
}

// ElseIf adds a branch tried when the previous conditions were 0.
func (i *IfStmt) ElseIf(cond Value, then func()) *IfStmt {
	s := &stmt{kind: stIf, cond: cond.node(), loc: callerLoc()}
	i.last.els = []*stmt{s}
	i.p.nest(&s.then, then)
	return &IfStmt{p: i.p, last: s}
}

// Else adds the branch taken when every condition was 0.
func (i *IfStmt) Else(body func()) {
	i.p.nest(&i.last.els, body)
}
