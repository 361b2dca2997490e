package hdlgen

import (
	"regexp"
	"strings"
	"testing"
)

// ctrOptions selects a variant of formalExample.
type ctrOptions struct {
	props    bool // declare the properties
	reserved bool // s_in_data has a bit 3 that only the assumption reads
	noAssume bool // leave out the input assumption the proof needs
	offByOne bool // the wrap test lets count reach limit + 1
}

// formalExample is a table of per-connection counters that wrap to 0 above
// a limit, with the invariant count <= limit stated over the table. An
// event with data bit 2 set would store 15: the environment promises never
// to send one (an assumption). With reserved, data has a bit 3 that must be
// 0 too and that only the assumption reads.
func formalExample(o ctrOptions) *Module {
	const limit = 9
	m := NewModule("ex_ctr", "Per-connection counters modulo 10 in a state table.")
	inValid := m.Input("s_in_valid", 1, "event valid")
	inConn := m.Input("s_in_conn", 2, "connection")
	dataW := 3
	if o.reserved {
		dataW = 4
	}
	inData := m.Input("s_in_data", dataW, "step in bits 1:0; bit 2 poisons; bit 3 reserved")
	outValid := m.Output("m_out_valid", 1, "result valid")
	outCount := m.Output("m_out_count", 4, "count after the event")

	word := NewLayout("ctr_word").Field("count", 4, "events modulo 10")
	table := m.Memory("ctr", 4, word, true)
	s1Valid := m.Reg("s1_valid", 1, "stage 1 holds an event", ResetTo(0))
	s1Conn := m.Reg("s1_conn", 2, "stage 1 connection", NoReset())
	s1Data := m.Reg("s1_data", 3, "stage 1 step and poison", NoReset())
	resValid := m.Reg("res_valid", 1, "result valid", ResetTo(0))
	resCount := m.Reg("res_count", 4, "result count", NoReset())

	rd := m.Read(table, inConn, True())
	cur := word.Get(rd, "count")
	sum := cur.Add(s1Data.Slice(1, 0).ZExt(4)).Named("sum")
	over := sum.Gt(Const(4, limit))
	if o.offByOne {
		over = sum.Gt(Const(4, limit+1))
	}
	next := Mux(s1Data.Bit(2), Const(4, 15), Mux(over, Const(4, 0), sum)).Named("next")
	m.Write(table, s1Conn, word.Pack(map[string]Value{"count": next}), s1Valid)
	m.Comb("pipeline", func(p *Process) {
		p.Set(s1Valid, inValid)
		p.Set(s1Conn, inConn)
		p.Set(s1Data, inData.Slice(2, 0))
		p.Set(resValid, s1Valid)
		p.Set(resCount, next)
	})
	m.Assign(outValid, resValid)
	m.Assign(outCount, resCount)
	if o.props {
		m.TableInvariant(table, "count_le_limit", func(w Record) Value { return w.F("count").Le(Const(4, limit)) })
		if !o.noAssume {
			m.Assume("no_poison", inValid.Implies(inData.Slice(dataW-1, 2).IsZero()))
		}
		// stage 1 only holds what the assumption let in
		m.Assert("s1_clean", s1Valid.Implies(s1Data.Bit(2).Not()))
		// a property with wires of its own, one dropping bits on purpose
		low := resCount.ZExt(5).Add(Const(5, 16)).Keep(3, 0)
		m.Assert("result_le_limit", resValid.Implies(low.Le(Const(4, limit))))
	}
	return m
}

func TestFormalChecks(t *testing.T) {
	for _, c := range []checkCase{
		{"wide condition", func() (*Module, []string) {
			m := NewModule("bad_prop", "")
			a := m.Input("a", 4, "")
			at := nextLine()
			m.Assert("a_small", a.Add(Const(4, 1)))
			return m, []string{errLine(at, "widths", "bad_prop", "assert a_small: condition is 4 bits, must be 1")}
		}},
		{"duplicate name", func() (*Module, []string) {
			m := NewModule("dup_prop", "")
			a := m.Input("a", 1, "")
			first := nextLine()
			m.Assert("p", a)
			at := nextLine()
			m.Assume("p", a.Not())
			return m, []string{errLine(at, "names", "dup_prop", "name p is already used at %s", first)}
		}},
		{"name of a signal", func() (*Module, []string) {
			m := NewModule("clash_prop", "")
			decl := nextLine()
			a := m.Input("a", 1, "")
			at := nextLine()
			m.Assert("a", a)
			return m, []string{errLine(at, "names", "clash_prop", "name a is already used at %s", decl)}
		}},
		{"not an identifier", func() (*Module, []string) {
			m := NewModule("ident_prop", "")
			a := m.Input("a", 1, "")
			at := nextLine()
			m.Assert("a holds", a)
			return m, []string{errLine(at, "names", "ident_prop", "%q is not a Verilog identifier (letters, digits and _, starting with a letter)", "a holds")}
		}},
		{"Implies width", func() (*Module, []string) {
			m := NewModule("imp_prop", "")
			a := m.Input("a", 1, "")
			b := m.Input("b", 2, "")
			at := nextLine()
			m.Assert("p", a.Implies(b))
			return m, []string{errLine(at, "widths", "imp_prop", "Implies of 1-bit and 2-bit values: both must be 1 bit")}
		}},
		{"TableInvariant before Write", func() (*Module, []string) {
			m := NewModule("early_inv", "")
			a := m.Input("a", 1, "")
			word := NewLayout("w").Field("x", 2, "")
			mem := m.Memory("t", 2, word, false)
			rd := m.Read(mem, a, True())
			r := m.Reg("r", 2, "", ResetTo(0))
			m.Assign(r.Next, rd)
			m.Assign(m.Output("y", 2, ""), r)
			at := nextLine()
			m.TableInvariant(mem, "x_small", func(w Record) Value { return w.F("x").Lt(Const(2, 3)) })
			m.Write(mem, a, Const(2, 0), a)
			return m, []string{errLine(at, "build", "early_inv", "memory t: TableInvariant x_small needs the read and the write port (call it after Read and Write)")}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			top, want := c.build()
			_, err := elaborateNoPanic(t, top)
			if err == nil {
				t.Fatalf("Elaborate accepted the module; want:\n%s", strings.Join(want, "\n"))
			}
			if got := err.Error(); got != strings.Join(want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
			}
		})
	}
}

// A value read only by a property is used: bit 3 of s_in_data.
func TestFormalReadsCount(t *testing.T) {
	d, err := elaborateNoPanic(t, formalExample(ctrOptions{props: true, reserved: true}))
	if err != nil {
		t.Fatalf("the properties read s_in_data[3]:\n%v", err)
	}
	text := string(Emit(d, EmitOptions{})["ex_ctr.v"])
	if !strings.Contains(text, "`else\n// read only by the properties\nwire _unused_formal = ^{s_in_data};\n`endif\n") {
		t.Errorf("without FORMAL, s_in_data is not read into _unused_formal:\n%s", text)
	}
	_, err = elaborateNoPanic(t, formalExample(ctrOptions{reserved: true}))
	if err == nil || !strings.Contains(err.Error(), "bits [3:3] of s_in_data are never read") {
		t.Fatalf("without the properties s_in_data[3] is unread; got %v", err)
	}
}

var formalBlock = regexp.MustCompile("(?s)`ifdef FORMAL\n.*?`endif\n\n")

// Properties add one block at the end and change nothing else: the design
// part of the file, its names included, is the file without them.
func TestFormalEmitLeavesDesignAlone(t *testing.T) {
	emit := func(o ctrOptions) string {
		d, err := elaborateNoPanic(t, formalExample(o))
		if err != nil {
			t.Fatal(err)
		}
		return string(Emit(d, EmitOptions{Locators: true})["ex_ctr.v"])
	}
	with := emit(ctrOptions{props: true})
	blocks := formalBlock.FindAllString(with, -1)
	if len(blocks) != 1 {
		t.Fatalf("want one `ifdef FORMAL block, found %d:\n%s", len(blocks), with)
	}
	for _, want := range []string{
		"count_le_limit: assert (", "count_le_limit_rd: assume (", "no_poison: assume (",
		"result_le_limit: assert (", "wire _unused_formal = ^{_result_le_limit_1[4]};",
	} {
		if !strings.Contains(blocks[0], want) {
			t.Errorf("the FORMAL block lacks %q:\n%s", want, blocks[0])
		}
	}
	if strings.Contains(blocks[0], "`else") {
		t.Errorf("the design reads everything the properties read, yet there is an `else branch:\n%s", blocks[0])
	}
	if got, want := formalBlock.ReplaceAllString(with, ""), emit(ctrOptions{}); got != want {
		t.Errorf("the design part depends on the properties (- without, + with):\n%s", unifiedDiff(want, got))
	}
}

// TestFormalRealTools: without FORMAL the file is clean Verilog-2005; with
// it Yosys reads the properties, yosys-smtbmc proves the good design (BMC
// and induction), and finds the off-by-one and the missing assumption, each
// with the label of the failed assertion.
func TestFormalRealTools(t *testing.T) {
	requireTool(t, "yosys-smtbmc")
	requireTool(t, "z3")
	build := func(o ctrOptions) string {
		d, err := elaborateNoPanic(t, formalExample(o))
		if err != nil {
			t.Fatal(err)
		}
		dir := writeDesign(t, Emit(d, EmitOptions{}))
		verilatorLint(t, dir, "ex_ctr", []string{"ex_ctr.v"})
		iverilogParse(t, dir, "ex_ctr", []string{"ex_ctr.v"})
		script := "read_verilog -formal -DFORMAL ex_ctr.v; prep -top ex_ctr; memory_map; opt_clean; setundef -zero -init; write_smt2 -wires ex_ctr.smt2"
		if out, err := runTool(t, dir, nil, "yosys", "-q", "-p", script); err != nil {
			t.Fatalf("yosys: %v\n%s", err, out)
		}
		return dir
	}
	smtbmc := func(dir string, args ...string) (string, error) {
		return runTool(t, dir, nil, "yosys-smtbmc", append(append([]string{"-s", "z3"}, args...), "ex_ctr.smt2")...)
	}
	good := build(ctrOptions{props: true, reserved: true})
	if out, err := smtbmc(good, "-t", "12"); err != nil {
		t.Errorf("BMC of the good counter failed: %v\n%s", err, out)
	}
	if out, err := smtbmc(good, "-i", "-t", "2"); err != nil {
		t.Errorf("induction on the good counter failed: %v\n%s", err, out)
	}
	for _, c := range []struct {
		o      ctrOptions
		failed string
	}{
		{ctrOptions{props: true, reserved: true, offByOne: true}, "count_le_limit"},
		{ctrOptions{props: true, noAssume: true}, "s1_clean"},
	} {
		out, err := smtbmc(build(c.o), "-t", "12")
		if err == nil || !strings.Contains(out, "Assert failed in ex_ctr: "+c.failed) {
			t.Errorf("%+v: want a failure of %s, got %v:\n%s", c.o, c.failed, err, out)
		}
	}
}
