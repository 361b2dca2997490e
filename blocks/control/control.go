// Package control builds the AXI-Lite control and status wrapper of a
// block on the pipelined shell (docs/control.md): `<block>_ctl`, which
// instantiates the block built with its table port (connpipe.Spec.Table)
// and adds
//
//   - a table-clear engine that writes the zero word to every connection
//     after reset and on command, holding s_event_ready low while it runs;
//   - read and write access to one connection's state word;
//   - 32-bit counters of the results: per event kind, errors, every 1-bit
//     result field, and every named value of an enumerated result field;
//   - an AXI-Lite slave with the register map (Map) that the datasheet
//     and the generated C header describe.
//
// The event and result streams pass through with the block's own port
// names; the table operations travel the block's pipeline in order with
// the events, so a word read or written is exactly the word the events
// before it left and the events after it start from.
package control

import (
	"fmt"
	"strings"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/hdlgen"
)

// Enum names the values of a result field, counted one counter per name.
type Enum struct {
	Field string
	Names []string
}

// Info is what the wrapper needs to know of the block besides its module.
type Info struct {
	NumConn int
	Kinds   []string // names of s_event_kind's values
	Enums   []Enum   // result fields whose values have names
	Macros  []Macro  // the block's helpers for software, in the header
	// Formal declares the wrapper's own properties (formal builds only:
	// they add registers of the cycle before, and name the values that
	// FormalMutants replace).
	Formal bool
}

// Macro is a C function-like macro of the header, under the header's
// prefix: how software computes a setting from what it means, for
// example. Name carries its parameter list ("MI_GAIN_FOR(target_ns)").
type Macro struct {
	Name, Body, Doc string
	// Examples are calls and their values, computed in Go:
	// TestControlHeader compiles them against the header.
	Examples []Example
	// Derive, if set, is what the macro computes, done by the wrapper
	// itself whenever its input setting is written.
	Derive *Quotient
}

// Quotient derives run-time setting Setting from setting From: after a
// write of From that is taken (in its range), the wrapper sets Setting's
// register to (Num + floor(d/2)) / d, d = From - Off, clamped into
// Setting's range, by long division (one quotient bit per clock), and
// only then answers the write (docs/control.md). From's range must lie
// above Off.
type Quotient struct {
	Setting, From string
	Num, Off      uint64
}

// Eval is the value the wrapper derives from a write of x, clamped into
// [lo, hi]; x must be above Off.
func (q Quotient) Eval(x, lo, hi uint64) uint64 {
	d := x - q.Off
	return min(max((q.Num+d/2)/d, lo), hi)
}

// Example is a call of a Macro ("MI_GAIN_FOR(17200)") and its value.
type Example struct {
	Call  string
	Value uint64
}

// Reg is one 32-bit register of the map.
type Reg struct {
	Name   string
	Offset uint32
	Access string // RO, RW or WO
	Doc    string
}

// Bit is a named bit of CONTROL or STATUS.
type Bit struct {
	Reg  string
	Name string
	Bit  int
	Doc  string
}

// Map is the wrapper's register map.
type Map struct {
	Block    string
	AddrW    int // AXI-Lite address width
	WordBits int
	NumConn  int
	Regs     []Reg // by offset
	Bits     []Bit
	Counters []Reg // the COUNTER registers, also in Regs
	Settings []Setting
	Macros   []Macro
	Word     []hdlgen.Field
}

// Setting is a run-time setting of the block (hdlgen Module.Setting): a
// PARAM register, reset to the wrapper's Verilog parameter of the same name.
type Setting struct {
	Name          string
	Offset        uint32
	Width         int
	Default       uint64
	Min, Max      uint64
	Doc, RangeWhy string
	// From names the setting whose writes set this one too (Quotient),
	// or is empty.
	From string
}

// Magic is the value of register ID: "NICG".
const Magic = 0x4E494347

// Offsets of the fixed registers and of the two arrays.
const (
	OffID       = 0x000
	OffWordBits = 0x004
	OffNumConn  = 0x008
	OffCounters = 0x00C
	OffControl  = 0x010
	OffStatus   = 0x014
	OffWordConn = 0x018
	OffClearAt  = 0x01C
	OffScratch  = 0x020
	OffParam    = 0x040 // PARAM_<name> at OffParam + 4 k: the run-time settings
	OffWordData = 0x100 // WORD_DATA_i at OffWordData + 4 i: bits 32 i + 31 .. 32 i
	OffCounter  = 0x200 // COUNTER_j at OffCounter + 4 j
	AddrW       = 12
)

// CONTROL bits (write 1 to act; they read as 0) and STATUS bits.
const (
	CtlClearTable    = 0 // sweep the zero word over every connection
	CtlReadWord      = 1 // read WORD_CONN's word into WORD_DATA
	CtlWriteWord     = 2 // write WORD_DATA to WORD_CONN's word (with READ_WORD: read the old, then write)
	CtlClearCounters = 3 // zero every counter
	CtlClearRejected = 4 // zero STATUS.REJECTED

	StClearBusy = 0 // the clear sweep runs: s_event_ready is low
	StWordBusy  = 1 // a word operation is in the pipeline
	StWordError = 2 // the last word operation's WORD_CONN was out of range: nothing was read or written
	StRejected  = 3 // a command or a WORD_* write came while busy and was ignored (sticky)
)

// Name is the wrapper module's name for block name.
func Name(block string) string { return block + "_ctl" }

// port names of the table port and the op (connpipe.Spec.Table)
const (
	pOp    = "s_event_op"
	pWData = "s_table_wdata"
	pRData = "m_table_rdata"
	pROp   = "m_result_op"
)

// Wrap builds `<block>_ctl` around core, a block built with its table
// port, and returns it with its register map.
func Wrap(core *hdlgen.Module, info Info) (*hdlgen.Module, *Map, error) {
	ports := map[string]*hdlgen.Signal{}
	for _, p := range core.Ports() {
		ports[p.Name()] = p
	}
	for _, n := range []string{pOp, pWData, pRData, pROp, "s_event_valid", "s_event_ready", "s_event_conn", "m_result_valid", "m_result_ready", "m_result_kind", "m_result_error"} {
		if ports[n] == nil {
			return nil, nil, fmt.Errorf("control: module %s has no port %s: build it with connpipe.Spec.Table", core.Name(), n)
		}
	}
	var settings []*hdlgen.Signal
	for _, p := range core.Ports() {
		if _, _, ok := p.RunTime(); ok {
			if p.Width() > 32 {
				return nil, nil, fmt.Errorf("control: setting %s of %d bits does not fit a 32-bit register", p.Name(), p.Width())
			}
			settings = append(settings, p)
		}
	}
	ww := ports[pWData].Width()
	connW := ports["s_event_conn"].Width()
	nWord := (ww + 31) / 32
	if OffWordData+4*nWord > OffCounter {
		return nil, nil, fmt.Errorf("control: a %d-bit word needs %d WORD_DATA registers, more than the map's %d", ww, nWord, (OffCounter-OffWordData)/4)
	}
	if connW > 32 {
		return nil, nil, fmt.Errorf("control: a %d-bit connection id does not fit WORD_CONN", connW)
	}

	name := Name(core.Name())
	// formalName names a value that a broken variant replaces
	// (FormalMutants), in formal builds only, so that the Verilog users
	// build is the same with or without the properties
	formalName := func(e hdlgen.Expr, n string) hdlgen.Expr {
		if info.Formal {
			return e.Named(n)
		}
		return e
	}
	m := hdlgen.NewModule(name, fmt.Sprintf("AXI-Lite control and status of %s: table clear after reset and on command,\nword access, result counters. Register map: docs/datasheets/%s.md, %s.h.", core.Name(), core.Name(), name))
	m.Note("register map: %d word registers, counters from 0x%03X (docs/control.md)", nWord, OffCounter)

	// the block's streams, under the block's own port names
	in := map[string]hdlgen.Expr{}
	m.Group("Event stream (sink), as the block's; s_event_ready is low while the table is cleared")
	var sValid, sReady *hdlgen.Signal
	for _, p := range core.Ports() {
		if !p.IsInput() || !strings.HasPrefix(p.Name(), "s_event_") || p.Name() == pOp {
			continue
		}
		if p.Name() == "s_event_valid" {
			sValid = m.Input(p.Name(), 1, p.Doc())
			sReady = m.Output("s_event_ready", 1, "event ready: the block's, low while a table operation enters or the clear sweep runs")
			continue
		}
		in[p.Name()] = m.Input(p.Name(), p.Width(), p.Doc()).Expr
	}
	m.Group("Result stream (source), as the block's: the results of events only")
	var mValid, mReady *hdlgen.Signal
	outs := map[string]*hdlgen.Signal{}
	var outOrder []string
	for _, p := range core.Ports() {
		if p.IsInput() || !strings.HasPrefix(p.Name(), "m_result_") || p.Name() == pROp {
			continue
		}
		if p.Name() == "m_result_valid" {
			mValid = m.Output(p.Name(), 1, p.Doc())
			mReady = m.Input("m_result_ready", 1, "result ready")
			continue
		}
		outs[p.Name()] = m.Output(p.Name(), p.Width(), p.Doc())
		outOrder = append(outOrder, p.Name())
	}
	var qual []*hdlgen.Signal
	for _, n := range outOrder {
		qual = append(qual, outs[n])
	}
	m.Qualify(mValid, qual...)

	m.Group("AXI-Lite slave: control and status (register map in the datasheet)")
	awaddr := m.Input("s_axil_awaddr", AddrW, "write address (bytes)")
	awvalid := m.Input("s_axil_awvalid", 1, "write address valid")
	awready := m.Output("s_axil_awready", 1, "write address ready")
	wdata := m.Input("s_axil_wdata", 32, "write data")
	wstrb := m.Input("s_axil_wstrb", 4, "write byte strobes")
	wvalid := m.Input("s_axil_wvalid", 1, "write data valid")
	wready := m.Output("s_axil_wready", 1, "write data ready")
	bresp := m.Output("s_axil_bresp", 2, "write response: always OKAY")
	bvalid := m.Output("s_axil_bvalid", 1, "write response valid")
	bready := m.Input("s_axil_bready", 1, "write response ready")
	araddr := m.Input("s_axil_araddr", AddrW, "read address (bytes)")
	arvalid := m.Input("s_axil_arvalid", 1, "read address valid")
	arready := m.Output("s_axil_arready", 1, "read address ready")
	rdata := m.Output("s_axil_rdata", 32, "read data")
	rresp := m.Output("s_axil_rresp", 2, "read response: always OKAY")
	rvalid := m.Output("s_axil_rvalid", 1, "read data valid")
	rready := m.Input("s_axil_rready", 1, "read data ready")
	m.Qualify(bvalid, bresp)
	m.Qualify(rvalid, rdata, rresp)

	// state of the control engine
	clearBusy := m.Reg("clear_busy", 1, "the clear sweep runs (STATUS.CLEAR_BUSY)", hdlgen.ResetTo(1))
	clearMore := m.Reg("clear_more", 1, "the sweep has connections left to issue", hdlgen.ResetTo(1))
	clearAt := m.Reg("clear_at", connW, "the next connection the sweep writes", hdlgen.ResetTo(0))
	wordBusy := m.Reg("word_busy", 1, "a word operation is in flight (STATUS.WORD_BUSY)", hdlgen.ResetTo(0))
	wordPend := m.Reg("word_pending", 1, "the word operation waits to enter the block", hdlgen.ResetTo(0))
	wordOp := m.Reg("word_op", connpipe.OpW, "the word operation's s_event_op", hdlgen.NoReset())
	wordErr := m.Reg("word_error", 1, "the last word operation was refused (STATUS.WORD_ERROR)", hdlgen.ResetTo(0))
	rejected := m.Reg("rejected", 1, "a command came while busy (STATUS.REJECTED)", hdlgen.ResetTo(0))
	opsW := 8
	opsOut := m.Reg("ops_out", opsW, "table operations in the block whose results are not back", hdlgen.ResetTo(0))
	wordConn := m.Reg("word_conn", connW, "WORD_CONN", hdlgen.ResetTo(0))
	scratch := m.Reg("scratch", 32, "SCRATCH: software's to test the bus with", hdlgen.ResetTo(0))
	wordData := make([]*hdlgen.Reg, nWord)
	for i := range wordData {
		w := min(32, ww-32*i)
		wordData[i] = m.Reg(fmt.Sprintf("word_data%d", i), w, fmt.Sprintf("WORD_DATA_%d: word bits %d..%d", i, 32*i+w-1, 32*i), hdlgen.ResetTo(0))
	}

	// the block, with the operations injected into its event stream
	inst := m.Instantiate("u_core", core).PassParams()
	inject := clearMore.Expr.Or(wordPend).Named("inject")
	coreReady := inst.Out("s_event_ready")
	opConn := hdlgen.Mux(clearBusy, clearAt, wordConn).Named("op_conn")
	opCode := hdlgen.Mux(clearBusy, hdlgen.Const(connpipe.OpW, connpipe.OpWrite), wordOp).Named("op_code")
	// a register slice in front of the block: its inputs come from
	// registers, as the block's own timing assumes (docs/pipeline.md), and
	// the choice between the user's beat and an operation lies before it.
	// It takes a beat when it is empty or the block takes its beat.
	fwdValid := m.Reg("fwd_valid", 1, "the register slice in front of the block holds a beat", hdlgen.ResetTo(0))
	fwdOp := m.Reg("fwd_op", connpipe.OpW, "the slice's beat: its s_event_op", hdlgen.NoReset())
	fwd := map[string]*hdlgen.Reg{}
	var inNames []string
	for _, p := range core.Ports() {
		if _, ok := in[p.Name()]; ok {
			inNames = append(inNames, p.Name())
			fwd[p.Name()] = m.Reg("fwd_"+strings.TrimPrefix(p.Name(), "s_event_"), p.Width(), "the slice's beat: its "+p.Name(), hdlgen.NoReset())
		}
	}
	take := fwdValid.Not().Or(coreReady).Named("fwd_take")
	inst.In("s_event_valid", fwdValid)
	inst.In(pOp, fwdOp)
	for _, n := range inNames {
		inst.In(n, fwd[n])
	}
	m.Comb("slice", func(p *hdlgen.Process) {
		p.If(take, func() {
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
	// the run-time settings: a register each, reset to a parameter of the
	// wrapper; a write out of the setting's range is refused
	var sets []setting
	for k, sp := range settings {
		name, def, _ := sp.RunTime()
		lo, hi, why := sp.ParamRange()
		prm := m.Param(name, sp.Width(), def, sp.Doc()+"; the reset value of PARAM_"+name)
		if why != "" {
			prm.Limit(lo, hi, why)
		}
		r := m.Reg("param_"+strings.ToLower(name), sp.Width(), "PARAM_"+name+": the block's run-time setting", hdlgen.ResetToParam(prm))
		inst.In(sp.Name(), r)
		sets = append(sets, setting{sp, name, r, OffParam + 4*k})
	}
	// the sweep writes zeros; a word write, WORD_DATA (both held while
	// their operations are in the block), registered: an operation
	// reaches the block's last stage many cycles after the registers that
	// choose the word changed
	var wdParts []hdlgen.Value
	for i := len(wordData) - 1; i >= 0; i-- {
		r := wordData[i]
		wdParts = append(wdParts, hdlgen.Mux(clearBusy, hdlgen.Const(r.Width(), 0), r))
	}
	wdReg := m.Reg("table_wdata", ww, "the word a table write writes: zeros while the table is cleared, else WORD_DATA", hdlgen.NoReset())
	wdSel := hdlgen.Cat(wdParts...).Named("table_wdata_sel")
	m.Comb("table_wdata", func(p *hdlgen.Process) { p.Set(wdReg, wdSel) })
	inst.In(pWData, wdReg)
	// low while an operation enters, and for the whole clear sweep
	eventReady := formalName(take.And(inject.Not()).And(clearBusy.Not()), "event_ready")
	m.Assign(sReady, eventReady)
	opAccepted := inject.And(take).Named("op_accepted")

	cValid := inst.Out("m_result_valid")
	cOp := inst.Out(pROp)
	isOp := cOp.Any().Named("result_is_op")
	inst.In("m_result_ready", mReady) // the block takes its table operations' results itself
	m.Assign(mValid, cValid.And(isOp.Not()))
	coreOut := map[string]hdlgen.Expr{}
	for _, n := range outOrder {
		coreOut[n] = inst.Out(n)
		m.Assign(outs[n], coreOut[n])
	}
	rd := inst.Out(pRData)
	opDone := cValid.And(isOp).Named("op_done")
	// a word operation's end, registered with its word and error: the
	// WORD_DATA registers then take the word on a register's select, not
	// on the block's result stream (their enables were the wrapper's
	// slowest path on the ECP5)
	wordEnd := m.Reg("word_end", 1, "the word operation's result came in the last cycle", hdlgen.ResetTo(0))
	wordEndErr := m.Reg("word_end_error", 1, "that result's error", hdlgen.NoReset())
	wordRd := m.Reg("word_rdata", ww, "that result's word (m_table_rdata)", hdlgen.NoReset())
	// WORD_DATA's enable for a read's word, as one register: its
	// registers (up to a few hundred) then wait for no logic of the
	// engine's state (uet_cc_ctl's slowest path on a seed, 6.82 ns, went
	// from word_pending through the engine's decoding into WORD_DATA)
	wordTake := m.Reg("word_take", 1, "WORD_DATA takes the word read (word_rdata) in this cycle", hdlgen.ResetTo(0))
	m.Comb("word_end", func(p *hdlgen.Process) {
		end := wordBusy.Expr.And(wordPend.Not()).And(opDone).And(wordEnd.Not())
		p.Set(wordEnd, end)
		p.Set(wordTake, end.And(wordOp.Bit(0)))
		p.Set(wordEndErr, inst.Out("m_result_error"))
		p.Set(wordRd, rd)
	})
	numConn := inst.Param("NUM_CONN")
	if numConn == nil {
		return nil, nil, fmt.Errorf("control: module %s has no parameter NUM_CONN: build it with connpipe.Spec.Table", core.Name())
	}
	// the sweep's last connection is NUM_CONN - 1
	var lastSweep hdlgen.Expr
	if nw := numConn.Width(); nw <= connW {
		lastSweep = clearAt.Add(hdlgen.Const(connW, 1)).Eq(numConn.ZExt(connW)).Named("clear_last")
	} else {
		lastSweep = clearAt.ZExt(nw).Add(hdlgen.Const(nw, 1)).Eq(numConn).Named("clear_last")
	}

	// counters of the results taken (registered: the count is one cycle
	// behind the handshake)
	type counter struct {
		name, doc string
		when      hdlgen.Expr
	}
	taken := cValid.And(isOp.Not()).And(mReady)
	good := coreOut["m_result_error"].Not()
	var cnts []counter
	for k, kn := range info.Kinds {
		cnts = append(cnts, counter{"events_" + Ident(kn), fmt.Sprintf("results of %s events (kind %d) without error", kn, k),
			good.And(coreOut["m_result_kind"].EqC(uint64(k)))})
	}
	cnts = append(cnts, counter{"errors", "results with error set", coreOut["m_result_error"]})
	enum := map[string][]string{}
	for _, e := range info.Enums {
		enum[e.Field] = e.Names
	}
	for _, n := range outOrder {
		f := strings.TrimPrefix(n, "m_result_")
		if f == "conn" || f == "kind" || f == "error" {
			continue
		}
		if names, ok := enum[f]; ok {
			for v, vn := range names {
				if vn == "" {
					continue
				}
				cnts = append(cnts, counter{f + "_" + Ident(vn), fmt.Sprintf("results with %s = %d (%s)", f, v, vn), coreOut[n].EqC(uint64(v))})
			}
			continue
		}
		if coreOut[n].Width() == 1 {
			cnts = append(cnts, counter{f, fmt.Sprintf("results with %s set", f), coreOut[n]})
		}
	}
	if OffCounter+4*len(cnts) > 1<<AddrW {
		return nil, nil, fmt.Errorf("control: %d counters do not fit the map", len(cnts))
	}
	hits := make([]*hdlgen.Reg, len(cnts))
	counters := make([]*hdlgen.Reg, len(cnts))
	for j, c := range cnts {
		hits[j] = m.Reg("hit_"+c.name, 1, "a result taken last cycle counts in counter "+c.name, hdlgen.ResetTo(0))
		counters[j] = m.Reg("cnt_"+c.name, 32, "COUNTER "+c.name+": "+c.doc, hdlgen.ResetTo(0))
	}

	// AXI-Lite: one write and one read at a time. A write is captured at
	// the edge where both its address and data are valid and no write is
	// in progress; awready/wready follow in the next cycle (the
	// handshake), in which its register is decoded; the register takes
	// it in the cycle after (the apply cycle), and bvalid follows, so a
	// write has taken effect when its response is seen. A read's address
	// is registered at the edge it is seen; in its handshake cycle each
	// region of the map selects its register into a register of its own,
	// and in the next their OR goes into rdata, a register, with rvalid
	// after.
	awreadyReg := m.Reg("axil_awready", 1, "write address and data ready (the handshake cycle)", hdlgen.ResetTo(0))
	applyReg := m.Reg("axil_wr_apply", 1, "a write's register takes it (the cycle after the handshake)", hdlgen.ResetTo(0))
	bvalidReg := m.Reg("axil_bvalid", 1, "write response valid", hdlgen.ResetTo(0))
	arreadyReg := m.Reg("axil_arready", 1, "read address ready (the handshake cycle)", hdlgen.ResetTo(0))
	rdJoin := m.Reg("axil_rd_join", 1, "a read's regions are joined into rdata (the cycle after the handshake)", hdlgen.ResetTo(0))
	rvalidReg := m.Reg("axil_rvalid", 1, "read data valid", hdlgen.ResetTo(0))
	rdataReg := m.Reg("axil_rdata", 32, "read data", hdlgen.NoReset())
	m.Assign(awready, awreadyReg)
	m.Assign(wready, awreadyReg)
	m.Assign(bvalid, bvalidReg)
	m.Assign(bresp, hdlgen.Const(2, 0))
	m.Assign(arready, arreadyReg)
	m.Assign(rvalid, rvalidReg)
	m.Assign(rdata, rdataReg)
	m.Assign(rresp, hdlgen.Const(2, 0))
	// a write is captured once the last one has been answered, and no
	// derivation of a setting runs (Quotient)
	var writeIdle *hdlgen.Signal
	doWrite := awvalid.Expr.And(wvalid).And(awreadyReg.Not()).And(applyReg.Not()).And(bvalidReg.Not())
	for _, mc := range info.Macros {
		if mc.Derive != nil && writeIdle == nil {
			writeIdle = m.Var("axil_write_idle", 1, "no derivation of a setting runs: a write may be captured")
			doWrite = doWrite.And(writeIdle)
		}
	}
	doWrite = doWrite.Named("axil_write")
	doRead := arvalid.Expr.And(arreadyReg.Not()).And(rdJoin.Not()).And(rvalidReg.Not()).Named("axil_read")
	// the address and data are registered when a transaction is seen and
	// used in the next cycle, its handshake: no decoding lies between the
	// bus and a register
	wAddr := m.Reg("axil_wr_addr", AddrW, "write address, registered", hdlgen.NoReset())
	wData := m.Reg("axil_wr_data", 32, "write data, registered", hdlgen.NoReset())
	wStrb := m.Reg("axil_wr_strb", 4, "write strobes, registered", hdlgen.NoReset())
	rAddr := m.Reg("axil_rd_addr", AddrW, "read address, registered", hdlgen.NoReset())
	m.Comb("axil_capture", func(p *hdlgen.Process) {
		p.If(doWrite, func() {
			p.Set(wAddr, awaddr)
			p.Set(wData, wdata)
			p.Set(wStrb, wstrb)
		})
		p.If(doRead, func() { p.Set(rAddr, araddr) })
	})
	wIdx := wAddr.Slice(AddrW-1, 2).Named("axil_wr_index")
	wAligned := wAddr.Slice(1, 0).IsZero().Named("axil_wr_aligned")
	// wrAt is 1 in the apply cycle of a write to the register at byte
	// offset off: a flag per register, decoded from the registered
	// address in the handshake cycle, so that the apply cycle's enables
	// (up to a few hundred flip-flops' each, for WORD_DATA) wait for no
	// comparison of the address; the data and strobes stay registered
	// until the response, as no write is captured meanwhile
	wrFlags := map[int]hdlgen.Expr{}
	wrAt := func(off int) hdlgen.Expr {
		if f, ok := wrFlags[off]; ok {
			return f
		}
		r := m.Reg(fmt.Sprintf("axil_wr_%03x", off), 1, fmt.Sprintf("a write to offset 0x%03X applies in this cycle", off), hdlgen.ResetTo(0))
		m.Assign(r.Next, awreadyReg.Expr.And(wAligned).And(wIdx.EqC(uint64(off/4))))
		wrFlags[off] = r.Expr
		return r.Expr
	}
	// the bytes of a RW register that the strobes keep
	merge := func(strb, data, old hdlgen.Expr) hdlgen.Expr {
		var parts []hdlgen.Value
		for b := (old.Width() - 1) / 8; b >= 0; b-- {
			hi := min(8*b+7, old.Width()-1)
			parts = append(parts, hdlgen.Mux(strb.Bit(b), data.Slice(hi, 8*b), old.Slice(hi, 8*b)))
		}
		return hdlgen.Cat(parts...)
	}
	strobed := func(old hdlgen.Expr) hdlgen.Expr { return merge(wStrb.Expr, wData.Expr, old) }
	ctlWrite := wrAt(OffControl).And(wStrb.Bit(0)).Named("ctl_write")
	cmd := func(bit int) hdlgen.Expr { return ctlWrite.And(wData.Bit(bit)) }
	busy := clearBusy.Expr.Or(wordBusy).Named("busy")
	wantClear, wantRead, wantWrite := cmd(CtlClearTable), cmd(CtlReadWord), cmd(CtlWriteWord)
	wantWord := wantRead.Or(wantWrite)
	startClear := wantClear.And(busy.Not()).And(wantWord.Not()).Named("start_clear")
	startWord := wantWord.And(busy.Not()).And(wantClear.Not()).Named("start_word")
	wordRegWrite := hdlgen.False()
	for i := range wordData {
		wordRegWrite = wordRegWrite.Or(wrAt(OffWordData + 4*i))
	}
	paramOK := map[string]hdlgen.Expr{}
	paramBad := hdlgen.False()
	for _, st := range sets {
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
		v = merge(wstrb.Expr, wdata.Expr, v).Named("param_" + strings.ToLower(st.name) + "_written")
		ok, _ := inRange(v, lo, hi)
		ok = formalName(ok, "param_"+strings.ToLower(st.name)+"_write_ok")
		okReg := m.Reg("param_"+strings.ToLower(st.name)+"_ok", 1, "PARAM_"+st.name+": the value being written lies in its range", hdlgen.NoReset())
		m.Comb("param_"+strings.ToLower(st.name)+"_check", func(p *hdlgen.Process) {
			p.If(doWrite, func() { p.Set(okReg, ok) })
		})
		paramOK[st.name] = okReg.Expr
		paramBad = paramBad.Or(wrAt(st.off).And(paramOK[st.name].Not()))
	}
	derives, err := deriveSettings(m, info.Macros, sets, paramOK, wrAt)
	if err != nil {
		return nil, nil, err
	}
	// a write whose response waits for a derivation, and the last cycle of
	// one (its result is written, and the response follows)
	var starts, dones, busies []hdlgen.Expr
	for _, dv := range derives {
		starts, dones, busies = append(starts, dv.start), append(dones, dv.done), append(busies, dv.busy)
	}
	respond := applyReg.Expr
	if len(derives) > 0 {
		respond = applyReg.Expr.And(anyOf(starts).Not()).Or(anyOf(dones)).Named("axil_respond")
		m.Comb("axil_write_idle", func(p *hdlgen.Process) { p.Set(writeIdle, anyOf(busies).Not()) })
	}
	refuse := wantClear.Or(wantWord).And(busy).
		Or(wantClear.And(wantWord)).
		Or(wordRegWrite.Or(wrAt(OffWordConn)).And(busy)).
		Or(paramBad).Named("refuse")

	m.Comb("engine", func(p *hdlgen.Process) {
		// the sweep
		p.If(startClear, func() {
			p.Set(clearBusy, hdlgen.True())
			p.Set(clearMore, hdlgen.True())
			p.Set(clearAt, hdlgen.Const(connW, 0))
		}).ElseIf(clearBusy, func() {
			p.If(clearMore, func() {
				p.If(opAccepted, func() {
					p.Set(clearAt, clearAt.Add(hdlgen.Const(connW, 1)))
					p.If(lastSweep, func() { p.Set(clearMore, hdlgen.False()) })
				})
			}).ElseIf(opsOut.IsZero(), func() {
				p.Set(clearBusy, hdlgen.False())
			})
		})
		// a word operation
		p.If(startWord, func() {
			p.Set(wordBusy, hdlgen.True())
			p.Set(wordPend, hdlgen.True())
			p.Set(wordOp, hdlgen.Cat(wantWrite, wantRead))
		}).ElseIf(wordBusy, func() {
			p.If(wordPend, func() {
				p.If(opAccepted, func() { p.Set(wordPend, hdlgen.False()) })
			}).ElseIf(wordEnd, func() {
				p.Set(wordBusy, hdlgen.False())
				p.Set(wordErr, wordEndErr)
			})
		})
		one := hdlgen.Const(opsW, 1)
		zero := hdlgen.Const(opsW, 0)
		p.Set(opsOut, opsOut.Add(hdlgen.Mux(opAccepted, one, zero)).Sub(hdlgen.Mux(opDone, one, zero)))
		// registers written over AXI-Lite (WORD_* refused while busy)
		p.If(wrAt(OffScratch), func() { p.Set(scratch, strobed(scratch.Expr)) })
		p.If(busy.Not(), func() {
			p.If(wrAt(OffWordConn), func() { p.Set(wordConn, strobed(wordConn.Expr)) })
			for i, r := range wordData {
				p.If(wrAt(OffWordData+4*i), func() { p.Set(r, strobed(r.Expr)) })
			}
		})
		// a read's word (the engine is busy then: no write of WORD_DATA
		// is taken in that cycle)
		p.If(wordTake, func() {
			for i, r := range wordData {
				p.Set(r, wordRd.Slice(32*i+r.Width()-1, 32*i))
			}
		})
		for _, st := range sets {
			p.If(wrAt(st.off).And(paramOK[st.name]), func() { p.Set(st.reg, strobed(st.reg.Expr)) })
		}
		for _, dv := range derives {
			p.If(dv.done, func() { p.Set(dv.to.reg, dv.value) })
		}
		p.If(refuse, func() { p.Set(rejected, hdlgen.True()) }).
			ElseIf(cmd(CtlClearRejected), func() { p.Set(rejected, hdlgen.False()) })
		// counters
		for j, c := range cnts {
			p.Set(hits[j], taken.And(c.when))
			p.If(cmd(CtlClearCounters), func() { p.Set(counters[j], hdlgen.Const(32, 0)) }).
				ElseIf(hits[j], func() { p.Set(counters[j], counters[j].Add(hdlgen.Const(32, 1))) })
		}
		// AXI-Lite handshakes
		p.Set(awreadyReg, doWrite)
		p.Set(applyReg, awreadyReg)
		p.If(respond, func() { p.Set(bvalidReg, hdlgen.True()) }).
			ElseIf(formalName(bready.Expr, "axil_b_taken"), func() { p.Set(bvalidReg, hdlgen.False()) })
		p.Set(arreadyReg, doRead)
		p.Set(rdJoin, arreadyReg)
		p.If(rdJoin, func() { p.Set(rvalidReg, hdlgen.True()) }).
			ElseIf(formalName(rready.Expr, "axil_r_taken"), func() { p.Set(rvalidReg, hdlgen.False()) })
	})

	// the register map and the read multiplexer, by region: the fixed
	// registers, WORD_DATA, the counters
	mp := &Map{Block: core.Name(), AddrW: AddrW, WordBits: ww, NumConn: info.NumConn, Macros: info.Macros}
	for _, mem := range core.Memories() {
		if mem.PerConnection {
			mp.Word = mem.Layout.Fields()
		}
	}
	status := hdlgen.Cat(rejected, wordErr, wordBusy, clearBusy).ZExt(32)
	fixed := []struct {
		r Reg
		v hdlgen.Expr
	}{
		{Reg{"ID", OffID, "RO", fmt.Sprintf("0x%08X (\"NICG\"): a nicgen control wrapper", Magic)}, hdlgen.Const(32, Magic)},
		{Reg{"WORD_BITS", OffWordBits, "RO", fmt.Sprintf("bits of a connection's state word: %d", ww)}, hdlgen.Const(32, uint64(ww))},
		{Reg{"NUM_CONN", OffNumConn, "RO", fmt.Sprintf("connections in use: the parameter NUM_CONN (2..%d, default %d)", info.NumConn, info.NumConn)}, numConn.ZExt(32)},
		{Reg{"COUNTERS", OffCounters, "RO", fmt.Sprintf("number of COUNTER registers: %d", len(cnts))}, hdlgen.Const(32, uint64(len(cnts)))},
		{Reg{"CONTROL", OffControl, "WO", "commands: write 1 to a bit to act (reads 0)"}, hdlgen.Const(32, 0)},
		{Reg{"STATUS", OffStatus, "RO", "engine status"}, status},
		{Reg{"WORD_CONN", OffWordConn, "RW", "the connection of READ_WORD and WRITE_WORD (ignored while busy)"}, wordConn.ZExt(32)},
		{Reg{"CLEAR_AT", OffClearAt, "RO", "the next connection the clear sweep writes (its progress)"}, clearAt.ZExt(32)},
		{Reg{"SCRATCH", OffScratch, "RW", "no effect: software's to test the bus with"}, scratch.Expr},
	}
	var fixedVals []hdlgen.Value
	for _, f := range fixed {
		mp.Regs = append(mp.Regs, f.r)
		fixedVals = append(fixedVals, f.v)
	}
	var paramVals []hdlgen.Value
	for _, st := range sets {
		lo, hi, why := st.sig.ParamRange()
		_, def, _ := st.sig.RunTime()
		doc := fmt.Sprintf("%s; %d..%d, reset to the parameter %s (default %d); a write out of range is refused", st.sig.Doc(), lo, hi, st.name, def)
		from := ""
		for _, dv := range derives {
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
	for i, r := range wordData {
		mp.Regs = append(mp.Regs, Reg{fmt.Sprintf("WORD_DATA_%d", i), uint32(OffWordData + 4*i), "RW",
			fmt.Sprintf("word bits %d..%d: READ_WORD's result, WRITE_WORD's operand (ignored while busy)", 32*i+r.Width()-1, 32*i)})
		wordVals = append(wordVals, r.ZExt(32))
	}
	var cntVals []hdlgen.Value
	for j, c := range cnts {
		r := Reg{"COUNTER_" + strings.ToUpper(c.name), uint32(OffCounter + 4*j), "RO", c.doc + " (32 bits, wraps)"}
		mp.Regs = append(mp.Regs, r)
		mp.Counters = append(mp.Counters, r)
		cntVals = append(cntVals, counters[j])
	}
	mp.Bits = []Bit{
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
	rIdx := rAddr.Slice(AddrW-1, 2).Named("axil_rd_index")
	rAligned := rAddr.Slice(1, 0).IsZero().Named("axil_rd_aligned")
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
	type rdRegion struct {
		off  int
		vals []hdlgen.Value
		name string
	}
	regions := []rdRegion{{0, fixedVals, "fixed"}, {OffParam, paramVals, "params"}, {OffWordData, wordVals, "word"}, {OffCounter, cntVals, "counters"}}
	var rdParts []*hdlgen.Reg
	for _, rg := range regions {
		if len(rg.vals) == 0 {
			continue
		}
		v := region(rg.off, len(rg.vals), rg.vals, rg.name)
		r := m.Reg("axil_rd_"+rg.name, 32, "the read's value if it names a register of the "+rg.name+" region, else 0 (the handshake cycle's)", hdlgen.NoReset())
		m.Comb("axil_rd_"+rg.name, func(p *hdlgen.Process) {
			p.If(arreadyReg, func() { p.Set(r, v) })
		})
		rdParts = append(rdParts, r)
	}
	if regionErr != nil {
		return nil, nil, regionErr
	}
	rdVal := rdParts[0].Expr
	for _, r := range rdParts[1:] {
		rdVal = rdVal.Or(r)
	}
	rdVal = rdVal.Named("axil_rd_value")
	m.Comb("axil_read", func(p *hdlgen.Process) {
		p.If(rdJoin, func() { p.Set(rdataReg, rdVal) })
	})
	if info.Formal {
		// the wrapper's own properties, proved with the block's
		// (docs/control.md); a value of the cycle before is kept in a
		// register of the formal build
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
		m.Assert("axil_b_held", past("b_waits", bvalidReg.And(bready.Not())).Implies(bvalidReg))
		m.Assert("axil_r_held", past("r_waits", rvalidReg.And(rready.Not())).Implies(rvalidReg.And(rdataReg.Eq(past("rdata", rdataReg.Expr)))))
		// one write and one read at a time: each is in one of its phases
		m.Assert("axil_one_write", atMostOne(awreadyReg.Expr, applyReg.Expr, bvalidReg.Expr))
		m.Assert("axil_one_read", atMostOne(arreadyReg.Expr, rdJoin.Expr, rvalidReg.Expr))
		// the clear sweep holds s_event_ready low from start to end
		m.Assert("clear_holds_events", clearBusy.Implies(eventReady.Not()))
		// a setting in its range stays in it: a write out of range is
		// refused, all 32 bits of it checked (settings whose range is
		// narrower than their register)
		for _, st := range sets {
			lo, hi, _ := st.sig.ParamRange()
			if in, narrow := inRange(st.reg.Expr, lo, hi); narrow {
				n := strings.ToLower(st.name)
				m.Assert("param_"+n+"_stays_in_range", past(n+"_in_range", in).Implies(in))
			}
		}
		// a derived value is clamped into its setting's range
		for _, dv := range derives {
			lo, hi, _ := dv.to.sig.ParamRange()
			if in, narrow := inRange(dv.value, lo, hi); narrow {
				m.Assert("derive_"+strings.ToLower(dv.to.name)+"_in_range", dv.done.Implies(in))
			}
		}
	}
	return m, mp, nil
}

// FormalMutants are the broken variants of the wrapper's properties
// (Info.Formal), by the assertion each must fail; settings are the names
// of the wrapper's run-time settings (PARAM_<name>) whose range is
// narrower than their register, derived those of them a macro derives
// (Quotient).
func FormalMutants(settings, derived []string) map[string][]hdlgen.Mutation {
	isTrue := func(hdlgen.Expr, func(string) hdlgen.Expr) hdlgen.Expr { return hdlgen.True() }
	ms := map[string][]hdlgen.Mutation{
		// a response is dropped after one cycle, taken or not
		"axil_b_held": {{Node: "axil_b_taken", With: isTrue}},
		"axil_r_held": {{Node: "axil_r_taken", With: isTrue}},
		// a write is captured while the last one's response waits
		"axil_one_write": {{Node: "axil_write", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(get("s_axil_awvalid").And(get("s_axil_wvalid")).And(get("axil_awready_reg").Not()).And(get("axil_wr_apply_reg").Not()).And(get("axil_bvalid_reg")))
		}}},
		// a read is captured while the last one's data waits
		"axil_one_read": {{Node: "axil_read", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(get("s_axil_arvalid").And(get("axil_arready_reg").Not()).And(get("axil_rd_join_reg").Not()).And(get("axil_rvalid_reg")))
		}}},
		// events enter once the sweep has issued its writes, before they end
		"clear_holds_events": {{Node: "event_ready", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return get("fwd_take").And(get("inject").Not())
		}}},
	}
	for _, n := range settings {
		// the range check passes every value
		ms["param_"+strings.ToLower(n)+"_stays_in_range"] = []hdlgen.Mutation{{Node: "param_" + strings.ToLower(n) + "_write_ok", With: isTrue}}
	}
	for _, n := range derived {
		// the quotient written as it is, unclamped (its low bits)
		pre := "derive_" + strings.ToLower(n)
		ms[pre+"_in_range"] = []hdlgen.Mutation{{Node: pre + "_value", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			q := get(pre + "_q_reg")
			if q.Width() >= orig.Width() {
				return q.Keep(orig.Width()-1, 0)
			}
			return q.ZExt(orig.Width())
		}}}
	}
	return ms
}

// inRange is lo <= v <= hi, comparing only where the range is narrower
// than v's width (a comparison always true would be a lint warning);
// narrow tells whether it compares at all.
func inRange(v hdlgen.Expr, lo, hi uint64) (in hdlgen.Expr, narrow bool) {
	in = hdlgen.True()
	if lo > 0 {
		in, narrow = in.And(v.Ge(hdlgen.Const(v.Width(), lo))), true
	}
	if hi < uint64(1)<<uint(v.Width())-1 {
		in, narrow = in.And(v.Le(hdlgen.Const(v.Width(), hi))), true
	}
	return in, narrow
}

// anyOf is the OR of one or more 1-bit values.
func anyOf(xs []hdlgen.Expr) hdlgen.Expr {
	r := xs[0]
	for _, x := range xs[1:] {
		r = r.Or(x)
	}
	return r
}

// setting is a run-time setting's PARAM register in the wrapper.
type setting struct {
	sig  *hdlgen.Signal // the block's input
	name string
	reg  *hdlgen.Reg
	off  int // byte offset in the map
}

// Ident makes a name of a kind or a value fit a Verilog identifier and a C
// macro: lower case letters, digits and single underscores.
func Ident(name string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
			under = false
			continue
		}
		under = true
	}
	return b.String()
}
