// Package connpipe builds the NIC shape shared by nicgen's per-connection
// blocks: a valid/ready event stream in, a per-connection state table in
// block RAM, a pipelined read-modify-write of one connection's word per
// event, and one result per event out. The cycle contract is
// docs/pipeline.md; golden/pipe is its cycle-level model, written from
// that page.
//
//   - An input buffer of two events; s_event_ready is a register.
//   - The plain shell issues the buffer's head when no event of its
//     connection is in stages 1..Depth-1 and a credit is left; with
//     Spec.Merge, the head moves through an arrival register into waiting
//     slots, where an event of a busy connection waits, or folds into its
//     connection's pending event, without holding up other connections
//     (merge.go).
//   - Stage 1 reads the word (block RAM), stage 2 is the RAM's output
//     register, stage 3 the fabric register beside the snooping of words
//     written since the read, stages 4..Depth+3 run the datapath, and the
//     last stage writes the word. Latency is Depth+5 cycles without
//     stalls (Depth+9 with Spec.Merge); events of one connection enter
//     stage 1 at least Depth cycles apart.
//   - A result buffer of Credits(Depth) entries (MergeCredits with
//     Spec.Merge), so that no stage ever stalls: m_result_ready reaches
//     only the buffer.
//   - conn >= NumConn, kind >= NumKinds or an event Spec.Refuse refuses is
//     an error: the result has error set and every other result field 0,
//     and nothing is written.
//
// With Spec.Formal.Invariants the shell declares the block's properties
// and its own (docs/formal.md): each word invariant is asserted of every
// word written, assumed of the word read and asserted of the words on
// their way to the datapath; each result invariant is asserted of every
// valid result beat; and the shell asserts that an error result carries
// zeros, that its ahead-computed registers equal the rules they stand for,
// and that events of one connection stay Depth stages apart.
package connpipe

import (
	"fmt"
	"sort"

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
	// Core is the block's parameter core (Depth, Formal, Table and the
	// stage counter of NeededDepth, core.go), passed as it is.
	Core
	// AutoStageNs, when above 0, lets hdlgen place stage boundaries where
	// the estimated logic of a stage would pass it (hdlgen Pipeline.Auto),
	// besides the block's own cuts; for datapaths without global state.
	AutoStageNs float64
	// Refuse, when not nil, is 1 for an event whose fields are out of the
	// block's range (kind is s_event_kind, fields the event's fields). It
	// is an error like an unknown kind: the result has error set and every
	// other field 0, and nothing is written. Evaluated in stage 1.
	Refuse func(kind hdlgen.Expr, fields hdlgen.Record) hdlgen.Expr

	// The block's properties under Core.Formal (docs/formal.md), besides
	// any it declares itself with hdlgen's Assert, gated by Step.Fire.
	WordInvariants   []Invariant // every word of the state table satisfies each
	ResultInvariants []Invariant // every valid result beat satisfies each

	// Merge, when not nil, puts waiting slots between the input buffer and
	// the issue, where events of a busy connection wait or fold into its
	// pending event without blocking other connections (merge.go).
	Merge *Merge

	// Side, when not nil, adds a second per-connection table that the
	// block's datapath reads beside its word and that only a port of the
	// module writes (s_<name>_valid, s_<name>_conn, s_<name>_data; no
	// ready: every beat is written at the edge that ends its cycle). The
	// read is the state table's, from the same address at the same edge,
	// so an event sees the value written by beats before its issue cycle
	// (Step.Side); nothing is forwarded. A composed block writes there
	// what a slower datapath computes (uet_cc's split window, docs/blocks/uet_cc.md).
	Side *Side

	// WriteBehind registers the last stage's word, address and write
	// enable, and the table takes them from those registers in the next
	// cycle, so that the route to the table's block RAMs starts at a
	// register and not after the datapath's last logic (uet_cc's split
	// window path, whose RAMs lie far from its logic). An event issued in
	// the cycle of that write takes the word from the register
	// (snoop_wb); the events' timing is the shell's. Depth 2 or more.
	WriteBehind bool
}

// Side is a per-connection table written from a port (Spec.Side).
type Side struct {
	Name  string // names the table and its port
	Width int
	Doc   string // what a value is
}

// Formal selects the properties built into a block (docs/formal.md). They
// are emitted under `ifdef FORMAL, so they change no hardware.
type Formal struct {
	// Invariants declares the properties.
	Invariants bool
	// Break names the property whose broken variant is being built: the
	// variant itself is a mutation of the built design (the formal job's
	// Mutants, hdlgen.Mutate), never a branch in block code; Check makes
	// sure the name is an assertion of the block.
	Break string
}

// WithShellMutants adds the shell's broken variants to a block's.
func WithShellMutants(depth int, first string, own map[string][]hdlgen.Mutation) map[string][]hdlgen.Mutation {
	out := ShellMutants(depth, first)
	for k, v := range own {
		out[k] = v
	}
	return out
}

// hazardGroup is the most stages one hazard register covers.
const hazardGroup = 2

// hazardGroups splits stages 1..n into groups of at most hazardGroup
// stages, as even as they can be, first to last ([first, last] each); n
// < 1 gives one empty group (nothing to compare: the hazard stays 0).
func hazardGroups(n int) [][2]int {
	if n < 1 {
		return [][2]int{{1, 0}}
	}
	g := (n + hazardGroup - 1) / hazardGroup
	out := make([][2]int, g)
	a := 1
	for i := range out {
		size := n / g
		if i < n%g {
			size++
		}
		out[i] = [2]int{a, a + size - 1}
		a += size
	}
	return out
}

// ShellAssertions names the shell's own assertions (shellProperties and
// Build's): the same in every block.
var ShellAssertions = []string{"credit_exact", "error_result_zero", "hazard_exact", "out_valid_exact", "same_conn_apart", "snoop_exact"}

// ShellMutants are the broken variants of the shell's own assertions,
// applied to the built design (hdlgen.Mutate; docs/formal.md): without a
// hazard unit, with the issued head forgotten by the hazard unit, and with
// one credit too many, with m_result_valid dropped while results wait in
// a cycle with no push or pop, with stage 3 snooping the writes of stage
// 2's connection too, and an error result carrying its first result field (first)
// unmasked.
func ShellMutants(depth int, first string) map[string][]hdlgen.Mutation {
	isFalse := func(hdlgen.Expr, func(string) hdlgen.Expr) hdlgen.Expr { return hdlgen.False() }
	ms := map[string][]hdlgen.Mutation{
		"same_conn_apart": {{Node: "issue", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("in_valid_reg").And(get("credits_out_reg").Not())
		}}},
		// an error result carries its first field's data
		"error_result_zero": {{Node: "res_" + first, With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Operand(2)
		}}},
		"credit_exact": {{Node: "full_ahead", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			occ := get("occ_update")
			return occ.Ge(hdlgen.Const(occ.Width(), uint64(Credits(depth)+1)))
		}}},
		// stage 3 takes the word written whenever an event is written
		"snoop_exact": {{Node: "snoop_s3_ahead", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("snoop_s2_ahead").Or(get("snoop_s3_ahead"))
		}}},
		// held results drop m_result_valid in a cycle with no push or pop
		"out_valid_exact": {{Node: "out_stays", With: isFalse}},
	}
	if depth >= 2 {
		for _, w := range []string{"skid", "in", "head"} {
			ms["hazard_exact"] = append(ms["hazard_exact"], hdlgen.Mutation{Node: "hazard_issued_" + w, With: isFalse})
		}
	}
	return ms
}

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

// Step is what a block's datapath sees of the event in the datapath's
// first stage (stage 4; event-only values may be computed earlier, see
// Pipe).
type Step struct {
	Cur   hdlgen.Record // the connection's current word, forwarded (stage 4)
	Kind  hdlgen.Expr   // event kind (stage 1)
	Event hdlgen.Record // event fields by name (stage 1)
	// Fire is 1 in the cycle where a valid, non-error event is in the first
	// datapath stage: gate any global state update (an LFSR, a counter)
	// with it, and read that state in the same stage.
	Fire hdlgen.Expr
	// Pipe places the datapath over the stages: Pipe.Cut(name, v) ends
	// v's stage. The event fields and kind are of stage 1 (while the word
	// is read), the word of stage 4; each operation is of the latest stage
	// of its operands, and earlier operands are carried to it. An
	// event-only value (a reciprocal of the RTT) is thus computed while the
	// word is read, and costs no same-connection occupancy.
	Pipe *hdlgen.Pipeline
	// Depth is the number of datapath stages, 4..Depth+3: the outcome may
	// be of any stage up to the last; the shell carries it to the last.
	Depth int
	// Side is the connection's value of Spec.Side (stage 3), as the side
	// table held it at the edge that issued the event; nil without Side.
	Side hdlgen.Value
}

// Cut ends v's stage when the pipeline has a stage left for it (the last
// stage is Depth+3), and returns v unchanged otherwise: a block lists its
// cuts in the order it wants them, and a shallower configuration keeps the
// first ones. name names the register.
func (st Step) Cut(name string, v hdlgen.Value) hdlgen.Expr {
	if s := st.Pipe.Stage(v); s >= 0 && s+1 <= st.Depth+ReadStages {
		return st.Pipe.Cut(name, v)
	}
	return st.Pipe.At(v, max(st.Pipe.Stage(v), 0))
}

// Outcome is what the datapath computes for the event.
type Outcome struct {
	Word   hdlgen.Expr             // the connection's new word
	Result map[string]hdlgen.Value // every ResultField
}

// outcomeProblem says what is wrong with a datapath's outcome, or "": a
// result that is not a result field, a result field without a value (it
// would otherwise be a silent 0), or no new word.
func outcomeProblem(fields []Field, out Outcome) string {
	var extra []string
	for name := range out.Result {
		if !hasField(fields, name) {
			extra = append(extra, name)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return fmt.Sprintf("the datapath returns result %q, which is not a result field", extra[0])
	}
	for _, f := range fields {
		if out.Result[f.Name] == nil {
			return fmt.Sprintf("the datapath does not drive result field %q: every result field needs a value", f.Name)
		}
	}
	if out.Word == (hdlgen.Expr{}) {
		return "the datapath returns no new word"
	}
	return ""
}

// ReadStages is the number of stages that read a word: stage 1 reads the
// block RAM, stage 2 is the RAM's own output register (hdlgen
// ReadRegistered), stage 3 registers the word again in the fabric, beside
// the snooping that replaces it by a word written since the read.
const ReadStages = 3

// Credits is the number of events a shell of depth datapath stages lets
// be issued and not yet taken: its result buffer's entries (docs/pipeline.md).
func Credits(depth int) int { return depth + ReadStages + 2 }

// FirstStage is the stage of the datapath's first cycle (the current word).
const FirstStage = ReadStages + 1

// Build adds the ports, the pipelined shell, the state table and the
// hazard unit to m and calls step for the datapath. Port names follow
// s_event_* / m_result_*. The cycle contract is docs/pipeline.md; the
// golden model of it is golden/pipe.
//
//   - An input buffer of two events; s_event_ready is a register.
//   - The event at the buffer's head issues when no event of its
//     connection is in stages 1..Depth-1 and fewer than Depth+5 events are
//     in flight or waiting in the result buffer (credits, so that no stage
//     ever stalls and m_result_ready drives no stage enable).
//   - Stage 1 reads the word (block RAM), stage 2 is the RAM's output
//     register, stage 3 registers the word in the fabric,
//     stages 4..Depth+3 run the datapath, whose last stage writes the word.
//     A word written while an event is in stages 1-3 is caught by that
//     event (registered snooping), so the datapath always starts from the
//     latest word, and same-connection events are Depth cycles apart.
//   - conn >= NumConn, kind >= NumKinds or an event Spec.Refuse refuses is
//     an error: the result has error set and every other result field 0,
//     and nothing is written.
func Build(m *hdlgen.Module, s Spec, step func(Step) Outcome) error {
	sh, err := newShell(m, s)
	if err != nil {
		return err
	}
	if err := sh.ports(); err != nil {
		return err
	}
	sh.stateRegs()
	sh.hazardUnit()
	sh.issueFrom()
	sh.readStages()
	sh.refusal()
	if err := sh.datapath(step); err != nil {
		return err
	}
	if s.counting() {
		// counting the stages the datapath needs (NeededDepth): the
		// rest of the shell does not change them
		return nil
	}
	sh.writeBack()
	if err := sh.results(); err != nil {
		return err
	}
	sh.resultBuffer()
	sh.wordProperties()
	sh.clocked()
	sh.issueNext()
	sh.issueProperties()
	sh.readyNext()
	return nil
}

// sideTable declares Spec.Side's table, its write port and its read at
// rdAddr (the state table's address), and returns the read value
// registered in stage 3.
func sideTable(m *hdlgen.Module, s Spec, rdAddr hdlgen.Expr) *hdlgen.Reg {
	sd := s.Side
	m.Group(fmt.Sprintf("Side table port: writes %s", sd.Doc))
	wv := m.Input("s_"+sd.Name+"_valid", 1, "write the connection's "+sd.Name+" at this cycle's edge")
	lay := hdlgen.NewLayout(sd.Name + "_word")
	lay.Field(sd.Name, sd.Width, sd.Doc)
	tbl := m.Memory(sd.Name, s.NumConn, lay, true)
	wc := m.Input("s_"+sd.Name+"_conn", tbl.AddrWidth(), "the connection written (below NumConn)")
	wd := m.Input("s_"+sd.Name+"_data", sd.Width, sd.Doc)
	m.Write(tbl, wc, wd, wv)
	rd := m.ReadRegistered(tbl, rdAddr, hdlgen.True())
	r := m.Reg("s3_"+sd.Name, sd.Width, "the connection's "+sd.Name+", read beside its word", hdlgen.NoReset())
	m.Comb("s3_"+sd.Name, func(p *hdlgen.Process) { p.Set(r, rd) })
	return r
}

// issueSource is what the stages take from the issue logic: the event
// entering stage 1, and the cycle's decisions.
type issueSource struct {
	conn, kind, op hdlgen.Expr
	fields         map[string]hdlgen.Expr
	issue          hdlgen.Expr // an event issues (takes a credit)
	leave          hdlgen.Expr // the input buffer's head leaves it
	enter1         hdlgen.Expr // an event enters stage 1
}

// plainIssue is the plain shell's issue: the input buffer's head enters
// stage 1 when no hazard register is set and a credit is left.
func plainIssue(s Spec, head evRegs, full hdlgen.Expr, hazardRegs []*hdlgen.Reg) issueSource {
	e := head.valid.And(full.Not())
	for _, h := range hazardRegs {
		e = e.And(h.Not())
	}
	issue := e.Named("issue")
	src := issueSource{conn: head.conn.Expr, kind: head.kind.Expr, fields: map[string]hdlgen.Expr{},
		issue: issue, leave: issue, enter1: issue}
	if s.Table {
		src.op = head.op.Expr
	}
	for _, f := range s.EventFields {
		src.fields[f.Name] = head.fields[f.Name].Expr
	}
	return src
}

// OpW is the width of s_event_op and m_result_op (Spec.Table).
const OpW = 2

// Table operations (s_event_op; both bits: read the old word, write the new).
const (
	OpEvent = 0 // an event
	OpRead  = 1 // read the word into m_table_rdata
	OpWrite = 2 // write s_table_wdata
)

// MaxDepth is the deepest datapath the shell builds.
const MaxDepth = 32

type checkedWord struct {
	when hdlgen.Expr
	word hdlgen.Expr
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
// the last stage, and the shell's own.
//
// A word invariant is asserted of every word written and assumed of the
// word read (hdlgen TableInvariant), and asserted of every register that
// holds a word on its way to the datapath (the snooped words and the
// current word) while its stage is valid: the datapath reads only those,
// so the proof of each write may start from them. A result invariant is
// asserted of the last stage's result while it holds an event. The shell
// asserts that an error result carries zeros, and that two events of one
// connection are never closer than Depth stages: the hazard unit's rule,
// which the forwarding relies on.
func shellProperties(m *hdlgen.Module, s Spec, table *hdlgen.Memory, words []checkedWord,
	resValid hdlgen.Expr, res hdlgen.Record, valid, conn []*hdlgen.Reg) {
	for _, inv := range s.WordInvariants {
		m.TableInvariant(table, inv.Name, inv.Holds)
		for i, w := range words {
			fields := hdlgen.NewRecord("the state word")
			for _, f := range s.Word.Fields() {
				fields.Set(f.Name, s.Word.Get(w.word, f.Name))
			}
			m.Assert(fmt.Sprintf("%s_fwd%d", inv.Name, i+1), w.when.Implies(inv.Holds(fields)))
		}
	}
	for _, inv := range s.ResultInvariants {
		m.Assert(inv.Name, resValid.Implies(inv.Holds(res)))
	}
	// an error result changes nothing and says nothing: every field is 0
	clean := hdlgen.True()
	for _, f := range s.ResultFields {
		clean = clean.And(res.F(f.Name).IsZero())
	}
	m.Assert("error_result_zero", resValid.And(res.F("error")).Implies(clean))
	if s.Depth < 2 {
		return // one stage apart is all the pipeline can hold: nothing to state
	}
	apart := hdlgen.True()
	for i := range valid {
		for j := i + 1; j < len(valid) && j-i < s.Depth; j++ {
			apart = apart.And(valid[i].And(valid[j]).And(conn[i].Eq(conn[j])).Not())
		}
	}
	m.Assert("same_conn_apart", apart)
}

// oneHotAbove is the largest result buffer read through its binary
// pointer; larger ones are read through a one-hot copy of it.
const oneHotAbove = 8

// orTree ors values of one width through a balanced tree.
func orTree(xs []hdlgen.Expr) hdlgen.Expr {
	for len(xs) > 1 {
		next := make([]hdlgen.Expr, 0, (len(xs)+1)/2)
		for i := 0; i+1 < len(xs); i += 2 {
			next = append(next, xs[i].Or(xs[i+1]))
		}
		if len(xs)%2 == 1 {
			next = append(next, xs[len(xs)-1])
		}
		xs = next
	}
	return xs[0]
}

// rotateLeft1 moves every bit of x (at least 2 bits) one place up, the
// top bit to bit 0.
func rotateLeft1(x hdlgen.Expr) hdlgen.Expr {
	w := x.Width()
	return hdlgen.Cat(x.Slice(w-2, 0), x.Bit(w-1))
}
