package hdlgen

// Properties: invariants a block states about itself, for a model checker.
//
// An assertion is a 1-bit value that must be 1 in every reachable state; an
// assumption is a 1-bit value the checker may take as 1 (a constraint on the
// inputs, or a fact proved elsewhere, such as an invariant of the words of a
// state table). Both are combinational: they read inputs, registers, memory
// read data and any value built from them, in the state of the current
// cycle. The emitter writes them at the end of the module under
// `ifdef FORMAL, as immediate assert/assume statements in an always @*
// block that Yosys reads with read_verilog -formal; without FORMAL the file
// is plain Verilog-2005 and lint-clean. A module that declares no property
// is emitted exactly as before.

type property struct {
	name   string
	assume bool
	cond   *node
	loc    Loc
}

// Property describes a declared assertion or assumption.
type Property struct {
	Name   string
	Assume bool // an assumption; otherwise an assertion
	Loc    Loc  // the Go line that declared it
}

// Assert states that cond (1 bit) is 1 in every reachable state. The name
// labels the assertion in the Verilog and in a checker's report; it must be
// a Verilog identifier, unique in the module.
func (m *Module) Assert(name string, cond Value) {
	m.props = append(m.props, &property{name: name, cond: cond.node(), loc: callerLoc()})
}

// Assume lets a checker take cond (1 bit) as 1 in every state: a constraint
// on the environment or a fact proved by other means. An assumption that is
// wrong makes every proof of the module meaningless; say why it holds.
func (m *Module) Assume(name string, cond Value) {
	m.props = append(m.props, &property{name: name, assume: true, cond: cond.node(), loc: callerLoc()})
}

// TableInvariant states that every word of the state table mem satisfies
// inv, a 1-bit function of the word's fields. It asserts inv of the word
// written, on every write (property name), and assumes it of the registered
// read data (property name_rd). The assumption is the induction hypothesis
// over the table: if the table starts from words that satisfy inv (a zeroed
// table, when inv holds of the all-zero word) and every write is proved to
// keep it, every word ever read satisfies it; the read data register only
// ever holds a word of the table. Call it after Read and Write. A block that
// forwards a written word around the table (a bypass register) must state
// inv of that register too.
func (m *Module) TableInvariant(mem *Memory, name string, inv func(word Record) Value) {
	loc := callerLoc()
	if mem.rdData == nil || mem.wrData == nil {
		m.errorf(loc, "memory %s: TableInvariant %s needs the read and the write port (call it after Read and Write)", mem.Name, name)
		return
	}
	wr := inv(mem.Layout.fieldsOf(Expr{mem.wrData}))
	rd := inv(mem.Layout.fieldsOf(mem.rdData.Expr))
	m.props = append(m.props,
		&property{name: name, cond: Expr{mem.wrEn}.Implies(wr).node(), loc: loc},
		&property{name: name + "_rd", assume: true, cond: rd.node(), loc: loc})
}

// fieldsOf splits a word into its fields without naming them (Unpack names
// them, which a property must not: its values live only in the formal part).
func (l *Layout) fieldsOf(word Value) Record {
	r := NewRecord("layout " + l.name)
	for _, f := range l.fields {
		r.Set(f.Name, l.Get(word, f.Name))
	}
	return r
}

// Implies is !e | o, for 1-bit values: the usual shape of a property.
func (e Expr) Implies(o Value) Expr {
	b := o.node()
	// a ? b : 1, not !a | b: a pipeline carries a (a valid-qualified
	// condition, 0 in an empty stage), never its negation
	r := mk(opMux, 1, false, e.n, b, True().n)
	if e.n.width != 1 || b.width != 1 {
		return r.fail("Implies of %d-bit and %d-bit values: both must be 1 bit", e.n.width, b.width)
	}
	return r
}

// Properties returns the module's assertions and assumptions in order.
func (m *Module) Properties() []Property {
	out := make([]Property, len(m.props))
	for i, p := range m.props {
		out[i] = Property{Name: p.name, Assume: p.assume, Loc: p.loc}
	}
	return out
}

// propRoots calls f for the condition of every property.
func (m *Module) propRoots(f func(scope string, n *node, loc Loc)) {
	for _, p := range m.props {
		f(p.name, p.cond, p.loc)
	}
}

// formalOnly lists, in emission order, the values with a wire of their own
// that only properties read: they are emitted inside `ifdef FORMAL.
func (m *Module) formalOnly() []*node {
	design := map[*node]bool{}
	m.postOrder(func(_ string, n *node) { design[n] = true })
	var out []*node
	m.postOrderAll(func(_ string, n *node) {
		if !design[n] && n.hasWire() {
			out = append(out, n)
		}
	})
	return out
}

func (p *property) keyword() string {
	if p.assume {
		return "assume"
	}
	return "assert"
}
