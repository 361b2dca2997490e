package connpipe

import (
	"fmt"

	"github.com/nicgen/nicgen/hdlgen"
)

// shell is the pipelined shell under construction: Build calls its
// builders in order, each declaring one part of the hardware (the order of
// declarations is the order of the emitted Verilog) and leaving in the
// struct what later parts read.
type shell struct {
	m             *hdlgen.Module
	s             Spec
	L, W, credits int
	resultFields  []Field // the result fields, with the merging shell's members

	// ports
	inValid, inConn, inKind, inOp *hdlgen.Signal
	inReady                       *hdlgen.Signal
	inFields                      map[string]*hdlgen.Signal
	outValid, outReady            *hdlgen.Signal
	outConn, outKind, outError    *hdlgen.Signal
	outFields                     map[string]*hdlgen.Signal
	outOp, tblWData, tblRData     *hdlgen.Signal

	// the input buffer, the table, the stages' valid bits and connections
	head, skid     evRegs
	readyReg       *hdlgen.Reg
	table          *hdlgen.Memory
	aw, ww, occW   int
	occ            *hdlgen.Reg
	valid, conn    []*hdlgen.Reg
	groups         [][2]int // the plain shell's hazard groups
	slotGroups     [][2]int // the merging shell's
	hazardRegs     []*hdlgen.Reg
	fullReg        *hdlgen.Reg
	headInRange    hdlgen.Expr // merging: the head may fold
	mu             *mergeUnit
	numConn        *hdlgen.Signal // NUM_CONN of a shell with the table port
	src            issueSource
	issue, leave   hdlgen.Expr
	enter1         hdlgen.Expr
	s1Kind, s1Op   *hdlgen.Reg
	s1Members      *hdlgen.Reg
	opNone         hdlgen.Expr
	s1Fields       map[string]*hdlgen.Reg
	rd             *hdlgen.Signal
	s3Side         *hdlgen.Reg
	s1Fix, s2Fix   *hdlgen.Reg
	s3Fix          *hdlgen.Reg
	s1FixWord      *hdlgen.Reg
	s2FixWord      *hdlgen.Reg
	s3FixWord      *hdlgen.Reg
	s3Ram, curReg  *hdlgen.Reg
	s1Error        hdlgen.Expr
	pl             *hdlgen.Pipeline
	out            Outcome
	wErr, newWord  hdlgen.Expr
	wrEn, wrAddr   hdlgen.Expr
	resZero        hdlgen.Expr
	snoopHead      hdlgen.Expr
	wbEn, wbAddr   *hdlgen.Reg // WriteBehind: the write of the last cycle
	wbWord         *hdlgen.Reg
	snoopWB        hdlgen.Expr // WriteBehind: it is the issued event's word
	snoopRegs      []*hdlgen.Reg
	s3Word         hdlgen.Expr
	resKind        hdlgen.Expr
	resVals        map[string]hdlgen.Expr
	buf            resultRing
	vValid, vConn  []hdlgen.Expr // merging: the issue register, then stages 1..
	pop, push      hdlgen.Expr
	push1, occNext hdlgen.Expr
}

// resultRing is the result buffer: a ring of credits entries and the head
// in registers of its own.
type resultRing struct {
	ptrW                 int
	rdPtr, wrPtr, rdPtr1 *hdlgen.Reg
	outCnt, outValidReg  *hdlgen.Reg
	rdOneHot, hdIsOp     *hdlgen.Reg
	ents                 []entry
	hd                   entry
	resOp                hdlgen.Expr
	pick                 func(get func(entry) *hdlgen.Reg) hdlgen.Expr
	inc                  func(ptr *hdlgen.Reg) hdlgen.Expr
	upDown               func(x hdlgen.Expr, up, down hdlgen.Expr) hdlgen.Expr
}

// entry is one result's registers.
type entry struct {
	conn, kind, err *hdlgen.Reg
	op              *hdlgen.Reg // with Table
	fields          map[string]*hdlgen.Reg
}

// newShell checks the spec's sizes and sets the shell's stages.
func newShell(m *hdlgen.Module, s Spec) (*shell, error) {
	if s.NumConn < 2 {
		return nil, fmt.Errorf("connpipe: %d connections: want at least 2 (a table of one word needs no shell)", s.NumConn)
	}
	if s.ConnW < 63 && uint64(s.NumConn) > uint64(1)<<uint(s.ConnW) {
		return nil, fmt.Errorf("connpipe: %d connections do not fit a %d-bit connection id", s.NumConn, s.ConnW)
	}
	if s.Depth < 1 || s.Depth > MaxDepth {
		return nil, fmt.Errorf("connpipe: pipeline depth %d out of range 1..%d", s.Depth, MaxDepth)
	}
	if s.WriteBehind && s.Depth < 2 {
		return nil, fmt.Errorf("connpipe: the write behind needs a pipeline depth of 2 or more, not %d", s.Depth)
	}
	sh := &shell{m: m, s: s, L: s.Depth, W: s.Depth + ReadStages, credits: Credits(s.Depth)}
	if s.Merge != nil {
		sh.credits = MergeCredits(s.Depth)
	}
	latency := sh.W + 2
	if s.Merge != nil {
		latency += 4 // the arrival register, the slot twice, the issue register
	}
	m.Note("pipeline: %d datapath stages (stages %d..%d), latency %d cycles, same connection every %d cycles", sh.L, FirstStage, sh.W, latency, sh.L)
	return sh, nil
}

// ports declares the event and result streams (and the table port).
func (sh *shell) ports() error {
	m, s := sh.m, sh.s
	m.Group("Event stream (sink): one event per accepted beat")
	sh.inValid = m.Input("s_event_valid", 1, "event valid")
	sh.inReady = m.Output("s_event_ready", 1, "event ready (a register): the block can take an event this cycle")
	sh.inConn = m.Input("s_event_conn", s.ConnW, fmt.Sprintf("connection id; %d and above is an error", s.NumConn))
	sh.inKind = m.Input("s_event_kind", s.KindW, kindDoc(s))
	sh.inFields = map[string]*hdlgen.Signal{}
	for _, f := range s.EventFields {
		sh.inFields[f.Name] = m.Input("s_event_"+f.Name, f.Width, f.Doc)
	}
	if s.Table && s.Formal.Invariants {
		return fmt.Errorf("connpipe: the table port writes any word, so the word invariants cannot be proven with it: build the proofs without Table")
	}
	sh.resultFields = s.ResultFields
	if s.Merge != nil {
		if err := s.Merge.check(s); err != nil {
			return err
		}
		doc := "events the result stands for: the issued event and those merged into it, in their order (0 on error)"
		if s.Merge.Fold == nil {
			doc = "1: the result answers its own event, nothing merges (0 on error)"
		}
		sh.resultFields = append(append([]Field(nil), s.ResultFields...), Field{Name: MembersField, Width: s.Merge.CountW, Doc: doc})
	}
	if s.Table {
		sh.inOp = m.Input("s_event_op", OpW, "0: an event; else a table operation on the connection: bit 0 reads its word into m_table_rdata, bit 1 writes s_table_wdata to it (kind and fields ignored)")
	}
	m.Group("Result stream (source): one result per event, in order")
	sh.outValid = m.Output("m_result_valid", 1, "result valid")
	sh.outReady = m.Input("m_result_ready", 1, "result ready")
	sh.outConn = m.Output("m_result_conn", s.ConnW, "connection id of the event")
	sh.outKind = m.Output("m_result_kind", s.KindW, "kind of the event")
	sh.outFields = map[string]*hdlgen.Signal{}
	for _, f := range sh.resultFields {
		sh.outFields[f.Name] = m.Output("m_result_"+f.Name, f.Width, f.Doc)
	}
	sh.outError = m.Output("m_result_error", 1, "connection id out of range or unknown kind: nothing was changed")
	var qualified []*hdlgen.Signal
	qualified = append(qualified, sh.outConn, sh.outKind)
	for _, f := range sh.resultFields {
		qualified = append(qualified, sh.outFields[f.Name])
	}
	qualified = append(qualified, sh.outError)
	if s.Table {
		sh.outOp = m.Output("m_result_op", OpW, "the beat's s_event_op: 0 for an event's result, else a table operation's")
		qualified = append(qualified, sh.outOp)
		m.Group("Table port: a control wrapper's access to the connections' words")
		sh.tblWData = m.Input("s_table_wdata", s.Word.Width(), "the word a table write writes: read while the write is in the last stage, hold it until its result")
		sh.tblRData = m.Output("m_table_rdata", s.Word.Width(), "the word the last table read read (a register): valid from its result on")
	}
	m.Qualify(sh.outValid, qualified...)
	return nil
}

// stateRegs declares the input buffer, the state table, the occupancy
// counter and the stages' valid bits and connections.
func (sh *shell) stateRegs() {
	m, s := sh.m, sh.s
	// the input buffer: head (in_*) and skid (skid_*)
	sh.head = newEvRegs(m, s, "in", "input buffer head")
	sh.skid = newEvRegs(m, s, "skid", "input buffer second entry")
	sh.readyReg = m.Reg("in_ready", 1, "s_event_ready: the input buffer holds at most one event", hdlgen.ResetTo(1))
	m.Assign(sh.inReady, sh.readyReg)

	sh.table = m.Memory("state", s.NumConn, s.Word, true)
	sh.aw = sh.table.AddrWidth()
	sh.ww = s.Word.Width()
	sh.occW = hdlgen.BitsFor(uint64(sh.credits) + 1) // room for the broken variant of credit_exact
	sh.occ = m.Reg("occ", sh.occW, "events issued and not yet taken from the result stream", hdlgen.ResetTo(0))

	// stage valid bits and connection ids (stage k is index k-1)
	sh.valid = make([]*hdlgen.Reg, sh.W)
	sh.conn = make([]*hdlgen.Reg, sh.W)
	for k := 1; k <= sh.W; k++ {
		sh.valid[k-1] = m.Reg(fmt.Sprintf("s%d_valid", k), 1, fmt.Sprintf("stage %d holds an event", k), hdlgen.ResetTo(0))
		sh.conn[k-1] = m.Reg(fmt.Sprintf("s%d_conn", k), s.ConnW, fmt.Sprintf("stage %d connection id", k), hdlgen.NoReset())
	}
}

// hazardUnit declares the plain shell's hazard registers and the credit
// register. The head waits while its connection is in stages 1..L-1. The
// comparison is made a cycle ahead, against the stages' next contents and
// each possible next head, and kept in registers, one per group of at
// most hazardGroup stages (hazard_reg alone up to that many), so that
// issue is a few registers and a gate and the comparison of an arriving
// event ORs one group, not every stage.
func (sh *shell) hazardUnit() {
	m, s := sh.m, sh.s
	sh.groups = hazardGroups(sh.L - 1)
	// a slot's candidate is chosen a cycle before it issues, and its event
	// passes the issue register before stage 1: its connection must not
	// be in the issue register or stages 1..depth-3 (merge.go)
	sh.slotGroups = hazardGroups(sh.L - 2)
	sh.hazardRegs = make([]*hdlgen.Reg, len(sh.groups))
	if s.Merge != nil {
		sh.hazardRegs = nil // the slots keep the hazards
	}
	for g, gr := range sh.groups[:len(sh.hazardRegs)] {
		name, doc := "hazard", "the head's connection is in stages 1..depth-1"
		if len(sh.groups) > 1 {
			name = fmt.Sprintf("hazard%d", g)
			doc = fmt.Sprintf("the head's connection is in stages %d..%d", gr[0], gr[1])
		}
		sh.hazardRegs[g] = m.Reg(name, 1, doc, hdlgen.ResetTo(0))
	}
	sh.fullReg = m.Reg("credits_out", 1, fmt.Sprintf("%d events are issued and not yet taken: no credit left", sh.credits), hdlgen.ResetTo(0))
}

// numConnParam is the NUM_CONN parameter of a shell with the table port,
// declared at its first use.
func (sh *shell) numConnParam() *hdlgen.Signal {
	if sh.numConn == nil {
		sh.numConn = sh.m.Param("NUM_CONN", hdlgen.BitsFor(uint64(sh.s.NumConn)), uint64(sh.s.NumConn), "connections in use: a connection id of NUM_CONN and above is an error").
			Limit(2, uint64(sh.s.NumConn), "the state table's depth")
	}
	return sh.numConn
}

// issueFrom builds what the stages take: the input buffer's head (the
// plain shell), or the merging shell's issue register.
func (sh *shell) issueFrom() {
	m, s := sh.m, sh.s
	if s.Merge == nil {
		sh.src = plainIssue(s, sh.head, sh.fullReg.Expr, sh.hazardRegs)
	} else {
		if s.Merge.Fold != nil {
			sh.headInRange = mergeInRange(s, sh.head, sh.numConnParam)
		}
		sh.mu = newMergeUnit(m, s, len(sh.slotGroups))
		sh.mu.inRange = func(ev evRegs) hdlgen.Expr { return inRange(s, ev, sh.numConnParam) }
		sh.mu.decide(s, sh.head, sh.fullReg.Expr)
		sh.src = sh.mu.issued(s)
	}
	sh.issue, sh.leave, sh.enter1 = sh.src.issue, sh.src.leave, sh.src.enter1
}

// readStages declares stages 1-3: the event while its word is read (and
// the side table's value), the RAM's output register, and the registers
// that catch a word written since the read.
func (sh *shell) readStages() {
	m, s := sh.m, sh.s
	sh.s1Kind = m.Reg("s1_kind", s.KindW, "stage 1 event kind", hdlgen.NoReset())
	sh.opNone = hdlgen.True() // at stage 1: the beat is an event
	if s.Table {
		sh.s1Op = m.Reg("s1_op", OpW, "stage 1 table operation (0: an event)", hdlgen.NoReset())
		sh.opNone = sh.s1Op.IsZero().Named("s1_is_event")
	}
	sh.s1Fields = map[string]*hdlgen.Reg{}
	for _, f := range s.EventFields {
		sh.s1Fields[f.Name] = m.Reg("s1_"+f.Name, f.Width, "stage 1 "+f.Name, hdlgen.NoReset())
	}
	if sh.mu != nil {
		sh.s1Members = m.Reg("s1_members", s.Merge.CountW, "stage 1 events merged into the event", hdlgen.NoReset())
	}
	sh.rd = m.ReadRegistered(sh.table, sh.src.conn.Trunc(sh.aw), hdlgen.True())
	if s.Side != nil {
		sh.s3Side = sideTable(m, s, sh.src.conn.Trunc(sh.aw))
	}
	ww := sh.ww
	sh.s1Fix = m.Reg("s1_fix_valid", 1, "the word was written at the edge stage 1 read it", hdlgen.NoReset())
	sh.s1FixWord = m.Reg("s1_fix_word", ww, "the word written at that edge", hdlgen.NoReset())
	sh.s2Fix = m.Reg("s2_fix_valid", 1, "a word written since stage 1's read replaces s2_ram", hdlgen.NoReset())
	sh.s2FixWord = m.Reg("s2_fix_word", ww, "the last word written since stage 1's read", hdlgen.NoReset())
	sh.s3Ram = m.Reg("s3_ram", ww, "the word read, registered again beside the logic that snoops it", hdlgen.NoReset())
	sh.s3Fix = m.Reg("s3_fix_valid", 1, "a word written since stage 1's read replaces s3_ram", hdlgen.NoReset())
	sh.s3FixWord = m.Reg("s3_fix_word", ww, "the last word written since stage 1's read", hdlgen.NoReset())
	sh.curReg = m.Reg(fmt.Sprintf("s%d_cur", FirstStage), ww, "the connection's current word: the datapath's input", hdlgen.NoReset())
}

// addr is stage k's connection as a table address.
func (sh *shell) addr(k int) hdlgen.Expr { return sh.conn[k-1].Trunc(sh.aw) }

// refusal builds s1_error: an unknown kind, a connection out of range, or
// an event the block's Refuse rule refuses (a table operation: only its
// connection).
func (sh *shell) refusal() {
	s, conn := sh.s, sh.conn
	bad := hdlgen.False()
	if uint64(s.NumKinds) < uint64(1)<<uint(s.KindW) {
		bad = sh.s1Kind.Ge(hdlgen.Const(s.KindW, uint64(s.NumKinds)))
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
		numConn := sh.numConnParam()
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
			fields.Set(f.Name, sh.s1Fields[f.Name].Expr)
		}
		bad = bad.Or(s.Refuse(sh.s1Kind.Expr, fields).Named("s1_refused"))
	}
	if s.Table { // a table operation has no kind or fields to refuse
		bad = connBad(sh.opNone.And(bad))
	}
	sh.s1Error = bad.Named("s1_error")
}

// errAt is s1_error carried to stage k.
func (sh *shell) errAt(k int) hdlgen.Expr { return sh.pl.At(sh.s1Error, k) }

// datapath places the block's step over stages FirstStage..W and checks
// its outcome.
func (sh *shell) datapath(step func(Step) Outcome) error {
	m, s, W := sh.m, sh.s, sh.W
	pl := m.Pipeline()
	sh.pl = pl
	if s.counting() {
		// counting the stages the datapath needs (NeededDepth): the
		// module is thrown away, so no balancing register is built
		pl.CountOnly()
	}
	if s.AutoStageNs > 0 {
		pl.Auto(s.AutoStageNs, W)
	}
	pl.Source(sh.s1Kind, 1)
	if sh.mu != nil {
		pl.Source(sh.s1Members, 1)
	}
	pl.Source(sh.conn[0], 1)
	if s.Table {
		pl.Source(sh.s1Op, 1)
	}
	ev := hdlgen.NewRecord("the event")
	for _, f := range s.EventFields {
		pl.Source(sh.s1Fields[f.Name], 1)
		ev.Set(f.Name, sh.s1Fields[f.Name].Expr)
	}
	pl.Source(sh.curReg, FirstStage)
	var side hdlgen.Value
	if sh.s3Side != nil {
		pl.Source(sh.s3Side, 3)
		side = sh.s3Side
	}
	for k := 1; k <= W; k++ {
		pl.Source(sh.valid[k-1], k)
		if k > 1 {
			pl.Source(sh.conn[k-1], k)
		}
	}
	// live(k): stage k holds an event (no error, no table operation)
	live := func(k int) hdlgen.Expr {
		x := sh.valid[k-1].And(sh.errAt(k).Not())
		if s.Table {
			x = x.And(pl.At(sh.s1Op, k).IsZero())
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
		out = step(Step{Cur: s.Word.Unpack(sh.curReg, "cur"), Kind: sh.s1Kind.Expr, Event: ev, Fire: fire, Pipe: pl, Depth: sh.L, Side: side})
	})
	// every result field is driven, and only those: a forgotten one would
	// otherwise be a silent 0
	if problem := outcomeProblem(s.ResultFields, out); problem != "" {
		return hdlgen.Errorf(hdlgen.FuncLoc(step), m.Name(), "%s", problem)
	}
	if sh.mu != nil { // the shell's own result: the events merged
		res := map[string]hdlgen.Value{MembersField: sh.s1Members}
		for k, v := range out.Result {
			res[k] = v
		}
		out.Result = res
	}
	if pl.Stage(out.Word) > W {
		return fmt.Errorf("connpipe: the datapath's word is of stage %d, after the last stage %d (depth %d): remove a cut or deepen the pipeline", pl.Stage(out.Word), W, sh.L)
	}
	used := pl.Stage(out.Word)
	// in the order of the result fields: placing a value may add its
	// balancing registers, whose names and order must not depend on a
	// map's iteration order
	for _, f := range sh.resultFields {
		used = max(used, pl.Stage(out.Result[f.Name]))
	}
	m.Note("pipeline: the datapath's cuts end in stage %d of %d", max(used, FirstStage), W)
	if s.counting() {
		*s.used = max(used, FirstStage) - ReadStages
	}
	sh.out = out
	return nil
}

// writeBack writes the new word in the last stage (a table operation's
// word, with the table port) and declares the snooping that hands a word
// written to the events in stages 1..3.
func (sh *shell) writeBack() {
	m, s, W, pl := sh.m, sh.s, sh.W, sh.pl
	valid := sh.valid
	sh.wErr = sh.errAt(W)
	newWord := pl.At(sh.out.Word, W)
	wrEn := valid[W-1].And(sh.wErr.Not())
	wrEnAhead := valid[W-2].And(sh.errAt(W - 1).Not())
	sh.resZero = sh.wErr // the result fields are 0
	if s.Table {
		// a table write writes s_table_wdata; a read alone writes nothing
		opW := pl.At(sh.s1Op, W)
		newWord = hdlgen.Mux(opW.Bit(1), sh.tblWData, newWord)
		wrEn = wrEn.And(opW.EqC(OpRead).Not())
		wrEnAhead = wrEnAhead.And(pl.At(sh.s1Op, W-1).EqC(OpRead).Not())
		// from a register: the result fields' zeroing lies between the
		// last stage and the result buffer's head, which its pop already
		// makes a long path (uet_cc_ctl's at 6.96 ns)
		sh.resZero = pl.At(sh.errAt(W-1).Or(pl.At(sh.s1Op, W-1).Any()).Named("res_zero"), W)
		// a table read copies the word the datapath would start from
		rdata := m.Reg("table_rdata", sh.ww, "the word of the last table read (m_table_rdata)", hdlgen.NoReset())
		m.Assign(sh.tblRData, rdata)
		takes := valid[FirstStage-1].And(sh.errAt(FirstStage).Not()).And(pl.At(sh.s1Op, FirstStage).Bit(0)).Named("table_read")
		m.Comb("table_read", func(p *hdlgen.Process) {
			p.If(takes, func() { p.Set(rdata, sh.curReg) })
		})
	}
	sh.newWord = newWord.Named("new_word")
	sh.wrEn = wrEn.Named("wr_en")
	sh.wrAddr = sh.addr(W).Named("wr_addr")
	if s.WriteBehind {
		// the table is written from registers a cycle later; the event
		// issued in that cycle reads the word before it, and takes the
		// register's word instead (snoop_wb). Events of one connection
		// are at least 2 stages apart, so the write of the cycle and the
		// one behind it are never both the issued event's
		sh.wbEn = m.Reg("wb_en", 1, "the last stage wrote a word in the last cycle: the table takes it in this one", hdlgen.ResetTo(0))
		sh.wbAddr = m.Reg("wb_addr", sh.aw, "that word's connection", hdlgen.NoReset())
		sh.wbWord = m.Reg("wb_word", sh.ww, "that word", hdlgen.NoReset())
		m.Comb("write_behind", func(p *hdlgen.Process) {
			p.Set(sh.wbEn, sh.wrEn)
			p.Set(sh.wbAddr, sh.wrAddr)
			p.Set(sh.wbWord, sh.newWord)
		})
		m.Write(sh.table, sh.wbAddr, sh.wbWord, sh.wbEn)
		if sh.mu != nil {
			// decided a cycle ahead and kept in a register, so that the
			// select of s1_fix_word's whole word comes from a flip-flop:
			// the write of this cycle is the one behind in the next, and
			// the issue register then holds the issuing slot's event
			wb := m.Reg("snoop_wb", 1, "the word written behind in this cycle is the issued event's", hdlgen.ResetTo(0))
			ahead := sh.wrEn.And(sh.mu.nextConnIs(sh.wrAddr, sh.aw)).Named("snoop_wb_ahead")
			m.Comb("snoop_wb_ahead", func(p *hdlgen.Process) { p.Set(wb, ahead) })
			sh.snoopWB = wb.Expr
		} else {
			sh.snoopWB = sh.wbEn.And(sh.wbAddr.Eq(sh.src.conn.Trunc(sh.aw))).Named("snoop_wb")
		}
	} else {
		m.Write(sh.table, sh.wrAddr, sh.newWord, sh.wrEn)
	}
	sh.snoopHead = sh.wrEn.And(sh.wrAddr.Eq(sh.src.conn.Trunc(sh.aw))).Named("snoop_in")
	// whether the word written now is stage k's (k = 1..3) selects a
	// whole word: it is decided a cycle ahead, from the stages that will
	// be the last one and stage k after the edge (stage 1: the head), and
	// kept in a register, so that the selects of the word come
	// from registers and not after an address comparison
	sh.snoopRegs = make([]*hdlgen.Reg, 3)
	snoopAhead := make([]hdlgen.Expr, 3)
	for k := 1; k <= 3; k++ {
		sh.snoopRegs[k-1] = m.Reg(fmt.Sprintf("snoop_s%d", k), 1, fmt.Sprintf("the word written in this cycle is stage %d's", k), hdlgen.ResetTo(0))
		var x hdlgen.Expr
		if k == 1 { // stage 1 loads the head's connection at every edge
			x = wrEnAhead.And(sh.addr(W - 1).Eq(sh.src.conn.Trunc(sh.aw)))
		} else {
			x = wrEnAhead.And(sh.addr(W - 1).Eq(sh.addr(k - 1)))
		}
		snoopAhead[k-1] = x.Named(fmt.Sprintf("snoop_s%d_ahead", k))
	}
	m.Comb("snoop_ahead", func(p *hdlgen.Process) {
		for k, r := range sh.snoopRegs {
			p.Set(r, snoopAhead[k])
		}
	})
	if s.Formal.Invariants {
		exact := hdlgen.True()
		for k, r := range sh.snoopRegs {
			exact = exact.And(r.Eq(sh.wrEn.And(sh.wrAddr.Eq(sh.addr(k + 1)))))
		}
		if sh.wbEn != nil {
			exact = exact.And(sh.snoopWB.Eq(sh.wbEn.And(sh.wbAddr.Eq(sh.src.conn.Trunc(sh.aw)))))
		}
		m.Assert("snoop_exact", exact)
	}
	sh.s3Word = hdlgen.Mux(sh.s3Fix, sh.s3FixWord, sh.s3Ram).Named("s3_word")
}

// results are the last stage's result fields, zero on error.
func (sh *shell) results() error {
	W, pl := sh.W, sh.pl
	sh.resKind = pl.At(sh.s1Kind, W)
	sh.resVals = map[string]hdlgen.Expr{}
	for _, f := range sh.resultFields {
		v := sh.out.Result[f.Name]
		if pl.Stage(v) > W {
			return fmt.Errorf("connpipe: result %s is of stage %d, after the last stage %d", f.Name, pl.Stage(v), W)
		}
		e := pl.At(v, W)
		e = hdlgen.Mux(sh.resZero, hdlgen.Const(f.Width, 0), e).Named("res_" + f.Name)
		sh.resVals[f.Name] = e
	}
	return nil
}

// resultBuffer declares the result buffer: a ring of credits entries, and
// its head in registers of its own that drive the result stream.
func (sh *shell) resultBuffer() {
	m, s, credits, occW := sh.m, sh.s, sh.credits, sh.occW
	b := &sh.buf
	b.ptrW = hdlgen.BitsFor(uint64(credits - 1))
	ptrW := b.ptrW
	b.rdPtr = m.Reg("out_rd_ptr", ptrW, "result buffer head", hdlgen.ResetTo(0))
	b.wrPtr = m.Reg("out_wr_ptr", ptrW, "result buffer next free entry", hdlgen.ResetTo(0))
	b.outCnt = m.Reg("out_count", occW, "results in the result buffer", hdlgen.ResetTo(0))
	b.ents = make([]entry, credits)
	for i := range b.ents {
		e := entry{fields: map[string]*hdlgen.Reg{}}
		e.conn = m.Reg(fmt.Sprintf("out%d_conn", i), s.ConnW, fmt.Sprintf("result buffer entry %d connection id", i), hdlgen.NoReset())
		e.kind = m.Reg(fmt.Sprintf("out%d_kind", i), s.KindW, fmt.Sprintf("result buffer entry %d kind", i), hdlgen.NoReset())
		for _, f := range sh.resultFields {
			e.fields[f.Name] = m.Reg(fmt.Sprintf("out%d_%s", i, f.Name), f.Width, fmt.Sprintf("result buffer entry %d %s", i, f.Name), hdlgen.NoReset())
		}
		e.err = m.Reg(fmt.Sprintf("out%d_error", i), 1, fmt.Sprintf("result buffer entry %d error", i), hdlgen.NoReset())
		if s.Table {
			e.op = m.Reg(fmt.Sprintf("out%d_op", i), OpW, fmt.Sprintf("result buffer entry %d table operation", i), hdlgen.NoReset())
		}
		b.ents[i] = e
	}
	// the head entry is kept in registers of its own, loaded with the
	// entry that will be the head after the edge, so that m_result_* come
	// from registers and no read mux of credits entries lies on the output
	// path; out_rd_ptr_plus1 is that entry's index when the head is taken
	hd := entry{fields: map[string]*hdlgen.Reg{}}
	hd.conn = m.Reg("out_head_conn", s.ConnW, "result buffer head connection id (the entry at out_rd_ptr)", hdlgen.NoReset())
	hd.kind = m.Reg("out_head_kind", s.KindW, "result buffer head kind", hdlgen.NoReset())
	for _, f := range sh.resultFields {
		hd.fields[f.Name] = m.Reg("out_head_"+f.Name, f.Width, "result buffer head "+f.Name, hdlgen.NoReset())
	}
	hd.err = m.Reg("out_head_error", 1, "result buffer head error", hdlgen.NoReset())
	if s.Table {
		hd.op = m.Reg("out_head_op", OpW, "result buffer head table operation", hdlgen.NoReset())
		b.hdIsOp = m.Reg("out_head_is_op", 1, "the head is a table operation's result, taken without m_result_ready (the control wrapper keeps it)", hdlgen.NoReset())
		m.Assign(sh.outOp, hd.op)
		b.resOp = sh.pl.At(sh.s1Op, sh.W)
	}
	b.hd = hd
	b.rdPtr1 = m.Reg("out_rd_ptr_plus1", ptrW, "result buffer entry after the head", hdlgen.ResetTo(uint64(1%credits)))
	// the entry after the head is read into the head through a one-hot
	// copy of out_rd_ptr_plus1 when the ring has more entries than one
	// ECP5 slice's LUT4/PFUMX/L6MUX21 tree selects (8): bit i enables entry
	// i's bits only, and the enabled entry is or'ed through a balanced
	// tree. Read through the binary pointer, each pointer bit drove a mux
	// level of every entry's every bit, hundreds of loads placed far apart:
	// with 27 entries that read was uet_cc_ctl's critical path, 7.09 ns,
	// 2.75 ns of it the pointer's one net
	if credits > oneHotAbove {
		b.rdOneHot = m.Reg("out_rd_next_onehot", credits, "one-hot of out_rd_ptr_plus1 (bit i: entry i is the one after the head)", hdlgen.ResetTo(uint64(1)<<uint(1%credits)))
	}
	b.pick = func(get func(entry) *hdlgen.Reg) hdlgen.Expr {
		if b.rdOneHot == nil {
			opts := make([]hdlgen.Value, credits)
			for i, e := range b.ents {
				opts[i] = get(e)
			}
			return hdlgen.Index(b.rdPtr1, opts...)
		}
		terms := make([]hdlgen.Expr, credits)
		for i, e := range b.ents {
			v := get(e) // registers are unsigned
			terms[i] = hdlgen.Mux(b.rdOneHot.Bit(i), v, hdlgen.Const(v.Width(), 0))
		}
		return orTree(terms)
	}
	// m_result_valid is a register of its own (out_count != 0), so that
	// the pop decision is one gate after a register and not a reduction
	// of the counter
	b.outValidReg = m.Reg("out_valid", 1, "the result buffer holds a result (out_count != 0)", hdlgen.ResetTo(0))
	mValid := b.outValidReg.Expr
	m.Assign(sh.outValid, mValid)
	m.Assign(sh.outConn, hd.conn)
	m.Assign(sh.outKind, hd.kind)
	for _, f := range sh.resultFields {
		m.Assign(sh.outFields[f.Name], hd.fields[f.Name])
	}
	m.Assign(sh.outError, hd.err)
	popReady := sh.outReady.Expr
	if s.Table {
		// a table operation's result is the wrapper's, taken at once:
		// from one register of the head, so that the pop, which the
		// occupancy counter and the head's registers wait for, is one
		// gate after registers (or'ed in the wrapper from the head's
		// operation, it was uet_cc_ctl's critical path, 6.89-7.17 ns)
		popReady = popReady.Or(b.hdIsOp)
	}
	sh.pop = mValid.And(popReady).Named("out_pop")
	sh.push = sh.valid[sh.W-1].Expr
	b.inc = func(ptr *hdlgen.Reg) hdlgen.Expr {
		if uint64(credits) == uint64(1)<<uint(ptrW) {
			return ptr.Add(hdlgen.Const(ptrW, 1))
		}
		return hdlgen.Mux(ptr.EqC(uint64(credits-1)), hdlgen.Const(ptrW, 0), ptr.Add(hdlgen.Const(ptrW, 1)))
	}
	one := hdlgen.Const(occW, 1)
	zero := hdlgen.Const(occW, 0)
	b.upDown = func(x hdlgen.Expr, up, down hdlgen.Expr) hdlgen.Expr {
		return x.Add(hdlgen.Mux(up, one, zero)).Sub(hdlgen.Mux(down, one, zero))
	}
	sh.push1 = sh.inValid.And(sh.readyReg)
	sh.occNext = b.upDown(sh.occ.Expr, sh.issue, sh.pop).Named("occ_update")
}

// wordProperties declares the shell's properties of the words on their
// way to the datapath and of the results (docs/formal.md).
func (sh *shell) wordProperties() {
	if !sh.s.Formal.Invariants {
		return
	}
	W, valid := sh.W, sh.valid
	res := hdlgen.NewRecord("the result").Set("conn", sh.conn[W-1].Expr).Set("kind", sh.resKind).Set("error", sh.wErr)
	for _, f := range sh.resultFields {
		res.Set(f.Name, sh.resVals[f.Name])
	}
	words := []checkedWord{
		{valid[0].And(sh.s1Fix), sh.s1FixWord.Expr},
		{valid[1].And(sh.s2Fix), sh.s2FixWord.Expr},
		{valid[2].And(sh.s3Fix), sh.s3FixWord.Expr},
		{valid[FirstStage-1].Expr, sh.curReg.Expr},
	}
	shellProperties(sh.m, sh.s, sh.table, words, valid[W-1].Expr, res, valid, sh.conn)
}

// clocked is the shell's registers' next state, in one process: the
// input buffer, the stages with their snooped words, and the result
// buffer.
func (sh *shell) clocked() {
	sh.m.Comb("shell", func(p *hdlgen.Process) {
		sh.inputBufferNext(p)
		p.Set(sh.occ, sh.occNext)
		sh.stagesNext(p)
		sh.resultBufferNext(p)
	})
}

// headNext is f of event field name of the head after the edge: f is
// applied to each value the head may take (the skid entry's, the arriving
// event's, its own) and the input buffer's choice (inputBufferNext)
// selects last, so that the choice, which waits for the head's leaving,
// does not precede f's logic.
func (sh *shell) headNext(name string, f func(hdlgen.Expr) hdlgen.Expr) hdlgen.Expr {
	head, skid := sh.head, sh.skid
	fIn, fKeep := f(sh.inFields[name].Expr), f(head.fields[name].Expr)
	return hdlgen.Mux(sh.leave,
		hdlgen.Mux(skid.valid, f(skid.fields[name].Expr), hdlgen.Mux(sh.push1, fIn, fKeep)),
		hdlgen.Mux(head.valid.Not().And(sh.push1), fIn, fKeep))
}

// inputBufferNext is the input buffer's next state: the head leaves into
// the stages (or the merge stage) and the skid entry, or the input,
// takes its place; an event offered while the head stays fills the skid.
func (sh *shell) inputBufferNext(p *hdlgen.Process) {
	s, head, skid, push1 := sh.s, sh.head, sh.skid, sh.push1
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
		p.Set(dst.conn, sh.inConn)
		p.Set(dst.kind, sh.inKind)
		if s.Table {
			p.Set(dst.op, sh.inOp)
		}
		for _, f := range s.EventFields {
			p.Set(dst.fields[f.Name], sh.inFields[f.Name])
		}
	}
	p.If(sh.leave, func() {
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
}

// stagesNext is the stages' next state: stage 1 takes the issued event
// and the word written at the edge that reads it; each later stage takes
// the one before it; the words written since stage 1's read replace the
// word read, stage by stage, up to the datapath's input.
func (sh *shell) stagesNext(p *hdlgen.Process) {
	s, W, valid, conn, newWord := sh.s, sh.W, sh.valid, sh.conn, sh.newWord
	snoop1, snoop2, snoop3 := sh.snoopRegs[0].Expr, sh.snoopRegs[1].Expr, sh.snoopRegs[2].Expr
	p.Set(valid[0], sh.enter1)
	p.Set(conn[0], sh.src.conn)
	p.Set(sh.s1Kind, sh.src.kind)
	if s.Table {
		p.Set(sh.s1Op, sh.src.op)
	}
	for _, f := range s.EventFields {
		p.Set(sh.s1Fields[f.Name], sh.src.fields[f.Name])
	}
	if sh.mu != nil {
		p.Set(sh.s1Members, sh.mu.issN)
	}
	for k := 2; k <= W; k++ {
		p.Set(valid[k-1], valid[k-2])
		p.Set(conn[k-1], conn[k-2])
	}
	if sh.wbWord != nil {
		p.Set(sh.s1Fix, sh.snoopHead.Or(sh.snoopWB))
		p.Set(sh.s1FixWord, hdlgen.Mux(sh.snoopWB, sh.wbWord, newWord))
	} else {
		p.Set(sh.s1Fix, sh.snoopHead)
		p.Set(sh.s1FixWord, newWord)
	}
	p.Set(sh.s2Fix, snoop1.Or(sh.s1Fix))
	p.Set(sh.s2FixWord, hdlgen.Mux(snoop1, newWord, sh.s1FixWord))
	p.Set(sh.s3Ram, sh.rd)
	p.Set(sh.s3Fix, snoop2.Or(sh.s2Fix))
	p.Set(sh.s3FixWord, hdlgen.Mux(snoop2, newWord, sh.s2FixWord))
	p.Set(sh.curReg, hdlgen.Mux(snoop3, newWord, sh.s3Word))
}

// resultBufferNext is the result buffer's next state: the last stage's
// result written at the write pointer, the head register reloaded when
// it is taken or when the result lands on it, the pointers and the count.
func (sh *shell) resultBufferNext(p *hdlgen.Process) {
	s, W, conn, b := sh.s, sh.W, sh.conn, &sh.buf
	hd, push, pop := b.hd, sh.push, sh.pop
	// the last stage's result into an entry (or the head)
	write := func(e entry) {
		p.Set(e.conn, conn[W-1])
		p.Set(e.kind, sh.resKind)
		for _, f := range sh.resultFields {
			p.Set(e.fields[f.Name], sh.resVals[f.Name])
		}
		p.Set(e.err, sh.wErr)
		if s.Table {
			p.Set(e.op, b.resOp)
		}
	}
	p.If(push, func() {
		for i, e := range b.ents {
			p.If(b.wrPtr.EqC(uint64(i)), func() { write(e) })
		}
		p.Set(b.wrPtr, b.inc(b.wrPtr))
	})
	// the head after the edge: the result written now if it lands at
	// the new head, else the next entry when the head is taken. Both
	// landings are decided from registers beside pop (the new head is
	// entry out_rd_ptr_plus1 when the head is taken, out_rd_ptr when
	// not), so that pop is the last select before the head registers
	writeHead := func() {
		write(hd)
		if s.Table {
			p.Set(b.hdIsOp, b.resOp.Any())
		}
	}
	landsNext := push.And(b.wrPtr.Eq(b.rdPtr1)).Named("out_lands_next")
	landsHead := push.And(b.wrPtr.Eq(b.rdPtr)).Named("out_lands_head")
	p.If(pop, func() {
		p.If(landsNext, writeHead).Else(func() {
			p.Set(hd.conn, b.pick(func(e entry) *hdlgen.Reg { return e.conn }))
			p.Set(hd.kind, b.pick(func(e entry) *hdlgen.Reg { return e.kind }))
			for _, f := range sh.resultFields {
				name := f.Name
				p.Set(hd.fields[name], b.pick(func(e entry) *hdlgen.Reg { return e.fields[name] }))
			}
			p.Set(hd.err, b.pick(func(e entry) *hdlgen.Reg { return e.err }))
			if s.Table {
				op := b.pick(func(e entry) *hdlgen.Reg { return e.op })
				p.Set(hd.op, op)
				p.Set(b.hdIsOp, op.Any())
			}
		})
	}).Else(func() {
		p.If(landsHead, writeHead)
	})
	p.If(pop, func() {
		p.Set(b.rdPtr, b.rdPtr1)
		p.Set(b.rdPtr1, b.inc(b.rdPtr1))
		if b.rdOneHot != nil {
			p.Set(b.rdOneHot, rotateLeft1(b.rdOneHot.Expr))
		}
	})
	p.Set(b.outCnt, b.upDown(b.outCnt.Expr, push, pop))
	// out_count after the edge is nonzero, decided on out_count itself
	// beside the push/pop select (equal in every state, the counter's
	// wrap-around included, so that out_valid_exact is inductive)
	topCnt := hdlgen.Const(sh.occW, uint64(1)<<uint(sh.occW)-1)
	onlyPush, onlyPop := push.And(pop.Not()), pop.And(push.Not())
	p.Set(b.outValidReg, hdlgen.Mux(onlyPush, b.outCnt.Ne(topCnt),
		hdlgen.Mux(onlyPop, b.outCnt.Ne(hdlgen.Const(sh.occW, 1)), b.outCnt.Any().Named("out_stays"))))
}

// issueNext decides the next cycle's issue: the plain shell's hazard
// registers (the next head against the next stages), the merging shell's
// slots, and the credit register.
func (sh *shell) issueNext() {
	m, s := sh.m, sh.s
	head, skid, valid, conn := sh.head, sh.skid, sh.valid, sh.conn
	// the hazard of the next head against the next stages a..b of a
	// group: stage j >= 2 will hold what stage j-1 holds, stage 1 the
	// issued head
	matchNext := func(x hdlgen.Value, which string, a, b int) hdlgen.Expr {
		hit := hdlgen.False()
		if a == 1 && b >= 1 {
			hit = sh.issue.And(head.conn.Eq(x)).Named("hazard_issued_" + which)
		}
		for j := max(a, 2); j <= b; j++ {
			hit = hit.Or(valid[j-2].And(conn[j-2].Eq(x)))
		}
		return hit
	}
	hazardNext := make([]hdlgen.Expr, len(sh.hazardRegs))
	for g, gr := range sh.groups[:len(sh.hazardRegs)] {
		name := "hazard_ahead"
		if len(sh.groups) > 1 {
			name = fmt.Sprintf("hazard%d_ahead", g)
		}
		a, b := gr[0], gr[1]
		// issued: the skid entry, else the arriving event; kept: the head,
		// else (no head) the arriving event. issue selects last, its
		// gates beside the comparisons
		mIn := matchNext(sh.inConn, "in", a, b)
		hazardNext[g] = hdlgen.Mux(sh.issue,
			hdlgen.Mux(skid.valid, matchNext(skid.conn, "skid", a, b), mIn),
			hdlgen.Mux(head.valid, matchNext(head.conn, "head", a, b), mIn)).Named(name)
	}
	if mu := sh.mu; mu != nil {
		mu.update(m, s, head, sh.headInRange, sh.headNext)
		sh.vValid, sh.vConn = []hdlgen.Expr{mu.iss.valid.Expr}, []hdlgen.Expr{mu.iss.conn.Expr}
		for k := range valid {
			sh.vValid, sh.vConn = append(sh.vValid, valid[k].Expr), append(sh.vConn, conn[k].Expr)
		}
		mu.hazards(m, sh.slotGroups, head, sh.vValid, sh.vConn)
	}
	occ, occW, credits := sh.occ, sh.occW, sh.credits
	m.Comb("issue_next", func(p *hdlgen.Process) {
		for g, h := range sh.hazardRegs {
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
		up, down := sh.issue.And(sh.pop.Not()), sh.pop.And(sh.issue.Not())
		upFull := geC(credits - 1).And(occ.Ne(top))
		downFull := geC(credits + 1).Or(occ.IsZero())
		p.Set(sh.fullReg, hdlgen.Mux(up, upFull, hdlgen.Mux(down, downFull, geC(credits))).Named("full_ahead"))
	})
}

// issueProperties declares that the registered hazards, credit and
// result valid are the rules they stand for (docs/formal.md).
func (sh *shell) issueProperties() {
	if !sh.s.Formal.Invariants {
		return
	}
	m, head, valid, conn := sh.m, sh.head, sh.valid, sh.conn
	// the registered hazards and credit are the rule itself, group
	// by group
	exact := hdlgen.True()
	for g, gr := range sh.groups[:len(sh.hazardRegs)] {
		hz := hdlgen.False()
		for k := gr[0]; k <= gr[1]; k++ {
			hz = hz.Or(valid[k-1].And(conn[k-1].Eq(head.conn)))
		}
		exact = exact.And(sh.hazardRegs[g].Eq(hz))
	}
	if sh.L >= 2 && sh.mu == nil { // with one stage there is nothing to compare: hazard is 0
		m.Assert("hazard_exact", head.valid.Implies(exact))
	}
	if sh.mu != nil {
		sh.mu.properties(m, sh.s, sh.slotGroups, sh.vValid, sh.vConn)
	}
	m.Assert("credit_exact", sh.fullReg.Eq(sh.occ.Ge(hdlgen.Const(sh.occW, uint64(sh.credits)))))
	m.Assert("out_valid_exact", sh.buf.outValidReg.Eq(sh.buf.outCnt.Any()))
}

// readyNext is s_event_ready for the next cycle: at most one event
// buffered.
func (sh *shell) readyNext() {
	head, skid, leave, push1 := sh.head, sh.skid, sh.leave, sh.push1
	sh.m.Comb("ready", func(p *hdlgen.Process) {
		// the skid entry is filled only when the head stays and an event arrives
		fills := head.valid.And(leave.Not()).And(push1)
		keeps := skid.valid.And(leave.Not())
		refill := skid.valid.And(leave).And(push1)
		p.Set(sh.readyReg, fills.Or(keeps).Or(refill).Not())
	})
}
