package hdlgen

import (
	"fmt"
	"sort"
	"strings"
)

// Field is one named part of a memory word.
type Field struct {
	Name  string
	Width int
	Doc   string
	Lo    int // bit position of the field's least significant bit
}

// Layout is the word layout of a state memory: named fields packed with the
// first field at bit 0. It is the one declaration from which the Verilog
// slices, the state budget and the documentation are all derived.
type Layout struct {
	name   string
	fields []Field
	byName map[string]int
	width  int
	errs   []string
}

// NewLayout starts an empty word layout.
func NewLayout(name string) *Layout { return &Layout{name: name, byName: map[string]int{}} }

// Field appends a field and returns the layout for chaining.
func (l *Layout) Field(name string, width int, doc string) *Layout {
	if _, dup := l.byName[name]; dup {
		l.errs = append(l.errs, fmt.Sprintf("field %q declared twice", name))
		return l
	}
	if width < 1 {
		l.errs = append(l.errs, fmt.Sprintf("field %q has width %d", name, width))
		width = 1
	}
	l.byName[name] = len(l.fields)
	l.fields = append(l.fields, Field{Name: name, Width: width, Doc: doc, Lo: l.width})
	l.width += width
	return l
}

// Name of the layout.
func (l *Layout) Name() string { return l.name }

// Width is the total number of bits of a word.
func (l *Layout) Width() int { return l.width }

// Fields returns the fields in declaration (bit) order.
func (l *Layout) Fields() []Field { return append([]Field(nil), l.fields...) }

// Has reports whether the layout has a field of that name.
func (l *Layout) Has(name string) bool { _, ok := l.byName[name]; return ok }

// Get reads field name out of a word.
func (l *Layout) Get(word Value, name string) Expr {
	i, ok := l.byName[name]
	if !ok {
		e := Const(1, 0)
		return e.fail("layout %s has no field %q (fields: %s)", l.name, name, l.names())
	}
	w := Expr{word.node()}
	f := l.fields[i]
	if w.Width() != l.width {
		return w.failAt(f.Width, "word of %d bits read with layout %s of %d bits", w.Width(), l.name, l.width)
	}
	return w.Slice(f.Lo+f.Width-1, f.Lo)
}

// Record is a word split into its fields.
type Record map[string]Expr

// Unpack splits a word into named wires prefix_<field>.
func (l *Layout) Unpack(word Value, prefix string) Record {
	r := Record{}
	for _, f := range l.fields {
		r[f.Name] = l.Get(word, f.Name).Named(prefix + "_" + f.Name)
	}
	return r
}

// Pack builds a word from a value for every field; a missing or unknown
// field, or a width mismatch, is an error.
func (l *Layout) Pack(values map[string]Value) Expr {
	parts := make([]Value, 0, len(l.fields))
	var problems []string
	for i := len(l.fields) - 1; i >= 0; i-- {
		f := l.fields[i]
		v, ok := values[f.Name]
		if !ok {
			problems = append(problems, fmt.Sprintf("missing field %q", f.Name))
			v = Const(f.Width, 0)
		} else if v.node().width != f.Width {
			problems = append(problems, fmt.Sprintf("field %q is %d bits, value is %d bits", f.Name, f.Width, v.node().width))
		}
		parts = append(parts, Expr{v.node()}.AsUnsigned())
	}
	var extra []string
	for name := range values {
		if _, ok := l.byName[name]; !ok {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		problems = append(problems, fmt.Sprintf("unknown field %q", name))
	}
	r := Cat(parts...)
	if len(problems) > 0 {
		return r.fail("Pack %s: %s", l.name, strings.Join(problems, "; "))
	}
	return r
}

func (l *Layout) names() string {
	n := make([]string, len(l.fields))
	for i, f := range l.fields {
		n[i] = f.Name
	}
	return strings.Join(n, ", ")
}
