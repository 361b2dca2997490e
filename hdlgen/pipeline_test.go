package hdlgen

import (
	"fmt"
	"strings"
	"testing"
)

// TestPipelineBalances: an operand of an earlier stage is carried to the
// stage of the operation through one register per stage, shared by every
// use, and the cut registers are named after their stage.
func TestPipelineBalances(t *testing.T) {
	m := NewModule("pipe_t", "pipeline balancing")
	x := m.Input("x", 8, "x")
	y := m.Input("y", 8, "y")
	out := m.Output("out", 8, "out")
	sx := m.Reg("in_x", 8, "x", NoReset())
	sy := m.Reg("in_y", 8, "y", NoReset())
	vr := m.Reg("valid", 1, "a reset register, so that rst is used", ResetTo(0))
	m.Assign(vr.Next, x.Bit(0))
	m.Assign(sx.Next, x)
	m.Assign(sy.Next, y)
	p := m.Pipeline()
	p.Source(sx, 1)
	p.Source(sy, 1)
	var res Expr
	p.Within(func() {
		sum := p.Cut("sum", sx.Add(sy).Named("sum"))     // stage 2
		prod := p.Cut("prod", sum.Mul(sx).Named("prod")) // stage 3: x carried to 2
		res = prod.Xor(sx).Xor(sy).Named("res")          // stage 3: x and y carried to 3
	})
	if got := p.Stage(res); got != 3 {
		t.Fatalf("stage of res = %d, want 3", got)
	}
	m.Assign(out, res.Xor(Mux(vr, Ones(8), Const(8, 0))))
	d, err := Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	v := string(Emit(d, EmitOptions{})["pipe_t.v"])
	for _, want := range []string{"s2_sum_reg", "s3_prod_reg", "s2_in_x_reg", "s3_in_x_reg", "s2_in_y_reg", "s3_in_y_reg"} {
		if !strings.Contains(v, "reg  [7:0] "+want+";") {
			t.Errorf("no register %s:\n%s", want, v)
		}
	}
	if strings.Count(v, "reg  [7:0] s2_in_x_reg;") != 1 {
		t.Errorf("x is carried to stage 2 more than once")
	}
}

// TestPipelineCountOnly: a pipeline that only counts stages places every
// value in the stage it would have otherwise, adds no register (cuts
// included),
// still reports a value wanted too early, and its module cannot be
// elaborated.
func TestPipelineCountOnly(t *testing.T) {
	build := func(count bool) (stages []int, regs int, m *Module) {
		m = NewModule("count_t", "counting stages")
		x := m.Input("x", 8, "x")
		sx := m.Reg("in_x", 8, "x", NoReset())
		m.Assign(sx.Next, x)
		p := m.Pipeline()
		if count {
			p.CountOnly()
		}
		p.Source(sx, 1)
		before := len(m.regs)
		p.Within(func() {
			sum := p.Cut("sum", sx.Add(sx).Named("sum"))     // stage 2
			prod := p.Cut("prod", sum.Mul(sx).Named("prod")) // stage 3
			late := p.At(sx, 5)                              // stage 5
			stages = []int{p.Stage(sum), p.Stage(prod), p.Stage(prod.Xor(sx)), p.Stage(late), p.Stage(late.Xor(prod)), p.Last()}
			p.At(late, 4) // wanted before its stage: an error either way
		})
		return stages, len(m.regs) - before, m
	}
	full, fullRegs, fm := build(false)
	counted, countedRegs, cm := build(true)
	if fmt.Sprint(full) != fmt.Sprint(counted) || full[len(full)-1] != 5 {
		t.Errorf("stages counted %v, built %v (last stage 5)", counted, full)
	}
	if countedRegs != 0 || fullRegs < 5 {
		t.Errorf("registers: %d counted (want none), %d built", countedRegs, fullRegs)
	}
	if _, err := Elaborate(fm); err == nil || !strings.Contains(err.Error(), "earlier stage 4") {
		t.Errorf("built: want the early-stage error, got %v", err)
	}
	if len(cm.errs) != 1 || !strings.Contains(cm.errs[0].Error(), "earlier stage 4") {
		t.Errorf("counted: want the early-stage error, got %v", cm.errs)
	}
	if _, err := Elaborate(cm); err == nil || !strings.Contains(err.Error(), "only to count") {
		t.Errorf("a counting module was elaborated: %v", err)
	}
}

// TestPipelineAuto: with a budget, a chain of additions is split where
// the estimated arrival passes it, and explicit limits hold.
func TestPipelineAuto(t *testing.T) {
	build := func(budget float64, limit int) int {
		m := NewModule("auto_t", "auto placement")
		x := m.Input("x", 32, "x")
		r := m.Reg("in_x", 32, "x", NoReset())
		m.Assign(r.Next, x)
		p := m.Pipeline()
		p.Source(r, 1)
		p.Auto(budget, limit)
		v := r.Expr
		for i := 0; i < 8; i++ {
			v = v.Add(r) // 0.9 + 0.05 * 32 = 2.5 ns each
		}
		return p.Stage(v)
	}
	if s := build(0, 0); s != 1 {
		t.Errorf("without Auto: stage %d, want 1", s)
	}
	if s := build(5.1, 16); s != 4 { // two additions per stage: 8 in stages 1..4
		t.Errorf("budget 5.1 ns: stage %d, want 4", s)
	}
	if s := build(5.1, 2); s != 2 { // no stage beyond the limit
		t.Errorf("limit 2: stage %d, want 2", s)
	}
}

// TestPipelineProcessMixesStages: a process whose condition and value are
// of different stages is an error at the Go line of the statement.
func TestPipelineProcessMixesStages(t *testing.T) {
	m := NewModule("mix_t", "mixed stages")
	x := m.Input("x", 4, "x")
	a := m.Reg("a", 4, "a", NoReset())
	g := m.Reg("g", 4, "global", ResetTo(0))
	m.Assign(a.Next, x)
	p := m.Pipeline()
	p.Source(a, 1)
	p.Within(func() {
		late := p.Cut("late", a.Add(a).Named("late"))
		m.Comb("upd", func(pr *Process) {
			pr.If(a.Expr.Bit(0), func() { pr.Set(g, late) }) // stage 1 condition, stage 2 value
		})
	})
	_, err := Elaborate(m)
	if err == nil || !strings.Contains(err.Error(), "mixes pipeline stages 1") || !strings.Contains(err.Error(), "pipeline_test.go:") {
		t.Fatalf("want a located mixed-stage error, got %v", err)
	}
}

// mult18x18dModel is a behavioural model of the ECP5 multiplier for this
// test only (Lattice TN1267: unsigned when SIGNEDA/SIGNEDB are 0, P through
// the output register when REG_OUTPUT_CLK is CLK0). Only the pins the
// generated instances use are modelled.
const mult18x18dModel = `
module MULT18X18D #(parameter REG_INPUTA_CLK = "NONE", parameter REG_INPUTB_CLK = "NONE",
  parameter REG_INPUTA_CE = "CE0", parameter REG_INPUTA_RST = "RST0",
  parameter REG_INPUTB_CE = "CE0", parameter REG_INPUTB_RST = "RST0",
  parameter REG_PIPELINE_CLK = "NONE", parameter REG_OUTPUT_CLK = "NONE", parameter REG_OUTPUT_CE = "CE0",
  parameter REG_OUTPUT_RST = "RST0", parameter GSR = "ENABLED", parameter RESETMODE = "SYNC") (
  input A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0,
  input B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0,
  input C17, C16, C15, C14, C13, C12, C11, C10, C9, C8, C7, C6, C5, C4, C3, C2, C1, C0,
  input SIGNEDA, SIGNEDB, SOURCEA, SOURCEB, CLK0, CE0, RST0,
  output P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18,
  output P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0);
  wire [17:0] a_in = {A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0};
  wire [17:0] b_in = {B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0};
  reg [17:0] a_reg, b_reg;
  always @(posedge CLK0) if (CE0) begin a_reg <= RST0 ? 18'd0 : a_in; b_reg <= RST0 ? 18'd0 : b_in; end
  wire [17:0] a = REG_INPUTA_CLK == "CLK0" ? a_reg : a_in;
  wire [17:0] b = REG_INPUTB_CLK == "CLK0" ? b_reg : b_in;
  reg [35:0] p;
  always @(posedge CLK0) if (CE0) p <= RST0 ? 36'd0 : a * b;
  assign {P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18,
          P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0} = p;
endmodule
`

// TestPipelineProductOnECP5Multiplier: a product that ends a stage is,
// under NICGEN_ECP5, a MULT18X18D whose output register is the pipeline
// register (zero-extended, constant and parameter operands included, a
// product by a power of two or of a 19-bit operand not), and both branches
// compute the same values cycle by cycle under Icarus, with the parameter
// overridden at instantiation.
func TestPipelineProductOnECP5Multiplier(t *testing.T) {
	requireTool(t, "iverilog")
	m := NewModule("dsp_t", "products on multipliers")
	a := m.Input("a", 16, "a")
	b := m.Input("b", 12, "b")
	c := m.Input("c", 19, "c")
	y := m.Output("y", 28, "a * b")
	z := m.Output("z", 27, "b * 1000")
	u := m.Output("u", 31, "c * b (no multiplier: c is 19 bits)")
	v := m.Output("v", 16, "a * 4 (a shift)")
	x := m.Output("x", 28, "(a ^ b) * b: an operand computed in the stage")
	r := m.Output("r", 24, "rom(a[3:0]) * b: an operand from a ROM's read register, through a fabric register")
	k := m.Param("K", 10, 777, "a factor an integrator may override")
	w := m.Output("w", 22, "b * K")
	ra := m.Reg("in_a", 16, "a", NoReset())
	rb := m.Reg("in_b", 12, "b", NoReset())
	rc := m.Reg("in_c", 19, "c", NoReset())
	vr := m.Reg("valid", 1, "a reset register, so that rst is used", ResetTo(0))
	m.Assign(vr.Next, a.Bit(0))
	m.Assign(ra.Next, a)
	m.Assign(rb.Next, b)
	m.Assign(rc.Next, c)
	p := m.Pipeline()
	p.Source(ra, 1)
	p.Source(rb, 1)
	p.Source(rc, 1)
	var ey, ez, eu, ev, ex, er, ew Expr
	vals := make([]uint64, 16)
	for i := range vals {
		vals[i] = uint64(4095 - 97*i)
	}
	p.Within(func() {
		ey = p.Cut("ab", ra.MulX(rb).Named("ab"))
		ez = p.Cut("bk", rb.MulX(Const(15, 1000)).Named("bk"))
		eu = p.Cut("cb", rc.MulX(rb).Named("cb"))
		ev = p.Cut("a4", ra.Mul(Const(16, 4)).Named("a4"))
		ex = p.Cut("axb", ra.Xor(rb.ZExt(16)).MulX(rb).Named("axb"))
		rt := p.Cut("rom_t", p.Cut("rom", ROM(ra.Trunc(4), 12, vals).Named("rom")))
		er = p.Cut("rb", rt.MulX(rb).Named("rb"))
		ew = p.Cut("bp", rb.MulX(k).Named("bp"))
	})
	m.Assign(y, ey)
	m.Assign(z, ez.Xor(Mux(vr, Const(27, 0), Const(27, 0))))
	m.Assign(u, eu)
	m.Assign(v, ev)
	m.Assign(x, ex)
	m.Assign(r, er)
	m.Assign(w, ew)
	d, err := Elaborate(m)
	if err != nil {
		t.Fatal(err)
	}
	src := string(Emit(d, EmitOptions{})["dsp_t.v"])
	if n := strings.Count(src, "MULT18X18D #("); n != 5 {
		t.Fatalf("%d MULT18X18D instances, want 5 (a*b, b*1000, (a^b)*b, rom*b, b*K):\n%s", n, src)
	}
	for _, want := range []string{") s2_ab_mult (", ") s2_bk_mult (", ") s2_axb_mult (", "wire [27:0] s2_ab_reg;"} {
		if !strings.Contains(src, want) {
			t.Errorf("no %q in:\n%s", want, src)
		}
	}
	// input registers: operands read from pipeline registers or constant
	// are taken into the multiplier (registers from their next values);
	// with an operand computed in the stage, or read from a block RAM
	// (a ROM's register) through one fabric register, neither is
	params := func(inst string) string {
		end := strings.Index(src, ") "+inst+" (")
		start := strings.LastIndex(src[:max(end, 0)], "MULT18X18D #(")
		if end < 0 || start < 0 {
			t.Fatalf("no instance %s", inst)
		}
		return src[start:end]
	}
	for inst, want := range map[string][2]string{
		"s2_ab_mult": {"CLK0", "CLK0"}, "s2_bk_mult": {"CLK0", "CLK0"}, "s2_axb_mult": {"NONE", "NONE"}, "s4_rb_mult": {"NONE", "NONE"},
		"s2_bp_mult": {"CLK0", "CLK0"},
	} {
		ps := params(inst)
		for i, port := range []string{"A", "B"} {
			if w := fmt.Sprintf(".REG_INPUT%s_CLK(\"%s\")", port, want[i]); !strings.Contains(ps, w) {
				t.Errorf("%s: no %s in %s", inst, w, ps)
			}
		}
	}
	if !strings.Contains(src, ".A0(in_b_next[0])") {
		t.Errorf("b*1000 does not read in_b_next into its input register:\n%s", src)
	}
	if !strings.Contains(params("s2_bp_mult")+src, ".B9(K[9])") {
		t.Errorf("b*K does not take the parameter's bits into its input register:\n%s", src)
	}
	dir := writeDesign(t, map[string][]byte{"dsp_t.v": []byte(src), "model.v": []byte(mult18x18dModel), "tb.v": []byte(`
module tb;
  reg clk = 0, rst = 1;
  reg [15:0] a; reg [11:0] b; reg [18:0] c; reg [11:0] b_d1 = 0;
  wire [27:0] y; wire [26:0] z; wire [30:0] u; wire [15:0] v; wire [27:0] x; wire [23:0] r; wire [21:0] w;
  dsp_t #(.K(10'd555)) dut (.clk(clk), .rst(rst), .a(a), .b(b), .c(c), .y(y), .z(z), .u(u), .v(v), .x(x), .r(r), .w(w));
  integer i;
  initial begin
    for (i = 0; i < 400; i = i + 1) begin
      a = $random; b = $random; c = $random;
      if (i == 3) rst = 0;
      #1 clk = 1; #1 clk = 0;
      if (i > 3) $display("%0d %h %h %h %h %h %h %h", i, y, z, u, v, x, r, w);
      if (i > 3 && w != ({10'd0, b_d1} * 22'd555)) begin $display("b * K = %0d, want %0d", w, {10'd0, b_d1} * 22'd555); $finish; end
      b_d1 = b;
    end
    $finish;
  end
endmodule
`)})
	run := func(defs ...string) string {
		args := append(defs, "-o", "sim", "tb.v", "dsp_t.v", "model.v")
		if out, err := runTool(t, dir, nil, "iverilog", args...); err != nil {
			t.Fatalf("iverilog %v: %v\n%s", defs, err, out)
		}
		out, err := runTool(t, dir, nil, "vvp", "-n", "sim")
		if err != nil {
			t.Fatalf("vvp: %v\n%s", err, out)
		}
		return out
	}
	portable, ecp5 := run(), run("-DNICGEN_ECP5")
	if strings.Count(portable, "\n") < 390 {
		t.Fatalf("the portable simulation printed too little:\n%s", lastLines(portable, 10))
	}
	if portable != ecp5 {
		t.Fatalf("the MULT18X18D branch differs from the portable one:\nportable:\n%s\necp5:\n%s", lastLines(portable, 5), lastLines(ecp5, 5))
	}
	// the outputs move: a branch stuck at 0 would agree with nothing
	seen := map[string]bool{}
	for _, l := range strings.Split(portable, "\n") {
		if f := strings.Fields(l); len(f) == 8 {
			seen[f[1]+f[2]+f[6]] = true
		}
	}
	if len(seen) < 300 {
		t.Fatalf("only %d distinct products in 396 cycles", len(seen))
	}
}
