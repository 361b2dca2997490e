package control

import (
	"fmt"
	"strings"
)

// Header is the C header of the register map: offsets, CONTROL and STATUS
// bits, sizes, and the fields of the state word (least significant bit
// and width), under the prefix <BLOCK>_CTL_: REG_<register> is a
// register's offset, REG_WORD_DATA(i) and REG_COUNTER_<name> the arrays,
// <register>_<bit> a CONTROL or STATUS bit's mask, WORD_<field>_LSB and
// _BITS a word field's place. comment lines go at the top
// (how the file was made, never a date).
func (mp *Map) Header(comment []string) []byte {
	var b strings.Builder
	pre := strings.ToUpper(Name(mp.Block)) + "_"
	guard := pre + "H"
	b.WriteString("/*\n")
	for _, c := range comment {
		fmt.Fprintf(&b, " * %s\n", strings.ReplaceAll(c, "*/", "*_/"))
	}
	fmt.Fprintf(&b, " *\n * Register map of %s, the AXI-Lite control and status wrapper of %s\n", Name(mp.Block), mp.Block)
	b.WriteString(" * (docs/control.md). Offsets are bytes from the wrapper's base address;\n")
	b.WriteString(" * every register is 32 bits wide and is accessed with 32-bit reads and\n * writes.\n */\n\n")
	fmt.Fprintf(&b, "#ifndef %s\n#define %s\n\n", guard, guard)
	def := func(name, value, doc string) {
		fmt.Fprintf(&b, "#define %-44s %s", pre+name, value)
		if doc != "" {
			fmt.Fprintf(&b, " /* %s */", strings.ReplaceAll(doc, "*/", "*_/"))
		}
		b.WriteString("\n")
	}
	b.WriteString("/* sizes */\n")
	def("ID_VALUE", fmt.Sprintf("0x%08Xu", uint32(Magic)), "register ID reads this")
	def("WORD_BITS", fmt.Sprintf("%du", mp.WordBits), "bits of a connection's state word")
	def("WORD_REGS", fmt.Sprintf("%du", (mp.WordBits+31)/32), "WORD_DATA registers")
	def("NUM_CONN", fmt.Sprintf("%du", mp.NumConn), "connections")
	def("NUM_COUNTERS", fmt.Sprintf("%du", len(mp.Counters)), "COUNTER registers")
	def("ADDR_BITS", fmt.Sprintf("%du", mp.AddrW), "AXI-Lite address width")
	b.WriteString("\n/* registers */\n")
	for _, r := range mp.Regs {
		if strings.HasPrefix(r.Name, "WORD_DATA_") || strings.HasPrefix(r.Name, "COUNTER_") {
			continue
		}
		def("REG_"+r.Name, fmt.Sprintf("0x%03Xu", r.Offset), r.Access+": "+r.Doc)
	}
	def("REG_WORD_DATA(i)", fmt.Sprintf("(0x%03Xu + 4u * (i))", OffWordData), "RW: word bits 32 i + 31 .. 32 i, i < WORD_REGS")
	if len(mp.Settings) > 0 {
		b.WriteString("\n/* run-time settings: PARAM registers, their reset values and ranges */\n")
		for _, st := range mp.Settings {
			def("PARAM_"+st.Name+"_DEFAULT", fmt.Sprintf("%du", st.Default), "")
			def("PARAM_"+st.Name+"_MIN", fmt.Sprintf("%du", st.Min), "")
			def("PARAM_"+st.Name+"_MAX", fmt.Sprintf("%du", st.Max), st.RangeWhy)
		}
	}
	if len(mp.Macros) > 0 {
		b.WriteString("\n/* helpers */\n")
		for _, m := range mp.Macros {
			fmt.Fprintf(&b, "/* %s */\n#define %s %s\n", strings.ReplaceAll(m.Doc, "*/", "*_/"), pre+m.Name, m.Body)
		}
	}
	b.WriteString("\n/* counters (RO, 32 bits, wrap) */\n")
	for _, r := range mp.Counters {
		def("REG_"+r.Name, fmt.Sprintf("0x%03Xu", r.Offset), r.Doc)
	}
	b.WriteString("\n/* CONTROL and STATUS bits */\n")
	for _, bit := range mp.Bits {
		def(bit.Reg+"_"+bit.Name, fmt.Sprintf("(1u << %d)", bit.Bit), bit.Doc)
	}
	b.WriteString("\n/* fields of the state word: least significant bit and width */\n")
	for _, f := range mp.Word {
		n := strings.ToUpper(Ident(f.Name))
		def("WORD_"+n+"_LSB", fmt.Sprintf("%du", f.Lo), "")
		def("WORD_"+n+"_BITS", fmt.Sprintf("%du", f.Width), f.Doc)
	}
	fmt.Fprintf(&b, "\n#endif /* %s */\n", guard)
	return []byte(b.String())
}

// Markdown is the register map as the datasheet's section.
func (mp *Map) Markdown() string {
	var b strings.Builder
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	fmt.Fprintf(&b, "`%s` wraps the block with an AXI-Lite slave (%d-bit byte addresses, 32-bit data, responses always OKAY; no AxPROT: tie the master's off) and passes the event and result streams through under the block's port names (docs/control.md). After reset it writes the zero word to all %d connections, one per clock, with `s_event_ready` low; a word operation enters the block's pipeline in order with the events. The C header `%s.h` beside the Verilog gives every offset and bit below.\n\n",
		Name(mp.Block), mp.AddrW, mp.NumConn, Name(mp.Block))
	b.WriteString("| offset | register | access | meaning |\n|---|---|---|---|\n")
	for _, r := range mp.Regs {
		fmt.Fprintf(&b, "| 0x%03X | `%s` | %s | %s |\n", r.Offset, r.Name, r.Access, cell(r.Doc))
	}
	b.WriteString("\n| register | bit | name | meaning |\n|---|---:|---|---|\n")
	for _, bit := range mp.Bits {
		fmt.Fprintf(&b, "| `%s` | %d | `%s` | %s |\n", bit.Reg, bit.Bit, bit.Name, cell(bit.Doc))
	}
	if len(mp.Macros) > 0 {
		b.WriteString("\nThe header's helpers:\n\n")
		for _, m := range mp.Macros {
			fmt.Fprintf(&b, "- `%s%s`: %s\n", strings.ToUpper(Name(mp.Block))+"_", m.Name, m.Doc)
		}
	}
	return b.String()
}
