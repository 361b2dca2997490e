package block

import "github.com/nicgen/nicgen/blocks/connpipe"

// Kind is the type an attribute takes.
type Kind int

const (
	Whole  Kind = iota // a whole number
	Number             // a finite number
	Bool               // true or false
	Seed               // a whole number, or a string "0x..." (HCL has no hex literals)
	String             // a string
)

func (k Kind) String() string {
	switch k {
	case Whole:
		return "a whole number"
	case Number:
		return "a number"
	case Bool:
		return "true or false"
	case Seed:
		return `a whole number or a string such as "0xACE12D3B"`
	}
	return "a string"
}

// Attr declares one attribute of a configuration section: its type, its
// allowed range and what it means. Its default and derivation live in the
// section's Resolve, next to the code that computes them.
type Attr struct {
	Name     string
	Kind     Kind
	Lo, Hi   uint64   // Whole, Seed: inclusive range
	Min, Max float64  // Number: inclusive range
	Options  []string // String: the values allowed (empty: any string)
	Unit     string
	Doc      string
	Required bool
	// Only names the one block a shared option applies to, and OnlyWhy
	// says why the others have no use for it.
	Only, OnlyWhy string
	// RangeWhy explains a range that is narrower than the quantity allows.
	RangeWhy string
	// Needs names the setting without which the attribute has no effect
	// ("vai = true"): writing it without that is a located error.
	Needs string
}

// DepthAttr is the pipeline_depth attribute of every block on the
// pipelined shell (docs/pipeline.md).
var DepthAttr = Attr{Name: "pipeline_depth", Kind: Whole, Lo: 1, Hi: connpipe.MaxDepth, Doc: "datapath stages of the pipelined shell: events of one connection are this many cycles apart; by default what the block needs for hardware.clock_mhz (docs/pipeline.md)"}

// WaitSlotsAttr is the wait_slots attribute of the blocks whose events
// are answered one by one (docs/pipeline.md, "Merge stage"): waiting
// slots in front of the datapath, so that no connection waits behind
// another's event in flight; no event ever merges.
var WaitSlotsAttr = Attr{Name: "wait_slots", Kind: Whole, Lo: 0, Hi: connpipe.MaxSlots, Doc: "waiting slots in front of the datapath, 2..32: an event whose connection is in flight waits in a slot and the events behind it pass (no head-of-line blocking); events are never merged, each has its own result; 0: the plain shell, whose input waits while its head's connection is in flight (docs/pipeline.md)"}

// WaitSlots reads the wait_slots attribute (0 or 2..connpipe.MaxSlots).
func WaitSlots(s Section) int {
	n := s.Whole("wait_slots", 0, Default, "the plain shell (docs/pipeline.md)")
	if n == 1 {
		s.Errorf("wait_slots", "wait_slots = 1: want 0 (the plain shell) or 2..%d", connpipe.MaxSlots)
	}
	return int(n)
}

// Waiting is the merging shell of wait_slots = n (nil for 0): its slots,
// no merge rule, a one-bit member count.
func Waiting(n int) *connpipe.Merge {
	if n == 0 {
		return nil
	}
	return &connpipe.Merge{Slots: n, CountW: 1}
}

// Source says where a resolved value comes from.
type Source int

const (
	Set     Source = iota // written in the file
	Default               // not written: the block's documented default
	Derived               // not written: computed from other values
)

func (s Source) String() string {
	switch s {
	case Set:
		return "set"
	case Default:
		return "default"
	}
	return "derived"
}

// Env is what a block's section may derive its values from: the resolved
// network and hardware sections.
type Env struct {
	LinkGbps     float64 // Gb/s
	MTU          uint64  // bytes
	BaseRTTNs    uint64  // base RTT
	TargetFactor float64 // target RTT / base RTT
	BDPBytes     uint64  // floor(link * rtt / 8)
	BDPPackets   uint64  // ceil(BDPBytes / MTU)
	ClockMHz     float64
	Conns        uint64 // connections per block
	ConnW        uint64 // width of the connection id ports
	TimeW        uint64 // width of the timestamp ports
	// Params is another block's resolved parameters, for a block composed
	// of others (uet_cc): its section of the file when it has one, else its
	// defaults under this network and hardware. Nil outside the loader.
	Params func(name string) any
}

// Section is a block's section of the configuration file as Resolve reads
// it. Every read records the value and where it came from (`nicgen config
// show`); a value out of its Attr's range is reported by the loader at the
// attribute. Read only attributes of the block's Attrs.
type Section interface {
	// Name is the block's name.
	Name() string
	// Whole is a whole-number attribute: the file's value, or def (a
	// default or a derivation, as src says, for the reason why).
	Whole(name string, def uint64, src Source, why string) uint64
	// Seed is a whole number that may be written as a "0x..." string.
	Seed(name string, def uint64, why string) uint64
	// Number is a number attribute, or its default def.
	Number(name string, def float64, why string) float64
	// Bool is a bool attribute, or its default def.
	Bool(name string, def bool, why string) bool
	// Choice is a string attribute whose value is one of its Attr's
	// Options, or its default def; another value is a located error.
	Choice(name string, def string, why string) string
	// WholeIfSet is the file's value of a whole-number attribute, recorded
	// as set, when the file writes it; the block then records the value
	// it derives otherwise with Record.
	WholeIfSet(name string) (uint64, bool)
	// IsSet reports whether the file writes the attribute.
	IsSet(name string) bool
	// Record records an attribute's value that the block decided itself.
	Record(name, value string, src Source, why string)
	// Info records a derived quantity that is not an attribute.
	Info(name, value, why string)
	// Origin says where an attribute's value came from, for messages.
	Origin(name string) string
	// Errorf reports a relation between values that does not hold, at the
	// attribute attr when the file writes it, else at the block's label
	// ("" is the label).
	Errorf(attr string, format string, a ...any)
}

// FirstSet is the first of attrs that the file writes, or fallback when
// it writes none of them: where to report an error that no single
// attribute causes ("" is the block's label).
func FirstSet(s Section, fallback string, attrs ...string) string {
	for _, a := range attrs {
		if s.IsSet(a) {
			return a
		}
	}
	return fallback
}

// FitsConnID reports whether n table entries (the block's attribute attr:
// ports, slots, links...) fit the connection id; when they do not, it
// reports the error at attr.
func FitsConnID(s Section, attr string, n int, env Env) bool {
	if env.ConnW < 63 && uint64(n) > uint64(1)<<env.ConnW {
		s.Errorf(attr, "%s = %d do not fit the %d-bit connection id (hardware.conn_width)", attr, n, env.ConnW)
		return false
	}
	return true
}

// DerivedDepth is the pipeline_depth attribute: the file's value, or by
// default need's, the stages the block's cuts reach. ok is false, and the
// error reported at the block's label, when need cannot count them.
func DerivedDepth(s Section, need func() (int, error)) (depth int, ok bool) {
	n, err := need()
	if err != nil {
		s.Errorf("", "%s: %v", s.Name(), err)
		return 0, false
	}
	return int(s.Whole("pipeline_depth", uint64(n), Derived, "the stages the block's cuts reach (docs/pipeline.md)")), true
}
