// Package connpipe builds the NIC shape shared by nicgen's per-connection
// blocks: a valid/ready event stream in, a per-connection state table in
// block RAM, one event executed per clock (back-to-back events to the same
// connection included, by forwarding), and one result per event out.
//
// Cycle behaviour (the contract the golden pipelines mirror):
//   - s_event_ready = !m_result_valid || m_result_ready. A cycle where it is 1
//     is an advance cycle; nothing moves on other cycles.
//   - On an advance edge the event in stage 1 executes against its
//     connection's word, its result enters the result register, and stage 1
//     takes the event on the input. Latency is 2 cycles without stalls.
//   - The table is read when an event enters stage 1 and written when it
//     leaves. A read and a write of the same word at one edge return the old
//     word, so the word written at that edge is kept in a forwarding register
//     and used instead.
//   - conn >= NumConn or kind >= NumKinds is an error: the result has error
//     set and every other result field 0, and nothing is written.
//
// With Spec.Formal.Invariants the shell declares the block's properties
// (docs/formal.md): each word invariant is asserted of every word written,
// assumed of the word read and asserted of the forwarding register; each
// result invariant is asserted of every valid result beat; and the shell
// asserts that an error result carries zeros.
package connpipe

import (
	"fmt"

	"github.com/nicgen/nicgen/hdlgen"
)

// Field is a data field of the event or result stream.
type Field struct {
	Name  string
	Width int
	Doc   string
}

// Spec describes a block's streams and state word.
type Spec struct {
	NumConn      int
	ConnW        int
	KindW        int
	NumKinds     int      // kinds 0..NumKinds-1 are valid
	KindNames    []string // documentation of each kind value
	EventFields  []Field  // after conn and kind
	ResultFields []Field  // after conn and kind; error comes last
	Word         *hdlgen.Layout

	// Formal asks for the shell's and the block's properties; the block's
	// are WordInvariants and ResultInvariants (and any it declares itself
	// with hdlgen's Assert, gated by Step.Fire). docs/formal.md.
	Formal           Formal
	WordInvariants   []Invariant // every word of the state table satisfies each
	ResultInvariants []Invariant // every valid result beat satisfies each
}

// Formal selects the properties built into a block (docs/formal.md). They
// are emitted under `ifdef FORMAL, so they change no hardware.
type Formal struct {
	// Invariants declares the properties.
	Invariants bool
	// Break names one property of which a deliberately broken variant is
	// built instead (a mutated block or a mutated property): its proof
	// must fail, which shows that the check can fail.
	Break string
}

// Breaks reports whether the broken variant of property name is asked for.
func (f Formal) Breaks(name string) bool { return f.Invariants && f.Break == name }

// Check reports a Break that names no assertion of m (a typo would
// otherwise give a proof of the unbroken block).
func (f Formal) Check(m *hdlgen.Module) error {
	if f.Break == "" {
		return nil
	}
	if !f.Invariants {
		return fmt.Errorf("Formal.Break = %q without Formal.Invariants", f.Break)
	}
	var names []string
	for _, p := range m.Properties() {
		if !p.Assume {
			if p.Name == f.Break {
				return nil
			}
			names = append(names, p.Name)
		}
	}
	return fmt.Errorf("Formal.Break = %q: module %s has no such assertion (assertions: %v)", f.Break, m.Name(), names)
}

// Invariant is a named property of a state-table word or of a result beat,
// over its fields by name (a result beat's are conn, kind, error and every
// ResultField).
type Invariant struct {
	Name  string
	Holds func(fields hdlgen.Record) hdlgen.Value
}

// Step is what a block's datapath sees of the event in stage 1.
type Step struct {
	Cur   hdlgen.Record          // the connection's current word, forwarded
	Kind  hdlgen.Expr            // event kind
	Event map[string]hdlgen.Expr // event fields by name
	// Fire is 1 on the edge where a valid, non-error event executes: gate
	// any global state update (an LFSR, a counter) with it.
	Fire hdlgen.Expr
}

// Outcome is what the datapath computes for the event in stage 1.
type Outcome struct {
	Word   hdlgen.Expr             // the connection's new word
	Result map[string]hdlgen.Value // every ResultField
}

// Build adds the ports, pipeline, state table and forwarding to m and calls
// step for the datapath. Port names follow s_event_* / m_result_*.
func Build(m *hdlgen.Module, s Spec, step func(Step) Outcome) error {
	if s.NumConn < 2 || (s.ConnW < 63 && uint64(s.NumConn) > uint64(1)<<uint(s.ConnW)) {
		return fmt.Errorf("connpipe: %d connections do not fit a %d-bit connection id", s.NumConn, s.ConnW)
	}
	m.Group("Event stream (sink): one event per accepted beat")
	inValid := m.Input("s_event_valid", 1, "event valid")
	inReady := m.Output("s_event_ready", 1, "event ready: the block can take an event this cycle")
	inConn := m.Input("s_event_conn", s.ConnW, fmt.Sprintf("connection id; %d and above is an error", s.NumConn))
	inKind := m.Input("s_event_kind", s.KindW, kindDoc(s))
	inFields := map[string]*hdlgen.Signal{}
	for _, f := range s.EventFields {
		inFields[f.Name] = m.Input("s_event_"+f.Name, f.Width, f.Doc)
	}
	m.Group("Result stream (source): one result per event, in order")
	outValid := m.Output("m_result_valid", 1, "result valid")
	outReady := m.Input("m_result_ready", 1, "result ready")
	outConn := m.Output("m_result_conn", s.ConnW, "connection id of the event")
	outKind := m.Output("m_result_kind", s.KindW, "kind of the event")
	outFields := map[string]*hdlgen.Signal{}
	for _, f := range s.ResultFields {
		outFields[f.Name] = m.Output("m_result_"+f.Name, f.Width, f.Doc)
	}
	outError := m.Output("m_result_error", 1, "connection id out of range or unknown kind: nothing was changed")
	var qualified []*hdlgen.Signal
	qualified = append(qualified, outConn, outKind)
	for _, f := range s.ResultFields {
		qualified = append(qualified, outFields[f.Name])
	}
	m.Qualify(outValid, append(qualified, outError)...)

	// stage 1: the accepted event while its word is read
	s1Valid := m.Reg("s1_valid", 1, "stage 1 holds an event", hdlgen.ResetTo(0))
	s1Conn := m.Reg("s1_conn", s.ConnW, "stage 1 connection id", hdlgen.NoReset())
	s1Kind := m.Reg("s1_kind", s.KindW, "stage 1 event kind", hdlgen.NoReset())
	s1Fields := map[string]*hdlgen.Reg{}
	for _, f := range s.EventFields {
		s1Fields[f.Name] = m.Reg("s1_"+f.Name, f.Width, "stage 1 "+f.Name, hdlgen.NoReset())
	}
	// forwarding of the word written at the edge of stage 1's read
	fwdValid := m.Reg("fwd_valid", 1, "fwd_word was written at the edge stage 1 read its word", hdlgen.ResetTo(0))
	table := m.Memory("state", s.NumConn, s.Word, true)
	aw := table.AddrWidth()
	fwdAddr := m.Reg("fwd_addr", aw, "address of the forwarded word", hdlgen.NoReset())
	fwdWord := m.Reg("fwd_word", s.Word.Width(), "last word written", hdlgen.NoReset())
	// result register
	resValid := m.Reg("res_valid", 1, "result register holds a result", hdlgen.ResetTo(0))
	resConn := m.Reg("res_conn", s.ConnW, "result connection id", hdlgen.NoReset())
	resKind := m.Reg("res_kind", s.KindW, "result kind", hdlgen.NoReset())
	resFields := map[string]*hdlgen.Reg{}
	for _, f := range s.ResultFields {
		resFields[f.Name] = m.Reg("res_"+f.Name, f.Width, "result "+f.Name, hdlgen.NoReset())
	}
	resError := m.Reg("res_error", 1, "result error", hdlgen.NoReset())

	advance := m.Wire("advance", resValid.Not().Or(outReady))
	m.Assign(inReady, advance)
	m.Assign(outValid, resValid)
	m.Assign(outConn, resConn)
	m.Assign(outKind, resKind)
	for _, f := range s.ResultFields {
		m.Assign(outFields[f.Name], resFields[f.Name])
	}
	m.Assign(outError, resError)

	rd := m.Read(table, inConn.Trunc(aw), advance)
	s1Addr := s1Conn.Trunc(aw).Named("s1_addr")
	forward := fwdValid.And(fwdAddr.Eq(s1Addr)).Named("forward")
	cur := hdlgen.Mux(forward, fwdWord, rd).Named("cur_word")

	bad := hdlgen.False()
	if uint64(s.NumKinds) < uint64(1)<<uint(s.KindW) {
		bad = s1Kind.Ge(hdlgen.Const(s.KindW, uint64(s.NumKinds)))
	}
	if s.ConnW < 63 && uint64(s.NumConn) < uint64(1)<<uint(s.ConnW) {
		bad = bad.Or(s1Conn.Ge(hdlgen.Const(s.ConnW, uint64(s.NumConn))))
	}
	s1Error := bad.Named("s1_error")
	fire := advance.And(s1Valid).And(s1Error.Not()).Named("fire")

	ev := map[string]hdlgen.Expr{}
	for _, f := range s.EventFields {
		ev[f.Name] = s1Fields[f.Name].Expr
	}
	out := step(Step{Cur: s.Word.Unpack(cur, "cur"), Kind: s1Kind.Expr, Event: ev, Fire: fire})
	newWord := out.Word.Named("new_word")
	m.Write(table, s1Addr, newWord, fire)
	if s.Formal.Invariants {
		res := hdlgen.Record{"conn": resConn.Expr, "kind": resKind.Expr, "error": resError.Expr}
		for _, f := range s.ResultFields {
			res[f.Name] = resFields[f.Name].Expr
		}
		shellProperties(m, s, table, fwdValid, fwdWord, resValid, res)
	}

	m.Comb("pipeline", func(p *hdlgen.Process) {
		p.If(advance, func() {
			p.Set(s1Valid, inValid)
			p.Set(s1Conn, inConn)
			p.Set(s1Kind, inKind)
			for _, f := range s.EventFields {
				p.Set(s1Fields[f.Name], inFields[f.Name])
			}
			p.Set(fwdValid, fire)
			p.Set(fwdAddr, s1Addr)
			p.Set(fwdWord, newWord)
			p.Set(resValid, s1Valid)
			p.Set(resConn, s1Conn)
			p.Set(resKind, s1Kind)
			p.Set(resError, s1Error)
			for _, f := range s.ResultFields {
				v, ok := out.Result[f.Name]
				if !ok {
					v = hdlgen.Const(f.Width, 0)
				}
				if s.Formal.Breaks("error_result_zero") && f.Name == s.ResultFields[0].Name {
					p.Set(resFields[f.Name], v) // broken: an error result carries data
					continue
				}
				p.Set(resFields[f.Name], hdlgen.Mux(s1Error, hdlgen.Const(f.Width, 0), v))
			}
		})
	})
	for name := range out.Result {
		found := false
		for _, f := range s.ResultFields {
			found = found || f.Name == name
		}
		if !found {
			return fmt.Errorf("connpipe: the datapath returns result %q, which is not a result field", name)
		}
	}
	return nil
}

func kindDoc(s Spec) string {
	doc := "event kind:"
	for i, n := range s.KindNames {
		doc += fmt.Sprintf(" %d %s", i, n)
		if i < len(s.KindNames)-1 {
			doc += ","
		}
	}
	return doc + fmt.Sprintf("; %d and above is an error", s.NumKinds)
}

// KindIs is 1 when the event's kind equals k.
func (st Step) KindIs(k int) hdlgen.Expr { return st.Kind.EqC(uint64(k)) }

// shellProperties states the block's invariants over the state table and
// the result register, and the shell's own.
//
// A word invariant is asserted of every word written and assumed of the
// word read (hdlgen TableInvariant), and asserted of the forwarding
// register while it is valid: the datapath reads either the table's read
// data or that register, so both satisfy it, and the proof of each write
// may start from it. The induction over the table holds because the table
// starts zeroed (the invariants hold of the all-zero word) and the only
// write is the one asserted. A result invariant is asserted of the result
// register while it holds a result; stalls hold it unchanged.
func shellProperties(m *hdlgen.Module, s Spec, table *hdlgen.Memory, fwdValid *hdlgen.Reg, fwdWord *hdlgen.Reg,
	resValid *hdlgen.Reg, res hdlgen.Record) {
	fwd := hdlgen.Record{}
	for _, f := range s.Word.Fields() {
		fwd[f.Name] = s.Word.Get(fwdWord, f.Name)
	}
	for _, inv := range s.WordInvariants {
		m.TableInvariant(table, inv.Name, inv.Holds)
		m.Assert(inv.Name+"_fwd", fwdValid.Implies(inv.Holds(fwd)))
	}
	for _, inv := range s.ResultInvariants {
		m.Assert(inv.Name, resValid.Implies(inv.Holds(res)))
	}
	// an error result changes nothing and says nothing: every field is 0
	clean := hdlgen.True()
	for _, f := range s.ResultFields {
		clean = clean.And(res[f.Name].IsZero())
	}
	m.Assert("error_result_zero", resValid.And(res["error"]).Implies(clean))
}
