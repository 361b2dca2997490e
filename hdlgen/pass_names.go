package hdlgen

import (
	"fmt"
	"regexp"
	"strings"
)

var identRe = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_]*$`)

// verilogKeywords are the reserved words of Verilog-2005 and, because
// Verilator reads .v files as SystemVerilog unless told otherwise, of
// IEEE 1800-2017; clk and rst are taken by every clocked module.
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
	clk rst
	accept_on alias always_comb always_ff always_latch assert assume before bind bins binsof bit break
	byte chandle checker class clocking const constraint context continue cover covergroup coverpoint
	cross dist do endchecker endclass endclocking endgroup endinterface endpackage endprogram
	endproperty endsequence enum eventually expect export extends extern final first_match foreach
	forkjoin global iff ignore_bins illegal_bins implements implies import inside int interconnect
	interface intersect join_any join_none let local logic longint matches modport nettype new null
	package packed priority program property protected pure rand randc randcase randsequence ref
	reject_on restrict return s_always s_eventually s_nexttime s_until s_until_with sequence shortint
	shortreal soft solve static string strong struct super sync_accept_on sync_reject_on tagged this
	throughout timeprecision timeunit type typedef union unique unique0 until until_with untyped var
	virtual void wait_order weak wildcard with within`) {
		verilogKeywords[k] = true
	}
}

// hasWire reports whether a node gets a wire of its own in the Verilog.
// References, literals and casts are written in place.
func (n *node) hasWire() bool { return n.op != opSig && n.op != opConst && n.op != opCast }

// assignNames names every intermediate value. A value named by the designer
// keeps that name; the others become _<scope>_<k>, numbered within the
// signal or process that first uses them, so editing one piece of logic
// does not rename the temporaries of the rest. Values that only properties
// read are named after the design's, within the property (_<property>_<k>),
// so adding a property renames nothing. It also reports names (property
// labels included) that are not identifiers, are Verilog keywords or collide.
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
		if mem.regOut {
			claim(mem.rdMid, mem.rdLoc)
			if rw, rams := ECP5Mode(mem.Depth, mem.Layout.width); rw > 0 {
				for j := 0; j < rams; j++ {
					claim(fmt.Sprintf("%s_ram%d", mem.Name, j), mem.loc)
				}
			}
		}
	}
	for _, in := range m.insts {
		claim(in.Name, in.loc)
	}
	for _, p := range m.props {
		claim(p.name, p.loc) // a statement label in the module's namespace
	}
	for _, p := range m.procs {
		if !identRe.MatchString(p.Name) {
			errs = append(errs, Error{Loc: p.loc, Msg: fmt.Sprintf("process name %q is not a Verilog identifier (it prefixes the names of the process's temporaries)", p.Name)})
		}
	}
	counters := map[string]int{}
	m.postOrderAll(func(scope string, n *node) {
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
