package srp

import (
	"fmt"
	"strconv"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/golden/pipe"
	gsrp "github.com/nicgen/nicgen/golden/srp"
	"github.com/nicgen/nicgen/hdlgen"
)

// IPDDescriptor is ecn_ipd to nicgen's tools (package blocks lists it).
func IPDDescriptor() block.Block {
	return block.Define(block.Desc[IPDParams]{
		Name:   "ecn_ipd",
		Title:  "ECN baseline of S2: InfiniBand-style inter-packet delay per send queue",
		Cocotb: block.Replay{Icarus: 10000},
		Attrs: []block.Attr{
			{Name: "ipd_increase", Kind: block.Whole, Lo: 1, Hi: 1<<40 - 1, Unit: "ticks", Doc: "IPD+ added per congestion notification (S2 Table 1: 800 ns)"},
			{Name: "ipd_decrease", Kind: block.Whole, Lo: 1, Hi: 1<<40 - 1, Unit: "ticks", Doc: "IPD- taken off per quiet interval (S2 Table 1: 50 ns)"},
			{Name: "decrease_period", Kind: block.Whole, Lo: 1, Hi: 1<<40 - 1, Unit: "ticks", Doc: "t-, the interval without a notification after which IPD- applies (S2 Table 1: 2 us)"},
			{Name: "ipd_max", Kind: block.Whole, Lo: 1, Hi: 1<<40 - 1, Unit: "ticks", Doc: "ceiling of the IPD (A-21); at least ipd_increase, and decaying to 0 within 2^(time_width-1) ticks"},
			{Name: "time_width", Kind: block.Whole, Lo: 2, Hi: 63, Unit: "bits", Doc: "width of s_event_now and of the stored interval start"},
			block.DepthAttr,
			block.WaitSlotsAttr,
		},
		Default: DefaultIPDParams,
		Resolve: resolveIPD,
		Build:   IPD,
		Paper:   func(IPDParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p IPDParams) int { return p.NumConn },
		Slots:   func(p IPDParams) int { return p.WaitSlots },
		Kinds:   IPDKindNames,
		Golden: func(p IPDParams) (block.Golden, error) {
			m, err := gsrp.NewIPDModel(p.Golden())
			return ipdGolden{m}, err
		},
		Cycler: func(p IPDParams) (block.Cycler, error) {
			m, err := gsrp.NewIPDModel(p.Golden())
			if err != nil {
				return nil, err
			}
			return ipdCycler{pipe.NewShell[gsrp.IPDEvent, gsrp.IPDResult](m, p.Depth, p.WaitSlots, nil)}, nil
		},
		Stimulus: ipdStimulus,
		Formal:   ipdFormalJobs,
	})
}

// ipdGolden drives the golden ecn_ipd model by field values (block.Golden).
type ipdGolden struct{ m *gsrp.IPDModel }

func (ipdGolden) Fields() ([]string, []string) {
	return []string{"conn", "kind", "now"}, []string{"conn", "kind", "ipd", "error"}
}

func (g ipdGolden) Step(in, out []uint64) {
	e := gsrp.IPDEvent{Conn: uint32(in[0]), Kind: gsrp.IPDKind(in[1]), Now: in[2]}
	var r gsrp.IPDResult
	g.m.StepTo(&e, &r)
	out[0], out[1], out[2], out[3] = uint64(r.Conn), uint64(r.Kind), r.IPD, block.Bit(r.Error)
}

func (g ipdGolden) Reset() { g.m.Reset() }

type ipdCycler struct{ p *gsrp.IPDPipeline }

func (c ipdCycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	out := c.p.Cycle(pipe.In[gsrp.IPDEvent]{SValid: valid, MReady: ready, Event: gsrp.IPDEvent{Conn: conn, Kind: gsrp.IPDOpen}})
	return out.SReady, out.MValid
}

// resolveIPD reads block "ecn_ipd" of a configuration.
func resolveIPD(s block.Section, env block.Env) IPDParams {
	p := IPDParams{NumConn: int(env.Conns), ConnW: int(env.ConnW), WaitSlots: block.WaitSlots(s)}
	p.Inc = s.Whole("ipd_increase", 800, block.Default, "S2 Table 1: 800 ns in 1 ns ticks")
	p.Dec = s.Whole("ipd_decrease", 50, block.Default, "S2 Table 1: 50 ns")
	p.Period = s.Whole("decrease_period", 2000, block.Default, "S2 Table 1: 2 us")
	p.Max = s.Whole("ipd_max", 100_000, block.Default, "100 us, 125 notifications in a row (A-21, docs/blocks/srp.md)")
	p.TimeW = int(s.Whole("time_width", env.TimeW, block.Derived, "hardware.time_width"))
	if err := gsrp.ValidateIPD(p.Golden().IPDParams); err != nil {
		// located at the first attribute of the relation the file writes
		involved := []string{"ipd_max", "ipd_decrease", "decrease_period", "time_width"}
		if p.Max < p.Inc {
			involved = []string{"ipd_max", "ipd_increase"}
		}
		at := involved[0]
		for i := len(involved) - 1; i >= 0; i-- {
			if s.IsSet(involved[i]) {
				at = involved[i]
			}
		}
		s.Errorf(at, "ecn_ipd: %v", err)
		return DefaultIPDParams()
	}
	if _, err := hdlgen.PlanDivConst(p.TimeW, p.Period); err != nil {
		s.Errorf("decrease_period", "decrease_period = %d: %v", p.Period, err)
		return DefaultIPDParams()
	}
	s.Info("ipd_width", strconv.Itoa(p.IPDW()), "bits to hold ipd_max")
	need, err := NeededIPDDepth(p)
	if err != nil {
		s.Errorf("", "ecn_ipd: %v", err)
		return DefaultIPDParams()
	}
	// a shallower pipeline keeps the first cuts and clocks slower
	p.Depth = int(s.Whole("pipeline_depth", uint64(need), block.Derived, "the stages the block's cuts reach (docs/pipeline.md)"))
	return p
}

// IPDOf is the parameters of block ecn_ipd in a configuration.
func IPDOf(c block.Config) (IPDParams, error) { return block.ParamsOf[IPDParams](c, "ecn_ipd") }

// SmallIPDParams is ecn_ipd shrunk so that every rule is a few events
// away: 2 queues behind a 2-bit id, 5-bit time wrapping every 32 ticks,
// IPD+ 3, IPD- 2 per 3 ticks, ceiling 6 (a 3-bit IPD, so that ipd <= 6
// is not implied by the width).
func SmallIPDParams() IPDParams {
	p := IPDParams{NumConn: 2, ConnW: 2, TimeW: 5, Inc: 3, Dec: 2, Period: 3, Max: 6}
	p.Depth = connpipe.MustDepth(NeededIPDDepth(p))
	return p
}

func ipdFormalJob(name, doc string, p IPDParams, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return IPD(p)
	}}
	if breaks {
		j.OwnOnly = true
		j.Mutants = connpipe.WithShellMutants(p.Depth, "ipd", map[string][]hdlgen.Mutation{
			// a notification adds IPD+ past the ceiling (up to the width)
			"ipd_le_max":        {noCeiling(p)},
			"result_ipd_le_max": {noCeiling(p)},
		})
	}
	return j
}

// ipdFormalJobs are ecn_ipd's proofs: the small configuration, on which
// every broken variant also runs, and S2's parameters on a 24-bit clock.
func ipdFormalJobs() []block.FormalJob {
	// S2's parameters on a 24-bit clock: with the 32-bit default's divider
	// and products the solver does not finish in its 5 minutes
	wide := IPDParams{NumConn: 4, ConnW: 3, TimeW: 24, Inc: 800, Dec: 50, Period: 2000, Max: 100_000}
	wide.Depth = connpipe.MustDepth(NeededIPDDepth(wide))
	small := SmallIPDParams()
	// the merging shell with no merge rule (wait_slots): its slots'
	// assertions, the shell's and the block's hold with them in front
	waiting := small
	waiting.WaitSlots = 3
	// the broken variants of the slots' own assertions run here, on the
	// smallest shell with slots (those that need a merge rule on
	// nscc_merge)
	wait := ipdFormalJob("ecn_ipd_wait", fmt.Sprintf("as ecn_ipd, with 3 wait slots (no merge rule), depth %d", small.Depth), waiting, false)
	wait.Breaks, wait.BreakOnly, wait.Mutants = true, connpipe.SlotAssertions, connpipe.MergeMutants()
	return []block.FormalJob{
		ipdFormalJob("ecn_ipd", fmt.Sprintf("NumConn 2, TimeW 5, IPD+ 3, IPD- 2, t- 3, ceiling 6, depth %d", small.Depth), small, true),
		wait,
		ipdFormalJob("ecn_ipd_wide", fmt.Sprintf("S2's IPD+ 800, IPD- 50, t- 2000 and ceiling 100000 on a 24-bit clock, NumConn 4, depth %d", wide.Depth), wide, false),
	}
}

// noCeiling lets a notification raise the IPD past the ceiling, up to the
// IPD's width, keeping every value read.
func noCeiling(p IPDParams) hdlgen.Mutation {
	return hdlgen.Mutation{Node: "raised", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
		up := get("ipd_up")
		return hdlgen.Mux(up.Bit(p.IPDW()), orig, up.Trunc(p.IPDW()))
	}}
}
