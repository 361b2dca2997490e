package hdlgen

import (
	"strings"
	"testing"
)

func mutateFixture() *Module {
	sub := NewModule("mut_sub", "")
	a := sub.Input("a", 4, "")
	b := sub.Input("b", 4, "")
	sum := a.Add(b).Named("sum")
	sub.Assign(sub.Output("y", 4, ""), sum)
	top := NewModule("mut_top", "")
	x := top.Input("x", 4, "")
	u := top.Instantiate("u", sub).In("a", x).In("b", Const(4, 3))
	inc := x.Add(Const(4, 1)).Named("inc")
	top.Wire("w", inc.Xor(Const(4, 5)))
	top.Assign(top.Output("y", 4, ""), u.Out("y").Xor(inc))
	top.Assign(top.Output("z", 4, ""), top.byName["w"].Expr)
	return top
}

// A mutation replaces a named value of the top or of a submodule, or a
// wire, keeps the name, and changes the emitted logic only there.
func TestMutate(t *testing.T) {
	top := mutateFixture()
	err := Mutate(top,
		Mutation{Module: "mut_sub", Node: "sum", With: func(orig Expr, get func(string) Expr) Expr { return get("a").Sub(get("b")) }},
		Mutation{Node: "inc", With: func(orig Expr, _ func(string) Expr) Expr { return orig.Add(Const(4, 1)) }},
		Mutation{Node: "w", With: func(orig Expr, get func(string) Expr) Expr { return get("x") }},
	)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Elaborate(top)
	if err != nil {
		t.Fatal(err)
	}
	files := Emit(d, EmitOptions{})
	sub, topV := string(files["mut_sub.v"]), string(files["mut_top.v"])
	for _, want := range []string{"a - b", "wire [3:0] sum"} {
		if !strings.Contains(sub, want) {
			t.Errorf("mut_sub.v lacks %q:\n%s", want, sub)
		}
	}
	if strings.Contains(sub, "a + b") {
		t.Errorf("mut_sub.v still adds:\n%s", sub)
	}
	if !strings.Contains(topV, "assign w = x;") && !strings.Contains(topV, "w = x") {
		t.Errorf("mut_top.v: wire w not replaced:\n%s", topV)
	}
}

// A mutation that cannot apply is an error, never a silent no-op.
func TestMutateErrors(t *testing.T) {
	for _, c := range []struct {
		mu   Mutation
		want string
	}{
		{Mutation{Module: "nope", Node: "sum", With: func(o Expr, _ func(string) Expr) Expr { return o }}, "no module nope"},
		{Mutation{Node: "nope", With: func(o Expr, _ func(string) Expr) Expr { return o }}, "no named value or wire nope"},
		{Mutation{Node: "inc", With: func(o Expr, get func(string) Expr) Expr { return get("nope") }}, "no value named [nope]"},
		{Mutation{Node: "inc", With: func(o Expr, _ func(string) Expr) Expr { return o.ZExt(5) }}, "a 5-bit replacement for a 4-bit value"},
	} {
		if err := Mutate(mutateFixture(), c.mu); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.mu.Node, err, c.want)
		}
	}
}
