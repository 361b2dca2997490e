package config

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/block"
)

// kind is the type an attribute takes; attrSpec declares one attribute
// (package block, where the blocks declare their own sections).
type (
	kind     = block.Kind
	attrSpec = block.Attr
)

const (
	kindWhole  = block.Whole
	kindNumber = block.Number
	kindBool   = block.Bool
	kindSeed   = block.Seed
	kindString = block.String
)

// mustText is the range with its reason, for out-of-range messages.
func mustText(a attrSpec) string {
	if a.RangeWhy != "" {
		return rangeText(a) + ": " + a.RangeWhy
	}
	return rangeText(a)
}

// rangeText is the allowed range as the error messages state it.
func rangeText(a attrSpec) string {
	unit := ""
	if a.Unit != "" {
		unit = " " + a.Unit
	}
	switch a.Kind {
	case kindNumber:
		if a.Min == a.Max {
			return fmt.Sprintf("%s%s", fmtNum(a.Min), unit)
		}
		return fmt.Sprintf("%s..%s%s", fmtNum(a.Min), fmtNum(a.Max), unit)
	case kindWhole, kindSeed:
		return fmt.Sprintf("%s..%s%s", fmtWhole(a.Lo), fmtWhole(a.Hi), unit)
	case kindBool:
		return "true, false"
	case kindString:
		if len(a.Options) > 0 {
			return strings.Join(a.Options, ", ")
		}
	}
	return "any"
}

// fmtWhole writes large bounds as powers of two where that is what they are.
func fmtWhole(v uint64) string {
	if v > 1<<20 && v&(v+1) == 0 {
		return fmt.Sprintf("2^%d-1", 64-bits.LeadingZeros64(v))
	}
	if v > 1<<20 && v&(v-1) == 0 {
		return fmt.Sprintf("2^%d", 63-bits.LeadingZeros64(v))
	}
	return fmt.Sprint(v)
}

func fmtNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%g", f)
}

// Section names of the file.
const (
	secTop      = ""
	secNetwork  = "network"
	secHardware = "hardware"
)

var topSchema = []attrSpec{
	{Name: "name", Kind: kindString, Doc: "name of the build, recorded in every generated file header (default: the file name without extension)"},
}

var networkSchema = []attrSpec{
	{Name: "link_gbps", Kind: kindNumber, Min: 1, Max: 3200, Unit: "Gb/s", Required: true, Doc: "link rate"},
	{Name: "mtu", Kind: kindWhole, Lo: 64, Hi: 65535, Unit: "bytes", Required: true, Doc: "maximum transmission unit (the data size of a full packet)"},
	{Name: "base_rtt_ns", Kind: kindWhole, Lo: 100, Hi: 1_000_000, Unit: "ns", Required: true, Doc: "base round-trip time of the longest path, without queuing"},
	{Name: "target_rtt_factor", Kind: kindNumber, Min: 1.5, Max: 1.5, Doc: "target RTT as a multiple of the base RTT (S0:L98)",
		RangeWhy: "the blocks and their golden models implement the papers' 1.5 only (S0:L98)"},
}

var hardwareSchema = []attrSpec{
	{Name: "clock_mhz", Kind: kindNumber, Min: 1, Max: 2000, Unit: "MHz", Required: true, Doc: "clock of every block (timing constraints)"},
	{Name: "connections", Kind: kindWhole, Lo: 2, Hi: 1 << 18, Required: true, Doc: "connections per block: depth of each per-connection state table",
		RangeWhy: "262,144 is the largest table checked to pass generate --check (5 min of Yosys for nscc, reps and reps_conf); at 2^24 Yosys 0.23 crashes"},
	{Name: "conn_width", Kind: kindWhole, Lo: 1, Hi: 32, Unit: "bits", Doc: "width of the connection id ports"},
	{Name: "time_width", Kind: kindWhole, Lo: 2, Hi: 63, Unit: "bits", Doc: "width of the s_event_now timestamp ports (1 ns ticks), for every block that has one"},
	{Name: "control", Kind: kindBool, Doc: "wrap every block in its AXI-Lite control and status wrapper <block>_ctl, the top of each block's files (table clear after reset and on command, word access, counters; docs/control.md); off by default"},
}

// sectionSchema is the schema of a section: "" (top level), network,
// hardware, or a block name.
func sectionSchema(sec string) ([]attrSpec, bool) {
	switch sec {
	case secTop:
		return topSchema, true
	case secNetwork:
		return networkSchema, true
	case secHardware:
		return hardwareSchema, true
	}
	if b, err := blocks.Lookup(sec); err == nil {
		return b.Attrs, true
	}
	return nil, false
}

// BlockNames are the blocks a configuration can describe: every
// registered block.
func BlockNames() []string { return blocks.Names() }

func specOf(sec, name string) (attrSpec, bool) {
	s, _ := sectionSchema(sec)
	for _, a := range s {
		if a.Name == name {
			return a, true
		}
	}
	return attrSpec{}, false
}

// sectionTitle is how messages name a section.
func sectionTitle(sec string) string {
	switch sec {
	case secTop:
		return "the top level"
	case secNetwork, secHardware:
		return sec
	}
	return fmt.Sprintf("block %q", sec)
}

// Reference writes the schema as Markdown tables, one per section, with
// each attribute's value in the embedded default and where that value
// comes from; it is the attribute reference of docs/config.md.
func Reference() string {
	def, err := Default()
	if err != nil {
		return "the embedded default does not load: " + err.Error()
	}
	var b strings.Builder
	for _, sec := range append([]string{secTop, secNetwork, secHardware}, BlockNames()...) {
		schema, _ := sectionSchema(sec)
		typ, label := sec, ""
		if sec != secTop && sec != secNetwork && sec != secHardware {
			typ, label = "block", sec
		}
		resolved, _ := def.Section(typ, label)
		settings := map[string]Setting{}
		for _, st := range resolved.Settings {
			settings[st.Name] = st
		}
		fmt.Fprintf(&b, "#### %s\n\n| attribute | type | range | in the default | meaning |\n|---|---|---|---|---|\n", sectionTitle(sec))
		for _, a := range schema {
			if a.Only != "" && a.Only != sec {
				continue
			}
			doc := a.Doc
			if a.RangeWhy != "" {
				doc += "; " + a.RangeWhy
			}
			inDefault := ""
			if st, ok := settings[a.Name]; ok {
				inDefault = "`" + st.Value + "`"
				switch {
				case a.Required:
					inDefault += " (required)"
				case st.Source != SourceSet && st.Why != "":
					inDefault += " " + st.Source.String() + ": " + st.Why
				}
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", a.Name, typeName(a.Kind), rangeText(a), mdEscape(inDefault), mdEscape(doc))
		}
		var infos []Setting
		for _, st := range resolved.Settings {
			if st.Info {
				infos = append(infos, st)
			}
		}
		if len(infos) > 0 {
			b.WriteString("\nDerived, not attributes: ")
			for i, st := range infos {
				if i > 0 {
					b.WriteString("; ")
				}
				fmt.Fprintf(&b, "`%s` = %s (%s)", st.Name, st.Value, mdEscape(st.Why))
			}
			b.WriteString(".\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

func typeName(k kind) string {
	switch k {
	case kindWhole:
		return "whole number"
	case kindNumber:
		return "number"
	case kindBool:
		return "bool"
	case kindSeed:
		return "whole number or hex string"
	}
	return "string"
}
