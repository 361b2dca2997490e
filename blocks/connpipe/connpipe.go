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
	// Depth is the number of datapath stages (1..MaxDepth): events of one
	// connection are Depth cycles apart, events of different connections
	// one cycle apart.
	Depth int
	// AutoStageNs, when above 0, lets hdlgen place stage boundaries where
	// the estimated logic of a stage would pass it (hdlgen Pipeline.Auto),
	// besides the block's own cuts; for datapaths without global state.
	AutoStageNs float64
	// Used, when not nil, receives the number of datapath stages the
	// datapath's cuts reach (at most Depth): the depth the block needs.
	Used *int
	// Refuse, when not nil, is 1 for an event whose fields are out of the
	// block's range (kind is s_event_kind, fields the event's fields). It
	// is an error like an unknown kind: the result has error set and every
	// other field 0, and nothing is written. Evaluated in stage 1.
	Refuse func(kind hdlgen.Expr, fields hdlgen.Record) hdlgen.Expr

	// Formal asks for the shell's and the block's properties; the block's
	// are WordInvariants and ResultInvariants (and any it declares itself
	// with hdlgen's Assert, gated by Step.Fire). docs/formal.md.
	Formal           Formal
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

	// Table adds the table port, through which a control wrapper reads
	// and writes connections' words (docs/control.md): a beat of the event
	// stream whose s_event_op is not 0 is a table operation on its
	// connection, not an event. Bit 0 copies the word the datapath would
	// start from into m_table_rdata (registered in the datapath's first
	// stage); bit 1 writes s_table_wdata, read in the last stage, in the
	// word's place. The datapath does not fire for it (Step.Fire is 0),
	// its kind and fields are ignored (only a connection out of range is
	// an error), and its result carries its op in m_result_op and zeros in
	// every result field. It follows the events before it and precedes
	// those after it, as an event would. Not with Formal.Invariants: a
	// written word need not satisfy them.
	Table bool
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
	if s.NumConn < 2 || (s.ConnW < 63 && uint64(s.NumConn) > uint64(1)<<uint(s.ConnW)) {
		return fmt.Errorf("connpipe: %d connections do not fit a %d-bit connection id", s.NumConn, s.ConnW)
	}
	if s.Depth < 1 || s.Depth > MaxDepth {
		return fmt.Errorf("connpipe: pipeline depth %d out of range 1..%d", s.Depth, MaxDepth)
	}
	L := s.Depth
	W := L + ReadStages // the last stage, which writes the word
	credits := Credits(L)
	if s.Merge != nil {
		credits = MergeCredits(L)
	}
	latency := W + 2
	if s.Merge != nil {
		latency += 4 // the arrival register, the slot twice, the issue register
	}
	m.Note("pipeline: %d datapath stages (stages %d..%d), latency %d cycles, same connection every %d cycles", L, FirstStage, W, latency, L)
	m.Group("Event stream (sink): one event per accepted beat")
	inValid := m.Input("s_event_valid", 1, "event valid")
	inReady := m.Output("s_event_ready", 1, "event ready (a register): the block can take an event this cycle")
	inConn := m.Input("s_event_conn", s.ConnW, fmt.Sprintf("connection id; %d and above is an error", s.NumConn))
	inKind := m.Input("s_event_kind", s.KindW, kindDoc(s))
	inFields := map[string]*hdlgen.Signal{}
	for _, f := range s.EventFields {
		inFields[f.Name] = m.Input("s_event_"+f.Name, f.Width, f.Doc)
	}
	if s.Table && s.Formal.Invariants {
		return fmt.Errorf("connpipe: the table port writes any word, so the word invariants cannot be proven with it: build the proofs without Table")
	}
	resultFields := s.ResultFields
	if s.Merge != nil {
		if err := s.Merge.check(s); err != nil {
			return err
		}
		resultFields = append(append([]Field(nil), s.ResultFields...), Field{Name: MembersField, Width: s.Merge.CountW,
			Doc: "events the result stands for: the issued event and those merged into it, in their order (0 on error)"})
	}
	var inOp *hdlgen.Signal
	if s.Table {
		inOp = m.Input("s_event_op", OpW, "0: an event; else a table operation on the connection: bit 0 reads its word into m_table_rdata, bit 1 writes s_table_wdata to it (kind and fields ignored)")
	}
	m.Group("Result stream (source): one result per event, in order")
	outValid := m.Output("m_result_valid", 1, "result valid")
	outReady := m.Input("m_result_ready", 1, "result ready")
	outConn := m.Output("m_result_conn", s.ConnW, "connection id of the event")
	outKind := m.Output("m_result_kind", s.KindW, "kind of the event")
	outFields := map[string]*hdlgen.Signal{}
	for _, f := range resultFields {
		outFields[f.Name] = m.Output("m_result_"+f.Name, f.Width, f.Doc)
	}
	outError := m.Output("m_result_error", 1, "connection id out of range or unknown kind: nothing was changed")
	var qualified []*hdlgen.Signal
	qualified = append(qualified, outConn, outKind)
	for _, f := range resultFields {
		qualified = append(qualified, outFields[f.Name])
	}
	qualified = append(qualified, outError)
	var outOp, tblWData, tblRData *hdlgen.Signal
	if s.Table {
		outOp = m.Output("m_result_op", OpW, "the beat's s_event_op: 0 for an event's result, else a table operation's")
		qualified = append(qualified, outOp)
		m.Group("Table port: a control wrapper's access to the connections' words")
		tblWData = m.Input("s_table_wdata", s.Word.Width(), "the word a table write writes: read while the write is in the last stage, hold it until its result")
		tblRData = m.Output("m_table_rdata", s.Word.Width(), "the word the last table read read (a register): valid from its result on")
	}
	m.Qualify(outValid, qualified...)

	// the input buffer: head (in_*) and skid (skid_*)
	head := newEvRegs(m, s, "in", "input buffer head")
	skid := newEvRegs(m, s, "skid", "input buffer second entry")
	readyReg := m.Reg("in_ready", 1, "s_event_ready: the input buffer holds at most one event", hdlgen.ResetTo(1))
	m.Assign(inReady, readyReg)

	table := m.Memory("state", s.NumConn, s.Word, true)
	aw := table.AddrWidth()
	ww := s.Word.Width()
	occW := hdlgen.BitsFor(uint64(credits) + 1) // room for the broken variant of credit_exact
	occ := m.Reg("occ", occW, "events issued and not yet taken from the result stream", hdlgen.ResetTo(0))

	// stage valid bits and connection ids (stage k is index k-1)
	valid := make([]*hdlgen.Reg, W)
	conn := make([]*hdlgen.Reg, W)
	for k := 1; k <= W; k++ {
		valid[k-1] = m.Reg(fmt.Sprintf("s%d_valid", k), 1, fmt.Sprintf("stage %d holds an event", k), hdlgen.ResetTo(0))
		conn[k-1] = m.Reg(fmt.Sprintf("s%d_conn", k), s.ConnW, fmt.Sprintf("stage %d connection id", k), hdlgen.NoReset())
	}

	// hazard unit: the head waits while its connection is in stages
	// 1..L-1. The comparison is made a cycle ahead, against the stages'
	// next contents and each possible next head, and kept in registers,
	// one per group of at most hazardGroup stages (hazard_reg alone up to
	// that many), so that issue is a few registers and a gate and the
	// comparison of an arriving event ORs one group, not every stage.
	groups := hazardGroups(L - 1)
	// a slot's candidate is chosen a cycle before it issues, and its event
	// passes the issue register before stage 1: its connection must not
	// be in the issue register or stages 1..depth-3 (merge.go)
	slotGroups := hazardGroups(L - 2)
	hazardRegs := make([]*hdlgen.Reg, len(groups))
	if s.Merge != nil {
		hazardRegs = nil // the slots keep the hazards
	}
	for g, gr := range groups[:len(hazardRegs)] {
		name, doc := "hazard", "the head's connection is in stages 1..depth-1"
		if len(groups) > 1 {
			name = fmt.Sprintf("hazard%d", g)
			doc = fmt.Sprintf("the head's connection is in stages %d..%d", gr[0], gr[1])
		}
		hazardRegs[g] = m.Reg(name, 1, doc, hdlgen.ResetTo(0))
	}
	fullReg := m.Reg("credits_out", 1, fmt.Sprintf("%d events are issued and not yet taken: no credit left", credits), hdlgen.ResetTo(0))
	var headInRange hdlgen.Expr // merging: the head may fold
	var mu *mergeUnit
	// the NUM_CONN parameter of a shell with the table port, declared once
	var numConn *hdlgen.Signal
	numConnParam := func() *hdlgen.Signal {
		if numConn == nil {
			numConn = m.Param("NUM_CONN", hdlgen.BitsFor(uint64(s.NumConn)), uint64(s.NumConn), "connections in use: a connection id of NUM_CONN and above is an error").
				Limit(2, uint64(s.NumConn), "the state table's depth")
		}
		return numConn
	}
	// the event the stages take: the head, or the issue register
	var src issueSource
	if s.Merge == nil {
		src = plainIssue(s, head, fullReg.Expr, hazardRegs)
	} else {
		if s.Merge.Fold != nil {
			headInRange = mergeInRange(s, head, numConnParam)
		}
		mu = newMergeUnit(m, s, len(slotGroups))
		mu.decide(s, head, fullReg.Expr)
		src = mu.issued(s)
	}
	issue, leave, enter1 := src.issue, src.leave, src.enter1

	// stage 1: the event while its word is read
	s1Kind := m.Reg("s1_kind", s.KindW, "stage 1 event kind", hdlgen.NoReset())
	var s1Op *hdlgen.Reg
	opNone := hdlgen.True() // at stage 1: the beat is an event
	if s.Table {
		s1Op = m.Reg("s1_op", OpW, "stage 1 table operation (0: an event)", hdlgen.NoReset())
		opNone = s1Op.IsZero().Named("s1_is_event")
	}
	s1Fields := map[string]*hdlgen.Reg{}
	for _, f := range s.EventFields {
		s1Fields[f.Name] = m.Reg("s1_"+f.Name, f.Width, "stage 1 "+f.Name, hdlgen.NoReset())
	}
	var s1Members *hdlgen.Reg
	if mu != nil {
		s1Members = m.Reg("s1_members", s.Merge.CountW, "stage 1 events merged into the event", hdlgen.NoReset())
	}
	rd := m.ReadRegistered(table, src.conn.Trunc(aw), hdlgen.True())
	var s3Side *hdlgen.Reg
	if s.Side != nil {
		s3Side = sideTable(m, s, src.conn.Trunc(aw))
	}
	addr := func(k int) hdlgen.Expr { return conn[k-1].Trunc(aw) }
	s1Fix := m.Reg("s1_fix_valid", 1, "the word was written at the edge stage 1 read it", hdlgen.NoReset())
	s1FixWord := m.Reg("s1_fix_word", ww, "the word written at that edge", hdlgen.NoReset())
	s2Fix := m.Reg("s2_fix_valid", 1, "a word written since stage 1's read replaces s2_ram", hdlgen.NoReset())
	s2FixWord := m.Reg("s2_fix_word", ww, "the last word written since stage 1's read", hdlgen.NoReset())
	s3Ram := m.Reg("s3_ram", ww, "the word read, registered again beside the logic that snoops it", hdlgen.NoReset())
	s3Fix := m.Reg("s3_fix_valid", 1, "a word written since stage 1's read replaces s3_ram", hdlgen.NoReset())
	s3FixWord := m.Reg("s3_fix_word", ww, "the last word written since stage 1's read", hdlgen.NoReset())
	curReg := m.Reg(fmt.Sprintf("s%d_cur", FirstStage), ww, "the connection's current word: the datapath's input", hdlgen.NoReset())

	bad := hdlgen.False()
	if uint64(s.NumKinds) < uint64(1)<<uint(s.KindW) {
		bad = s1Kind.Ge(hdlgen.Const(s.KindW, uint64(s.NumKinds)))
	}
	connBad := func(x hdlgen.Expr) hdlgen.Expr {
		if s.ConnW < 63 && uint64(s.NumConn) < uint64(1)<<uint(s.ConnW) {
			return x.Or(conn[0].Ge(hdlgen.Const(s.ConnW, uint64(s.NumConn))))
		}
		return x
	}
	if s.Table {
		// the connections in use are a parameter, up to the table's depth
		pw := hdlgen.BitsFor(uint64(s.NumConn))
		numConn := numConnParam()
		connBad = func(x hdlgen.Expr) hdlgen.Expr {
			if pw <= s.ConnW {
				return x.Or(conn[0].Ge(numConn.ZExt(s.ConnW)).Named("s1_conn_out"))
			}
			return x.Or(conn[0].ZExt(pw).Ge(numConn).Named("s1_conn_out"))
		}
	}
	if !s.Table {
		bad = connBad(bad)
	}
	if s.Refuse != nil {
		fields := hdlgen.NewRecord("the event")
		for _, f := range s.EventFields {
			fields.Set(f.Name, s1Fields[f.Name].Expr)
		}
		bad = bad.Or(s.Refuse(s1Kind.Expr, fields).Named("s1_refused"))
	}
	if s.Table { // a table operation has no kind or fields to refuse
		bad = connBad(opNone.And(bad))
	}
	s1Error := bad.Named("s1_error")

	pl := m.Pipeline()
	if s.AutoStageNs > 0 {
		pl.Auto(s.AutoStageNs, W)
	}
	pl.Source(s1Kind, 1)
	if mu != nil {
		pl.Source(s1Members, 1)
	}
	pl.Source(conn[0], 1)
	if s.Table {
		pl.Source(s1Op, 1)
	}
	ev := hdlgen.NewRecord("the event")
	for _, f := range s.EventFields {
		pl.Source(s1Fields[f.Name], 1)
		ev.Set(f.Name, s1Fields[f.Name].Expr)
	}
	pl.Source(curReg, FirstStage)
	var side hdlgen.Value
	if s3Side != nil {
		pl.Source(s3Side, 3)
		side = s3Side
	}
	for k := 1; k <= W; k++ {
		pl.Source(valid[k-1], k)
		if k > 1 {
			pl.Source(conn[k-1], k)
		}
	}
	errAt := func(k int) hdlgen.Expr { return pl.At(s1Error, k) }
	// live(k): stage k holds an event (no error, no table operation)
	live := func(k int) hdlgen.Expr {
		x := valid[k-1].And(errAt(k).Not())
		if s.Table {
			x = x.And(pl.At(s1Op, k).IsZero())
		}
		return x
	}
	fire := live(FirstStage).Named("fire")
	// in later stages, fire is recomputed from the stage's own (reset)
	// valid bit, never carried: a stale copy would fire after a reset
	for k := FirstStage + 1; k <= W; k++ {
		pl.Alias(fire, k, live(k).Named(fmt.Sprintf("s%d_fire", k)))
	}

	var out Outcome
	pl.Within(func() {
		out = step(Step{Cur: s.Word.Unpack(curReg, "cur"), Kind: s1Kind.Expr, Event: ev, Fire: fire, Pipe: pl, Depth: L, Side: side})
	})
	// every result field is driven, and only those: a forgotten one would
	// otherwise be a silent 0
	if problem := outcomeProblem(s.ResultFields, out); problem != "" {
		return hdlgen.Errorf(hdlgen.FuncLoc(step), m.Name(), "%s", problem)
	}
	if mu != nil { // the shell's own result: the events merged
		res := map[string]hdlgen.Value{MembersField: s1Members}
		for k, v := range out.Result {
			res[k] = v
		}
		out.Result = res
	}
	if pl.Stage(out.Word) > W {
		return fmt.Errorf("connpipe: the datapath's word is of stage %d, after the last stage %d (depth %d): remove a cut or deepen the pipeline", pl.Stage(out.Word), W, L)
	}
	used := pl.Stage(out.Word)
	// in the order of the result fields: placing a value may add its
	// balancing registers, whose names and order must not depend on a
	// map's iteration order
	for _, f := range resultFields {
		used = max(used, pl.Stage(out.Result[f.Name]))
	}
	m.Note("pipeline: the datapath's cuts end in stage %d of %d", max(used, FirstStage), W)
	if s.Used != nil {
		*s.Used = max(used, FirstStage) - ReadStages
	}
	wErr := errAt(W)
	newWord := pl.At(out.Word, W)
	wrEn := valid[W-1].And(wErr.Not())
	wrEnAhead := valid[W-2].And(errAt(W - 1).Not())
	resZero := wErr // the result fields are 0
	if s.Table {
		// a table write writes s_table_wdata; a read alone writes nothing
		opW := pl.At(s1Op, W)
		newWord = hdlgen.Mux(opW.Bit(1), tblWData, newWord)
		wrEn = wrEn.And(opW.EqC(OpRead).Not())
		wrEnAhead = wrEnAhead.And(pl.At(s1Op, W-1).EqC(OpRead).Not())
		// from a register: the result fields' zeroing lies between the
		// last stage and the result buffer's head, which its pop already
		// makes a long path (uet_cc_ctl's at 6.96 ns)
		resZero = pl.At(errAt(W-1).Or(pl.At(s1Op, W-1).Any()).Named("res_zero"), W)
		// a table read copies the word the datapath would start from
		rdata := m.Reg("table_rdata", ww, "the word of the last table read (m_table_rdata)", hdlgen.NoReset())
		m.Assign(tblRData, rdata)
		takes := valid[FirstStage-1].And(errAt(FirstStage).Not()).And(pl.At(s1Op, FirstStage).Bit(0)).Named("table_read")
		m.Comb("table_read", func(p *hdlgen.Process) {
			p.If(takes, func() { p.Set(rdata, curReg) })
		})
	}
	newWord = newWord.Named("new_word")
	wrEn = wrEn.Named("wr_en")
	wrAddr := addr(W).Named("wr_addr")
	m.Write(table, wrAddr, newWord, wrEn)
	snoopHead := wrEn.And(wrAddr.Eq(src.conn.Trunc(aw))).Named("snoop_in")
	// whether the word written now is stage k's (k = 1..3) selects a
	// whole word: it is decided a cycle ahead, from the stages that will
	// be the last one and stage k after the edge (stage 1: the head), and
	// kept in a register, so that the selects of the word come
	// from registers and not after an address comparison
	snoopRegs := make([]*hdlgen.Reg, 3)
	snoopAhead := make([]hdlgen.Expr, 3)
	for k := 1; k <= 3; k++ {
		snoopRegs[k-1] = m.Reg(fmt.Sprintf("snoop_s%d", k), 1, fmt.Sprintf("the word written in this cycle is stage %d's", k), hdlgen.ResetTo(0))
		var x hdlgen.Expr
		if k == 1 { // stage 1 loads the head's connection at every edge
			x = wrEnAhead.And(addr(W - 1).Eq(src.conn.Trunc(aw)))
		} else {
			x = wrEnAhead.And(addr(W - 1).Eq(addr(k - 1)))
		}
		snoopAhead[k-1] = x.Named(fmt.Sprintf("snoop_s%d_ahead", k))
	}
	m.Comb("snoop_ahead", func(p *hdlgen.Process) {
		for k, r := range snoopRegs {
			p.Set(r, snoopAhead[k])
		}
	})
	snoop1, snoop2, snoop3 := snoopRegs[0].Expr, snoopRegs[1].Expr, snoopRegs[2].Expr
	if s.Formal.Invariants {
		exact := hdlgen.True()
		for k, r := range snoopRegs {
			exact = exact.And(r.Eq(wrEn.And(wrAddr.Eq(addr(k + 1)))))
		}
		m.Assert("snoop_exact", exact)
	}
	s3Word := hdlgen.Mux(s3Fix, s3FixWord, s3Ram).Named("s3_word")

	// results of the last stage, zero on error
	resKind := pl.At(s1Kind, W)
	resVals := map[string]hdlgen.Expr{}
	for _, f := range resultFields {
		v := out.Result[f.Name]
		if pl.Stage(v) > W {
			return fmt.Errorf("connpipe: result %s is of stage %d, after the last stage %d", f.Name, pl.Stage(v), W)
		}
		e := pl.At(v, W)
		e = hdlgen.Mux(resZero, hdlgen.Const(f.Width, 0), e).Named("res_" + f.Name)
		resVals[f.Name] = e
	}

	// the result buffer: a ring of credits entries
	ptrW := hdlgen.BitsFor(uint64(credits - 1))
	rdPtr := m.Reg("out_rd_ptr", ptrW, "result buffer head", hdlgen.ResetTo(0))
	wrPtr := m.Reg("out_wr_ptr", ptrW, "result buffer next free entry", hdlgen.ResetTo(0))
	outCnt := m.Reg("out_count", occW, "results in the result buffer", hdlgen.ResetTo(0))
	type entry struct {
		conn, kind, err *hdlgen.Reg
		op              *hdlgen.Reg // with Table
		fields          map[string]*hdlgen.Reg
	}
	ents := make([]entry, credits)
	for i := range ents {
		e := entry{fields: map[string]*hdlgen.Reg{}}
		e.conn = m.Reg(fmt.Sprintf("out%d_conn", i), s.ConnW, fmt.Sprintf("result buffer entry %d connection id", i), hdlgen.NoReset())
		e.kind = m.Reg(fmt.Sprintf("out%d_kind", i), s.KindW, fmt.Sprintf("result buffer entry %d kind", i), hdlgen.NoReset())
		for _, f := range resultFields {
			e.fields[f.Name] = m.Reg(fmt.Sprintf("out%d_%s", i, f.Name), f.Width, fmt.Sprintf("result buffer entry %d %s", i, f.Name), hdlgen.NoReset())
		}
		e.err = m.Reg(fmt.Sprintf("out%d_error", i), 1, fmt.Sprintf("result buffer entry %d error", i), hdlgen.NoReset())
		if s.Table {
			e.op = m.Reg(fmt.Sprintf("out%d_op", i), OpW, fmt.Sprintf("result buffer entry %d table operation", i), hdlgen.NoReset())
		}
		ents[i] = e
	}
	// the head entry is kept in registers of its own, loaded with the
	// entry that will be the head after the edge, so that m_result_* come
	// from registers and no read mux of credits entries lies on the output
	// path; out_rd_ptr_plus1 is that entry's index when the head is taken
	hd := entry{fields: map[string]*hdlgen.Reg{}}
	hd.conn = m.Reg("out_head_conn", s.ConnW, "result buffer head connection id (the entry at out_rd_ptr)", hdlgen.NoReset())
	hd.kind = m.Reg("out_head_kind", s.KindW, "result buffer head kind", hdlgen.NoReset())
	for _, f := range resultFields {
		hd.fields[f.Name] = m.Reg("out_head_"+f.Name, f.Width, "result buffer head "+f.Name, hdlgen.NoReset())
	}
	hd.err = m.Reg("out_head_error", 1, "result buffer head error", hdlgen.NoReset())
	var resOp hdlgen.Expr
	var hdIsOp *hdlgen.Reg
	if s.Table {
		hd.op = m.Reg("out_head_op", OpW, "result buffer head table operation", hdlgen.NoReset())
		hdIsOp = m.Reg("out_head_is_op", 1, "the head is a table operation's result, taken without m_result_ready (the control wrapper keeps it)", hdlgen.NoReset())
		m.Assign(outOp, hd.op)
		resOp = pl.At(s1Op, W)
	}
	rdPtr1 := m.Reg("out_rd_ptr_plus1", ptrW, "result buffer entry after the head", hdlgen.ResetTo(uint64(1%credits)))
	// the entry after the head is read into the head through a one-hot
	// copy of out_rd_ptr_plus1 when the ring has more entries than one
	// ECP5 slice's LUT4/PFUMX/L6MUX21 tree selects (8): bit i enables entry
	// i's bits only, and the enabled entry is or'ed through a balanced
	// tree. Read through the binary pointer, each pointer bit drove a mux
	// level of every entry's every bit, hundreds of loads placed far apart:
	// with 27 entries that read was uet_cc_ctl's critical path, 7.09 ns,
	// 2.75 ns of it the pointer's one net
	var rdOneHot *hdlgen.Reg
	if credits > oneHotAbove {
		rdOneHot = m.Reg("out_rd_next_onehot", credits, "one-hot of out_rd_ptr_plus1 (bit i: entry i is the one after the head)", hdlgen.ResetTo(uint64(1)<<uint(1%credits)))
	}
	pick := func(get func(entry) *hdlgen.Reg) hdlgen.Expr {
		if rdOneHot == nil {
			opts := make([]hdlgen.Value, credits)
			for i, e := range ents {
				opts[i] = get(e)
			}
			return hdlgen.Index(rdPtr1, opts...)
		}
		terms := make([]hdlgen.Expr, credits)
		for i, e := range ents {
			v := get(e) // registers are unsigned
			terms[i] = hdlgen.Mux(rdOneHot.Bit(i), v, hdlgen.Const(v.Width(), 0))
		}
		return orTree(terms)
	}
	// m_result_valid is a register of its own (out_count != 0), so that
	// the pop decision is one gate after a register and not a reduction
	// of the counter
	outValidReg := m.Reg("out_valid", 1, "the result buffer holds a result (out_count != 0)", hdlgen.ResetTo(0))
	mValid := outValidReg.Expr
	m.Assign(outValid, mValid)
	m.Assign(outConn, hd.conn)
	m.Assign(outKind, hd.kind)
	for _, f := range resultFields {
		m.Assign(outFields[f.Name], hd.fields[f.Name])
	}
	m.Assign(outError, hd.err)
	popReady := outReady.Expr
	if s.Table {
		// a table operation's result is the wrapper's, taken at once:
		// from one register of the head, so that the pop, which the
		// occupancy counter and the head's registers wait for, is one
		// gate after registers (or'ed in the wrapper from the head's
		// operation, it was uet_cc_ctl's critical path, 6.89-7.17 ns)
		popReady = popReady.Or(hdIsOp)
	}
	pop := mValid.And(popReady).Named("out_pop")
	push := valid[W-1].Expr
	inc := func(ptr *hdlgen.Reg) hdlgen.Expr {
		if uint64(credits) == uint64(1)<<uint(ptrW) {
			return ptr.Add(hdlgen.Const(ptrW, 1))
		}
		return hdlgen.Mux(ptr.EqC(uint64(credits-1)), hdlgen.Const(ptrW, 0), ptr.Add(hdlgen.Const(ptrW, 1)))
	}
	one := hdlgen.Const(occW, 1)
	zero := hdlgen.Const(occW, 0)
	upDown := func(x hdlgen.Expr, up, down hdlgen.Expr) hdlgen.Expr {
		return x.Add(hdlgen.Mux(up, one, zero)).Sub(hdlgen.Mux(down, one, zero))
	}
	push1 := inValid.And(readyReg)
	occNext := upDown(occ.Expr, issue, pop).Named("occ_update")

	if s.Formal.Invariants {
		res := hdlgen.NewRecord("the result").Set("conn", conn[W-1].Expr).Set("kind", resKind).Set("error", wErr)
		for _, f := range resultFields {
			res.Set(f.Name, resVals[f.Name])
		}
		words := []checkedWord{
			{valid[0].And(s1Fix), s1FixWord.Expr},
			{valid[1].And(s2Fix), s2FixWord.Expr},
			{valid[2].And(s3Fix), s3FixWord.Expr},
			{valid[FirstStage-1].Expr, curReg.Expr},
		}
		shellProperties(m, s, table, words, valid[W-1].Expr, res, valid, conn)
	}

	m.Comb("shell", func(p *hdlgen.Process) {
		// input buffer
		load := func(dst evRegs, fromSkid bool) {
			if fromSkid {
				p.Set(dst.conn, skid.conn)
				p.Set(dst.kind, skid.kind)
				if s.Table {
					p.Set(dst.op, skid.op)
				}
				for _, f := range s.EventFields {
					p.Set(dst.fields[f.Name], skid.fields[f.Name])
				}
				return
			}
			p.Set(dst.conn, inConn)
			p.Set(dst.kind, inKind)
			if s.Table {
				p.Set(dst.op, inOp)
			}
			for _, f := range s.EventFields {
				p.Set(dst.fields[f.Name], inFields[f.Name])
			}
		}
		p.If(leave, func() {
			p.If(skid.valid, func() {
				load(head, true)
				p.Set(skid.valid, push1)
				p.If(push1, func() { load(skid, false) })
			}).Else(func() {
				p.Set(head.valid, push1)
				p.If(push1, func() { load(head, false) })
			})
		}).Else(func() {
			p.If(head.valid.Not(), func() {
				p.Set(head.valid, push1)
				p.If(push1, func() { load(head, false) })
			}).Else(func() {
				p.If(push1, func() {
					p.Set(skid.valid, hdlgen.True())
					load(skid, false)
				})
			})
		})
		p.Set(occ, occNext)
		// stages
		p.Set(valid[0], enter1)
		p.Set(conn[0], src.conn)
		p.Set(s1Kind, src.kind)
		if s.Table {
			p.Set(s1Op, src.op)
		}
		for _, f := range s.EventFields {
			p.Set(s1Fields[f.Name], src.fields[f.Name])
		}
		if mu != nil {
			p.Set(s1Members, mu.issN)
		}
		for k := 2; k <= W; k++ {
			p.Set(valid[k-1], valid[k-2])
			p.Set(conn[k-1], conn[k-2])
		}
		p.Set(s1Fix, snoopHead)
		p.Set(s1FixWord, newWord)
		p.Set(s2Fix, snoop1.Or(s1Fix))
		p.Set(s2FixWord, hdlgen.Mux(snoop1, newWord, s1FixWord))
		p.Set(s3Ram, rd)
		p.Set(s3Fix, snoop2.Or(s2Fix))
		p.Set(s3FixWord, hdlgen.Mux(snoop2, newWord, s2FixWord))
		p.Set(curReg, hdlgen.Mux(snoop3, newWord, s3Word))
		// result buffer
		p.If(push, func() {
			for i, e := range ents {
				p.If(wrPtr.EqC(uint64(i)), func() {
					p.Set(e.conn, conn[W-1])
					p.Set(e.kind, resKind)
					for _, f := range resultFields {
						p.Set(e.fields[f.Name], resVals[f.Name])
					}
					p.Set(e.err, wErr)
					if s.Table {
						p.Set(e.op, resOp)
					}
				})
			}
			p.Set(wrPtr, inc(wrPtr))
		})
		// the head after the edge: the result written now if it lands at
		// the new head, else the next entry when the head is taken. Both
		// landings are decided from registers beside pop (the new head is
		// entry out_rd_ptr_plus1 when the head is taken, out_rd_ptr when
		// not), so that pop is the last select before the head registers
		writeHead := func() {
			p.Set(hd.conn, conn[W-1])
			p.Set(hd.kind, resKind)
			for _, f := range resultFields {
				p.Set(hd.fields[f.Name], resVals[f.Name])
			}
			p.Set(hd.err, wErr)
			if s.Table {
				p.Set(hd.op, resOp)
				p.Set(hdIsOp, resOp.Any())
			}
		}
		landsNext := push.And(wrPtr.Eq(rdPtr1)).Named("out_lands_next")
		landsHead := push.And(wrPtr.Eq(rdPtr)).Named("out_lands_head")
		p.If(pop, func() {
			p.If(landsNext, writeHead).Else(func() {
				p.Set(hd.conn, pick(func(e entry) *hdlgen.Reg { return e.conn }))
				p.Set(hd.kind, pick(func(e entry) *hdlgen.Reg { return e.kind }))
				for _, f := range resultFields {
					name := f.Name
					p.Set(hd.fields[name], pick(func(e entry) *hdlgen.Reg { return e.fields[name] }))
				}
				p.Set(hd.err, pick(func(e entry) *hdlgen.Reg { return e.err }))
				if s.Table {
					op := pick(func(e entry) *hdlgen.Reg { return e.op })
					p.Set(hd.op, op)
					p.Set(hdIsOp, op.Any())
				}
			})
		}).Else(func() {
			p.If(landsHead, writeHead)
		})
		p.If(pop, func() {
			p.Set(rdPtr, rdPtr1)
			p.Set(rdPtr1, inc(rdPtr1))
			if rdOneHot != nil {
				p.Set(rdOneHot, rotateLeft1(rdOneHot.Expr))
			}
		})
		p.Set(outCnt, upDown(outCnt.Expr, push, pop))
		// out_count after the edge is nonzero, decided on out_count itself
		// beside the push/pop select (equal in every state, the counter's
		// wrap-around included, so that out_valid_exact is inductive)
		topCnt := hdlgen.Const(occW, uint64(1)<<uint(occW)-1)
		onlyPush, onlyPop := push.And(pop.Not()), pop.And(push.Not())
		p.Set(outValidReg, hdlgen.Mux(onlyPush, outCnt.Ne(topCnt),
			hdlgen.Mux(onlyPop, outCnt.Ne(hdlgen.Const(occW, 1)), outCnt.Any().Named("out_stays"))))
	})
	// the hazard of the next head against the next stages a..b of a
	// group: stage j >= 2 will hold what stage j-1 holds, stage 1 the
	// issued head
	matchNext := func(x hdlgen.Value, which string, a, b int) hdlgen.Expr {
		hit := hdlgen.False()
		if a == 1 && b >= 1 {
			hit = issue.And(head.conn.Eq(x)).Named("hazard_issued_" + which)
		}
		for j := max(a, 2); j <= b; j++ {
			hit = hit.Or(valid[j-2].And(conn[j-2].Eq(x)))
		}
		return hit
	}
	hazardNext := make([]hdlgen.Expr, len(hazardRegs))
	for g, gr := range groups[:len(hazardRegs)] {
		name := "hazard_ahead"
		if len(groups) > 1 {
			name = fmt.Sprintf("hazard%d_ahead", g)
		}
		a, b := gr[0], gr[1]
		// issued: the skid entry, else the arriving event; kept: the head,
		// else (no head) the arriving event. issue selects last, its
		// gates beside the comparisons
		mIn := matchNext(inConn, "in", a, b)
		hazardNext[g] = hdlgen.Mux(issue,
			hdlgen.Mux(skid.valid, matchNext(skid.conn, "skid", a, b), mIn),
			hdlgen.Mux(head.valid, matchNext(head.conn, "head", a, b), mIn)).Named(name)
	}
	var vValid, vConn []hdlgen.Expr // merging: the issue register, then stages 1..
	if mu != nil {
		mu.update(m, s, head, headInRange)
		vValid, vConn = []hdlgen.Expr{mu.iss.valid.Expr}, []hdlgen.Expr{mu.iss.conn.Expr}
		for k := range valid {
			vValid, vConn = append(vValid, valid[k].Expr), append(vConn, conn[k].Expr)
		}
		mu.hazards(m, slotGroups, head, vValid, vConn)
	}
	m.Comb("issue_next", func(p *hdlgen.Process) {
		for g, h := range hazardRegs {
			p.Set(h, hazardNext[g])
		}
		// occ_update >= credits, decided by comparing occ itself with
		// credits - 1, credits and credits + 1 beside the up/down select,
		// not after the counter's add and subtract; equal to it in every
		// state, the counter's wrap-around included (occ at its top going
		// up reads 0, occ at 0 going down reads its top), so that the
		// induction of credit_exact needs no bound on occ
		geC := func(c int) hdlgen.Expr { return occ.Ge(hdlgen.Const(occW, uint64(c))) }
		top := hdlgen.Const(occW, uint64(1)<<uint(occW)-1)
		up, down := issue.And(pop.Not()), pop.And(issue.Not())
		upFull := geC(credits - 1).And(occ.Ne(top))
		downFull := geC(credits + 1).Or(occ.IsZero())
		p.Set(fullReg, hdlgen.Mux(up, upFull, hdlgen.Mux(down, downFull, geC(credits))).Named("full_ahead"))
	})
	if s.Formal.Invariants {
		// the registered hazards and credit are the rule itself, group
		// by group
		exact := hdlgen.True()
		for g, gr := range groups[:len(hazardRegs)] {
			hz := hdlgen.False()
			for k := gr[0]; k <= gr[1]; k++ {
				hz = hz.Or(valid[k-1].And(conn[k-1].Eq(head.conn)))
			}
			exact = exact.And(hazardRegs[g].Eq(hz))
		}
		if L >= 2 && mu == nil { // with one stage there is nothing to compare: hazard is 0
			m.Assert("hazard_exact", head.valid.Implies(exact))
		}
		if mu != nil {
			mu.properties(m, s, slotGroups, vValid, vConn)
		}
		m.Assert("credit_exact", fullReg.Eq(occ.Ge(hdlgen.Const(occW, uint64(credits)))))
		m.Assert("out_valid_exact", outValidReg.Eq(outCnt.Any()))
	}

	// s_event_ready for the next cycle: at most one event buffered
	m.Comb("ready", func(p *hdlgen.Process) {
		// the skid entry is filled only when the head stays and an event arrives
		fills := head.valid.And(leave.Not()).And(push1)
		keeps := skid.valid.And(leave.Not())
		refill := skid.valid.And(leave).And(push1)
		p.Set(readyReg, fills.Or(keeps).Or(refill).Not())
	})
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

// NeededDepth builds p at the deepest pipeline, set giving it the depth
// and where to report the stages its cuts reach (Spec.Used), and returns
// those stages: the depth the block needs.
func NeededDepth[P any](p P, set func(*P, *int), build func(P) (*hdlgen.Module, error)) (int, error) {
	var n int
	set(&p, &n)
	if _, err := build(p); err != nil {
		return 0, err
	}
	return n, nil
}

// MustDepth is a needed depth of parameters known to build (a block's
// defaults and its proofs' configurations); it panics otherwise.
func MustDepth(d int, err error) int {
	if err != nil {
		panic(err)
	}
	return d
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
