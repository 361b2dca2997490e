package hdlgen

import (
	"fmt"
	"strings"
)

// Version of the generator, recorded in every file header.
const Version = "0.1.0"

// EmitOptions controls the text of the generated Verilog.
type EmitOptions struct {
	// Locators appends // @[file.go:line] to each line that comes from a
	// line of a block, so a reader can go from the Verilog to the Go.
	Locators bool
	// Command and Config are recorded in the header (never a date).
	Command string
	Config  []string
}

// Emit writes one Verilog-2005 file per module of the design, keyed by file
// name. The same design and options always give the same bytes.
func Emit(d *Design, o EmitOptions) map[string][]byte {
	files := map[string][]byte{}
	for _, m := range d.Modules {
		files[m.name+".v"] = []byte(emitModule(m, o))
	}
	return files
}

type writer struct {
	b   strings.Builder
	loc bool
	dsp map[*Reg]bool // the module's registers that are MULT18X18D output registers (dspRegs)
	// next is each continuously assigned signal's value (a register's
	// next value among them), for the multipliers' input registers
	next map[*Signal]*node
}

func (w *writer) line(indent int, text string, loc Loc) {
	w.b.WriteString(strings.Repeat("    ", indent))
	w.b.WriteString(text)
	if w.loc && loc.File != "" {
		w.b.WriteString("  // @[" + loc.String() + "]")
	}
	w.b.WriteString("\n")
}

func (w *writer) raw(text string) { w.b.WriteString(text) }

func rangeOf(width int) string {
	if width == 1 {
		return ""
	}
	return fmt.Sprintf("[%d:0] ", width-1)
}

func literal(width int, v uint64) string {
	if width <= 16 {
		return fmt.Sprintf("%d'd%d", width, v)
	}
	return fmt.Sprintf("%d'h%x", width, v)
}

// ref is how an operand is written: a name, a literal, or a cast's operand.
func ref(n *node) string {
	switch n.op {
	case opSig:
		if checkedParam(n.sig) { // an integer: its bits as the design reads them
			if n.sig.width == 1 {
				return n.sig.name + "[0]"
			}
			return fmt.Sprintf("%s[%d:0]", n.sig.name, n.sig.width-1)
		}
		return n.sig.name
	case opConst:
		return literal(n.width, n.value)
	case opCast:
		return ref(n.args[0])
	}
	return n.name
}

// indexRef is an operand about to be indexed ([i], [hi:lo]): ref, but a
// checked parameter by its name (an integer, whose low bits are the
// parameter's; ref's part-select cannot be indexed again).
func indexRef(n *node) string {
	if n.op == opSig && checkedParam(n.sig) {
		return n.sig.name
	}
	return ref(n)
}

// signedRef writes an operand for a signed operation.
func signedRef(n *node) string { return "$signed(" + ref(n) + ")" }

// rhs is the expression of a node whose operands all have names.
func rhs(n *node) string {
	a := n.args
	bin := func(sym string) string { return ref(a[0]) + " " + sym + " " + ref(a[1]) }
	cmp := func(sym string) string {
		if a[0].signed {
			return signedRef(a[0]) + " " + sym + " " + signedRef(a[1])
		}
		return bin(sym)
	}
	switch n.op {
	case opAdd:
		return bin("+")
	case opSub:
		return bin("-")
	case opMul:
		return bin("*")
	case opAnd:
		return bin("&")
	case opOr:
		return bin("|")
	case opXor:
		return bin("^")
	case opNot:
		return "~" + ref(a[0])
	case opRedOr:
		if a[0].width == 1 {
			return ref(a[0])
		}
		return "|" + ref(a[0])
	case opRedAnd:
		if a[0].width == 1 {
			return ref(a[0])
		}
		return "&" + ref(a[0])
	case opEq:
		return bin("==")
	case opNe:
		return bin("!=")
	case opLt:
		return cmp("<")
	case opLe:
		return cmp("<=")
	case opShlC:
		return fmt.Sprintf("%s << %d", ref(a[0]), n.lo)
	case opShrC:
		if a[0].signed {
			return fmt.Sprintf("%s >>> %d", signedRef(a[0]), n.lo)
		}
		return fmt.Sprintf("%s >> %d", ref(a[0]), n.lo)
	case opShlV:
		return bin("<<")
	case opShrV:
		if a[0].signed {
			return signedRef(a[0]) + " >>> " + ref(a[1])
		}
		return bin(">>")
	case opSlice:
		if a[0].width == 1 {
			return ref(a[0])
		}
		if n.hi == n.lo {
			return fmt.Sprintf("%s[%d]", indexRef(a[0]), n.lo)
		}
		return fmt.Sprintf("%s[%d:%d]", indexRef(a[0]), n.hi, n.lo)
	case opConcat:
		if len(a) == 1 {
			return ref(a[0])
		}
		parts := make([]string, len(a))
		for i, p := range a {
			parts[i] = ref(p)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case opMux:
		return ref(a[0]) + " ? " + ref(a[1]) + " : " + ref(a[2])
	case opIndex:
		return indexTree(a[0], a[1:])
	}
	panic(fmt.Sprintf("hdlgen: no Verilog for op %v", n.op))
}

// indexTree writes options[sel] (the last option for every sel past it) as
// a balanced tree of 2:1 selections on the bits of sel, most significant
// first: log2(options) mux levels, which an FPGA maps to LUTs and its
// wide-mux primitives, where a chain of comparisons would be as deep as
// the options are many.
func indexTree(sel *node, opts []*node) string {
	last := len(opts) - 1
	if last == 0 {
		return ref(opts[0])
	}
	if sel.op == opConst {
		return ref(opts[min(sel.value, uint64(last))])
	}
	bits := 0
	for uint64(1)<<uint(bits) <= uint64(last) {
		bits++
	}
	bit := func(i int) string {
		if sel.width == 1 {
			return ref(sel)
		}
		return fmt.Sprintf("%s[%d]", indexRef(sel), i)
	}
	var tree func(lo uint64, level int) string
	tree = func(lo uint64, level int) string {
		if lo >= uint64(last) {
			return ref(opts[last])
		}
		if level < 0 {
			return ref(opts[lo])
		}
		hi := tree(lo+uint64(1)<<uint(level), level-1)
		return "(" + bit(level) + " ? " + hi + " : " + tree(lo, level-1) + ")"
	}
	t := tree(0, bits-1)
	if sel.width > bits {
		above := fmt.Sprintf("%s[%d:%d]", indexRef(sel), sel.width-1, bits)
		if sel.width-1 == bits {
			above = fmt.Sprintf("%s[%d]", indexRef(sel), bits)
		}
		return "(|" + above + ") ? " + ref(opts[last]) + " : " + t
	}
	t = strings.TrimSuffix(strings.TrimPrefix(t, "("), ")")
	return t
}

func emitModule(m *Module, o EmitOptions) string {
	next := assignedValues(m)
	w := &writer{loc: o.Locators, dsp: dspRegs(m, next), next: next}
	w.raw("/*\n")
	w.raw(fmt.Sprintf(" * Generated by nicgen hdlgen %s. Do not edit: regenerate.\n", Version))
	if o.Command != "" {
		w.raw(" * Command: " + o.Command + "\n")
	}
	for _, c := range o.Config {
		w.raw(" * Config: " + c + "\n")
	}
	if len(m.notes) > 0 {
		w.raw(" *\n")
		for _, n := range m.notes {
			w.raw(" * " + n + "\n")
		}
	}
	w.raw(" */\n\n`resetall\n`timescale 1ns / 1ps\n`default_nettype none\n\n")
	if m.doc != "" {
		w.raw("/*\n")
		for _, l := range strings.Split(strings.TrimSpace(m.doc), "\n") {
			w.raw(strings.TrimRight(" * "+l, " ") + "\n")
		}
		w.raw(" */\n")
	}
	emitHeader(w, m)
	emitParamChecks(w, m)
	emitDecls(w, m)
	emitTemps(w, m)
	emitInstances(w, m)
	emitAssigns(w, m)
	emitProcesses(w, m)
	emitRegisters(w, m)
	emitMemories(w, m)
	emitProperties(w, m)
	w.raw("endmodule\n\n`resetall\n")
	return w.b.String()
}

func emitHeader(w *writer, m *Module) {
	params := m.Params()
	if len(params) > 0 {
		w.raw("module " + m.name + " #\n(\n")
		for i, p := range params {
			if p.doc != "" {
				w.line(1, "// "+p.doc, Loc{})
			}
			sep := ","
			if i == len(params)-1 {
				sep = ""
			}
			if checkedParam(p) {
				w.line(1, fmt.Sprintf("parameter integer %s = %d%s", p.name, p.param, sep), p.loc)
			} else {
				w.line(1, fmt.Sprintf("parameter %s%s = %s%s", rangeOf(p.width), p.name, literal(p.width, p.param), sep), p.loc)
			}
		}
		w.raw(")\n(\n")
	} else {
		w.raw("module " + m.name + "\n(\n")
	}
	var lines []string
	var locs []Loc
	var groups []string
	if m.HasClock() {
		lines = append(lines, "input  wire clk", "input  wire rst")
		locs = append(locs, Loc{}, Loc{})
		groups = append(groups, "", "")
	}
	for _, p := range m.Ports() {
		dir := "output wire "
		if p.kind == kindInput {
			dir = "input  wire "
		}
		lines = append(lines, dir+rangeOf(p.width)+p.name)
		locs = append(locs, p.loc)
		groups = append(groups, p.group)
	}
	cur := ""
	for i, l := range lines {
		if groups[i] != cur && groups[i] != "" {
			w.raw("\n")
			w.line(1, "/*", Loc{})
			w.line(1, " * "+groups[i], Loc{})
			w.line(1, " */", Loc{})
		}
		cur = groups[i]
		if i < len(lines)-1 {
			l += ","
		}
		w.line(1, l, locs[i])
	}
	w.raw(");\n\n")
}

func emitDecls(w *writer, m *Module) {
	if len(m.mems) > 0 {
		w.line(0, "// state tables", Loc{})
		for _, mem := range m.mems {
			if mem.regOut {
				emitRegisteredDecl(w, mem)
				continue
			}
			w.line(0, fmt.Sprintf("reg [%d:0] %s_mem [0:%d];", mem.Layout.width-1, mem.Name, mem.Depth-1), mem.loc)
		}
		w.raw("\n")
	}
	procAssigned := map[*Signal]bool{}
	for _, p := range m.procs {
		var walk func(list []*stmt)
		walk = func(list []*stmt) {
			for _, s := range list {
				if s.kind == stSet {
					procAssigned[s.target] = true
				}
				walk(s.then)
				walk(s.els)
			}
		}
		walk(p.body)
	}
	first := true
	for _, s := range m.sigs {
		var decl string
		switch s.kind {
		case kindReg, kindMemRd, kindVar:
			decl = "reg  "
			if s.kind == kindMemRd && s.memReg {
				continue // declared with its table
			}
			if s.kind == kindReg && s.reg != nil && w.dsp[s.reg] {
				w.line(0, "`ifdef NICGEN_ECP5", Loc{})
				w.line(0, "wire "+rangeOf(s.width)+s.name+";  // "+s.doc+" (MULT18X18D output register)", s.loc)
				w.line(0, "`else", Loc{})
				w.line(0, "reg  "+rangeOf(s.width)+s.name+";  // "+s.doc, s.loc)
				w.line(0, "`endif", Loc{})
				continue
			}
		case kindNext:
			decl = "wire "
			if procAssigned[s] {
				decl = "reg  "
			}
		case kindWire, kindInstO:
			decl = "wire "
		default:
			continue
		}
		if first {
			w.line(0, "// registers, variables and wires", Loc{})
			first = false
		}
		text := decl + rangeOf(s.width) + s.name + ";"
		if s.doc != "" && s.kind != kindInstO {
			text += "  // " + s.doc
		}
		w.line(0, text, s.loc)
	}
	if !first {
		w.raw("\n")
	}
}

func emitTemps(w *writer, m *Module) {
	var nodes []*node
	m.postOrder(func(_ string, n *node) {
		if n.hasWire() {
			nodes = append(nodes, n)
		}
	})
	if len(nodes) == 0 {
		return
	}
	w.line(0, "// datapath", Loc{})
	if dropped := emitWires(w, nodes); len(dropped) > 0 {
		// Verilator's -Wall does not report signals whose name contains
		// "unused"; reading the discarded bits here says they are dropped
		// on purpose. No temporary or user name can be _unused.
		w.line(0, "// bits dropped on purpose (rounding, wrap-around)", Loc{})
		w.line(0, "wire _unused = ^{"+strings.Join(dropped, ", ")+"};", Loc{})
	}
	w.raw("\n")
}

// emitWires declares the wire of every node in order and returns the
// operand bits that deliberately dropping slices leave out: per operand,
// the bits no such slice keeps, as few ranges as possible (listing every
// slice's complement would make the _unused reduction thousands of bits
// wide, which simulators then evaluate on every change).
func emitWires(w *writer, nodes []*node) []string {
	kept := map[*node][]bool{}
	var operands []*node
	for _, n := range nodes {
		if n.op == opROM {
			emitROM(w, n)
			continue
		}
		w.line(0, fmt.Sprintf("wire %s%s = %s;", rangeOf(n.width), n.name, rhs(n)), n.loc)
		if n.op == opSlice && n.drop {
			a := n.args[0]
			k, seen := kept[a]
			if !seen {
				k = make([]bool, a.width)
				kept[a] = k
				operands = append(operands, a)
			}
			for i := n.lo; i <= n.hi; i++ {
				k[i] = true
			}
		}
	}
	var dropped []string
	for _, a := range operands {
		dropped = append(dropped, unkeptRanges(ref(a), kept[a])...)
	}
	return dropped
}

// unkeptRanges names the runs of bits of an operand that no slice keeps,
// most significant first.
func unkeptRanges(name string, kept []bool) []string {
	var parts []string
	for hi := len(kept) - 1; hi >= 0; hi-- {
		if kept[hi] {
			continue
		}
		lo := hi
		for lo > 0 && !kept[lo-1] {
			lo--
		}
		if hi == lo {
			parts = append(parts, fmt.Sprintf("%s[%d]", name, lo))
		} else {
			parts = append(parts, fmt.Sprintf("%s[%d:%d]", name, hi, lo))
		}
		hi = lo
	}
	return parts
}

func emitInstances(w *writer, m *Module) {
	for _, in := range m.insts {
		if len(in.params) == 0 {
			w.line(0, in.mod.name, Loc{})
		} else {
			w.line(0, in.mod.name+" #(", Loc{})
			for i, p := range in.params {
				sep := ","
				if i == len(in.params)-1 {
					sep = ""
				}
				w.line(1, fmt.Sprintf(".%s(%s)%s", p.name, p.name, sep), Loc{})
			}
			w.line(0, ")", Loc{})
		}
		w.line(0, in.Name+" (", in.loc)
		var conns []string
		if in.mod.HasClock() {
			conns = append(conns, ".clk(clk)", ".rst(rst)")
		}
		for _, p := range in.mod.Ports() {
			if p.kind == kindInput {
				n := in.inputs[p.name]
				conns = append(conns, fmt.Sprintf(".%s(%s)", p.name, ref(n)))
			} else {
				conns = append(conns, fmt.Sprintf(".%s(%s)", p.name, in.outs[p.name].name))
			}
		}
		for i, c := range conns {
			if i < len(conns)-1 {
				c += ","
			}
			w.line(1, c, Loc{})
		}
		w.raw(");\n\n")
	}
}

func emitAssigns(w *writer, m *Module) {
	if len(m.assigns) == 0 {
		return
	}
	for _, a := range m.assigns {
		w.line(0, fmt.Sprintf("assign %s = %s;", a.target.name, ref(a.value)), a.loc)
	}
	w.raw("\n")
}

func emitProcesses(w *writer, m *Module) {
	for _, p := range m.procs {
		w.line(0, "// "+p.Name, Loc{})
		w.line(0, "always @* begin", p.loc)
		// registers assigned here hold their value unless a path says otherwise
		held := map[*Signal]bool{}
		var collect func(list []*stmt)
		collect = func(list []*stmt) {
			for _, s := range list {
				if s.kind == stSet && s.target.kind == kindNext {
					held[s.target] = true
				}
				collect(s.then)
				collect(s.els)
			}
		}
		collect(p.body)
		for _, s := range m.sigs {
			if held[s] {
				w.line(1, fmt.Sprintf("%s = %s;", s.name, s.reg.Signal.name), Loc{})
			}
		}
		emitStmts(w, p.body, 1)
		w.line(0, "end", Loc{})
		w.raw("\n")
	}
}

func emitStmts(w *writer, list []*stmt, indent int) {
	for _, s := range list {
		switch s.kind {
		case stSet:
			w.line(indent, fmt.Sprintf("%s = %s;", s.target.name, ref(s.value)), s.loc)
		case stIf:
			emitIf(w, s, indent, "if")
		}
	}
}

func emitIf(w *writer, s *stmt, indent int, kw string) {
	w.line(indent, fmt.Sprintf("%s (%s) begin", kw, ref(s.cond)), s.loc)
	emitStmts(w, s.then, indent+1)
	switch {
	case len(s.els) == 1 && s.els[0].kind == stIf:
		w.raw(strings.Repeat("    ", indent) + "end else ")
		// continue the chain on the same line
		inner := &writer{loc: w.loc}
		emitIf(inner, s.els[0], indent, "if")
		w.raw(strings.TrimLeft(inner.b.String(), " "))
		return
	case len(s.els) > 0:
		w.line(indent, "end else begin", Loc{})
		emitStmts(w, s.els, indent+1)
	}
	w.line(indent, "end", Loc{})
}

func emitRegisters(w *writer, m *Module) {
	if len(m.regs) == 0 {
		return
	}
	w.line(0, "always @(posedge clk) begin", Loc{})
	dsp := w.dsp
	for _, r := range m.regs {
		if dsp[r] {
			w.line(0, "`ifndef NICGEN_ECP5  // a MULT18X18D output register there (below)", Loc{})
			w.line(1, fmt.Sprintf("%s <= %s;", r.Signal.name, r.Next.name), Loc{})
			w.line(0, "`endif", Loc{})
			continue
		}
		w.line(1, fmt.Sprintf("%s <= %s;", r.Signal.name, r.Next.name), Loc{})
	}
	var reset []*Reg
	for _, r := range m.regs {
		if r.hasReset {
			reset = append(reset, r)
		}
	}
	if len(reset) > 0 {
		w.raw("\n")
		w.line(1, "if (rst) begin", Loc{})
		for _, r := range reset {
			value := literal(r.Signal.width, r.reset)
			if r.resetParam != nil {
				value = ref(r.resetParam.Expr.n)
			}
			w.line(2, fmt.Sprintf("%s <= %s;", r.Signal.name, value), Loc{})
		}
		w.line(1, "end", Loc{})
	}
	w.line(0, "end", Loc{})
	w.raw("\n")
	emitDSP(w, m)
}

// dspRegs are the pipeline registers that take an unsigned product whose
// operands have at most 18 significant bits each (zero-extended values,
// constants, copies of them through pipeline registers): one MULT18X18D.
func dspRegs(m *Module, next map[*Signal]*node) map[*Reg]bool {
	dsp := map[*Reg]bool{}
	memo := map[*node]int{}
	var sig func(n *node) int // bits that may be non-zero
	sig = func(n *node) int {
		if v, ok := memo[n]; ok {
			return v
		}
		memo[n] = n.width // a loop through registers: assume all
		v := n.width
		switch n.op {
		case opConst:
			v = 0
			for x := n.value; x != 0; x >>= 1 {
				v++
			}
		case opCast:
			v = sig(n.args[0])
		case opConcat:
			v = 0
			for i, a := range n.args { // most significant first
				if a.op == opConst && a.value == 0 {
					continue
				}
				rest := 0
				for _, b := range n.args[i+1:] {
					rest += b.width
				}
				v = rest + sig(a)
				break
			}
		case opSig:
			if r := n.sig.reg; r != nil && n.sig == r.Signal && !r.hasReset {
				if d := next[r.Next]; d != nil {
					v = sig(d)
				}
			}
		}
		v = min(v, n.width)
		memo[n] = v
		return v
	}
	for _, r := range m.regs {
		if r.dsp == nil {
			continue
		}
		a, b := sig(r.dsp.args[0]), sig(r.dsp.args[1])
		x, y := r.dsp.args[0], r.dsp.args[1]
		pow2 := func(n *node) bool { return n.op == opConst && n.value&(n.value-1) == 0 } // a shift, no multiplier
		bothConst := x.op == opConst && y.op == opConst || pow2(x) || pow2(y)
		if a > 0 && b > 0 && a <= 18 && b <= 18 && !bothConst {
			dsp[r] = true
		}
	}
	return dsp
}

// emitDSP writes, under `ifdef NICGEN_ECP5, an ECP5 MULT18X18D for every
// pipeline register that takes a product directly: the multiplier's own
// output register (REG_OUTPUT_CLK, no reset, always enabled, as the
// pipeline register) replaces the fabric one, so that the stage holds the
// multiplier and its input routing only. The portable branch is the
// register above; both compute the same unsigned product.
func emitDSP(w *writer, m *Module) {
	var rs []*Reg
	dsp := w.dsp
	for _, r := range m.regs {
		if dsp[r] {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return
	}
	w.line(0, "`ifdef NICGEN_ECP5", Loc{})
	w.line(0, "// products on Lattice ECP5 MULT18X18D multipliers, each through its output register", Loc{})
	for _, r := range rs {
		a, b := r.dsp.args[0], r.dsp.args[1]
		pin := func(n *node, i int) string {
			switch {
			case i >= n.width:
				return "1'b0"
			case n.op == opConst:
				return fmt.Sprintf("1'b%d", (n.value>>uint(i))&1)
			case n.width == 1:
				return ref(n)
			}
			return fmt.Sprintf("%s[%d]", indexRef(n), i)
		}
		bus := func(port string, f func(i int) string) string {
			var ps []string
			for i := 17; i >= 0; i-- {
				ps = append(ps, fmt.Sprintf(".%s%d(%s)", port, i, f(i)))
			}
			return strings.Join(ps, ", ")
		}
		zero := func(int) string { return "1'b0" }
		// an operand read straight from pipeline registers (bits of
		// free-running registers without reset, and constants) is taken
		// from those registers' next values into the multiplier's input
		// register, a copy of them: the stage's input routing then ends
		// inside the multiplier (the fabric copy stays for other readers)
		// both or neither: nextpnr-ecp5 times a multiplier with one
		// input register as one with none (its MULT18X18D_REGS_OUTPUT
		// class), which would put the operand's own logic before the
		// multiplier in the stage
		aIn, aOK := dspInput(a, w.next, dsp)
		bIn, bOK := dspInput(b, w.next, dsp)
		inReg := aOK && bOK
		clk := "NONE"
		if inReg {
			clk = "CLK0"
		}
		w.line(0, "MULT18X18D #(", Loc{})
		w.line(1, fmt.Sprintf(".REG_INPUTA_CLK(\"%s\"), .REG_INPUTA_CE(\"CE0\"), .REG_INPUTA_RST(\"RST0\"),", clk), Loc{})
		w.line(1, fmt.Sprintf(".REG_INPUTB_CLK(\"%s\"), .REG_INPUTB_CE(\"CE0\"), .REG_INPUTB_RST(\"RST0\"), .REG_PIPELINE_CLK(\"NONE\"),", clk), Loc{})
		w.line(1, ".REG_OUTPUT_CLK(\"CLK0\"), .REG_OUTPUT_CE(\"CE0\"), .REG_OUTPUT_RST(\"RST0\"),", Loc{})
		w.line(1, ".GSR(\"DISABLED\"), .RESETMODE(\"SYNC\")", Loc{})
		w.line(0, fmt.Sprintf(") %s_mult (  // %s = %s * %s", strings.TrimSuffix(r.Signal.name, "_reg"), r.Signal.name, ref(a), ref(b)), r.Signal.loc)
		port := func(n *node, in []string) func(i int) string {
			if inReg {
				return func(i int) string { return in[i] }
			}
			return func(i int) string { return pin(n, i) }
		}
		w.line(1, bus("A", port(a, aIn))+",", Loc{})
		w.line(1, bus("B", port(b, bIn))+",", Loc{})
		w.line(1, bus("C", zero)+",", Loc{})
		w.line(1, ".SIGNEDA(1'b0), .SIGNEDB(1'b0), .SOURCEA(1'b0), .SOURCEB(1'b0),", Loc{})
		// the cascade (SRIA, SRIB) and the other clock, enable and reset pins
		// stay open, as in Yosys's own mapping: tying them makes constant
		// nets nextpnr-ecp5 cannot route
		w.line(1, ".CLK0(clk), .CE0(1'b1), .RST0(1'b0),", Loc{})
		var ps []string
		for i := 35; i >= 0; i-- {
			v := ""
			if i < r.Signal.width {
				v = r.Signal.name
				if r.Signal.width > 1 {
					v = fmt.Sprintf("%s[%d]", r.Signal.name, i)
				}
			}
			ps = append(ps, fmt.Sprintf(".P%d(%s)", i, v))
		}
		w.line(1, strings.Join(ps, ", "), Loc{})
		w.raw(");\n")
		if r.Signal.width > 36 { // above the product's 36 bits
			w.line(0, fmt.Sprintf("assign %s[%d:36] = %d'd0;", r.Signal.name, r.Signal.width-1, r.Signal.width-36), Loc{})
		}
	}
	w.line(0, "`endif", Loc{})
	w.raw("\n")
}

// dspInput traces the 18 bits of a multiplier operand n to constants,
// parameters and to bits of registers that load their next value at every edge (no
// reset, not themselves a multiplier's output register). When every bit
// is such, it returns the Verilog for each bit read one edge earlier (the
// register's next value, a constant as is) and true: a multiplier input
// register fed with them holds what n holds from the first edge on (the
// shell's reset lasts at least that long, so no event reads it earlier).
func dspInput(n *node, next map[*Signal]*node, dsp map[*Reg]bool) ([]string, bool) {
	out := make([]string, 18)
	for i := range out {
		x, bit := n, i
		for {
			if bit >= x.width {
				out[i] = "1'b0"
				break
			}
			if x.op == opCast {
				x = x.args[0]
				continue
			}
			if x.op == opSlice {
				x, bit = x.args[0], bit+x.lo
				continue
			}
			if x.op == opConcat { // most significant first
				found := false
				for j := len(x.args) - 1; j >= 0; j-- {
					if bit < x.args[j].width {
						x, found = x.args[j], true
						break
					}
					bit -= x.args[j].width
				}
				if !found {
					return nil, false
				}
				continue
			}
			break
		}
		if out[i] != "" {
			continue
		}
		switch {
		case x.op == opConst:
			out[i] = fmt.Sprintf("1'b%d", (x.value>>uint(bit))&1)
		case x.op == opSig && x.sig.kind == kindParam:
			// a parameter is a constant once instantiated: its bit as is
			out[i] = x.sig.name
			if x.sig.width > 1 {
				out[i] = fmt.Sprintf("%s[%d]", x.sig.name, bit)
			}
		case x.op == opSig && x.sig.reg != nil && x.sig == x.sig.reg.Signal && !x.sig.reg.hasReset && !dsp[x.sig.reg] && x.sig.reg.Next != nil:
			nx := x.sig.reg.Next
			if slowOutput(nx, next) {
				// the register takes a block RAM's output: an input
				// register would hold its clock-to-output and the route
				return nil, false
			}
			out[i] = nx.name
			if nx.width > 1 {
				out[i] = fmt.Sprintf("%s[%d]", nx.name, bit)
			}
		default:
			return nil, false
		}
	}
	return out, true
}

// assignedValues maps each continuously assigned signal of m to its value.
func assignedValues(m *Module) map[*Signal]*node {
	next := map[*Signal]*node{}
	for _, a := range m.assigns {
		next[a.target] = a.value
	}
	return next
}

// slowOutput reports whether the register whose next value is nx takes,
// bit for bit, the output of a ROM's read register: a block RAM, whose
// clock-to-output (4.26 ns on an ECP5 DP16KD) leaves no room for the
// route to a multiplier's input register.
func slowOutput(nx *Signal, next map[*Signal]*node) bool {
	strip := func(n *node) *node {
		for n != nil && (n.op == opCast || n.op == opSlice || (n.op == opConcat && len(n.args) == 1)) {
			n = n.args[0]
		}
		return n
	}
	d := strip(next[nx])
	if d == nil || d.op != opSig || d.sig.reg == nil || d.sig != d.sig.reg.Signal {
		return false
	}
	x := strip(next[d.sig.reg.Next])
	return x != nil && x.op == opROM
}

func emitMemories(w *writer, m *Module) {
	for _, mem := range m.mems {
		if mem.regOut {
			emitRegistered(w, mem)
			continue
		}
		w.line(0, "// "+mem.Name+": read-before-write, no reset (block RAM)", Loc{})
		w.line(0, "always @(posedge clk) begin", Loc{})
		w.line(1, fmt.Sprintf("if (%s) begin", ref(mem.rdEn)), mem.rdLoc)
		w.line(2, fmt.Sprintf("%s <= %s_mem[%s];", mem.rdData.name, mem.Name, ref(mem.rdAddr)), Loc{})
		w.line(1, "end", Loc{})
		w.line(0, "end", Loc{})
		w.raw("\n")
		w.line(0, "always @(posedge clk) begin", Loc{})
		w.line(1, fmt.Sprintf("if (%s) begin", ref(mem.wrEn)), mem.wrLoc)
		w.line(2, fmt.Sprintf("%s_mem[%s] <= %s;", mem.Name, ref(mem.wrAddr), ref(mem.wrData)), Loc{})
		w.line(1, "end", Loc{})
		w.line(0, "end", Loc{})
		w.raw("\n")
	}
}

// emitROM writes a table read as a reg and a case statement: every address
// of the table has its line, the others read 0 (default), so no latch.
func emitROM(w *writer, n *node) {
	a := n.args[0]
	w.line(0, fmt.Sprintf("reg  %s%s;", rangeOf(n.width), n.name), n.loc)
	w.line(0, "always @* begin", Loc{})
	w.line(1, fmt.Sprintf("case (%s)", ref(a)), Loc{})
	for i, v := range n.rom {
		w.line(2, fmt.Sprintf("%s: %s = %s;", literal(a.width, uint64(i)), n.name, literal(n.width, v)), Loc{})
	}
	if a.width >= 63 || uint64(len(n.rom)) < uint64(1)<<uint(a.width) {
		w.line(2, fmt.Sprintf("default: %s = %s;", n.name, literal(n.width, 0)), Loc{})
	}
	w.line(1, "endcase", Loc{})
	w.line(0, "end", Loc{})
}

// emitRegisteredDecl declares a table read through its output register:
// the portable array and registers, or the ECP5 RAMs' output wire.
func emitRegisteredDecl(w *writer, mem *Memory) {
	ww := mem.Layout.width
	q := mem.rdData
	if rw, _ := ECP5Mode(mem.Depth, ww); rw > 0 {
		w.line(0, "`ifdef NICGEN_ECP5", Loc{})
		w.line(0, fmt.Sprintf("wire %s%s;  // %s", rangeOf(ww), q.name, q.doc), q.loc)
		w.line(0, "`else", Loc{})
	}
	w.line(0, fmt.Sprintf("reg  [%d:0] %s_mem [0:%d];", ww-1, mem.Name, mem.Depth-1), mem.loc)
	w.line(0, fmt.Sprintf("reg  %s%s;  // registered read data of %s", rangeOf(ww), mem.rdMid, mem.Name), mem.rdLoc)
	w.line(0, fmt.Sprintf("reg  %s%s;  // %s", rangeOf(ww), q.name, q.doc), q.loc)
	if rw, _ := ECP5Mode(mem.Depth, ww); rw > 0 {
		w.line(0, "`endif", Loc{})
	}
}

// emitRegistered writes a table read through its output register.
func emitRegistered(w *writer, mem *Memory) {
	ww := mem.Layout.width
	rw, rams := ECP5Mode(mem.Depth, ww)
	if rw > 0 {
		w.line(0, "`ifdef NICGEN_ECP5", Loc{})
		w.line(0, fmt.Sprintf("// %s: %d Lattice ECP5 DP16KD block RAMs of %d x %d, port A writes, port B reads", mem.Name, rams, ecp5Depth(rw), rw), Loc{})
		w.line(0, "// through its output register (REGMODE_B OUTREG); a read and a write of one", Loc{})
		w.line(0, "// address at one edge may return either word: the block never uses that read", Loc{})
		emitECP5(w, mem, rw, rams)
		w.line(0, "`else", Loc{})
	}
	w.line(0, "// "+mem.Name+": read-before-write, no reset (block RAM), read data through the RAM's output register", Loc{})
	w.line(0, "always @(posedge clk) begin", Loc{})
	w.line(1, fmt.Sprintf("if (%s) begin", ref(mem.rdEn)), mem.rdLoc)
	w.line(2, fmt.Sprintf("%s <= %s_mem[%s];", mem.rdMid, mem.Name, ref(mem.rdAddr)), Loc{})
	w.line(1, "end", Loc{})
	w.line(1, fmt.Sprintf("%s <= %s;", mem.rdData.name, mem.rdMid), Loc{})
	w.line(0, "end", Loc{})
	w.raw("\n")
	w.line(0, "always @(posedge clk) begin", Loc{})
	w.line(1, fmt.Sprintf("if (%s) begin", ref(mem.wrEn)), mem.wrLoc)
	w.line(2, fmt.Sprintf("%s_mem[%s] <= %s;", mem.Name, ref(mem.wrAddr), ref(mem.wrData)), Loc{})
	w.line(1, "end", Loc{})
	w.line(0, "end", Loc{})
	if rw > 0 {
		w.line(0, "`endif", Loc{})
	}
	w.raw("\n")
}

func ecp5Depth(ramWidth int) int {
	switch ramWidth {
	case 18:
		return 1024
	case 9:
		return 2048
	}
	return 16384 / ramWidth
}

// emitECP5 writes the DP16KD instances of a table, one per ramWidth bits
// of the word.
func emitECP5(w *writer, mem *Memory, rw, rams int) {
	ww := mem.Layout.width
	abits := BitsFor(uint64(ecp5Depth(rw) - 1))
	low := 14 - abits // address pins below the word address
	addr := func(n *node, port string, be bool) string {
		var pins []string
		for i := 13; i >= 0; i-- {
			v := "1'b0"
			switch {
			case i >= low && i-low < n.width:
				v = fmt.Sprintf("%s[%d]", ref(n), i-low)
				if n.width == 1 {
					v = ref(n)
				}
			case rw == 18 && i < 2 && be:
				v = "1'b1" // both byte enables of an 18-bit write
			}
			pins = append(pins, fmt.Sprintf(".AD%s%d(%s)", port, i, v))
		}
		return strings.Join(pins, ", ")
	}
	bit := func(n *node, i int) string {
		if n.width == 1 {
			return ref(n)
		}
		return fmt.Sprintf("%s[%d]", ref(n), i)
	}
	for j := 0; j < rams; j++ {
		lo := j * rw
		n := min(rw, ww-lo)
		w.line(0, "DP16KD #(", Loc{})
		w.line(1, fmt.Sprintf(".DATA_WIDTH_A(%d), .DATA_WIDTH_B(%d), .REGMODE_A(\"NOREG\"), .REGMODE_B(\"OUTREG\"),", rw, rw), Loc{})
		w.line(1, ".RESETMODE(\"SYNC\"), .CSDECODE_A(\"0b000\"), .CSDECODE_B(\"0b000\"),", Loc{})
		w.line(1, ".WRITEMODE_A(\"NORMAL\"), .WRITEMODE_B(\"NORMAL\"), .GSR(\"DISABLED\")", Loc{})
		w.line(0, fmt.Sprintf(") %s_ram%d (  // bits %d..%d", mem.Name, j, lo+n-1, lo), mem.loc)
		w.line(1, fmt.Sprintf(".CLKA(clk), .CEA(1'b1), .OCEA(1'b1), .WEA(%s), .RSTA(1'b0), .CSA2(1'b0), .CSA1(1'b0), .CSA0(1'b0),", ref(mem.wrEn)), mem.wrLoc)
		w.line(1, addr(mem.wrAddr, "A", true)+",", mem.wrLoc)
		var di []string
		for k := 17; k >= 0; k-- {
			v := "1'b0"
			if k < n {
				v = bit(mem.wrData, lo+k)
			}
			di = append(di, fmt.Sprintf(".DIA%d(%s)", k, v))
		}
		w.line(1, strings.Join(di, ", ")+",", mem.wrLoc)
		w.line(1, fmt.Sprintf(".CLKB(clk), .CEB(%s), .OCEB(1'b1), .WEB(1'b0), .RSTB(1'b0), .CSB2(1'b0), .CSB1(1'b0), .CSB0(1'b0),", ref(mem.rdEn)), mem.rdLoc)
		w.line(1, addr(mem.rdAddr, "B", false)+",", mem.rdLoc)
		var dib, do []string
		for k := 17; k >= 0; k-- {
			dib = append(dib, fmt.Sprintf(".DIB%d(1'b0)", k))
		}
		w.line(1, strings.Join(dib, ", ")+",", Loc{})
		for k := n - 1; k >= 0; k-- {
			do = append(do, fmt.Sprintf(".DOB%d(%s)", k, bit(mem.rdData.Expr.n, lo+k)))
		}
		w.line(1, strings.Join(do, ", "), mem.rdLoc)
		w.line(0, ");", Loc{})
	}
}

// checkedParam is a parameter whose range (Signal.Limit) is narrower than
// its width, in a width an integer holds: it is declared an integer, so
// that a value given at instantiation reaches emitParamChecks whole (a
// ranged parameter would keep only its low bits: 5000 in 13 bits is 904),
// and read through its low bits.
func checkedParam(s *Signal) bool {
	return s.kind == kindParam && s.limited && s.width <= 31 && (s.lo > 0 || s.hi < mask(s.width))
}

// emitParamChecks stops elaboration when a checked parameter is given a
// value out of its range: the generate branch then instantiates a module
// that does not exist, whose name says which parameter and range, and
// Verilator, Icarus and Yosys each fail on it (Verilog-2005 has no
// elaboration error of its own).
func emitParamChecks(w *writer, m *Module) {
	for _, p := range m.Params() {
		if !checkedParam(p) {
			continue
		}
		why := ""
		if p.limitWhy != "" {
			why = " (" + p.limitWhy + ")"
		}
		w.line(0, fmt.Sprintf("// %s must be %d..%d%s: a value out of that range stops elaboration here", p.name, p.lo, p.hi, why), p.loc)
		w.line(0, "generate", Loc{})
		w.line(1, fmt.Sprintf("if (%s < %d || %s > %d) begin : %s_out_of_range", p.name, p.lo, p.name, p.hi, strings.ToLower(p.name)), Loc{})
		w.line(2, fmt.Sprintf("nicgen_parameter_%s_out_of_range_%d_to_%d u_%s_out_of_range ();", p.name, p.lo, p.hi, strings.ToLower(p.name)), Loc{})
		w.line(1, "end", Loc{})
		w.line(0, "endgenerate", Loc{})
	}
}
