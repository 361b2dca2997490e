package hdlgen

import (
	"fmt"
	"regexp"
	"strings"
)

var identRe = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_]*$`)

var verilogKeywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`always and assign automatic begin buf bufif0 bufif1 case casex casez cell cmos
	config deassign default defparam design disable edge else end endcase endconfig endfunction endgenerate
	endmodule endprimitive endspecify endtable endtask event for force forever fork function generate genvar
	highz0 highz1 if ifnone incdir include initial inout input instance integer join large liblist library
	localparam macromodule medium module nand negedge nmos nor noshowcancelled not notif0 notif1 or output
	parameter pmos posedge primitive pull0 pull1 pulldown pullup pulsestyle_onevent pulsestyle_ondetect
	rcmos real realtime reg release repeat rnmos rpmos rtran rtranif0 rtranif1 scalared showcancelled signed
	small specify specparam strong0 strong1 supply0 supply1 table task time tran tranif0 tranif1 tri tri0
	tri1 triand trior trireg unsigned use uwire vectored wait wand weak0 weak1 while wire wor xnor xor
	bit byte logic int shortint longint clk rst`) {
		verilogKeywords[k] = true
	}
}

// hasWire reports whether a node gets a wire of its own in the Verilog.
// References, literals and casts are written in place.
func (n *node) hasWire() bool { return n.op != opSig && n.op != opConst && n.op != opCast }

// assignNames names every intermediate value. A value named by the designer
// keeps that name; the others become _<scope>_<k>, numbered within the
// signal or process that first uses them, so editing one piece of logic
// does not rename the temporaries of the rest. It also reports names that
// are not identifiers, are Verilog keywords or collide.
func assignNames(m *Module) []Error {
	var errs []Error
	owner := map[string]Loc{}
	claim := func(name string, loc Loc) {
		switch {
		case !identRe.MatchString(name):
			errs = append(errs, Error{Loc: loc, Msg: fmt.Sprintf("%q is not a Verilog identifier (letters, digits and _, starting with a letter)", name)})
		case verilogKeywords[name]:
			errs = append(errs, Error{Loc: loc, Msg: fmt.Sprintf("%q is a reserved word", name)})
		}
		if prev, dup := owner[name]; dup {
			errs = append(errs, Error{Loc: loc, Msg: fmt.Sprintf("name %s is already used at %s", name, prev)})
			return
		}
		owner[name] = loc
	}
	if !identRe.MatchString(m.name) || verilogKeywords[m.name] {
		errs = append(errs, Error{Loc: m.loc, Msg: fmt.Sprintf("module name %q is not a usable Verilog identifier", m.name)})
	}
	for _, s := range m.sigs {
		claim(s.name, s.loc)
	}
	for _, mem := range m.mems {
		claim(mem.Name+"_mem", mem.loc)
	}
	for _, in := range m.insts {
		claim(in.Name, in.loc)
	}
	counters := map[string]int{}
	m.postOrder(func(scope string, n *node) {
		if !n.hasWire() {
			return
		}
		if n.user {
			claim(n.name, n.loc)
			return
		}
		k := counters[scope]
		counters[scope] = k + 1
		n.name = fmt.Sprintf("_%s_%d", scope, k)
	})
	return errs
}
