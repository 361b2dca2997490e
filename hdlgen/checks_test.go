package hdlgen

import (
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// nextLine is the location the DSL must record for an object created on
// the line after the caller's. The file is derived here from the test's own
// path, not with the package's relFile, so that a broken relFile fails.
func nextLine() Loc {
	_, file, line, ok := runtime.Caller(1)
	if !ok {
		panic("runtime.Caller failed")
	}
	return Loc{File: "hdlgen/" + filepath.Base(file), Line: line + 1}
}

// elaborateNoPanic runs Elaborate and turns a panic into a test failure
// with its stack: Elaborate must report misuse, never crash on it.
func elaborateNoPanic(t *testing.T, top *Module) (d *Design, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("Elaborate(%s) panicked: %v\n%s", top.Name(), r, debug.Stack())
		}
	}()
	return Elaborate(top)
}

// checkCase is a deliberately broken module and the exact errors it must
// give, one line each, in the order Elaborate sorts them.
type checkCase struct {
	name  string
	build func() (*Module, []string)
}

func errLine(at Loc, pass, module, format string, a ...any) string {
	return fmt.Sprintf("%s: %s: module %s: %s", at, pass, module, fmt.Sprintf(format, a...))
}

var checkCases = []checkCase{
	// ---- widths --------------------------------------------------------------
	{"add width", func() (*Module, []string) {
		m := NewModule("bad_add", "")
		a := m.Input("a", 8, "")
		b := m.Input("b", 4, "")
		y := m.Output("y", 8, "")
		at := nextLine()
		m.Assign(y, a.Add(b))
		return m, []string{errLine(at, "widths", "bad_add", "Add of 8-bit and 4-bit values: widths must match (use ZExt, SExt or Trunc)")}
	}},
	{"add signedness", func() (*Module, []string) {
		m := NewModule("bad_sign", "")
		a := m.Input("a", 8, "")
		b := m.Input("b", 8, "")
		y := m.Output("y", 8, "")
		at := nextLine()
		m.Assign(y, a.Add(b.AsSigned()))
		return m, []string{errLine(at, "widths", "bad_sign", "Add of signed and unsigned values (use AsSigned or AsUnsigned)")}
	}},
	{"AddX width", func() (*Module, []string) {
		m := NewModule("bad_addx", "")
		a := m.Input("a", 8, "")
		b := m.Input("b", 4, "")
		y := m.Output("y", 9, "")
		at := nextLine()
		m.Assign(y, a.AddX(b))
		return m, []string{errLine(at, "widths", "bad_addx", "AddX of 8-bit and 4-bit values: widths must match (use ZExt, SExt or Trunc)")}
	}},
	{"SubSat signedness", func() (*Module, []string) {
		m := NewModule("bad_subsat", "")
		a := m.Input("a", 8, "")
		b := m.Input("b", 8, "")
		y := m.Output("y", 9, "")
		at := nextLine()
		m.Assign(y, a.SubSat(b.AsSigned()))
		return m, []string{errLine(at, "widths", "bad_subsat", "SubSat of signed and unsigned values (use AsSigned or AsUnsigned)")}
	}},
	{"Gt names the operands in the written order", func() (*Module, []string) {
		m := NewModule("bad_gt", "")
		a := m.Input("a", 8, "")
		b := m.Input("b", 4, "")
		y := m.Output("y", 1, "")
		at := nextLine()
		m.Assign(y, a.Gt(b))
		return m, []string{errLine(at, "widths", "bad_gt", "Gt of 8-bit and 4-bit values: widths must match (use ZExt, SExt or Trunc)")}
	}},
	{"mux arms", func() (*Module, []string) {
		m := NewModule("bad_mux", "")
		sel := m.Input("sel", 1, "")
		a := m.Input("a", 8, "")
		b := m.Input("b", 4, "")
		y := m.Output("y", 8, "")
		at := nextLine()
		m.Assign(y, Mux(sel, a, b))
		return m, []string{errLine(at, "widths", "bad_mux", "Mux arms of 8 and 4 bits (signed false/false) must match")}
	}},
	{"assignment width", func() (*Module, []string) {
		m := NewModule("bad_assign", "")
		a := m.Input("a", 8, "")
		y := m.Output("y", 4, "")
		at := nextLine()
		m.Assign(y, a)
		return m, []string{errLine(at, "widths", "bad_assign", "assignment of a 8-bit value to 4-bit y")}
	}},
	{"if condition width", func() (*Module, []string) {
		m := NewModule("bad_cond", "")
		c := m.Input("c", 2, "")
		a := m.Input("a", 8, "")
		b := m.Input("b", 8, "")
		y := m.Output("y", 8, "")
		v := m.Var("v", 8, "")
		var at Loc
		m.Comb("pick", func(p *Process) {
			p.Set(v, a)
			at = nextLine()
			p.If(c, func() { p.Set(v, b) })
		})
		m.Assign(y, v)
		return m, []string{errLine(at, "widths", "bad_cond", "process pick: condition is 2 bits, must be 1")}
	}},
	{"memory address width", func() (*Module, []string) {
		m := NewModule("bad_mem", "")
		addr := m.Input("addr", 3, "")
		en := m.Input("en", 1, "")
		data := m.Input("data", 8, "")
		y := m.Output("y", 8, "")
		word := NewLayout("w").Field("v", 8, "")
		table := m.Memory("t", 4, word, false)
		seen := m.Reg("seen", 1, "", ResetTo(0))
		m.Assign(seen.Next, en)
		at := nextLine()
		rd := m.Read(table, addr, en)
		m.Write(table, addr.Trunc(2), data, en)
		m.Assign(y, Mux(seen, rd, Const(8, 0)))
		return m, []string{errLine(at, "widths", "bad_mem", "memory t: read address is 3 bits, depth 4 needs 2")}
	}},
	{"Trunc wider is reported where Trunc is called", func() (*Module, []string) {
		m := NewModule("bad_trunc", "")
		a := m.Input("a", 8, "")
		y := m.Output("y", 9, "")
		at := nextLine()
		m.Assign(y, a.Trunc(9))
		return m, []string{errLine(at, "widths", "bad_trunc", "Trunc to 9 bits of a 8-bit value")}
	}},
	{"Pack with a missing field", func() (*Module, []string) {
		m := NewModule("bad_pack", "")
		x := m.Input("x", 4, "")
		y := m.Output("y", 8, "")
		pkt := NewLayout("pkt").Field("a", 4, "").Field("b", 4, "")
		at := nextLine()
		m.Assign(y, pkt.Pack(map[string]Value{"a": x}))
		return m, []string{errLine(at, "widths", "bad_pack", `Pack pkt: missing field "b"`)}
	}},
	// ---- drivers -------------------------------------------------------------
	{"output never assigned", func() (*Module, []string) {
		m := NewModule("bad_undriven", "")
		a := m.Input("a", 8, "")
		y := m.Output("y", 8, "")
		at := nextLine()
		m.Output("z", 8, "")
		m.Assign(y, a)
		return m, []string{errLine(at, "drivers", "bad_undriven", "z is never assigned")}
	}},
	{"two drivers", func() (*Module, []string) {
		m := NewModule("bad_drivers", "")
		a := m.Input("a", 8, "")
		b := m.Input("b", 8, "")
		y := m.Output("y", 8, "")
		first := nextLine()
		m.Assign(y, a)
		second := nextLine()
		m.Assign(y, b)
		return m, []string{errLine(second, "drivers", "bad_drivers", "y has several drivers: continuous assignment at %s and continuous assignment at %s", first, second)}
	}},
	// ---- latches -------------------------------------------------------------
	{"variable assigned on one branch", func() (*Module, []string) {
		m := NewModule("bad_latch", "")
		c := m.Input("c", 1, "")
		a := m.Input("a", 8, "")
		y := m.Output("y", 8, "")
		v := m.Var("v", 8, "")
		var at Loc
		m.Comb("p", func(p *Process) {
			p.If(c, func() {
				at = nextLine()
				p.Set(v, a)
			})
		})
		m.Assign(y, v)
		return m, []string{errLine(at, "latches", "bad_latch", "process p: v is not assigned on every path (a latch); give it a default at the top of the process")}
	}},
	// ---- loops ---------------------------------------------------------------
	{"loop through two wires", func() (*Module, []string) {
		m := NewModule("bad_loop", "")
		a := m.Input("a", 8, "")
		y := m.Output("y", 8, "")
		atW1 := nextLine()
		w1 := m.Wire("w1", y.Xor(a))
		atW2 := nextLine()
		w2 := m.Wire("w2", w1.Not())
		atY := nextLine()
		m.Assign(y, w2)
		return m, []string{errLine(atY, "loops", "bad_loop", "combinational loop: y (%s) -> w2 (%s) -> w1 (%s) -> y", atY, atW2, atW1)}
	}},
	{"loop through a combinational instance", func() (*Module, []string) {
		sub := NewModule("inv", "")
		sa := sub.Input("a", 8, "")
		sub.Assign(sub.Output("y", 8, ""), sa.Not())
		m := NewModule("bad_loop_inst", "")
		y := m.Output("y", 8, "")
		atU := nextLine()
		u := m.Instantiate("u", sub)
		atW := nextLine()
		w := m.Wire("w", u.Out("y").Not())
		u.In("a", w)
		m.Assign(y, w)
		return m, []string{errLine(atW, "loops", "bad_loop_inst", "combinational loop: w (%s) -> u_y (%s) -> w", atW, atU)}
	}},
	{"variable that reads itself", func() (*Module, []string) {
		m := NewModule("bad_self", "")
		a := m.Input("a", 8, "")
		y := m.Output("y", 8, "")
		v := m.Var("v", 8, "")
		var at Loc
		m.Comb("acc", func(p *Process) {
			at = nextLine()
			p.Set(v, v.Add(a))
		})
		m.Assign(y, v)
		return m, []string{errLine(at, "loops", "bad_self", "combinational loop: v (%s) -> v", at)}
	}},
	// ---- usage ---------------------------------------------------------------
	{"unread input", func() (*Module, []string) {
		m := NewModule("bad_unread", "")
		a := m.Input("a", 8, "")
		at := nextLine()
		m.Input("b", 8, "")
		m.Assign(m.Output("y", 8, ""), a)
		return m, []string{errLine(at, "usage", "bad_unread", "b is never read")}
	}},
	{"unread bits of an input", func() (*Module, []string) {
		m := NewModule("bad_bits", "")
		at := nextLine()
		a := m.Input("a", 8, "")
		m.Assign(m.Output("y", 3, ""), a.Slice(5, 3))
		return m, []string{
			errLine(at, "usage", "bad_bits", "bits [2:0] of a are never read"),
			errLine(at, "usage", "bad_bits", "bits [7:6] of a are never read"),
		}
	}},
	{"unread instance output", func() (*Module, []string) {
		sub := twoOutputs()
		m := NewModule("bad_inst_out", "")
		a := m.Input("a", 8, "")
		u := m.Instantiate("u", sub)
		u.In("a", a)
		m.Assign(m.Output("y", 8, ""), u.Out("y"))
		at := nextLine()
		u.Out("z")
		return m, []string{errLine(at, "usage", "bad_inst_out", "u_z (an instance output) is never read; every output of an instance must be used")}
	}},
	{"instance output never taken", func() (*Module, []string) {
		sub := twoOutputs()
		m := NewModule("bad_inst_out2", "")
		a := m.Input("a", 8, "")
		at := nextLine()
		u := m.Instantiate("u", sub)
		u.In("a", a)
		m.Assign(m.Output("y", 8, ""), u.Out("y"))
		return m, []string{errLine(at, "usage", "bad_inst_out2", "instance u: output z of module two_out is never read (read it with Out); every output of an instance must be used")}
	}},
	// ---- names ---------------------------------------------------------------
	{"duplicate signal names", func() (*Module, []string) {
		m := NewModule("bad_dup", "")
		first := nextLine()
		a1 := m.Input("a", 8, "")
		second := nextLine()
		a2 := m.Input("a", 8, "")
		m.Assign(m.Output("y", 8, ""), a1.Xor(a2))
		return m, []string{errLine(second, "names", "bad_dup", "name a is already used at %s", first)}
	}},
	{"named value with a taken name", func() (*Module, []string) {
		m := NewModule("bad_dup_named", "")
		a := m.Input("a", 8, "")
		atY := nextLine()
		y := m.Output("y", 8, "")
		at := nextLine()
		m.Assign(y, a.Not().Named("y"))
		return m, []string{errLine(at, "names", "bad_dup_named", "name y is already used at %s", atY)}
	}},
	{"Verilog keyword", func() (*Module, []string) {
		m := NewModule("bad_kw", "")
		at := nextLine()
		r := m.Input("reg", 8, "")
		m.Assign(m.Output("y", 8, ""), r)
		return m, []string{errLine(at, "names", "bad_kw", `"reg" is a reserved word`)}
	}},
	{"SystemVerilog keyword", func() (*Module, []string) {
		m := NewModule("bad_sv_kw", "")
		at := nextLine()
		r := m.Input("type", 8, "")
		m.Assign(m.Output("y", 8, ""), r)
		return m, []string{errLine(at, "names", "bad_sv_kw", `"type" is a reserved word`)}
	}},
	// ---- instance ports ------------------------------------------------------
	{"instance port of another width", func() (*Module, []string) {
		m := NewModule("bad_port_width", "")
		a := m.Input("a", 4, "")
		u := m.Instantiate("u", twoOutputs())
		at := nextLine()
		u.In("a", a)
		m.Assign(m.Output("y", 8, ""), u.Out("y").Xor(u.Out("z")))
		return m, []string{errLine(at, "widths", "bad_port_width", "instance u: input a is 8 bits, connected to a 4-bit value")}
	}},
	{"instance port that does not exist", func() (*Module, []string) {
		m := NewModule("bad_port_name", "")
		a := m.Input("a", 8, "")
		u := m.Instantiate("u", twoOutputs()).In("a", a)
		at := nextLine()
		u.In("b", a)
		m.Assign(m.Output("y", 8, ""), u.Out("y").Xor(u.Out("z")))
		return m, []string{errLine(at, "build", "bad_port_name", `instance u: module two_out has no input "b"`)}
	}},
	{"instance port connected twice", func() (*Module, []string) {
		m := NewModule("bad_port_twice", "")
		a := m.Input("a", 8, "")
		u := m.Instantiate("u", twoOutputs()).In("a", a)
		at := nextLine()
		u.In("a", a.Not())
		m.Assign(m.Output("y", 8, ""), u.Out("y").Xor(u.Out("z")))
		return m, []string{errLine(at, "build", "bad_port_twice", `instance u: input "a" connected twice`)}
	}},
	{"instance port left open", func() (*Module, []string) {
		m := NewModule("bad_port_open", "")
		at := nextLine()
		u := m.Instantiate("u", twoOutputs())
		m.Assign(m.Output("y", 8, ""), u.Out("y").Xor(u.Out("z")))
		return m, []string{errLine(at, "drivers", "bad_port_open", "instance u: input a of module two_out is not connected")}
	}},
	{"instance port of the other signedness", func() (*Module, []string) {
		m := NewModule("bad_port_sign", "")
		a := m.Input("a", 8, "").AsSigned()
		u := m.Instantiate("u", twoOutputs())
		at := nextLine()
		u.In("a", a)
		m.Assign(m.Output("y", 8, ""), u.Out("y").Xor(u.Out("z")))
		return m, []string{errLine(at, "widths", "bad_port_sign", "instance u: input a is unsigned, connected to a signed value (use AsUnsigned or AsSigned)")}
	}},
	// ---- records -------------------------------------------------------------
	{"record field that does not exist", func() (*Module, []string) {
		m := NewModule("bad_field", "")
		pkt := NewLayout("pkt").Field("len", 4, "").Field("ecn", 1, "")
		f := pkt.Unpack(m.Input("w", 5, ""), "w")
		at := nextLine()
		y := f.F("lenght").ZExt(4).Add(f.F("len"))
		m.Assign(m.Output("y", 4, ""), y)
		m.Assign(m.Output("e", 1, ""), f.F("ecn"))
		return m, []string{errLine(at, "widths", "bad_field", `layout pkt has no field "lenght" (fields: len, ecn)`)}
	}},
	{"record of values without that field", func() (*Module, []string) {
		m := NewModule("bad_event", "")
		ev := NewRecord("the event").Set("rtt", m.Input("rtt", 8, "")).Set("ecn", m.Input("ecn", 1, ""))
		at := nextLine()
		m.Assign(m.Output("y", 1, ""), ev.F("ecn").And(ev.F("nack")))
		m.Assign(m.Output("r", 8, ""), ev.F("rtt"))
		return m, []string{errLine(at, "widths", "bad_event", `the event has no field "nack" (fields: rtt, ecn)`)}
	}},
	// ---- module identity -----------------------------------------------------
	{"two different modules of one name under one parent", func() (*Module, []string) {
		m := NewModule("bad_twins", "")
		a := m.Input("a", 8, "")
		first := NewModule("twin", "")
		first.Assign(first.Output("y", 8, ""), first.Input("a", 8, ""))
		at := nextLine()
		second := NewModule("twin", "")
		second.Assign(second.Output("y", 8, ""), second.Input("a", 8, "").Not())
		u1 := m.Instantiate("u1", first).In("a", a)
		u2 := m.Instantiate("u2", second).In("a", a)
		m.Assign(m.Output("y", 8, ""), u1.Out("y").Xor(u2.Out("y")))
		return m, []string{errLine(at, "elaborate", "twin", "two different modules are named twin (the other one is built at %s): give each a name of its own, for example with the parameter that differs", first.loc)}
	}},
	{"two different modules of one name under two parents", func() (*Module, []string) {
		m := NewModule("bad_cousins", "")
		a := m.Input("a", 8, "")
		leafA := NewModule("leaf", "")
		leafA.Assign(leafA.Output("y", 8, ""), leafA.Input("a", 8, ""))
		at := nextLine()
		leafB := NewModule("leaf", "")
		leafB.Assign(leafB.Output("y", 8, ""), leafB.Input("a", 8, "").Add(Const(8, 1)))
		wrap := func(name string, leaf *Module) *Module {
			w := NewModule(name, "")
			u := w.Instantiate("u", leaf).In("a", w.Input("a", 8, ""))
			w.Assign(w.Output("y", 8, ""), u.Out("y"))
			return w
		}
		p1 := m.Instantiate("p1", wrap("parent_a", leafA)).In("a", a)
		p2 := m.Instantiate("p2", wrap("parent_b", leafB)).In("a", a)
		m.Assign(m.Output("y", 8, ""), p1.Out("y").Xor(p2.Out("y")))
		return m, []string{errLine(at, "elaborate", "leaf", "two different modules are named leaf (the other one is built at %s): give each a name of its own, for example with the parameter that differs", leafA.loc)}
	}},
	{"process name that is no identifier", func() (*Module, []string) {
		m := NewModule("bad_proc", "")
		a := m.Input("a", 8, "")
		v := m.Var("v", 8, "")
		at := nextLine()
		m.Comb("my proc", func(p *Process) { p.Set(v, a.Add(Const(8, 1))) })
		m.Assign(m.Output("y", 8, ""), v)
		return m, []string{errLine(at, "names", "bad_proc", `process name "my proc" is not a Verilog identifier (it prefixes the names of the process's temporaries)`)}
	}},
}

func twoOutputs() *Module {
	sub := NewModule("two_out", "")
	a := sub.Input("a", 8, "")
	sub.Assign(sub.Output("y", 8, ""), a)
	sub.Assign(sub.Output("z", 8, ""), a.Not())
	return sub
}

func TestChecks(t *testing.T) {
	for _, c := range checkCases {
		t.Run(c.name, func(t *testing.T) {
			top, want := c.build()
			d, err := elaborateNoPanic(t, top)
			if err == nil {
				t.Fatalf("Elaborate accepted the module; want:\n%s", strings.Join(want, "\n"))
			}
			if d != nil {
				t.Errorf("Elaborate returned a design with its error")
			}
			if got := err.Error(); got != strings.Join(want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
			}
			if _, ok := err.(Errors); !ok {
				t.Errorf("the error is a %T, not Errors", err)
			}
		})
	}
}

// Correct counterparts of the broken modules: they elaborate, and the tools
// agree that they are clean and latch-free.

func TestChecksAcceptDefaultBeforeIf(t *testing.T) {
	m := NewModule("ok_latch", "")
	c := m.Input("c", 1, "")
	a := m.Input("a", 8, "")
	b := m.Input("b", 8, "")
	y := m.Output("y", 8, "")
	v := m.Var("v", 8, "")
	m.Comb("p", func(p *Process) {
		p.Set(v, b) // the default keeps v from being a latch
		p.If(c, func() { p.Set(v, a) })
	})
	m.Assign(y, v)
	if _, err := elaborateNoPanic(t, m); err != nil {
		t.Fatalf("a variable with a default is no latch:\n%v", err)
	}
	checkWithTools(t, m)
}

// A variable computed and then read further down its own process is a
// chain, not a loop, even when a wire sits between.
func TestChecksAcceptVariableChain(t *testing.T) {
	m := NewModule("ok_chain", "")
	a := m.Input("a", 8, "")
	c := m.Input("c", 1, "")
	y := m.Output("y", 8, "")
	x := m.Var("x", 8, "")
	z := m.Var("z", 8, "")
	w := m.Wire("w", x.Add(Const(8, 1)))
	m.Comb("p", func(p *Process) {
		p.Set(x, a)
		p.If(c, func() { p.Set(x, a.Not()) })
		p.Set(z, w.Xor(x))
	})
	m.Assign(y, z)
	if _, err := elaborateNoPanic(t, m); err != nil {
		t.Fatalf("no loop here:\n%v", err)
	}
	checkWithTools(t, m)
}

// A loop through a register is no combinational loop, inside a module or
// through an instance; a parent whose only state is in its instances uses
// rst by passing it down.
func TestChecksAcceptLoopThroughRegister(t *testing.T) {
	sub := NewModule("delay", "")
	sa := sub.Input("a", 8, "")
	r := sub.Reg("r", 8, "", ResetTo(0))
	sub.Assign(r.Next, sa)
	sub.Assign(sub.Output("y", 8, ""), r)

	m := NewModule("ok_loop_reg", "")
	y := m.Output("y", 8, "")
	u := m.Instantiate("u", sub)
	w := m.Wire("w", u.Out("y").Not())
	u.In("a", w)
	m.Assign(y, w)
	if _, err := elaborateNoPanic(t, m); err != nil {
		t.Fatalf("no combinational loop through a register:\n%v", err)
	}
	checkWithTools(t, m)
}

// TestElaborateNeverPanicsOnMisuse piles every kind of misuse into one
// module: Elaborate reports each and does not crash.
func TestElaborateNeverPanicsOnMisuse(t *testing.T) {
	m := NewModule("misuse", "")
	a := m.Input("a", 8, "")
	zero := m.Input("zero", 0, "")
	other := NewModule("other", "")
	foreign := other.Input("f", 8, "")
	out := m.Output("y", 8, "")
	exprs := []Expr{
		Index(a), Cat(), a.Slice(-1, 5), a.Slice(3, 9), Const(0, 0), Const(65, 1), SConst(0, 0), SConst(4, 9),
		a.Shl(-1), a.Shr(8), a.ShlV(a.AsSigned()), a.ZExt(4), a.SExt(3), a.AsSigned().ZExt(9),
		Mux(a, a, a), Index(a.AsSigned(), a), Index(a.Bit(0), a, a, a), foreign.Add(a), zero.Add(a),
		NewLayout("l").Field("x", 4, "").Get(a, "nope"), NewLayout("l").Field("x", 4, "").Get(a, "x"),
		After(a, a.Trunc(4)), FixedOf(a.Expr, -1).Raw(), FixedConst(0, 0, 1, Truncate).Raw(), FixedConst(8, 0, 1, Rounding(9)).Raw(),
	}
	for i, e := range exprs {
		m.Assign(m.Wire(fmt.Sprintf("w%d", i), e), e)
	}
	m.Assign(a, a)
	m.Assign(out, a)
	mem := m.Memory("mem", 1, NewLayout("dup").Field("x", 4, "").Field("x", 4, "").Field("z", 0, ""), true)
	m.Read(mem, a, a)
	m.Read(mem, a, a)
	u := m.Instantiate("u", other)
	u.In("nope", a)
	u.Out("nope")
	m.Reg("r", 4, "", ResetTo(99))
	m.Param("P", 4, 99, "")
	m.Comb("p", func(p *Process) {
		p.Set(42, a)
		p.Set(a, a)
		p.If(a, func() {})
	})
	_, err := elaborateNoPanic(t, m)
	if err == nil {
		t.Fatal("Elaborate accepted a module full of mistakes")
	}
	text := err.Error()
	for _, want := range []string{
		"Index with no options", "Cat of nothing", "Slice [-1:5]", "Slice [3:9]", "constant width 0", "constant width 65",
		"signed constant 9 does not fit in 4 bits", "Shl by -1", "Shr by 8", "shift amount must be unsigned",
		"ZExt to 4 bits", "SExt to 3 bits", "ZExt of a signed value", "Mux select is 8 bits", "Index select must be unsigned",
		"Index with 3 options needs more than 1 select bits", "f is a signal of another module", "zero: width 0",
		`layout l has no field "nope"`, "word of 8 bits read with layout l of 4 bits", "Sub of 8-bit and 4-bit values",
		"fixed-point value with -1 fraction bits", "fixed-point constant width 0", "unknown rounding Rounding(9)",
		"cannot assign a continuously", "memory mem: depth 1", `field "x" declared twice`, `field "z" has width 0`,
		"second read port", "memory mem is never written", `module other has no input "nope"`, `module other has no output "nope"`,
		"input f of module other is not connected", "reset value 99 does not fit in 4 bits", "parameter P = 99 does not fit",
		"Set target must be a *Reg or a *Signal", "a cannot be assigned in a process", "condition is 8 bits",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no error mentions %q", want)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "?:") {
			t.Errorf("error without a location: %s", line)
		}
	}
}

// Keep drops bits on purpose: no usage error, and the Verilog reads the
// dropped bits into _unused so that Verilator agrees. Slice of the same bits
// is reported, and Keep of a whole value or of a constant drops nothing.
func TestKeepDropsOnPurpose(t *testing.T) {
	m := NewModule("ok_keep", "")
	a := m.Input("a", 8, "")
	b := m.Input("b", 8, "")
	mid := a.Slice(6, 1)
	m.Assign(m.Output("y", 3, ""), a.Keep(5, 3))
	m.Assign(m.Output("z", 6, ""), mid.Keep(5, 0)) // the whole of mid: still a plain Slice
	m.Assign(m.Output("s", 4, ""), b.Add(Const(8, 3)).Keep(7, 4))
	m.Assign(m.Output("c", 2, ""), Const(8, 0xc0).Keep(7, 6))
	d, err := elaborateNoPanic(t, m)
	if err != nil {
		t.Fatalf("Keep must not leave unread bits:\n%v", err)
	}
	text := string(Emit(d, EmitOptions{})["ok_keep.v"])
	if want := "wire _unused = ^{a[7:6], a[2:0], _s_0[3:0]};\n"; !strings.Contains(text, want) {
		t.Errorf("ok_keep.v lacks %q:\n%s", want, text)
	}
	if mid.n.drop {
		t.Errorf("Keep of the whole of a slice marked the slice itself as dropping bits")
	}
	checkWithTools(t, m)

	bad := NewModule("bad_keep", "")
	x := bad.Input("x", 8, "")
	at := nextLine()
	sum := x.Add(Const(8, 3))
	bad.Assign(bad.Output("s", 4, ""), sum.Slice(7, 4))
	_, err = elaborateNoPanic(t, bad)
	want := errLine(at, "usage", "bad_keep", "bits [3:0] of this 8-bit add are never read: narrow the operands before the operation")
	if err == nil || err.Error() != want {
		t.Errorf("errors:\n%v\nwant:\n%s", err, want)
	}
}

// Two module values of one name and one content are one module: emitted
// once, shared by the designs that use it; CheckShared accepts them and
// rejects a clash between designs.
func TestModuleIdentityByContent(t *testing.T) {
	leaf := func(inv bool) *Module {
		l := NewModule("leaf", "")
		a := l.Input("a", 8, "")
		if inv {
			l.Assign(l.Output("y", 8, ""), a.Not())
		} else {
			l.Assign(l.Output("y", 8, ""), a)
		}
		return l
	}
	top := func(name string, inv bool) *Module {
		m := NewModule(name, "")
		a := m.Input("a", 8, "")
		u1 := m.Instantiate("u1", leaf(inv)).In("a", a)
		u2 := m.Instantiate("u2", leaf(inv)).In("a", a)
		m.Assign(m.Output("y", 8, ""), u1.Out("y").Xor(u2.Out("y")))
		return m
	}
	d1, err := elaborateNoPanic(t, top("top_one", false))
	if err != nil {
		t.Fatal(err)
	}
	if len(d1.Modules) != 2 || len(Emit(d1, EmitOptions{})) != 2 {
		t.Errorf("two equal leaf values: %d modules, want leaf once and the top", len(d1.Modules))
	}
	d2, err := elaborateNoPanic(t, top("top_two", false))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckShared(d1, d2); err != nil {
		t.Errorf("CheckShared of two designs sharing an equal leaf: %v", err)
	}
	if got := Shared(d1, d2); len(got) != 1 || got[0] != "leaf" {
		t.Errorf("Shared = %v, want [leaf]", got)
	}
	d3, err := elaborateNoPanic(t, top("top_three", true))
	if err != nil {
		t.Fatal(err)
	}
	err = CheckShared(d1, d3)
	if err == nil || !strings.Contains(err.Error(), "shared: module leaf: two different modules are named leaf") {
		t.Errorf("CheckShared of two designs with different leaves named alike: %v", err)
	}
}
