package onerc

import (
	"fmt"
	"math/bits"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	gonerc "github.com/nicgen/nicgen/golden/onerc"
	"github.com/nicgen/nicgen/golden/pipe"
	"github.com/nicgen/nicgen/hdlgen"
)

// SwitchDescriptor is onerc_switch to nicgen's tools (package blocks lists it).
func SwitchDescriptor() block.Block {
	return block.Define(block.Desc[SwitchParams]{
		Name:   "onerc_switch",
		Title:  "1RC window table of a switch port (S3): speculative packets dropped in order past the epoch's window / weight",
		Cocotb: block.Replay{Icarus: 10000},
		Attrs: []block.Attr{
			{Name: "slots", Kind: block.Whole, Lo: 2, Hi: 65536, Doc: "epoch slots of the window table, a power of two: the ring's size (A-27's garbage collection)"},
			{Name: "tag_width", Kind: block.Whole, Lo: 2, Hi: 48, Unit: "bits", Doc: "bits of the epoch above the slot index; epochs compare as serial numbers"},
			{Name: "window_width", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "bits", Doc: "bits of a window entry (packets), of let_through and of the threshold; the division takes one pipeline stage per bit"},
			{Name: "weight_width", Kind: block.Whole, Lo: 1, Hi: 16, Unit: "bits", Doc: "bits of the weight, the source host's connection count (A-24)"},
			{Name: "seq_width", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "bits", Doc: "bits of a speculative packet's sequence number"},
			{Name: "miss", Kind: block.String, Options: []string{"drop", "pass"}, Doc: "a speculative packet of an epoch without entry (never filled, or replaced): dropped or let through (A-27)"},
			block.DepthAttr,
			block.WaitSlotsAttr,
		},
		Default: DefaultSwitchParams,
		Resolve: resolveSwitch,
		Build:   Switch,
		Paper:   func(SwitchParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p SwitchParams) int { return p.NumConn },
		Slots:   func(p SwitchParams) int { return p.WaitSlots },
		Kinds:   SwitchKindNames,
		Golden: func(p SwitchParams) (block.Golden, error) {
			m, err := gonerc.NewSwitchModel(p.Golden())
			return switchGolden{m}, err
		},
		Cycler: func(p SwitchParams) (block.Cycler, error) {
			m, err := gonerc.NewSwitchModel(p.Golden())
			if err != nil {
				return nil, err
			}
			return switchCycler{pipe.NewShell[gonerc.SwitchEvent, gonerc.SwitchResult](m, p.Depth, p.WaitSlots, nil)}, nil
		},
		Stimulus: switchStimulus,
		Formal:   switchFormalJobs,
	})
}

type switchGolden struct{ m *gonerc.SwitchModel }

func (switchGolden) Fields() ([]string, []string) {
	return []string{"conn", "kind", "tag", "window", "weight", "let_through", "seq", "spec"},
		[]string{"conn", "kind", "hit", "filled", "thresh", "let_through", "drop", "spec", "error"}
}

func (g switchGolden) Step(in, out []uint64) {
	e := gonerc.SwitchEvent{Conn: uint32(in[0]), Kind: gonerc.SwitchKind(in[1]), Tag: in[2], Window: in[3], Weight: in[4],
		LetThrough: in[5], Seq: in[6], Spec: in[7]&1 == 1}
	var r gonerc.SwitchResult
	g.m.StepTo(&e, &r)
	out[0], out[1], out[2], out[3], out[4] = uint64(r.Conn), uint64(r.Kind), block.Bit(r.Hit), block.Bit(r.Filled), r.Thresh
	out[5], out[6], out[7], out[8] = r.LetThrough, block.Bit(r.Drop), block.Bit(r.Spec), block.Bit(r.Error)
}

func (g switchGolden) Reset() { g.m.Reset() }

type switchCycler struct{ p *gonerc.SwitchPipeline }

func (c switchCycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	out := c.p.Cycle(pipe.In[gonerc.SwitchEvent]{SValid: valid, MReady: ready, Event: gonerc.SwitchEvent{Conn: conn, Kind: gonerc.SwOpen}})
	return out.SReady, out.MValid
}

// resolveSwitch reads block "onerc_switch" of a configuration.
func resolveSwitch(s block.Section, env block.Env) SwitchParams {
	p := SwitchParams{ConnW: int(env.ConnW), WaitSlots: block.WaitSlots(s)}
	p.NumConn = int(s.Whole("slots", 16, block.Default, "16 epochs in flight at a port"))
	p.TagW = int(s.Whole("tag_width", 16, block.Default, "epochs of 12 us wrap after 12.6 s at 16 slots"))
	p.WinW = int(s.Whole("window_width", 12, block.Default, "windows up to 4,095 packets, one division step per stage"))
	p.WeightW = int(s.Whole("weight_width", 8, block.Default, "up to 255 connections per host"))
	p.SeqW = int(s.Whole("seq_width", 16, block.Default, "16-bit sequence numbers"))
	p.MissPass = s.Choice("miss", "drop", "A-27: an epoch without entry has no known rate; dropping is the safe side (speculative packets may be lost)") == "pass"
	if p.NumConn&(p.NumConn-1) != 0 {
		s.Errorf("slots", "slots = %d: want a power of two (the slot is the epoch's low bits)", p.NumConn)
		return DefaultSwitchParams()
	}
	if env.ConnW < 63 && p.NumConn > 1<<env.ConnW || bits.Len(uint(p.NumConn-1)) > int(env.ConnW) {
		s.Errorf("slots", "slots = %d do not fit the %d-bit connection id (hardware.conn_width)", p.NumConn, env.ConnW)
		return DefaultSwitchParams()
	}
	if err := gonerc.ValidateSwitch(p.Golden()); err != nil {
		s.Errorf("slots", "%v", err)
		return DefaultSwitchParams()
	}
	depth, ok := block.DerivedDepth(s, func() (int, error) { return NeededSwitchDepth(p) })
	if !ok {
		return DefaultSwitchParams()
	}
	p.Depth = depth
	return p
}

// SwitchOf is the parameters of block onerc_switch in a configuration.
func SwitchOf(c block.Config) (SwitchParams, error) {
	return block.ParamsOf[SwitchParams](c, "onerc_switch")
}

// SmallSwitchParams is onerc_switch shrunk for the proofs: 2 slots, 3-bit
// tags, windows and sequence numbers, 2-bit weights.
func SmallSwitchParams() SwitchParams {
	p := SwitchParams{NumConn: 2, ConnW: 2, TagW: 3, WinW: 3, WeightW: 2, SeqW: 3}
	p.Depth = connpipe.MustDepth(NeededSwitchDepth(p))
	return p
}

func switchFormalJob(name, doc string, p SwitchParams, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return Switch(p)
	}}
	if breaks {
		j.OwnOnly = true
		j.Mutants = connpipe.WithShellMutants(p.Depth, "drop", map[string][]hdlgen.Mutation{
			// the sequence check ignores the packet's class
			"scheduled_never_dropped": {{Node: "drop_hit", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return get("seq_late").Or(orig)
			}}},
			// the threshold forgets its floor of one
			"ctrl_at_least_one": {{Node: "thresh", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return get("quot")
			}}},
		})
	}
	return j
}

// switchFormalJobs are onerc_switch's proofs: the small configuration with
// its broken variants, and one with the default 16-bit tags, 4-bit windows
// and weights and 5-bit sequence numbers, one bit past the window, at
// pipeline depth 4 (8-bit sequence numbers took up to 240 s; the default
// 12-bit window's division does not finish within a proof's 5 minutes, a
// 6-bit one takes about as long, and so did this job at its own depth 7,
// with 3 hazard registers).
func switchFormalJobs() []block.FormalJob {
	small := SmallSwitchParams()
	wide := DefaultSwitchParams()
	wide.NumConn, wide.WinW, wide.WeightW, wide.SeqW = 2, 4, 4, 5
	wide.Depth = 4
	return []block.FormalJob{
		switchFormalJob("onerc_switch", fmt.Sprintf("2 slots, TagW 3, WinW 3, WeightW 2, SeqW 3, depth %d", small.Depth), small, true),
		switchFormalJob("onerc_switch_wide", fmt.Sprintf("2 slots, TagW 16, WinW 4, WeightW 4, SeqW 5, depth %d", wide.Depth), wide, false),
	}
}
