package hdlgen

import (
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
