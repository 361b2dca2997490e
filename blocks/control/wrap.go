package control

import (
	"fmt"
	"strings"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/hdlgen"
)

// CoreInstance is the wrapped block's instance name in its wrapper: its
// state fields are named under it (u_core.state.c for state.c).
const CoreInstance = "u_core"

// Wrap builds `<block>_ctl` around core, a block built with its table
// port, and returns it with its register map. Its builders run in order
// (wrapper below), each declaring one part of the wrapper (the order of
// declarations is the order of the emitted Verilog).
func Wrap(core *hdlgen.Module, info Info) (*hdlgen.Module, *Map, error) {
	w, err := newWrapper(core, info)
	if err != nil {
		return nil, nil, err
	}
	w.streams()
	w.axiPorts()
	w.engineRegs()
	w.instance()
	w.runTimeSettings()
	w.tableData()
	if err := w.results(); err != nil {
		return nil, nil, err
	}
	if err := w.counters(); err != nil {
		return nil, nil, err
	}
	if err := w.axiWrites(); err != nil {
		return nil, nil, err
	}
	w.engine()
	mp, err := w.registerMap()
	if err != nil {
		return nil, nil, err
	}
	w.properties()
	return w.m, mp, nil
}

// wrapper is the control wrapper under construction: what its builders
// leave for the later ones.
type wrapper struct {
	core     *hdlgen.Module
	info     Info
	m        *hdlgen.Module
	ports    map[string]*hdlgen.Signal
	settings []*hdlgen.Signal
	ww       int // bits of the state word
	connW    int
	nWord    int // WORD_DATA registers

	// the block's streams
	in             map[string]hdlgen.Expr
	sValid, sReady *hdlgen.Signal
	mValid, mReady *hdlgen.Signal
	outs           map[string]*hdlgen.Signal
	outOrder       []string

	// AXI-Lite
	awaddr, awvalid, awready *hdlgen.Signal
	wdata, wstrb, wvalid     *hdlgen.Signal
	wready                   *hdlgen.Signal
	bresp, bvalid, bready    *hdlgen.Signal
	araddr, arvalid, arready *hdlgen.Signal
	rdata, rresp             *hdlgen.Signal
	rvalid, rready           *hdlgen.Signal

	// the engine's state
	clearBusy, clearMore, clearAt *hdlgen.Reg
	wordBusy, wordPend, wordOp    *hdlgen.Reg
	wordErr, rejected, opsOut     *hdlgen.Reg
	wordConn, scratch             *hdlgen.Reg
	wordConnHigh                  *hdlgen.Reg // WORD_CONN's bits above the connection id; nil for 32-bit ids
	wordData                      []*hdlgen.Reg
	opsW                          int

	// the block and what enters it
	inst       *hdlgen.Instance
	inject     hdlgen.Expr
	take       hdlgen.Expr
	sets       []setting
	eventReady hdlgen.Expr
	opAccepted hdlgen.Expr

	// results
	cValid, isOp       hdlgen.Expr
	coreOut            map[string]hdlgen.Expr
	opDone             hdlgen.Expr
	wordEnd, wordTake  *hdlgen.Reg
	wordEndErr, wordRd *hdlgen.Reg
	numConn            *hdlgen.Signal
	lastSweep          hdlgen.Expr
	cnts               []counter
	hits, counterRegs  []*hdlgen.Reg
	taken              hdlgen.Expr

	// AXI-Lite writes and reads
	awreadyReg, applyReg, bvalidReg *hdlgen.Reg
	arreadyReg, rdJoin, rvalidReg   *hdlgen.Reg
	rdataReg                        *hdlgen.Reg
	writeIdle                       *hdlgen.Signal
	doWrite, doRead                 hdlgen.Expr
	wData, wStrb, rAddr             *hdlgen.Reg
	wrFlags                         map[int]hdlgen.Expr
	wIdx, wAligned                  hdlgen.Expr
	ctlWrite, busy                  hdlgen.Expr
	wantClear, wantRead, wantWrite  hdlgen.Expr
	startClear, startWord           hdlgen.Expr
	paramOK                         map[string]hdlgen.Expr
	derives                         []derivation
	respond, refuse                 hdlgen.Expr
}

// counter is a COUNTER register: the results it counts.
type counter struct {
	name, doc string
	when      hdlgen.Expr
}

// newWrapper checks that core has the table port and fits the map.
func newWrapper(core *hdlgen.Module, info Info) (*wrapper, error) {
	w := &wrapper{core: core, info: info, ports: map[string]*hdlgen.Signal{}}
	for _, p := range core.Ports() {
		w.ports[p.Name()] = p
	}
	for _, n := range []string{pOp, pWData, pRData, pROp, "s_event_valid", "s_event_ready", "s_event_conn", "m_result_valid", "m_result_ready", "m_result_kind", "m_result_error"} {
		if w.ports[n] == nil {
			return nil, fmt.Errorf("control: module %s has no port %s: build it with connpipe.Spec.Table", core.Name(), n)
		}
	}
	for _, p := range core.Ports() {
		if _, _, ok := p.RunTime(); ok {
			if p.Width() > 32 {
				return nil, fmt.Errorf("control: setting %s of %d bits does not fit a 32-bit register", p.Name(), p.Width())
			}
			w.settings = append(w.settings, p)
		}
	}
	w.ww = w.ports[pWData].Width()
	w.connW = w.ports["s_event_conn"].Width()
	w.nWord = (w.ww + 31) / 32
	if OffWordData+4*w.nWord > OffCounter {
		return nil, fmt.Errorf("control: a %d-bit word needs %d WORD_DATA registers, more than the map's %d", w.ww, w.nWord, (OffCounter-OffWordData)/4)
	}
	if w.connW > 32 {
		return nil, fmt.Errorf("control: a %d-bit connection id does not fit WORD_CONN", w.connW)
	}
	name := Name(core.Name())
	w.m = hdlgen.NewModule(name, fmt.Sprintf("AXI-Lite control and status of %s: table clear after reset and on command,\nword access, result counters. Register map: docs/datasheets/%s.md, %s.h.", core.Name(), core.Name(), name))
	w.m.Note("register map: %d word registers, counters from 0x%03X (docs/control.md)", w.nWord, OffCounter)
	return w, nil
}

// formalName names a value that a broken variant replaces
// (FormalMutants), in formal builds only, so that the Verilog users build
// is the same with or without the properties.
func (w *wrapper) formalName(e hdlgen.Expr, n string) hdlgen.Expr {
	if w.info.Formal {
		return e.Named(n)
	}
	return e
}

// streams declares the block's streams, under the block's own port names.
func (w *wrapper) streams() {
	m := w.m
	w.in = map[string]hdlgen.Expr{}
	m.Group("Event stream (sink), as the block's; s_event_ready is low while the table is cleared")
	for _, p := range w.core.Ports() {
		if !p.IsInput() || !strings.HasPrefix(p.Name(), "s_event_") || p.Name() == pOp {
			continue
		}
		if p.Name() == "s_event_valid" {
			w.sValid = m.Input(p.Name(), 1, p.Doc())
			w.sReady = m.Output("s_event_ready", 1, "event ready: the block's, low while a table operation enters or the clear sweep runs")
			continue
		}
		w.in[p.Name()] = m.Input(p.Name(), p.Width(), p.Doc()).Expr
	}
	m.Group("Result stream (source), as the block's: the results of events only")
	w.outs = map[string]*hdlgen.Signal{}
	for _, p := range w.core.Ports() {
		if p.IsInput() || !strings.HasPrefix(p.Name(), "m_result_") || p.Name() == pROp {
			continue
		}
		if p.Name() == "m_result_valid" {
			w.mValid = m.Output(p.Name(), 1, p.Doc())
			w.mReady = m.Input("m_result_ready", 1, "result ready")
			continue
		}
		w.outs[p.Name()] = m.Output(p.Name(), p.Width(), p.Doc())
		w.outOrder = append(w.outOrder, p.Name())
	}
	var qual []*hdlgen.Signal
	for _, n := range w.outOrder {
		qual = append(qual, w.outs[n])
	}
	m.Qualify(w.mValid, qual...)
}

// axiPorts declares the AXI-Lite slave.
func (w *wrapper) axiPorts() {
	m := w.m
	m.Group("AXI-Lite slave: control and status (register map in the datasheet)")
	w.awaddr = m.Input("s_axil_awaddr", AddrW, "write address (bytes)")
	w.awvalid = m.Input("s_axil_awvalid", 1, "write address valid")
	w.awready = m.Output("s_axil_awready", 1, "write address ready")
	w.wdata = m.Input("s_axil_wdata", 32, "write data")
	w.wstrb = m.Input("s_axil_wstrb", 4, "write byte strobes")
	w.wvalid = m.Input("s_axil_wvalid", 1, "write data valid")
	w.wready = m.Output("s_axil_wready", 1, "write data ready")
	w.bresp = m.Output("s_axil_bresp", 2, "write response: always OKAY")
	w.bvalid = m.Output("s_axil_bvalid", 1, "write response valid")
	w.bready = m.Input("s_axil_bready", 1, "write response ready")
	w.araddr = m.Input("s_axil_araddr", AddrW, "read address (bytes)")
	w.arvalid = m.Input("s_axil_arvalid", 1, "read address valid")
	w.arready = m.Output("s_axil_arready", 1, "read address ready")
	w.rdata = m.Output("s_axil_rdata", 32, "read data")
	w.rresp = m.Output("s_axil_rresp", 2, "read response: always OKAY")
	w.rvalid = m.Output("s_axil_rvalid", 1, "read data valid")
	w.rready = m.Input("s_axil_rready", 1, "read data ready")
	m.Qualify(w.bvalid, w.bresp)
	m.Qualify(w.rvalid, w.rdata, w.rresp)
}

// engineRegs declares the state of the control engine.
func (w *wrapper) engineRegs() {
	m, connW := w.m, w.connW
	w.clearBusy = m.Reg("clear_busy", 1, "the clear sweep runs (STATUS.CLEAR_BUSY)", hdlgen.ResetTo(1))
	w.clearMore = m.Reg("clear_more", 1, "the sweep has connections left to issue", hdlgen.ResetTo(1))
	w.clearAt = m.Reg("clear_at", connW, "the next connection the sweep writes", hdlgen.ResetTo(0))
	w.wordBusy = m.Reg("word_busy", 1, "a word operation is in flight (STATUS.WORD_BUSY)", hdlgen.ResetTo(0))
	w.wordPend = m.Reg("word_pending", 1, "the word operation waits to enter the block", hdlgen.ResetTo(0))
	w.wordOp = m.Reg("word_op", connpipe.OpW, "the word operation's s_event_op", hdlgen.NoReset())
	w.wordErr = m.Reg("word_error", 1, "the last word operation was refused (STATUS.WORD_ERROR)", hdlgen.ResetTo(0))
	w.rejected = m.Reg("rejected", 1, "a command came while busy (STATUS.REJECTED)", hdlgen.ResetTo(0))
	w.opsW = 8
	w.opsOut = m.Reg("ops_out", w.opsW, "table operations in the block whose results are not back", hdlgen.ResetTo(0))
	w.wordConn = m.Reg("word_conn", connW, "WORD_CONN", hdlgen.ResetTo(0))
	if connW < 32 {
		// kept so that a value beyond every connection id is refused, not
		// cut to one in range
		w.wordConnHigh = m.Reg("word_conn_high", 32-connW, "WORD_CONN's bits above the connection id", hdlgen.ResetTo(0))
	}
	w.scratch = m.Reg("scratch", 32, "SCRATCH: software's to test the bus with", hdlgen.ResetTo(0))
	w.wordData = make([]*hdlgen.Reg, w.nWord)
	for i := range w.wordData {
		n := min(32, w.ww-32*i)
		w.wordData[i] = m.Reg(fmt.Sprintf("word_data%d", i), n, fmt.Sprintf("WORD_DATA_%d: word bits %d..%d", i, 32*i+n-1, 32*i), hdlgen.ResetTo(0))
	}
}

// instance places the block, with the operations injected into its event
// stream through a register slice in front of it: its inputs come from
// registers, as the block's own timing assumes (docs/pipeline.md), and
// the choice between the user's beat and an operation lies before it.
// The slice takes a beat when it is empty or the block takes its beat.
func (w *wrapper) instance() {
	m, in := w.m, w.in
	w.inst = m.Instantiate(CoreInstance, w.core).PassParams()
	w.inject = w.clearMore.Expr.Or(w.wordPend).Named("inject")
	coreReady := w.inst.Out("s_event_ready")
	opConn := hdlgen.Mux(w.clearBusy, w.clearAt, w.wordConn).Named("op_conn")
	opCode := hdlgen.Mux(w.clearBusy, hdlgen.Const(connpipe.OpW, connpipe.OpWrite), w.wordOp).Named("op_code")
	fwdValid := m.Reg("fwd_valid", 1, "the register slice in front of the block holds a beat", hdlgen.ResetTo(0))
	fwdOp := m.Reg("fwd_op", connpipe.OpW, "the slice's beat: its s_event_op", hdlgen.NoReset())
	fwd := map[string]*hdlgen.Reg{}
	var inNames []string
	for _, p := range w.core.Ports() {
		if _, ok := in[p.Name()]; ok {
			inNames = append(inNames, p.Name())
			fwd[p.Name()] = m.Reg("fwd_"+strings.TrimPrefix(p.Name(), "s_event_"), p.Width(), "the slice's beat: its "+p.Name(), hdlgen.NoReset())
		}
	}
	w.take = fwdValid.Not().Or(coreReady).Named("fwd_take")
	w.inst.In("s_event_valid", fwdValid)
	w.inst.In(pOp, fwdOp)
	for _, n := range inNames {
		w.inst.In(n, fwd[n])
	}
	inject, sValid, clearBusy := w.inject, w.sValid, w.clearBusy
	m.Comb("slice", func(p *hdlgen.Process) {
		p.If(w.take, func() {
			p.Set(fwdValid, inject.Or(sValid.Expr.And(clearBusy.Not())))
			p.Set(fwdOp, hdlgen.Mux(inject, opCode, hdlgen.Const(connpipe.OpW, connpipe.OpEvent)))
			p.Set(fwd["s_event_conn"], hdlgen.Mux(inject, opConn, in["s_event_conn"]))
			for _, n := range inNames {
				if n != "s_event_conn" {
					p.Set(fwd[n], in[n])
				}
			}
		})
	})
}

// runTimeSettings declares the run-time settings: a register each, reset
// to a parameter of the wrapper; a write out of the setting's range is
// refused.
func (w *wrapper) runTimeSettings() {
	m := w.m
	for k, sp := range w.settings {
		name, def, _ := sp.RunTime()
		lo, hi, why := sp.ParamRange()
		prm := m.Param(name, sp.Width(), def, sp.Doc()+"; the reset value of PARAM_"+name)
		if why != "" {
			prm.Limit(lo, hi, why)
		}
		r := m.Reg("param_"+strings.ToLower(name), sp.Width(), "PARAM_"+name+": the block's run-time setting", hdlgen.ResetToParam(prm))
		w.inst.In(sp.Name(), r)
		w.sets = append(w.sets, setting{sp, name, r, OffParam + 4*k})
	}
}

// tableData is the word a table write writes, and s_event_ready. The
// sweep writes zeros; a word write, WORD_DATA (both held while their
// operations are in the block), registered: an operation reaches the
// block's last stage many cycles after the registers that choose the word
// changed.
func (w *wrapper) tableData() {
	m := w.m
	var wdParts []hdlgen.Value
	for i := len(w.wordData) - 1; i >= 0; i-- {
		r := w.wordData[i]
		wdParts = append(wdParts, hdlgen.Mux(w.clearBusy, hdlgen.Const(r.Width(), 0), r))
	}
	wdReg := m.Reg("table_wdata", w.ww, "the word a table write writes: zeros while the table is cleared, else WORD_DATA", hdlgen.NoReset())
	wdSel := hdlgen.Cat(wdParts...).Named("table_wdata_sel")
	m.Comb("table_wdata", func(p *hdlgen.Process) { p.Set(wdReg, wdSel) })
	w.inst.In(pWData, wdReg)
	// low while an operation enters, and for the whole clear sweep
	w.eventReady = w.formalName(w.take.And(w.inject.Not()).And(w.clearBusy.Not()), "event_ready")
	m.Assign(w.sReady, w.eventReady)
	w.opAccepted = w.inject.And(w.take).Named("op_accepted")
}

// results passes the block's event results on and keeps its table
// operations' results: a word operation's end, registered with its word
// and error, so that the WORD_DATA registers take the word on a
// register's select, not on the block's result stream (their enables
// were the wrapper's slowest path on the ECP5).
func (w *wrapper) results() error {
	m, inst := w.m, w.inst
	w.cValid = inst.Out("m_result_valid")
	cOp := inst.Out(pROp)
	w.isOp = cOp.Any().Named("result_is_op")
	inst.In("m_result_ready", w.mReady) // the block takes its table operations' results itself
	m.Assign(w.mValid, w.cValid.And(w.isOp.Not()))
	w.coreOut = map[string]hdlgen.Expr{}
	for _, n := range w.outOrder {
		w.coreOut[n] = inst.Out(n)
		m.Assign(w.outs[n], w.coreOut[n])
	}
	rd := inst.Out(pRData)
	w.opDone = w.cValid.And(w.isOp).Named("op_done")
	w.wordEnd = m.Reg("word_end", 1, "the word operation's result came in the last cycle", hdlgen.ResetTo(0))
	w.wordEndErr = m.Reg("word_end_error", 1, "that result's error", hdlgen.NoReset())
	w.wordRd = m.Reg("word_rdata", w.ww, "that result's word (m_table_rdata)", hdlgen.NoReset())
	// WORD_DATA's enable for a read's word, as one register: its
	// registers (up to a few hundred) then wait for no logic of the
	// engine's state (uet_cc_ctl's slowest path on a seed, 6.82 ns, went
	// from word_pending through the engine's decoding into WORD_DATA)
	w.wordTake = m.Reg("word_take", 1, "WORD_DATA takes the word read (word_rdata) in this cycle", hdlgen.ResetTo(0))
	m.Comb("word_end", func(p *hdlgen.Process) {
		end := w.wordBusy.Expr.And(w.wordPend.Not()).And(w.opDone).And(w.wordEnd.Not())
		p.Set(w.wordEnd, end)
		p.Set(w.wordTake, end.And(w.wordOp.Bit(0)))
		p.Set(w.wordEndErr, inst.Out("m_result_error"))
		p.Set(w.wordRd, rd)
	})
	w.numConn = inst.Param("NUM_CONN")
	if w.numConn == nil {
		return fmt.Errorf("control: module %s has no parameter NUM_CONN: build it with connpipe.Spec.Table", w.core.Name())
	}
	// the sweep's last connection is NUM_CONN - 1
	connW := w.connW
	if nw := w.numConn.Width(); nw <= connW {
		w.lastSweep = w.clearAt.Add(hdlgen.Const(connW, 1)).Eq(w.numConn.ZExt(connW)).Named("clear_last")
	} else {
		w.lastSweep = w.clearAt.ZExt(nw).Add(hdlgen.Const(nw, 1)).Eq(w.numConn).Named("clear_last")
	}
	return nil
}

// counters declares the counters of the results taken (registered: the
// count is one cycle behind the handshake): each kind without error, the
// errors, each named value of a decoded field, each 1-bit field set.
func (w *wrapper) counters() error {
	m, coreOut := w.m, w.coreOut
	w.taken = w.cValid.And(w.isOp.Not()).And(w.mReady)
	good := coreOut["m_result_error"].Not()
	for k, kn := range w.info.Kinds {
		w.cnts = append(w.cnts, counter{"events_" + Ident(kn), fmt.Sprintf("results of %s events (kind %d) without error", kn, k),
			good.And(coreOut["m_result_kind"].EqC(uint64(k)))})
	}
	w.cnts = append(w.cnts, counter{"errors", "results with error set", coreOut["m_result_error"]})
	enum := map[string][]string{}
	for _, e := range w.info.Enums {
		enum[e.Field] = e.Names
	}
	for _, n := range w.outOrder {
		f := strings.TrimPrefix(n, "m_result_")
		if f == "conn" || f == "kind" || f == "error" {
			continue
		}
		if names, ok := enum[f]; ok {
			for v, vn := range names {
				if vn == "" {
					continue
				}
				w.cnts = append(w.cnts, counter{f + "_" + Ident(vn), fmt.Sprintf("results with %s = %d (%s)", f, v, vn), coreOut[n].EqC(uint64(v))})
			}
			continue
		}
		if coreOut[n].Width() == 1 {
			w.cnts = append(w.cnts, counter{f, fmt.Sprintf("results with %s set", f), coreOut[n]})
		}
	}
	if OffCounter+4*len(w.cnts) > 1<<AddrW {
		return fmt.Errorf("control: %d counters do not fit the map", len(w.cnts))
	}
	w.hits = make([]*hdlgen.Reg, len(w.cnts))
	w.counterRegs = make([]*hdlgen.Reg, len(w.cnts))
	for j, c := range w.cnts {
		w.hits[j] = m.Reg("hit_"+c.name, 1, "a result taken last cycle counts in counter "+c.name, hdlgen.ResetTo(0))
		w.counterRegs[j] = m.Reg("cnt_"+c.name, 32, "COUNTER "+c.name+": "+c.doc, hdlgen.ResetTo(0))
	}
	return nil
}

// axiWrites builds AXI-Lite's handshakes and a write's decoding. One
// write and one read at a time. A write is captured at the edge where
// both its address and data are valid and no write is in progress;
// awready/wready follow in the next cycle (the handshake), in which its
// register is decoded; the register takes it in the cycle after (the
// apply cycle), and bvalid follows, so a write has taken effect when its
// response is seen. A read's address is registered at the edge it is
// seen; in its handshake cycle each region of the map selects its
// register into a register of its own, and in the next their OR goes
// into rdata, a register, with rvalid after (registerMap).
func (w *wrapper) axiWrites() error {
	m := w.m
	w.awreadyReg = m.Reg("axil_awready", 1, "write address and data ready (the handshake cycle)", hdlgen.ResetTo(0))
	w.applyReg = m.Reg("axil_wr_apply", 1, "a write's register takes it (the cycle after the handshake)", hdlgen.ResetTo(0))
	w.bvalidReg = m.Reg("axil_bvalid", 1, "write response valid", hdlgen.ResetTo(0))
	w.arreadyReg = m.Reg("axil_arready", 1, "read address ready (the handshake cycle)", hdlgen.ResetTo(0))
	w.rdJoin = m.Reg("axil_rd_join", 1, "a read's regions are joined into rdata (the cycle after the handshake)", hdlgen.ResetTo(0))
	w.rvalidReg = m.Reg("axil_rvalid", 1, "read data valid", hdlgen.ResetTo(0))
	w.rdataReg = m.Reg("axil_rdata", 32, "read data", hdlgen.NoReset())
	m.Assign(w.awready, w.awreadyReg)
	m.Assign(w.wready, w.awreadyReg)
	m.Assign(w.bvalid, w.bvalidReg)
	m.Assign(w.bresp, hdlgen.Const(2, 0))
	m.Assign(w.arready, w.arreadyReg)
	m.Assign(w.rvalid, w.rvalidReg)
	m.Assign(w.rdata, w.rdataReg)
	m.Assign(w.rresp, hdlgen.Const(2, 0))
	// a write is captured once the last one has been answered, and no
	// derivation of a setting runs (Quotient)
	doWrite := w.awvalid.Expr.And(w.wvalid).And(w.awreadyReg.Not()).And(w.applyReg.Not()).And(w.bvalidReg.Not())
	for _, mc := range w.info.Macros {
		if mc.Derive != nil && w.writeIdle == nil {
			w.writeIdle = m.Var("axil_write_idle", 1, "no derivation of a setting runs: a write may be captured")
			doWrite = doWrite.And(w.writeIdle)
		}
	}
	w.doWrite = doWrite.Named("axil_write")
	w.doRead = w.arvalid.Expr.And(w.arreadyReg.Not()).And(w.rdJoin.Not()).And(w.rvalidReg.Not()).Named("axil_read")
	// the address and data are registered when a transaction is seen and
	// used in the next cycle, its handshake: no decoding lies between the
	// bus and a register
	wAddr := m.Reg("axil_wr_addr", AddrW, "write address, registered", hdlgen.NoReset())
	w.wData = m.Reg("axil_wr_data", 32, "write data, registered", hdlgen.NoReset())
	w.wStrb = m.Reg("axil_wr_strb", 4, "write strobes, registered", hdlgen.NoReset())
	w.rAddr = m.Reg("axil_rd_addr", AddrW, "read address, registered", hdlgen.NoReset())
	m.Comb("axil_capture", func(p *hdlgen.Process) {
		p.If(w.doWrite, func() {
			p.Set(wAddr, w.awaddr)
			p.Set(w.wData, w.wdata)
			p.Set(w.wStrb, w.wstrb)
		})
		p.If(w.doRead, func() { p.Set(w.rAddr, w.araddr) })
	})
	w.wIdx = wAddr.Slice(AddrW-1, 2).Named("axil_wr_index")
	w.wAligned = wAddr.Slice(1, 0).IsZero().Named("axil_wr_aligned")
	w.wrFlags = map[int]hdlgen.Expr{}
	w.ctlWrite = w.wrAt(OffControl).And(w.wStrb.Bit(0)).Named("ctl_write")
	w.busy = w.clearBusy.Expr.Or(w.wordBusy).Named("busy")
	w.wantClear, w.wantRead, w.wantWrite = w.cmd(CtlClearTable), w.cmd(CtlReadWord), w.cmd(CtlWriteWord)
	wantWord := w.wantRead.Or(w.wantWrite)
	w.startClear = w.wantClear.And(w.busy.Not()).And(wantWord.Not()).Named("start_clear")
	w.startWord = wantWord.And(w.busy.Not()).And(w.wantClear.Not()).Named("start_word")
	wordRegWrite := hdlgen.False()
	for i := range w.wordData {
		wordRegWrite = wordRegWrite.Or(w.wrAt(OffWordData + 4*i))
	}
	w.paramOK = map[string]hdlgen.Expr{}
	paramBad := hdlgen.False()
	for _, st := range w.sets {
		lo, hi, _ := st.sig.ParamRange()
		// the value written, all 32 bits of it: one the register is too
		// narrow to hold is out of range, not cut to its low bits. It is
		// checked on the bus's data as the transaction is captured, and
		// the answer registered with it: the register it merges with
		// changes only by this write, and the decoding after the capture
		// has no comparison to wait for
		v := st.reg.Expr
		if v.Width() < 32 {
			v = v.ZExt(32)
		}
		v = merge(w.wstrb.Expr, w.wdata.Expr, v).Named("param_" + strings.ToLower(st.name) + "_written")
		ok, _ := inRange(v, lo, hi)
		ok = w.formalName(ok, "param_"+strings.ToLower(st.name)+"_write_ok")
		okReg := m.Reg("param_"+strings.ToLower(st.name)+"_ok", 1, "PARAM_"+st.name+": the value being written lies in its range", hdlgen.NoReset())
		m.Comb("param_"+strings.ToLower(st.name)+"_check", func(p *hdlgen.Process) {
			p.If(w.doWrite, func() { p.Set(okReg, ok) })
		})
		w.paramOK[st.name] = okReg.Expr
		paramBad = paramBad.Or(w.wrAt(st.off).And(w.paramOK[st.name].Not()))
	}
	derives, err := deriveSettings(m, w.info.Macros, w.sets, w.paramOK, w.wrAt)
	if err != nil {
		return err
	}
	w.derives = derives
	// a write whose response waits for a derivation, and the last cycle of
	// one (its result is written, and the response follows)
	var starts, dones, busies []hdlgen.Expr
	for _, dv := range derives {
		starts, dones, busies = append(starts, dv.start), append(dones, dv.done), append(busies, dv.busy)
	}
	w.respond = w.applyReg.Expr
	if len(derives) > 0 {
		w.respond = w.applyReg.Expr.And(anyOf(starts).Not()).Or(anyOf(dones)).Named("axil_respond")
		m.Comb("axil_write_idle", func(p *hdlgen.Process) { p.Set(w.writeIdle, anyOf(busies).Not()) })
	}
	w.refuse = w.wantClear.Or(wantWord).And(w.busy).
		Or(w.wantClear.And(wantWord)).
		Or(wordRegWrite.Or(w.wrAt(OffWordConn)).And(w.busy)).
		Or(paramBad).Named("refuse")
	return nil
}

// wrAt is 1 in the apply cycle of a write to the register at byte offset
// off: a flag per register, decoded from the registered address in the
// handshake cycle, so that the apply cycle's enables (up to a few hundred
// flip-flops' each, for WORD_DATA) wait for no comparison of the address;
// the data and strobes stay registered until the response, as no write
// is captured meanwhile.
func (w *wrapper) wrAt(off int) hdlgen.Expr {
	if f, ok := w.wrFlags[off]; ok {
		return f
	}
	r := w.m.Reg(fmt.Sprintf("axil_wr_%03x", off), 1, fmt.Sprintf("a write to offset 0x%03X applies in this cycle", off), hdlgen.ResetTo(0))
	w.m.Assign(r.Next, w.awreadyReg.Expr.And(w.wAligned).And(w.wIdx.EqC(uint64(off/4))))
	w.wrFlags[off] = r.Expr
	return r.Expr
}

// cmd is a CONTROL command bit written.
func (w *wrapper) cmd(bit int) hdlgen.Expr { return w.ctlWrite.And(w.wData.Bit(bit)) }

// merge is the bytes of a RW register that the strobes keep.
func merge(strb, data, old hdlgen.Expr) hdlgen.Expr {
	var parts []hdlgen.Value
	for b := (old.Width() - 1) / 8; b >= 0; b-- {
		hi := min(8*b+7, old.Width()-1)
		parts = append(parts, hdlgen.Mux(strb.Bit(b), data.Slice(hi, 8*b), old.Slice(hi, 8*b)))
	}
	return hdlgen.Cat(parts...)
}

// strobed is old with the registered write's strobed bytes.
func (w *wrapper) strobed(old hdlgen.Expr) hdlgen.Expr { return merge(w.wStrb.Expr, w.wData.Expr, old) }

// engine is the control engine's next state: the clear sweep, a word
// operation, the registers written over AXI-Lite, the counters and the
// AXI-Lite handshakes.
func (w *wrapper) engine() {
	connW := w.connW
	w.m.Comb("engine", func(p *hdlgen.Process) {
		// the sweep
		p.If(w.startClear, func() {
			p.Set(w.clearBusy, hdlgen.True())
			p.Set(w.clearMore, hdlgen.True())
			p.Set(w.clearAt, hdlgen.Const(connW, 0))
		}).ElseIf(w.clearBusy, func() {
			p.If(w.clearMore, func() {
				p.If(w.opAccepted, func() {
					p.Set(w.clearAt, w.clearAt.Add(hdlgen.Const(connW, 1)))
					p.If(w.lastSweep, func() { p.Set(w.clearMore, hdlgen.False()) })
				})
			}).ElseIf(w.opsOut.IsZero(), func() {
				p.Set(w.clearBusy, hdlgen.False())
			})
		})
		// a word operation
		start := func() {
			p.Set(w.wordBusy, hdlgen.True())
			p.Set(w.wordPend, hdlgen.True())
			p.Set(w.wordOp, hdlgen.Cat(w.wantWrite, w.wantRead))
		}
		p.If(w.startWord, func() {
			if w.wordConnHigh == nil {
				start()
				return
			}
			// a connection beyond every id never reaches the block
			p.If(w.wordConnHigh.Ne(hdlgen.Const(w.wordConnHigh.Width(), 0)), func() {
				p.Set(w.wordErr, hdlgen.True())
			}).Else(start)
		}).ElseIf(w.wordBusy, func() {
			p.If(w.wordPend, func() {
				p.If(w.opAccepted, func() { p.Set(w.wordPend, hdlgen.False()) })
			}).ElseIf(w.wordEnd, func() {
				p.Set(w.wordBusy, hdlgen.False())
				p.Set(w.wordErr, w.wordEndErr)
			})
		})
		one := hdlgen.Const(w.opsW, 1)
		zero := hdlgen.Const(w.opsW, 0)
		p.Set(w.opsOut, w.opsOut.Add(hdlgen.Mux(w.opAccepted, one, zero)).Sub(hdlgen.Mux(w.opDone, one, zero)))
		// registers written over AXI-Lite (WORD_* refused while busy)
		p.If(w.wrAt(OffScratch), func() { p.Set(w.scratch, w.strobed(w.scratch.Expr)) })
		p.If(w.busy.Not(), func() {
			p.If(w.wrAt(OffWordConn), func() {
				v := w.strobed(w.wordConnReg()).Named("word_conn_written")
				p.Set(w.wordConn, v.Slice(connW-1, 0))
				if w.wordConnHigh != nil {
					p.Set(w.wordConnHigh, v.Slice(31, connW))
				}
			})
			for i, r := range w.wordData {
				p.If(w.wrAt(OffWordData+4*i), func() { p.Set(r, w.strobed(r.Expr)) })
			}
		})
		// a read's word (the engine is busy then: no write of WORD_DATA
		// is taken in that cycle)
		p.If(w.wordTake, func() {
			for i, r := range w.wordData {
				p.Set(r, w.wordRd.Slice(32*i+r.Width()-1, 32*i))
			}
		})
		for _, st := range w.sets {
			p.If(w.wrAt(st.off).And(w.paramOK[st.name]), func() { p.Set(st.reg, w.strobed(st.reg.Expr)) })
		}
		for _, dv := range w.derives {
			p.If(dv.done, func() { p.Set(dv.to.reg, dv.value) })
		}
		p.If(w.refuse, func() { p.Set(w.rejected, hdlgen.True()) }).
			ElseIf(w.cmd(CtlClearRejected), func() { p.Set(w.rejected, hdlgen.False()) })
		// counters
		for j, c := range w.cnts {
			p.Set(w.hits[j], w.taken.And(c.when))
			p.If(w.cmd(CtlClearCounters), func() { p.Set(w.counterRegs[j], hdlgen.Const(32, 0)) }).
				ElseIf(w.hits[j], func() { p.Set(w.counterRegs[j], w.counterRegs[j].Add(hdlgen.Const(32, 1))) })
		}
		// AXI-Lite handshakes
		p.Set(w.awreadyReg, w.doWrite)
		p.Set(w.applyReg, w.awreadyReg)
		p.If(w.respond, func() { p.Set(w.bvalidReg, hdlgen.True()) }).
			ElseIf(w.formalName(w.bready.Expr, "axil_b_taken"), func() { p.Set(w.bvalidReg, hdlgen.False()) })
		p.Set(w.arreadyReg, w.doRead)
		p.Set(w.rdJoin, w.arreadyReg)
		p.If(w.rdJoin, func() { p.Set(w.rvalidReg, hdlgen.True()) }).
			ElseIf(w.formalName(w.rready.Expr, "axil_r_taken"), func() { p.Set(w.rvalidReg, hdlgen.False()) })
	})
}

// registerMap is the register map and the read multiplexer, by region:
// the fixed registers, the settings, WORD_DATA, the counters.
func (w *wrapper) registerMap() (*Map, error) {
	ww, info := w.ww, w.info
	mp := &Map{Block: w.core.Name(), AddrW: AddrW, WordBits: ww, NumConn: info.NumConn, Macros: info.Macros}
	for _, mem := range w.core.Memories() {
		if mem.PerConnection {
			mp.Word = mem.Layout.Fields()
		}
	}
	status := hdlgen.Cat(w.rejected, w.wordErr, w.wordBusy, w.clearBusy).ZExt(32)
	fixed := []struct {
		r Reg
		v hdlgen.Expr
	}{
		{Reg{"ID", OffID, "RO", fmt.Sprintf("0x%08X (\"NICG\"): a nicgen control wrapper", Magic)}, hdlgen.Const(32, Magic)},
		{Reg{"WORD_BITS", OffWordBits, "RO", fmt.Sprintf("bits of a connection's state word: %d", ww)}, hdlgen.Const(32, uint64(ww))},
		{Reg{"NUM_CONN", OffNumConn, "RO", fmt.Sprintf("connections in use: the parameter NUM_CONN (2..%d, default %d)", info.NumConn, info.NumConn)}, w.numConn.ZExt(32)},
		{Reg{"COUNTERS", OffCounters, "RO", fmt.Sprintf("number of COUNTER registers: %d", len(w.cnts))}, hdlgen.Const(32, uint64(len(w.cnts)))},
		{Reg{"CONTROL", OffControl, "WO", "commands: write 1 to a bit to act (reads 0)"}, hdlgen.Const(32, 0)},
		{Reg{"STATUS", OffStatus, "RO", "engine status"}, status},
		{Reg{"WORD_CONN", OffWordConn, "RW", "the connection of READ_WORD and WRITE_WORD (ignored while busy); one at or above NUM_CONN sets WORD_ERROR and leaves every word as it was"}, w.wordConnReg()},
		{Reg{"CLEAR_AT", OffClearAt, "RO", "the next connection the clear sweep writes (its progress)"}, w.clearAt.ZExt(32)},
		{Reg{"SCRATCH", OffScratch, "RW", "no effect: software's to test the bus with"}, w.scratch.Expr},
	}
	var fixedVals []hdlgen.Value
	for _, f := range fixed {
		mp.Regs = append(mp.Regs, f.r)
		fixedVals = append(fixedVals, f.v)
	}
	var paramVals []hdlgen.Value
	for _, st := range w.sets {
		lo, hi, why := st.sig.ParamRange()
		_, def, _ := st.sig.RunTime()
		doc := fmt.Sprintf("%s; %d..%d, reset to the parameter %s (default %d); a write out of range is refused", st.sig.Doc(), lo, hi, st.name, def)
		from := ""
		for _, dv := range w.derives {
			if dv.to.name == st.name {
				from = dv.q.From
				doc += fmt.Sprintf("; each write of PARAM_%s taken sets it to (%d + d/2) / d, d = %s - %d, clamped into its range, before that write's response", from, dv.q.Num, from, dv.q.Off)
			}
			if dv.q.From == st.name {
				doc += fmt.Sprintf("; a write taken also sets PARAM_%s, and is answered once it has", dv.q.Setting)
			}
		}
		mp.Regs = append(mp.Regs, Reg{"PARAM_" + st.name, uint32(st.off), "RW", doc})
		mp.Settings = append(mp.Settings, Setting{Name: st.name, Offset: uint32(st.off), Width: st.sig.Width(), Default: def, Min: lo, Max: hi, Doc: st.sig.Doc(), RangeWhy: why, From: from})
		paramVals = append(paramVals, st.reg.ZExt(32))
	}
	var wordVals []hdlgen.Value
	for i, r := range w.wordData {
		mp.Regs = append(mp.Regs, Reg{fmt.Sprintf("WORD_DATA_%d", i), uint32(OffWordData + 4*i), "RW",
			fmt.Sprintf("word bits %d..%d: READ_WORD's result, WRITE_WORD's operand (ignored while busy)", 32*i+r.Width()-1, 32*i)})
		wordVals = append(wordVals, r.ZExt(32))
	}
	var cntVals []hdlgen.Value
	for j, c := range w.cnts {
		r := Reg{"COUNTER_" + strings.ToUpper(c.name), uint32(OffCounter + 4*j), "RO", c.doc + " (32 bits, wraps)"}
		mp.Regs = append(mp.Regs, r)
		mp.Counters = append(mp.Counters, r)
		cntVals = append(cntVals, w.counterRegs[j])
	}
	mp.Bits = controlBits
	regions := []rdRegion{{0, fixedVals, "fixed"}, {OffParam, paramVals, "params"}, {OffWordData, wordVals, "word"}, {OffCounter, cntVals, "counters"}}
	if err := w.readMux(regions); err != nil {
		return nil, err
	}
	return mp, nil
}

// controlBits are the CONTROL and STATUS registers' bits.
var controlBits = []Bit{
	{"CONTROL", "CLEAR_TABLE", CtlClearTable, "write the zero word to every connection; s_event_ready is low until STATUS.CLEAR_BUSY falls"},
	{"CONTROL", "READ_WORD", CtlReadWord, "read WORD_CONN's word into WORD_DATA, in order with the events"},
	{"CONTROL", "WRITE_WORD", CtlWriteWord, "write WORD_DATA to WORD_CONN's word, in order with the events (with READ_WORD: read the old word, then write)"},
	{"CONTROL", "CLEAR_COUNTERS", CtlClearCounters, "zero every counter"},
	{"CONTROL", "CLEAR_REJECTED", CtlClearRejected, "zero STATUS.REJECTED"},
	{"STATUS", "CLEAR_BUSY", StClearBusy, "the clear sweep runs (after reset, and after CLEAR_TABLE)"},
	{"STATUS", "WORD_BUSY", StWordBusy, "a word operation is in flight"},
	{"STATUS", "WORD_ERROR", StWordError, "the last word operation's WORD_CONN was out of range: nothing was read or written"},
	{"STATUS", "REJECTED", StRejected, "a command, or a write of WORD_CONN or WORD_DATA, came while busy (or CLEAR_TABLE with a word operation), or a PARAM write was out of range, and was ignored; sticky"},
}

// rdRegion is a region of the register map: the values of its
// registers, from offset off.
type rdRegion struct {
	off  int
	vals []hdlgen.Value
	name string
}

// readMux is the AXI-Lite read's data path: the read address decoded in
// the handshake cycle, per region, into a register of the region's value
// (0 when the read names none of its registers); their OR into rdata in
// the join cycle.
func (w *wrapper) readMux(regions []rdRegion) error {
	m := w.m
	rIdx := w.rAddr.Slice(AddrW-1, 2).Named("axil_rd_index")
	rAligned := w.rAddr.Slice(1, 0).IsZero().Named("axil_rd_aligned")
	var regionErr error
	region := func(off, n int, vals []hdlgen.Value, name string) hdlgen.Expr {
		b := hdlgen.BitsFor(uint64(n)) // n values and a zero past them
		if (off/4)%(1<<b) != 0 {
			regionErr = fmt.Errorf("control: %d %s registers overrun their region at 0x%03X", n, name, off)
		}
		opts := append(append([]hdlgen.Value(nil), vals...), hdlgen.Const(32, 0))
		sel := rIdx.Slice(b-1, 0)
		in := rIdx.Slice(AddrW-3, b).EqC(uint64(off/4) >> uint(b))
		return hdlgen.Mux(in.And(rAligned), hdlgen.Index(sel, opts...), hdlgen.Const(32, 0)).Named("rd_" + name)
	}
	// each region's value into a register of its own in the handshake
	// cycle, their OR into rdata in the next (the join cycle): one
	// region's multiplexer (up to 32 registers) or the OR per cycle, where
	// both in one were uet_cc_ctl's slowest path on a seed (6.89 ns)
	var rdParts []*hdlgen.Reg
	for _, rg := range regions {
		if len(rg.vals) == 0 {
			continue
		}
		v := region(rg.off, len(rg.vals), rg.vals, rg.name)
		r := m.Reg("axil_rd_"+rg.name, 32, "the read's value if it names a register of the "+rg.name+" region, else 0 (the handshake cycle's)", hdlgen.NoReset())
		m.Comb("axil_rd_"+rg.name, func(p *hdlgen.Process) {
			p.If(w.arreadyReg, func() { p.Set(r, v) })
		})
		rdParts = append(rdParts, r)
	}
	if regionErr != nil {
		return regionErr
	}
	rdVal := rdParts[0].Expr
	for _, r := range rdParts[1:] {
		rdVal = rdVal.Or(r)
	}
	rdVal = rdVal.Named("axil_rd_value")
	m.Comb("axil_read", func(p *hdlgen.Process) {
		p.If(w.rdJoin, func() { p.Set(w.rdataReg, rdVal) })
	})
	return nil
}

// properties are the wrapper's own properties, proved with the block's
// (docs/control.md), in formal builds; a value of the cycle before is
// kept in a register of the formal build.
func (w *wrapper) properties() {
	if !w.info.Formal {
		return
	}
	m := w.m
	past := func(n string, v hdlgen.Expr) hdlgen.Expr {
		r := m.Reg("past_"+n, v.Width(), "formal: "+n+" in the cycle before", hdlgen.ResetTo(0))
		m.Assign(r.Next, v)
		return r.Expr
	}
	atMostOne := func(xs ...hdlgen.Expr) hdlgen.Expr {
		ok := hdlgen.True()
		for i := range xs {
			for _, y := range xs[i+1:] {
				ok = ok.And(xs[i].And(y).Not())
			}
		}
		return ok
	}
	// AXI: a response, once valid, stays valid and unchanged until taken
	m.Assert("axil_b_held", past("b_waits", w.bvalidReg.And(w.bready.Not())).Implies(w.bvalidReg))
	m.Assert("axil_r_held", past("r_waits", w.rvalidReg.And(w.rready.Not())).Implies(w.rvalidReg.And(w.rdataReg.Eq(past("rdata", w.rdataReg.Expr)))))
	// one write and one read at a time: each is in one of its phases
	m.Assert("axil_one_write", atMostOne(w.awreadyReg.Expr, w.applyReg.Expr, w.bvalidReg.Expr))
	m.Assert("axil_one_read", atMostOne(w.arreadyReg.Expr, w.rdJoin.Expr, w.rvalidReg.Expr))
	// the clear sweep holds s_event_ready low from start to end
	m.Assert("clear_holds_events", w.clearBusy.Implies(w.eventReady.Not()))
	// a setting in its range stays in it: a write out of range is
	// refused, all 32 bits of it checked (settings whose range is
	// narrower than their register)
	for _, st := range w.sets {
		lo, hi, _ := st.sig.ParamRange()
		if in, narrow := inRange(st.reg.Expr, lo, hi); narrow {
			n := strings.ToLower(st.name)
			m.Assert("param_"+n+"_stays_in_range", past(n+"_in_range", in).Implies(in))
		}
	}
	// a derived value is clamped into its setting's range
	for _, dv := range w.derives {
		lo, hi, _ := dv.to.sig.ParamRange()
		if in, narrow := inRange(dv.value, lo, hi); narrow {
			m.Assert("derive_"+strings.ToLower(dv.to.name)+"_in_range", dv.done.Implies(in))
		}
	}
}

// wordConnReg is WORD_CONN as software wrote it: 32 bits.
func (w *wrapper) wordConnReg() hdlgen.Expr {
	if w.wordConnHigh == nil {
		return w.wordConn.Expr
	}
	return hdlgen.Cat(w.wordConnHigh, w.wordConn)
}
