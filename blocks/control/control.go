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
	"strings"

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

// BusAssertions are the wrapper's properties of its AXI-Lite port and its
// clear sweep, the same logic around every block: one wrapper's broken
// variants of them show that each can fail (reps_ctl's, the smallest).
var BusAssertions = []string{"axil_b_held", "axil_one_read", "axil_one_write", "axil_r_held", "clear_holds_events"}

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
