package reps

import (
	"fmt"
	"strconv"

	"github.com/nicgen/nicgen/blocks/block"
	goldenreps "github.com/nicgen/nicgen/golden/reps"
	"github.com/nicgen/nicgen/hdlgen"
)

func bitsFor(v uint64) uint64 { return uint64(hdlgen.BitsFor(v)) }

// Descriptor is reps to nicgen's tools: its configuration section, its
// module and its golden model (package blocks lists it).
func Descriptor() block.Block {
	return block.Define(block.Desc[Params]{
		Name:   "reps",
		Title:  "REPS, S4: circular buffer with validity bits and freezing mode",
		Cocotb: block.Replay{Icarus: 10000},
		Attrs: []block.Attr{
			{Name: "entries", Kind: block.Whole, Lo: 1, Hi: 64, Doc: "circular buffer entries per connection, N (S4:L74)"},
			{Name: "ev_width", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "bits", Doc: "entropy value width (S4 Table 1: 16)"},
			{Name: "head_width", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "bits", Doc: "head pointer width (S4 Table 1: 8); must hold entries - 1"},
			{Name: "count_width", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "bits", Doc: "numberOfValidEVs width (S4 Table 1: 8); must hold entries"},
			{Name: "time_width", Kind: block.Whole, Lo: 2, Hi: 63, Unit: "bits", Doc: "timestamp width (S4 Table 1: 32)"},
			{Name: "explore_width", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "bits", Doc: "exploreCounter width (S4 Table 1: 8); must hold explore_init and explore_after_freeze"},
			{Name: "explore_init", Kind: block.Whole, Lo: 0, Hi: 1<<32 - 1, Unit: "packets", Doc: "random EVs explored after open: the BDP in packets"},
			{Name: "explore_after_freeze", Kind: block.Whole, Lo: 0, Hi: 1<<32 - 1, Unit: "packets", Doc: "random EVs explored after leaving freezing mode"},
			{Name: "freeze_time", Kind: block.Whole, Lo: 0, Hi: 1<<62 - 1, Unit: "ticks", Doc: "freezing-mode duration in s_event_now ticks; below 2^(time_width-1)"},
			{Name: "lfsr_seed", Kind: block.Seed, Lo: 1, Hi: 1<<32 - 1, Doc: "seed of the random-EV LFSR; nonzero"},
			{Name: "clear_on_freeze_exit", Kind: block.Bool, Doc: "clear the buffer when leaving freezing mode, as htsim's resetBuffer (A-13)"},
			block.DepthAttr,
		},
		Default: DefaultParams,
		Resolve: resolve,
		Build:   Paper,
		Paper: func(p Params) (block.PaperFigure, bool) {
			// S4 Table 1: 17 bits per entry plus 57 bits, with its widths
			if p.EVW != 16 || p.HeadW != 8 || p.CountW != 8 || p.TimeW != 32 || p.ExploreW != 8 {
				return block.PaperFigure{}, false
			}
			return block.PaperFigure{PerConnBits: 17*p.N + 57, Source: "S4 Table 1 (S4:L74)"}, p.N == 1 || p.N == 8
		},
		NumConn: func(p Params) int { return p.NumConn },
		Kinds:   goldenKinds(),
		Golden: func(p Params) (block.Golden, error) {
			m, err := goldenreps.NewModel(p.Golden())
			return paperModel{eventModel{m, true, &stepIO{}}}, err
		},
		Cycler: func(p Params) (block.Cycler, error) {
			m, err := goldenreps.NewModel(p.Golden())
			return cycler{goldenreps.NewPipeline(m, p.Depth)}, err
		},
		Stimulus: repsStimulus,
		Formal:   formalJobs,
		Explore:  sweepState,
	})
}

// ConfDescriptor is reps_conf to nicgen's tools.
func ConfDescriptor() block.Block {
	return block.Define(block.Desc[ConfParams]{
		Name:   "reps_conf",
		Title:  "REPS, S0 Algorithm 4: sequential exploration, one cached entropy",
		Cocotb: block.Replay{Icarus: 10000},
		Attrs: []block.Attr{
			{Name: "num_entropies", Kind: block.Whole, Lo: 2, Hi: 65536, Doc: "entropies explored, num_entropies (S0:L292)"},
			{Name: "ev_width", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "bits", Doc: "width of the result EV; must hold num_entropies - 1"},
			{Name: "explore_init", Kind: block.Whole, Lo: 0, Hi: 65536, Unit: "packets", Doc: "sends explored after open: min(BDP in packets, num_entropies) (A-12)"},
			block.DepthAttr,
		},
		Default: DefaultConfParams,
		Resolve: resolveConf,
		Build:   Conf,
		Paper:   func(ConfParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p ConfParams) int { return p.NumConn },
		Kinds:   goldenKinds(),
		Golden: func(p ConfParams) (block.Golden, error) {
			m, err := goldenreps.NewConfModel(p.Golden())
			return eventModel{m, false, &stepIO{}}, err
		},
		Cycler: func(p ConfParams) (block.Cycler, error) {
			m, err := goldenreps.NewConfModel(p.Golden())
			return cycler{goldenreps.NewPipeline(m, p.Depth)}, err
		},
		Stimulus: confStimulus,
		Formal:   confFormalJobs,
	})
}

func goldenKinds() []string {
	k := make([]string, NumKinds)
	for i := range k {
		k[i] = goldenreps.Kind(i).String()
	}
	return k
}

// eventModel drives a golden REPS model by field values (block.Golden).
type eventModel struct {
	m      goldenreps.Stepper
	frozen bool // the block has m_result_frozen
	// the event and result a step passes to m, kept from one step to the
	// next: through the interface they would escape, two allocations per
	// event of the equivalence loop
	io *stepIO
}

type stepIO struct {
	ev goldenreps.Event
	r  goldenreps.Result
}

var (
	repsEvent  = []string{"conn", "kind", "ecn", "ev", "now"}
	repsResult = []string{"conn", "kind", "ev", "explored", "error", "frozen"}
)

func (e eventModel) Fields() ([]string, []string) {
	if e.frozen {
		return repsEvent, repsResult
	}
	return repsEvent, repsResult[:5]
}

func (e eventModel) Step(in, out []uint64) {
	ev, r := &e.io.ev, &e.io.r
	*ev = goldenreps.Event{Conn: uint32(in[0]), Kind: goldenreps.Kind(in[1]), ECN: in[2] == 1, EV: uint32(in[3]), Now: in[4]}
	*r = goldenreps.Result{}
	e.m.StepTo(ev, r)
	out[0], out[1], out[2], out[3], out[4] = uint64(r.Conn), uint64(r.Kind), uint64(r.EV), block.Bit(r.Explored), block.Bit(r.Error)
	if e.frozen {
		out[5] = block.Bit(r.Frozen)
	}
}

func (e eventModel) Reset() { e.m.Reset() }

// Tune sets a run-time setting (block.Tuner): FREEZE_TIME, EXPLORE_INIT,
// EXPLORE_AFTER_FREEZE of reps, EXPLORE_INIT of reps_conf.
func (e eventModel) Tune(name string, v uint64) error { return TuneGolden(e.m, name, v) }

// TuneGolden sets run-time setting name of a reps or reps_conf golden
// model to v, the others left as they are (uet_cc's load balancer tunes
// through it).
func TuneGolden(g goldenreps.Stepper, name string, v uint64) error {
	switch m := g.(type) {
	case *goldenreps.Model:
		p := m.Params()
		ft, ei, ea := p.FreezeTime, p.ExploreInit, p.ExploreAfterFreeze
		switch name {
		case "FREEZE_TIME":
			ft = v
		case "EXPLORE_INIT":
			ei = v
		case "EXPLORE_AFTER_FREEZE":
			ea = v
		default:
			return fmt.Errorf("reps has no run-time setting %s", name)
		}
		return m.Retune(ft, ei, ea)
	case *goldenreps.ConfModel:
		if name != "EXPLORE_INIT" {
			return fmt.Errorf("reps_conf has no run-time setting %s", name)
		}
		return m.Retune(v)
	}
	return fmt.Errorf("no run-time settings")
}

// paperModel is reps's eventModel: it has state outside its table, the
// LFSR, and clears its table alone (block.TableClearer).
type paperModel struct{ eventModel }

// ClearTable clears the table and keeps the LFSR.
func (e paperModel) ClearTable() { e.m.(*goldenreps.Model).ClearTable() }

type cycler struct{ p *goldenreps.Pipeline }

func (c cycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	out := c.p.Cycle(goldenreps.CycleIn{SValid: valid, MReady: ready, Event: goldenreps.Event{Conn: conn, Kind: goldenreps.KindOpen}})
	return out.SReady, out.MValid
}

// resolve reads block "reps" of a configuration.
func resolve(s block.Section, env block.Env) Params {
	p := DefaultParams()
	p.NumConn, p.ConnW = int(env.Conns), int(env.ConnW)
	entries := s.Whole("entries", 8, block.Default, "S4:L74 and the htsim default")
	evW := s.Whole("ev_width", 16, block.Default, "S4 Table 1")
	headNeed, countNeed := bitsFor(entries-1), bitsFor(entries)
	headW := s.Whole("head_width", max(8, headNeed), block.Derived,
		fmt.Sprintf("max(8 as S4 Table 1, bits to hold index entries - 1 = %d)", entries-1))
	countW := s.Whole("count_width", max(8, countNeed), block.Derived,
		fmt.Sprintf("max(8 as S4 Table 1, bits to hold entries = %d)", entries))
	timeW := s.Whole("time_width", env.TimeW, block.Derived, "hardware.time_width")
	exploreInit := s.Whole("explore_init", env.BDPPackets, block.Derived,
		fmt.Sprintf("network.bdp_packets = ceil(%d B / %d B)", env.BDPBytes, env.MTU))
	exploreAfter := s.Whole("explore_after_freeze", exploreInit, block.Derived, "explore_init, as the REPS artifact reloads the BDP in packets")
	exploreNeed := bitsFor(max(exploreInit, exploreAfter))
	exploreW := s.Whole("explore_width", max(8, exploreNeed), block.Derived,
		fmt.Sprintf("max(8 as S4 Table 1, bits to hold %d)", max(exploreInit, exploreAfter)))
	freeze := s.Whole("freeze_time", 10_000_000, block.Default, "10 ms in 1 ns ticks")
	seed := s.Seed("lfsr_seed", 0xACE12D3B, "docs/blocks/reps.md")
	clear := s.Bool("clear_on_freeze_exit", false, "keep the buffer on freeze exit, as the ns-3 reconstruction (A-13)")

	if headW < headNeed {
		s.Errorf("head_width", "head_width = %d is too narrow: it must hold index entries - 1 = %d, which needs %d bits", headW, entries-1, headNeed)
	}
	if countW < countNeed {
		s.Errorf("count_width", "count_width = %d is too narrow: it must hold entries = %d, which needs %d bits", countW, entries, countNeed)
	}
	for _, e := range []struct {
		name string
		v    uint64
	}{{"explore_init", exploreInit}, {"explore_after_freeze", exploreAfter}} {
		if e.name == "explore_after_freeze" && !s.IsSet(e.name) && exploreAfter == exploreInit {
			continue // the same value, already reported
		}
		if need := bitsFor(e.v); exploreW < need {
			at := "explore_width"
			if !s.IsSet(at) {
				at = e.name
			}
			s.Errorf(at, "explore_width = %d is too narrow: %s = %d (%s) needs %d bits", exploreW, e.name, e.v, s.Origin(e.name), need)
		}
	}
	if timeW < 64 && freeze >= uint64(1)<<(timeW-1) {
		at := "freeze_time"
		if !s.IsSet(at) {
			at = "time_width"
		}
		s.Errorf(at, "freeze_time = %d must be below 2^(time_width-1) = %d for wrap-safe time comparison (time_width = %d, %s)", freeze, uint64(1)<<(timeW-1), timeW, s.Origin("time_width"))
	}

	p.N, p.EVW, p.HeadW, p.CountW, p.TimeW, p.ExploreW = int(entries), int(evW), int(headW), int(countW), int(timeW), int(exploreW)
	p.ExploreInit, p.ExploreAfterFreeze, p.FreezeTime, p.LFSRSeed, p.ClearOnFreezeExit = exploreInit, exploreAfter, freeze, uint32(seed), clear
	p.Depth = int(s.Whole("pipeline_depth", uint64(DepthFor(env.ClockMHz)), block.Derived, "the stages the block's cuts reach (docs/pipeline.md)"))
	return p
}

// resolveConf reads block "reps_conf" of a configuration.
func resolveConf(s block.Section, env block.Env) ConfParams {
	p := DefaultConfParams()
	p.NumConn, p.ConnW = int(env.Conns), int(env.ConnW)
	ents := s.Whole("num_entropies", 256, block.Default, "S0:L292")
	need := bitsFor(ents - 1)
	evW := s.Whole("ev_width", max(16, need), block.Derived, fmt.Sprintf("max(16, bits to hold entropy %d)", ents-1))
	init := s.Whole("explore_init", min(env.BDPPackets, ents), block.Derived,
		fmt.Sprintf("min(network.bdp_packets = %d, num_entropies = %d) (A-12)", env.BDPPackets, ents))
	if evW < need {
		s.Errorf("ev_width", "ev_width = %d is too narrow: it must hold entropy num_entropies - 1 = %d, which needs %d bits", evW, ents-1, need)
	}
	if init > ents {
		s.Errorf("explore_init", "explore_init = %d is above num_entropies = %d: exploration stops once every entropy is tried (A-12); must be 0..%d", init, ents, ents)
	}
	p.NumEntropies, p.EVW, p.ExploreInit = int(ents), int(evW), init
	s.Info("entropy_width", strconv.Itoa(p.EntW()), "bits to hold num_entropies - 1")
	s.Info("explore_counter_width", strconv.Itoa(p.ExploreW()), "bits to hold explore_init")
	p.Depth = int(s.Whole("pipeline_depth", uint64(ConfDepthFor(env.ClockMHz)), block.Derived, "the stages the block's cuts reach (docs/pipeline.md)"))
	return p
}

// Of is the parameters of block reps in a configuration.
func Of(c block.Config) (Params, error) { return block.ParamsOf[Params](c, "reps") }

// ConfOf is the parameters of block reps_conf in a configuration.
func ConfOf(c block.Config) (ConfParams, error) { return block.ParamsOf[ConfParams](c, "reps_conf") }

// MustOf and MustConfOf are Of and ConfOf for configurations known to hold
// the block (tests, the embedded default); they panic otherwise.
func MustOf(c block.Config) Params { return must(Of(c)) }

// MustConfOf is ConfOf that panics when the block is absent.
func MustConfOf(c block.Config) ConfParams { return must(ConfOf(c)) }

func must[P any](p P, err error) P {
	if err != nil {
		panic(err)
	}
	return p
}
