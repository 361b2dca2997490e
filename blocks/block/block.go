// Package block declares what a generated block is to nicgen's tools. One
// Block value per block, built by the block's own package with Define,
// owns everything the tools need to know of it: its configuration
// attributes and how they resolve, the build of its module, its kinds,
// its golden model and its paper figure. Package blocks lists the blocks;
// the configuration loader, the commands and the equivalence tools
// iterate over that list. This package imports no block.
package block

import (
	"fmt"
	"sort"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/control"
	"github.com/nicgen/nicgen/blocks/explore"
	"github.com/nicgen/nicgen/blocks/stim"
	"github.com/nicgen/nicgen/hdlgen"
)

// Config is a resolved configuration: the build's name, its clock and the
// parameters of every block, each of its own package's type.
type Config struct {
	Name     string  // shown in file headers
	ClockMHz float64 // clock of every block, for the timing constraints
	// Control wraps every block in its AXI-Lite control and status
	// wrapper, `<block>_ctl` (hardware.control, docs/control.md): the
	// block is built with its table port and the wrapper is the top.
	Control bool
	Params  map[string]any
}

// Clone copies the configuration so that setting a block's parameters in
// the copy leaves the original alone.
func (c Config) Clone() Config {
	p := make(map[string]any, len(c.Params))
	for k, v := range c.Params {
		p[k] = v
	}
	c.Params = p
	return c
}

// Set stores a block's parameters and returns the configuration.
func (c Config) Set(name string, params any) Config {
	if c.Params == nil {
		c.Params = map[string]any{}
	}
	c.Params[name] = params
	return c
}

// ParamsOf is block name's parameters, of type P.
func ParamsOf[P any](c Config, name string) (P, error) {
	v, ok := c.Params[name]
	if !ok {
		var zero P
		return zero, fmt.Errorf("the configuration has no parameters for block %q", name)
	}
	p, ok := v.(P)
	if !ok {
		var zero P
		return zero, fmt.Errorf("block %q: parameters of type %T, want %T", name, v, zero)
	}
	return p, nil
}

// PaperFigure is a state size a seed gives, to print beside ours.
type PaperFigure struct {
	PerConnBits  int    // 0 when the paper gives bytes only
	PerConnBytes int    // 0 when the paper gives bits
	GlobalBytes  int    // 0 when the paper gives none
	Source       string // seed and line
}

// Names decodes a result field for people: sim prints Key, the name of the
// field's value, right after the field.
type Names struct {
	Field string
	Key   string
	Names []string
}

// Golden is a block's golden transaction-level model driven by field
// values: an event is the values of its s_event_* ports (without the
// prefix and s_event_valid: conn, kind and the block's own fields); a
// result, of its m_result_* ports (without m_result_valid). Fields names
// both, in the order of Step's slices.
type Golden interface {
	Fields() (event, result []string)
	// Step runs one event: in holds the event fields, out receives the
	// result fields.
	Step(in, out []uint64)
	// Reset applies the rst input to the state outside the table (an
	// LFSR); the table starts all-zero and is only read once a
	// connection's open event wrote it.
	Reset()
}

// Tuner is a Golden whose run-time settings (hdlgen Module.Setting, the
// control wrapper's PARAM registers) can change between events: Tune sets
// one by its name.
type Tuner interface {
	Tune(name string, value uint64) error
}

// TableClearer is a Golden that clears its state table alone, leaving the
// state outside it (an LFSR) as it is: the control wrapper's CLEAR_TABLE.
// A Golden without it has no state outside the table.
type TableClearer interface {
	ClearTable()
}

// MapGolden is a Golden written with maps of field names, for models
// where speed does not matter (a toy block, a first version): step gets
// the event's fields and returns the result's.
func MapGolden(event, result []string, step func(map[string]uint64) map[string]uint64, reset func()) Golden {
	return &mapGolden{event: event, result: result, step: step, reset: reset, in: map[string]uint64{}}
}

type mapGolden struct {
	event, result []string
	step          func(map[string]uint64) map[string]uint64
	reset         func()
	in            map[string]uint64
}

func (g *mapGolden) Fields() ([]string, []string) { return g.event, g.result }

func (g *mapGolden) Step(in, out []uint64) {
	for i, f := range g.event {
		g.in[f] = in[i]
	}
	res := g.step(g.in)
	for i, f := range g.result {
		out[i] = res[f]
	}
}

func (g *mapGolden) Reset() {
	if g.reset != nil {
		g.reset()
	}
}

// Bit is a boolean as a field value of a Golden: 1 or 0.
func Bit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Bind maps fields named in have to their positions in want: idx[i] is the
// position in have of want[i], or -1 when have lacks it.
func Bind(want, have []string) []int {
	idx := make([]int, len(want))
	for i, w := range want {
		idx[i] = -1
		for j, h := range have {
			if h == w {
				idx[i] = j
			}
		}
	}
	return idx
}

// Cycler is a block's golden cycle-level model reduced to what timing
// needs: drive s_event_valid and m_result_ready with an event that opens
// connection conn, see s_event_ready and m_result_valid.
type Cycler interface {
	Cycle(valid, ready bool, conn uint32) (sReady, mValid bool)
}

// CycleModel is a block's golden model at cycle level on its fields, for
// a configuration whose results depend on timing (a merge, a window that
// a slower path writes), which the transaction model in the shell of
// golden/pipe cannot give.
type CycleModel interface {
	// Fields names the event fields (s_event_<name>) and the output ports
	// (whole names: every output but s_event_ready and m_result_valid).
	Fields() (event, outputs []string)
	// Cycle returns s_event_ready and m_result_valid during one cycle with
	// s_event_valid, m_result_ready and the event fields in, writes the
	// outputs to out (a stream's fields are zeros while its valid is 0),
	// then applies the cycle's edge.
	Cycle(sValid, mReady bool, in, out []uint64) (sReady, mValid bool)
	// Reset is a cycle with rst high.
	Reset()
}

// Desc is the description of a block with parameters of type P, as its
// package writes it. P embeds a connpipe.Core, which holds the depth of
// the block's pipelined shell and its table port for the control wrapper.
type Desc[P any] struct {
	Name  string
	Title string
	// Attrs is the block's section of the configuration file.
	Attrs []Attr
	// Default is the block's parameters in the embedded default
	// configuration (a test checks that Resolve gives the same).
	Default func() P
	// Resolve reads the block's section: every attribute of Attrs, with
	// its default or derivation, and the relations between them.
	Resolve func(s Section, env Env) P
	// Build makes the block's top module.
	Build func(P) (*hdlgen.Module, error)
	// Paper is the seed's state figure for the parameters, if it has one.
	Paper func(P) (PaperFigure, bool)
	// NumConn is the connections of the state table.
	NumConn func(P) int
	// Slots, when set, is the waiting slots of a block whose events are
	// answered one by one (WaitSlotsAttr: the merging shell with no merge
	// rule; 0 for the plain shell). Blocks that merge keep their own.
	Slots func(P) int
	// Kinds names the values of s_event_kind.
	Kinds []string
	// Decode names the values of result fields (sim prints them).
	Decode []Names
	// Golden builds the golden transaction-level model; its error says
	// why the golden model cannot run the parameters.
	Golden func(P) (Golden, error)
	// Cycler builds the golden cycle-level model (golden/pipe).
	Cycler func(P) (Cycler, error)
	// Cycle, when set, builds the golden cycle-level model on fields for
	// the parameters whose results depend on timing (ok false for the
	// others): equivalence runs it in place of Golden in golden/pipe.
	Cycle func(P) (m CycleModel, ok bool, err error)
	// Stimulus, when set, is the block's own stimulus under a named
	// profile and the coverage it must reach (package stim), drawn from
	// r: the equivalence bench and `nicgen vectors` (profile
	// stim.Vectors) use it in place of the generic uniform draw over the
	// event fields. An unknown profile is an error.
	Stimulus func(p P, profile string, r *stim.Rand) (stim.Source, stim.Coverage, error)
	// Formal is the block's proofs for `make formal` (docs/formal.md).
	Formal func() []FormalJob
	// Macros, if set, are helpers for software in the control wrapper's
	// C header (docs/control.md).
	Macros func(P) []control.Macro
	// Cocotb is what the cocotb runs of make test replay of the block's
	// vector file under each simulator (cocotb/README.md).
	Cocotb Replay
	// Explore, when set, sweeps the widths and units of the block's state
	// around p (`nicgen budget --explore`, docs/explore.md): a point per
	// setting the block accepts, its cost and, where the block has a
	// float64 reference, what it costs in fidelity.
	Explore func(p P, o explore.Options) (*explore.Result, error)
}

// Replay is the number of events of a block's vector file that a cocotb
// run replays under Icarus and under Verilator, which keeps make test
// within CI's time where a simulator runs the block slowly; 0 is the
// whole file. `nicgen vectors` writes it into the file's header.
type Replay struct{ Icarus, Verilator int }

// FormalJob is one proof of a block's properties (docs/formal.md): a
// configuration, built with the properties asked for.
type FormalJob struct {
	Name  string // configuration name, also the folder of its files
	Doc   string // the parameters, for the report
	Build func(connpipe.Formal) (*hdlgen.Module, error)
	// MaxSteps bounds the induction length, and the length of the
	// counterexamples the base case looks for.
	MaxSteps int
	// Breaks runs the broken variant of each assertion on this job.
	Breaks bool
	// BreakOnly, when set, limits the broken variants run on this job to
	// these assertions (the others are broken on a smaller job, where
	// their counterexamples are short).
	BreakOnly []string
	// OwnOnly leaves the shell's assertions (connpipe.ShellAssertions) out
	// of this job's broken variants: they are the same logic in every
	// block and are broken on the REPS jobs; the block's own are broken
	// here.
	OwnOnly bool
	// Mutants are the broken variants that are applied to the built
	// design (hdlgen.Mutate), by assertion name; an assertion without one
	// is broken by its block's own Formal.Break branch.
	Mutants map[string][]hdlgen.Mutation
}

// ControlFormalJob proves the control wrapper's own properties
// (control.Info.Formal) around the block core builds with its table port.
// The block is built without its own properties: through the table port
// any word can be written, so its word invariants do not hold there (its
// own jobs prove them). ranged and derived name the settings whose
// properties control.FormalMutants breaks.
func ControlFormalJob(name, doc string, maxSteps int, core func() (*hdlgen.Module, error), info control.Info, ranged, derived []string) FormalJob {
	return FormalJob{
		Name: name, Doc: doc, MaxSteps: maxSteps, Breaks: true,
		Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
			c, err := core()
			if err != nil {
				return nil, err
			}
			in := info
			in.Formal = f.Invariants
			m, _, err := control.Wrap(c, in)
			return m, err
		},
		Mutants: control.FormalMutants(ranged, derived),
	}
}

// Block is a block as the tools see it: Desc with its parameter type
// erased, every method taking the whole configuration.
type Block struct {
	Name   string
	Title  string
	Attrs  []Attr
	Kinds  []string
	Decode []Names
	Cocotb Replay

	def     func() any
	resolve func(Section, Env) any
	build   func(Config) (*hdlgen.Module, error)
	// buildTable builds the block with its table port (connpipe.Core.Table)
	buildTable func(Config) (*hdlgen.Module, error)
	paper      func(Config) (paperFig, error)
	numConn    func(Config) (int, error)
	slots      func(Config) (int, error)
	depth      func(Config) (int, error)
	golden     func(Config) (Golden, error)
	cycler     func(Config) (Cycler, error)
	cycle      func(Config) (cycleOf, error)
	formal     func() []FormalJob
	macros     func(Config) ([]control.Macro, error)
	stimulus   func(Config, string, *stim.Rand) (stimOf, error)
	sweep      func(Config, explore.Options) (*explore.Result, error)
}

type stimOf struct {
	src stim.Source
	cov stim.Coverage
}

// Define erases a description's parameter type. Every function of d must
// be set, and P must embed a connpipe.Core: a missing one is reported by
// Check.
func Define[P any](d Desc[P]) Block {
	b := Block{Name: d.Name, Title: d.Title, Attrs: d.Attrs, Kinds: d.Kinds, Decode: d.Decode, Cocotb: d.Cocotb, formal: d.Formal}
	if d.Default != nil {
		b.def = func() any { return d.Default() }
	}
	if d.Resolve != nil {
		b.resolve = func(s Section, e Env) any { return d.Resolve(s, e) }
	}
	b.build = bindErr(d.Name, d.Build)
	if _, ok := any(new(P)).(connpipe.HasCore); ok {
		core := func(p *P) *connpipe.Core { return any(p).(connpipe.HasCore).ShellCore() }
		b.depth = bind(d.Name, func(p P) int { return core(&p).Depth })
		b.buildTable = bindErr(d.Name, func(p P) (*hdlgen.Module, error) {
			core(&p).Table = true
			return d.Build(p)
		})
	}
	b.golden = bindErr(d.Name, d.Golden)
	b.cycler = bindErr(d.Name, d.Cycler)
	if d.Cycle != nil {
		b.cycle = bindErr(d.Name, func(p P) (cycleOf, error) {
			m, ok, err := d.Cycle(p)
			return cycleOf{m, ok}, err
		})
	}
	b.numConn = bind(d.Name, d.NumConn)
	b.slots = bind(d.Name, d.Slots)
	if d.Macros != nil {
		b.macros = bind(d.Name, d.Macros)
	}
	if d.Stimulus != nil {
		b.stimulus = func(c Config, profile string, r *stim.Rand) (stimOf, error) {
			p, err := ParamsOf[P](c, d.Name)
			if err != nil {
				return stimOf{}, err
			}
			src, cov, err := d.Stimulus(p, profile, r)
			return stimOf{src, cov}, err
		}
	}
	if d.Explore != nil {
		b.sweep = func(c Config, o explore.Options) (*explore.Result, error) {
			p, err := ParamsOf[P](c, d.Name)
			if err != nil {
				return nil, err
			}
			return d.Explore(p, o)
		}
	}
	if d.Paper != nil {
		b.paper = bind(d.Name, func(p P) paperFig {
			f, ok := d.Paper(p)
			return paperFig{f, ok}
		})
	}
	return b
}

type cycleOf struct {
	m  CycleModel
	ok bool
}

type paperFig struct {
	f  PaperFigure
	ok bool
}

// bind makes f a function of the whole configuration: it reads block
// name's parameters first (nil when f is).
func bind[P, R any](name string, f func(P) R) func(Config) (R, error) {
	if f == nil {
		return nil
	}
	return func(c Config) (R, error) {
		p, err := ParamsOf[P](c, name)
		if err != nil {
			var zero R
			return zero, err
		}
		return f(p), nil
	}
}

// bindErr is bind for a function that may fail.
func bindErr[P, R any](name string, f func(P) (R, error)) func(Config) (R, error) {
	if f == nil {
		return nil
	}
	return func(c Config) (R, error) {
		p, err := ParamsOf[P](c, name)
		if err != nil {
			var zero R
			return zero, err
		}
		return f(p)
	}
}

// Check reports a description with a missing part (Core: its parameters
// embed no connpipe.Core).
func (b Block) Check() error {
	var missing []string
	for name, set := range map[string]bool{
		"Default": b.def != nil, "Resolve": b.resolve != nil, "Build": b.build != nil, "Paper": b.paper != nil,
		"NumConn": b.numConn != nil, "Core": b.depth != nil, "Golden": b.golden != nil, "Cycler": b.cycler != nil,
	} {
		if !set {
			missing = append(missing, name)
		}
	}
	if b.Name == "" {
		missing = append(missing, "Name")
	}
	if len(b.Kinds) == 0 {
		missing = append(missing, "Kinds")
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("block %q: the description has no %v", b.Name, missing)
	}
	return nil
}

// Stimulus is the block's own stimulus under profile and its coverage,
// drawn from r; ok is false for a block without one (Desc.Stimulus).
func (b Block) Stimulus(c Config, profile string, r *stim.Rand) (src stim.Source, cov stim.Coverage, ok bool, err error) {
	if b.stimulus == nil {
		return stim.Source{}, nil, false, nil
	}
	s, err := b.stimulus(c, profile, r)
	return s.src, s.cov, true, err
}

// HasStimulus reports a block with a stimulus of its own (its profiles
// differ from one another; the generic draw has one mix for all).
func (b Block) HasStimulus() bool { return b.stimulus != nil }

// Explore sweeps the block's state in the configuration (Desc.Explore);
// a block that declares no sweep is an error.
func (b Block) Explore(c Config, o explore.Options) (*explore.Result, error) {
	if b.sweep == nil {
		return nil, fmt.Errorf("block %q declares no state to explore", b.Name)
	}
	return b.sweep(c, o)
}

// CanExplore reports a block with a sweep of its state (Desc.Explore).
func (b Block) CanExplore() bool { return b.sweep != nil }

// Default is the block's parameters in the embedded default configuration.
func (b Block) Default() any { return b.def() }

// Resolve reads the block's section of a configuration.
func (b Block) Resolve(s Section, e Env) any { return b.resolve(s, e) }

// Build makes the block's top module from the configuration: the block
// itself, or with Config.Control its control wrapper around it.
func (b Block) Build(c Config) (*hdlgen.Module, error) {
	if !c.Control {
		return b.build(c)
	}
	m, _, err := b.BuildControl(c)
	return m, err
}

// BuildControl makes the block's control wrapper (docs/control.md) and
// returns it with its register map.
func (b Block) BuildControl(c Config) (*hdlgen.Module, *control.Map, error) {
	core, err := b.buildTable(c)
	if err != nil {
		return nil, nil, err
	}
	n, err := b.NumConn(c)
	if err != nil {
		return nil, nil, err
	}
	info := control.Info{NumConn: n, Kinds: b.Kinds}
	if b.macros != nil {
		if info.Macros, err = b.macros(c); err != nil {
			return nil, nil, err
		}
	}
	for _, d := range b.Decode {
		info.Enums = append(info.Enums, control.Enum{Field: d.Field, Names: d.Names})
	}
	m, mp, err := control.Wrap(core, info)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", b.Name, err)
	}
	return m, mp, nil
}

// Elaborate builds and checks the block.
func (b Block) Elaborate(c Config) (*hdlgen.Design, error) {
	m, err := b.Build(c)
	if err != nil {
		return nil, err
	}
	return hdlgen.Elaborate(m)
}

// Paper is the seed's state figure for the configuration, if it has one.
func (b Block) Paper(c Config) (PaperFigure, bool) {
	f, err := b.paper(c)
	return f.f, f.ok && err == nil
}

// NumConn is the number of connections of the block's state table.
func (b Block) NumConn(c Config) (int, error) { return b.numConn(c) }

// Depth is the number of datapath stages of the block's pipelined shell
// (its parameters' connpipe.Core).
func (b Block) Depth(c Config) (int, error) { return b.depth(c) }

// WaitSlots is the waiting slots of a block whose events are answered one
// by one (Desc.Slots; 0: the plain shell, or a block that merges).
func (b Block) WaitSlots(c Config) (int, error) {
	if b.slots == nil {
		return 0, nil
	}
	return b.slots(c)
}

// Golden builds the block's golden transaction-level model.
func (b Block) Golden(c Config) (Golden, error) { return b.golden(c) }

// Cycler builds the block's golden cycle-level model.
func (b Block) Cycler(c Config) (Cycler, error) { return b.cycler(c) }

// CycleModel builds the block's golden cycle-level model on fields when
// the configuration's results depend on timing (ok false otherwise: the
// transaction model in golden/pipe's shell is exact).
func (b Block) CycleModel(c Config) (m CycleModel, ok bool, err error) {
	if b.cycle == nil {
		return nil, false, nil
	}
	r, err := b.cycle(c)
	return r.m, r.ok, err
}

// Formal is the block's proofs (none when it declares none).
func (b Block) Formal() []FormalJob {
	if b.formal == nil {
		return nil
	}
	return b.formal()
}
