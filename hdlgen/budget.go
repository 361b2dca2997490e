package hdlgen

import "sort"

// BudgetField is one piece of architectural state.
type BudgetField struct {
	Name  string `json:"name"` // scoped: <instance>.<register> or <memory>.<field>
	Width int    `json:"width"`
	Doc   string `json:"doc"`
	Scope string `json:"scope"` // "per-connection" or "global"
}

// Budget is the state a block keeps, derived from its declarations: the
// fields of its per-connection memories and the registers marked
// GlobalState, in this module and every instance below it.
type Budget struct {
	Module      string
	Connections int // depth of the per-connection table (0 if none)
	PerConn     []BudgetField
	Global      []BudgetField
}

// PerConnBits is the number of bits of state per connection.
func (b Budget) PerConnBits() int { return sumWidths(b.PerConn) }

// GlobalBits is the number of bits of state shared by all connections.
func (b Budget) GlobalBits() int { return sumWidths(b.Global) }

// TableBits is the size of the per-connection table for all connections.
func (b Budget) TableBits() int { return b.PerConnBits() * b.Connections }

func sumWidths(fs []BudgetField) int {
	t := 0
	for _, f := range fs {
		t += f.Width
	}
	return t
}

// StateBudget derives the budget of a module.
func StateBudget(m *Module) Budget {
	b := Budget{Module: m.name}
	collectBudget(m, "", &b)
	sort.SliceStable(b.Global, func(i, j int) bool { return b.Global[i].Name < b.Global[j].Name })
	return b
}

func collectBudget(m *Module, prefix string, b *Budget) {
	for _, mem := range m.mems {
		if !mem.PerConnection {
			for _, f := range mem.Layout.fields {
				b.Global = append(b.Global, BudgetField{Name: prefix + mem.Name + "." + f.Name, Width: f.Width * mem.Depth, Doc: f.Doc, Scope: "global"})
			}
			continue
		}
		if b.Connections == 0 {
			b.Connections = mem.Depth
		}
		for _, f := range mem.Layout.fields {
			b.PerConn = append(b.PerConn, BudgetField{Name: prefix + mem.Name + "." + f.Name, Width: f.Width, Doc: f.Doc, Scope: "per-connection"})
		}
	}
	for _, r := range m.regs {
		if r.state {
			name := r.Signal.name[:len(r.Signal.name)-len("_reg")]
			b.Global = append(b.Global, BudgetField{Name: prefix + name, Width: r.Signal.width, Doc: r.Signal.doc, Scope: "global"})
		}
	}
	for _, in := range m.insts {
		collectBudget(in.mod, prefix+in.Name+".", b)
	}
}
