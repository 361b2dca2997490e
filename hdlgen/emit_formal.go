package hdlgen

import (
	"fmt"
	"math/big"
	"strings"
)

// emitProperties writes the module's assertions and assumptions at the end
// of the module, under `ifdef FORMAL: the wires only they read, then one
// always @* block of labelled immediate assert/assume statements, which
// Yosys turns into $assert/$assume cells (read_verilog -formal). The other
// branch reads what only the properties read into _unused_formal, so the
// plain Verilog-2005 file stays clean under verilator -Wall. Nothing is
// written for a module without properties.
func emitProperties(w *writer, m *Module) {
	if len(m.props) == 0 {
		return
	}
	w.line(0, "`ifdef FORMAL", Loc{})
	w.line(0, "// properties: assumptions constrain what a checker explores, assertions", Loc{})
	w.line(0, "// must hold in every reachable state (yosys read_verilog -formal -DFORMAL)", Loc{})
	if dropped := emitWires(w, m.formalOnly()); len(dropped) > 0 {
		w.line(0, "wire _unused_formal = ^{"+strings.Join(dropped, ", ")+"};", Loc{})
	}
	w.line(0, "always @* begin", Loc{})
	for _, p := range m.props {
		w.line(1, fmt.Sprintf("%s: %s (%s);", p.name, p.keyword(), ref(p.cond)), p.loc)
	}
	w.line(0, "end", Loc{})
	if reads := formalReads(m); len(reads) > 0 {
		w.line(0, "`else", Loc{})
		w.line(0, "// read only by the properties", Loc{})
		w.line(0, "wire _unused_formal = ^{"+strings.Join(reads, ", ")+"};", Loc{})
	}
	w.line(0, "`endif", Loc{})
	w.raw("\n")
}

// formalReads names the signals and design wires of which the properties
// read some bit that the design itself does not, in declaration and then
// emission order. Outputs and register next values are never reported
// unread, so they are left out.
func formalReads(m *Module) []string {
	design, designTemp, temps := m.readBits(false)
	all, allTemp, _ := m.readBits(true)
	extra := func(a, d *big.Int) bool {
		if a == nil {
			return false
		}
		if d == nil {
			return a.Sign() != 0
		}
		return new(big.Int).AndNot(a, d).Sign() != 0
	}
	var out []string
	for _, s := range m.sigs {
		if s.kind == kindOutput || s.kind == kindNext {
			continue
		}
		if extra(all[s], design[s]) {
			out = append(out, s.name)
		}
	}
	for _, n := range temps {
		if extra(allTemp[n], designTemp[n]) {
			out = append(out, n.name)
		}
	}
	return out
}
