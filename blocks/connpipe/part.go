package connpipe

import (
	"fmt"

	"github.com/nicgen/nicgen/hdlgen"
)

// Part is a block's datapath apart from its shell: the fields of its
// events, results and word, and the step that computes an outcome. A block
// builds itself as Build(m, spec, part.Step) around it; another block can
// run it inside its own step (Step.Sub), so that one shell, one word and
// one event stream serve several datapaths (a composed block, such as
// uet_cc: nscc and reps on the same events).
type Part struct {
	Name         string   // the block it comes from, for messages and docs
	KindW        int      // width of the part's kind
	KindNames    []string // the part's event kinds, by value
	EventFields  []Field
	ResultFields []Field
	Word         *hdlgen.Layout
	// Invariants hold of every word of the part (Spec.WordInvariants);
	// a composed block declares them of its fields of the word with
	// EmbedInvariants.
	Invariants []Invariant
	// Step computes the part's outcome. It may add to the module it was
	// made for (instances, registers, parameters): every name it gives
	// must differ from the other parts' of a composition.
	Step func(Step) Outcome
}

// View is how a composed event drives one part (Step.Sub).
type View struct {
	// Kind is the part's kind for the event, KindW bits wide.
	Kind hdlgen.Expr
	// Active is 1 when the part acts on the event: otherwise its fields of
	// the word are written back as they were read, its results should not
	// be used, and its Fire is 0, so that it changes no global state.
	// Unset (the zero Expr), the part acts on every event.
	Active hdlgen.Expr
	// Event holds every one of the part's event fields, of its width. A
	// field may be of any stage (a value of the word, stage 4).
	Event hdlgen.Record
}

// Member is a part's outcome inside a composed step.
type Member struct {
	Result map[string]hdlgen.Value // the part's results by field name
	Cur    hdlgen.Record           // the part's fields of the current word
	part   Part
	prefix string
	active hdlgen.Expr
	word   hdlgen.Record // the part's new word, split into fields
}

// Sub runs part's datapath inside st, the step of a composed block whose
// word holds each of the part's word fields as prefix + field (Embed). The
// part sees its own fields under their own names, its kind and event
// fields from v, st's pipeline and depth, and st.Fire gated by v.Active.
// Errors (a missing event field, a field of the wrong width, an undriven
// result) are build errors at the caller.
func (st Step) Sub(m *hdlgen.Module, part Part, prefix string, v View) Member {
	at := hdlgen.Caller(1)
	cur := part.fieldsOf(st.Cur, prefix)
	ev := hdlgen.NewRecord("the " + part.Name + " part's event")
	for _, f := range part.EventFields {
		if !v.Event.Has(f.Name) {
			m.Fail(at, "composing %s: the view gives no event field %q", part.Name, f.Name)
			ev.Set(f.Name, hdlgen.Const(f.Width, 0))
			continue
		}
		x := v.Event.F(f.Name)
		if x.Width() != f.Width {
			m.Fail(at, "composing %s: event field %q is %d bits, the view's value %d", part.Name, f.Name, f.Width, x.Width())
		}
		ev.Set(f.Name, x)
	}
	if v.Kind.Width() != part.KindW {
		m.Fail(at, "composing %s: its kind is %d bits, the view's %d", part.Name, part.KindW, v.Kind.Width())
	}
	fire := st.Fire
	if v.Active == (hdlgen.Expr{}) {
		v.Active = hdlgen.True()
	} else {
		// gated fire, recomputed in every later stage from that stage's
		// own fire, as the shell's (a copy carried through the stages
		// would fire after a reset)
		fire = st.Fire.And(v.Active).Named(prefix + "fire")
		active := v.Active
		st.Pipe.AliasFunc(fire, func(k int) hdlgen.Value {
			return st.Pipe.At(st.Fire, k).And(st.Pipe.At(active, k)).Named(fmt.Sprintf("s%d_%sfire", k, prefix))
		})
	}
	out := part.Step(Step{Cur: cur, Kind: v.Kind, Event: ev, Fire: fire, Pipe: st.Pipe, Depth: st.Depth})
	if problem := outcomeProblem(part.ResultFields, out); problem != "" {
		m.Fail(at, "composing %s: %s", part.Name, problem)
		if out.Word == (hdlgen.Expr{}) {
			out.Word = part.Word.Zero()
		}
	}
	return Member{Result: out.Result, Cur: cur, part: part, prefix: prefix, active: v.Active,
		word: part.Word.Unpack(out.Word, prefix+"new")}
}

// fieldsOf is the part's fields of a composed word w (Embed with prefix),
// under the part's own names.
func (p Part) fieldsOf(w hdlgen.Record, prefix string) hdlgen.Record {
	r := hdlgen.NewRecord("the " + p.Name + " part of the word")
	for _, f := range p.Word.Fields() {
		r.Set(f.Name, w.F(prefix+f.Name))
	}
	return r
}

func hasField(fs []Field, name string) bool {
	for _, f := range fs {
		if f.Name == name {
			return true
		}
	}
	return false
}

// Fields adds the member's fields of the composed word's next value to
// into, by their composed names: the part's new fields when it is active,
// the fields it read otherwise.
func (mb Member) Fields(into map[string]hdlgen.Value) {
	for _, f := range mb.part.Word.Fields() {
		into[mb.prefix+f.Name] = hdlgen.Mux(mb.active, mb.word.F(f.Name), mb.Cur.F(f.Name))
	}
}

// Embed adds part's word fields to the composed layout l, each named
// prefix + its name and documented as the part's.
func Embed(l *hdlgen.Layout, part Part, prefix string) *hdlgen.Layout {
	for _, f := range part.Word.Fields() {
		l.Field(prefix+f.Name, f.Width, fmt.Sprintf("%s: %s", part.Name, f.Doc))
	}
	return l
}

// EmbedInvariants is part's word invariants over its fields of a composed
// word (Embed with the same prefix), named prefix + their name.
func EmbedInvariants(part Part, prefix string) []Invariant {
	var out []Invariant
	for _, inv := range part.Invariants {
		out = append(out, Invariant{Name: prefix + inv.Name, Holds: func(w hdlgen.Record) hdlgen.Value {
			return inv.Holds(part.fieldsOf(w, prefix))
		}})
	}
	return out
}
