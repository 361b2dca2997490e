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

// Zero is the all-zero word, however wide (a constant is at most 64 bits).
func (l *Layout) Zero() Expr {
	values := map[string]Value{}
	for _, f := range l.fields {
		values[f.Name] = Const(f.Width, 0)
	}
	return l.Pack(values)
}

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

// Record is a set of named values: a word split into its fields, an
// event's fields, a result beat. Reading a field it does not have is an
// error located at the line that reads it, never a nil value.
type Record struct{ r *record }

type record struct {
	of     string // what the fields belong to, for messages
	fields map[string]Expr
	order  []string
}

// NewRecord starts an empty record of the named thing (a layout, an event).
func NewRecord(of string) Record { return Record{&record{of: of, fields: map[string]Expr{}}} }

// Set adds or replaces a field and returns the record (records are shared:
// a copy sees the field too; start one with NewRecord).
func (r Record) Set(name string, v Value) Record {
	if r.r == nil { // a zero Record: the returned one holds the field
		r = NewRecord("")
	}
	if _, ok := r.r.fields[name]; !ok {
		r.r.order = append(r.r.order, name)
	}
	r.r.fields[name] = Expr{v.node()}
	return r
}

// F is the value of a field; a field the record does not have is a build
// error at the caller's line that lists the fields it has.
func (r Record) F(name string) Expr {
	if r.r != nil {
		if v, ok := r.r.fields[name]; ok {
			return v
		}
	}
	return Const(1, 0).fail("%s has no field %q (fields: %s)", r.describe(), name, strings.Join(r.Names(), ", "))
}

// Has reports whether the record has a field.
func (r Record) Has(name string) bool {
	if r.r == nil {
		return false
	}
	_, ok := r.r.fields[name]
	return ok
}

// Names lists the fields in the order they were set.
func (r Record) Names() []string {
	if r.r == nil {
		return nil
	}
	return append([]string(nil), r.r.order...)
}

func (r Record) describe() string {
	if r.r == nil || r.r.of == "" {
		return "record"
	}
	return r.r.of
}

// Unpack splits a word into named wires prefix_<field>.
func (l *Layout) Unpack(word Value, prefix string) Record {
	r := NewRecord("layout " + l.name)
	for _, f := range l.fields {
		r.Set(f.Name, l.Get(word, f.Name).Named(prefix+"_"+f.Name))
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
