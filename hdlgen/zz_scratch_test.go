package hdlgen

import (
	"os"
	"testing"
)

func dump(t *testing.T, top *Module) {
	d, err := Elaborate(top)
	if err != nil {
		t.Log(err)
		return
	}
	for name, b := range Emit(d, EmitOptions{}) {
		os.WriteFile("/tmp/scratch/"+name, b, 0o644)
	}
}

func TestZZ1(t *testing.T) {
	m := NewModule("zz1", "")
	a := m.Input("a", 8, "")
	b := m.Input("b", 8, "")
	y := m.Output("y", 1, "")
	m.Assign(y, a.Add(b).Bit(0))
	dump(t, m)
}

func TestZZ2(t *testing.T) {
	m := NewModule("zz2", "")
	a := m.Input("a", 8, "")
	y := m.Output("y", 8, "")
	x := m.Var("x", 8, "")
	z := m.Var("z", 8, "")
	m.Comb("p", func(p *Process) {
		p.Set(x, a.Add(Const(8, 1)))
		p.Set(z, x.Add(Const(8, 1)))
	})
	m.Assign(y, z)
	dump(t, m)
}

func TestZZ3(t *testing.T) {
	m := NewModule("zz3", "")
	a := m.Input("a", 8, "")
	y := m.Output("y", 8, "")
	x := m.Var("x", 8, "")
	z := m.Var("z", 8, "")
	w := m.Wire("w", x.Add(Const(8, 1)))
	m.Comb("p", func(p *Process) {
		p.Set(x, a.Add(Const(8, 1)))
		p.Set(z, w.Add(Const(8, 1)))
	})
	m.Assign(y, z)
	dump(t, m)
}

func TestZZ4(t *testing.T) {
	sub := NewModule("zz4sub", "")
	a := sub.Input("a", 8, "")
	y := sub.Output("y", 8, "")
	r := sub.Reg("r", 8, "", ResetTo(0))
	sub.Assign(r.Next, a)
	sub.Assign(y, r)
	m := NewModule("zz4", "")
	ma := m.Input("a", 8, "")
	my := m.Output("y", 8, "")
	u := m.Instantiate("u", sub)
	u.In("a", ma)
	m.Assign(my, u.Out("y"))
	dump(t, m)
}

func TestZZ5(t *testing.T) {
	sub := NewModule("zz5sub", "")
	a := sub.Input("a", 8, "")
	y := sub.Output("y", 8, "")
	y2 := sub.Output("y2", 8, "")
	sub.Assign(y, a)
	sub.Assign(y2, a)
	m := NewModule("zz5", "")
	ma := m.Input("a", 8, "")
	my := m.Output("y", 8, "")
	u := m.Instantiate("u", sub)
	u.In("a", ma)
	m.Assign(my, u.Out("y"))
	d, err := Elaborate(m)
	t.Log(err)
	func() {
		defer func() { t.Log("recovered:", recover()) }()
		Emit(d, EmitOptions{})
	}()
}

func TestZZ6(t *testing.T) {
	m := NewModule("zz6", "")
	a := m.Input("type", 8, "")
	y := m.Output("final", 8, "")
	m.Assign(y, a)
	dump(t, m)
}
