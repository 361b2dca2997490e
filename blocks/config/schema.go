package config

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// kind is the type an attribute takes.
type kind int

const (
	kindWhole  kind = iota // a whole number
	kindNumber             // a finite number
	kindBool               // true or false
	kindSeed               // a whole number, or a string "0x..." (HCL has no hex literals)
	kindString             // a string
)

func (k kind) String() string {
	switch k {
	case kindWhole:
		return "a whole number"
	case kindNumber:
		return "a number"
	case kindBool:
		return "true or false"
	case kindSeed:
		return `a whole number or a string such as "0xACE12D3B"`
	}
	return "a string"
}

// attrSpec declares one attribute: its type, its allowed range and what it
// means. Defaults and derivations live in resolve.go, next to the code that
// computes them.
type attrSpec struct {
	Name     string
	Kind     kind
	Lo, Hi   uint64  // kindWhole, kindSeed: inclusive range
	Min, Max float64 // kindNumber: inclusive range
	Unit     string
	Doc      string
	Required bool
	// Only names the one block a shared option applies to, and OnlyWhy
	// says why the other one has no use for it.
	Only, OnlyWhy string
	// RangeWhy explains a range that is narrower than the quantity allows.
	RangeWhy string
}

// mustText is the range with its reason, for out-of-range messages.
func (a attrSpec) mustText() string {
	if a.RangeWhy != "" {
		return a.rangeText() + ": " + a.RangeWhy
	}
	return a.rangeText()
}

// rangeText is the allowed range as the error messages state it.
func (a attrSpec) rangeText() string {
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
	{Name: "connections", Kind: kindWhole, Lo: 2, Hi: 1 << 24, Required: true, Doc: "connections per block: depth of each per-connection state table"},
	{Name: "conn_width", Kind: kindWhole, Lo: 1, Hi: 32, Unit: "bits", Doc: "width of the connection id ports"},
	{Name: "time_width", Kind: kindWhole, Lo: 2, Hi: 63, Unit: "bits", Doc: "width of the s_event_now timestamp ports (1 ns ticks), for every block that has one"},
}

var repsSchema = []attrSpec{
	{Name: "entries", Kind: kindWhole, Lo: 1, Hi: 64, Doc: "circular buffer entries per connection, N (S4:L74)"},
	{Name: "ev_width", Kind: kindWhole, Lo: 1, Hi: 32, Unit: "bits", Doc: "entropy value width (S4 Table 1: 16)"},
	{Name: "head_width", Kind: kindWhole, Lo: 1, Hi: 32, Unit: "bits", Doc: "head pointer width (S4 Table 1: 8); must hold entries - 1"},
	{Name: "count_width", Kind: kindWhole, Lo: 1, Hi: 32, Unit: "bits", Doc: "numberOfValidEVs width (S4 Table 1: 8); must hold entries"},
	{Name: "time_width", Kind: kindWhole, Lo: 2, Hi: 63, Unit: "bits", Doc: "timestamp width (S4 Table 1: 32)"},
	{Name: "explore_width", Kind: kindWhole, Lo: 1, Hi: 32, Unit: "bits", Doc: "exploreCounter width (S4 Table 1: 8); must hold explore_init and explore_after_freeze"},
	{Name: "explore_init", Kind: kindWhole, Lo: 0, Hi: 1<<32 - 1, Unit: "packets", Doc: "random EVs explored after open: the BDP in packets"},
	{Name: "explore_after_freeze", Kind: kindWhole, Lo: 0, Hi: 1<<32 - 1, Unit: "packets", Doc: "random EVs explored after leaving freezing mode"},
	{Name: "freeze_time", Kind: kindWhole, Lo: 0, Hi: 1<<62 - 1, Unit: "ticks", Doc: "freezing-mode duration in s_event_now ticks; below 2^(time_width-1)"},
	{Name: "lfsr_seed", Kind: kindSeed, Lo: 1, Hi: 1<<32 - 1, Doc: "seed of the random-EV LFSR; nonzero"},
	{Name: "clear_on_freeze_exit", Kind: kindBool, Doc: "clear the buffer when leaving freezing mode, as htsim's resetBuffer (A-13)"},
	{Name: "pipeline_depth", Kind: kindWhole, Lo: 1, Hi: 16, Doc: "datapath stages of the pipelined shell: events of one connection are this many cycles apart; by default what the block needs for hardware.clock_mhz (docs/pipeline.md)"},
}

var repsConfSchema = []attrSpec{
	{Name: "num_entropies", Kind: kindWhole, Lo: 2, Hi: 65536, Doc: "entropies explored, num_entropies (S0:L292)"},
	{Name: "ev_width", Kind: kindWhole, Lo: 1, Hi: 32, Unit: "bits", Doc: "width of the result EV; must hold num_entropies - 1"},
	{Name: "explore_init", Kind: kindWhole, Lo: 0, Hi: 65536, Unit: "packets", Doc: "sends explored after open: min(BDP in packets, num_entropies) (A-12)"},
	{Name: "pipeline_depth", Kind: kindWhole, Lo: 1, Hi: 16, Doc: "datapath stages of the pipelined shell: events of one connection are this many cycles apart; by default what the block needs for hardware.clock_mhz (docs/pipeline.md)"},
}

var smarttSchema = []attrSpec{
	{Name: "size_width", Kind: kindWhole, Lo: 1, Hi: 20, Unit: "bits", Doc: "width of s_event_size; must hold the mtu"},
	{Name: "rtt_width", Kind: kindWhole, Lo: 1, Hi: 32, Unit: "bits", Doc: "width of s_event_rtt (ns); must hold the QuickAdapt delay threshold"},
	{Name: "byte_width", Kind: kindWhole, Lo: 1, Hi: 32, Unit: "bits", Doc: "width of s_event_unacked and the byte counters; must hold the max window (and 8 x mtu for nscc with adjust_period)"},
	{Name: "time_width", Kind: kindWhole, Lo: 28, Hi: 63, Unit: "bits", Doc: "width of s_event_now (ns); at least 28 for the 24-bit 16 ns stamps"},
	{Name: "f", Kind: kindWhole, Lo: 0, Hi: 16, Unit: "bits", Doc: "fraction bits of the window register; by default 6, lowered when the window register would pass 32 bits or a product 64"},
	{Name: "k", Kind: kindWhole, Lo: 4, Hi: 12, Unit: "bits", Doc: "index bits of the reciprocal table"},
	{Name: "wtd_shift", Kind: kindWhole, Lo: 1, Hi: 7, Doc: "Wait-to-Decrease EWMA gain 2^-wtd_shift (A-8)",
		Only: "smartt", OnlyWhy: "Wait-to-Decrease is absent from S1 (A-8)"},
	{Name: "avg_shift", Kind: kindWhole, Lo: 1, Hi: 10, Doc: "RTT EWMA gain 2^-avg_shift (A-11)",
		Only: "nscc", OnlyWhy: "only S1 keeps an RTT average (A-11)"},
	{Name: "fi_tol_ns", Kind: kindWhole, Lo: 0, Hi: 1_000_000, Unit: "ns", Doc: "FastIncrease tolerance: rtt <= base_rtt_ns + fi_tol_ns counts as rtt ~ brtt (A-9)"},
	{Name: "init_cwnd", Kind: kindWhole, Lo: 1, Hi: 1<<32 - 1, Unit: "bytes", Doc: "window after open; mtu..max window (A-15)"},
	{Name: "timeouts_replace_trims", Kind: kindBool, Doc: "md doubled: timeouts stand in for trims (S0:L234)",
		Only: "smartt", OnlyWhy: "S1's multiplicative decrease has no md constant (S1 Eq. 1)"},
	{Name: "clamp_on_early_return", Kind: kindBool, Doc: "clamp the window after QuickAdapt and FastIncrease too (A-2)"},
	{Name: "adjust_period", Kind: kindBool, Doc: "accumulate increases and apply them every 8 MTU or base RTT (S1 III-G)",
		Only: "nscc", OnlyWhy: "the adjustment period is S1's (S1:L838-854)"},
	{Name: "delay_qa", Kind: kindBool, Doc: "a high RTT triggers QuickAdapt, for networks without trimming (A-10)",
		Only: "nscc", OnlyWhy: "S0 has no delay-based QuickAdapt trigger (A-10)"},
	{Name: "trims_count_as_acked", Kind: kindBool, Doc: "trims and timeouts add to acked, as the pseudocode literally does (A-7)"},
	{Name: "zero_stamp_expired", Kind: kindBool, Doc: "a stored timestamp of 0 reads as long past"},
	{Name: "pipeline_depth", Kind: kindWhole, Lo: 1, Hi: 16, Doc: "datapath stages of the pipelined shell: events of one connection are this many cycles apart; by default what the block needs for hardware.clock_mhz (docs/pipeline.md)"},
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
	case "reps":
		return repsSchema, true
	case "reps_conf":
		return repsConfSchema, true
	case "smartt", "nscc":
		return smarttSchema, true
	}
	return nil, false
}

// BlockNames are the blocks a configuration can describe. A test checks
// that they are exactly blocks.Names().
func BlockNames() []string { return []string{"nscc", "reps", "reps_conf", "smartt"} }

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
	for _, sec := range []string{secTop, secNetwork, secHardware, "reps", "reps_conf", "smartt", "nscc"} {
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
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", a.Name, typeName(a.Kind), a.rangeText(), mdEscape(inDefault), mdEscape(doc))
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
