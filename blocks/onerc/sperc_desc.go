package onerc

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	gonerc "github.com/nicgen/nicgen/golden/onerc"
	"github.com/nicgen/nicgen/golden/pipe"
	"github.com/nicgen/nicgen/hdlgen"
)

// SPERCDescriptor is sperc_link to nicgen's tools (package blocks lists it).
func SPERCDescriptor() block.Block {
	return block.Define(block.Desc[SPERCParams]{
		Name:   "sperc_link",
		Title:  "s-PERC link state with 1RC weights (S3 Algorithm 4): SumE, NumB in 1/weight, b = (c - SumE) / NumB, MaxE rounds",
		Cocotb: block.Replay{Icarus: 10000},
		Attrs: []block.Attr{
			{Name: "links", Kind: block.Whole, Lo: 2, Hi: 65536, Doc: "links (switch ports) of the state table"},
			{Name: "rate_width", Kind: block.Whole, Lo: 4, Hi: 32, Unit: "bits", Doc: "bits of a rate (b, x, MaxE) in the unit the hosts use; all-ones is infinity. b is per unit of weight: up to capacity times the largest weight"},
			{Name: "capacity", Kind: block.Whole, Lo: 1, Hi: 1<<31 - 1, Doc: "c, the link's capacity in rate units (with 1 Mb/s units, 800000 is 800 Gb/s)"},
			{Name: "weight_width", Kind: block.Whole, Lo: 1, Hi: 12, Unit: "bits", Doc: "bits of a weight, the source host's connection count (A-24)"},
			{Name: "inv_frac_width", Kind: block.Whole, Lo: 1, Hi: 24, Unit: "bits", Doc: "fraction bits of 1/weight, NumB and SumE (at least weight_width: 1/weight must not round to 0)"},
			{Name: "num_b_width", Kind: block.Whole, Lo: 1, Hi: 24, Unit: "bits", Doc: "integer bits of NumB: the flows of weight 1 a link can count"},
			{Name: "hops", Kind: block.Whole, Lo: 2, Hi: gonerc.MaxHops, Doc: "entries of a control packet's b[] and i[]: the longest path"},
			{Name: "recip_bits", Kind: block.Whole, Lo: 4, Hi: 14, Unit: "bits", Doc: "index bits of the reciprocal table of NumB (b within 2^-(bits-1) of its value)"},
			{Name: "round_width", Kind: block.Whole, Lo: 2, Hi: 32, Unit: "bits", Doc: "bits of the round number that rotates MaxE and MaxE' (A-27)"},
			block.DepthAttr,
			block.WaitSlotsAttr,
		},
		Default: DefaultSPERCParams,
		Resolve: resolveSPERC,
		Build:   SPERCLink,
		Paper:   func(SPERCParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p SPERCParams) int { return p.NumConn },
		Slots:   func(p SPERCParams) int { return p.WaitSlots },
		Kinds:   SPERCKindNames,
		Decode:  []block.Names{{Field: "state", Key: "state_name", Names: []string{"E", "B", "NEW_FLOW"}}},
		Golden: func(p SPERCParams) (block.Golden, error) {
			m, err := gonerc.NewSPERCModel(p.SPERCParams)
			return spercGolden{m, p.Hops}, err
		},
		Cycler: func(p SPERCParams) (block.Cycler, error) {
			m, err := gonerc.NewSPERCModel(p.SPERCParams)
			if err != nil {
				return nil, err
			}
			return spercCycler{pipe.NewShell[gonerc.SPERCEvent, gonerc.SPERCResult](m, p.Depth, p.WaitSlots, nil)}, nil
		},
		Formal: spercFormalJobs,
	})
}

type spercGolden struct {
	m    *gonerc.SPERCModel
	hops int
}

func (g spercGolden) Fields() ([]string, []string) {
	ev := []string{"conn", "kind", "round", "state", "xl", "old_weight", "new_weight", "leaving", "hop"}
	for j := 0; j < g.hops; j++ {
		ev = append(ev, fmt.Sprintf("b%d", j))
	}
	return append(ev, "ignore"), []string{"conn", "kind", "b", "x", "ignore", "state", "error"}
}

func (g spercGolden) Step(in, out []uint64) {
	e := gonerc.SPERCEvent{Conn: uint32(in[0]), Kind: gonerc.SPERCKind(in[1]), Round: in[2], State: gonerc.FlowState(in[3]),
		XL: in[4], OldW: in[5], NewW: in[6], Leaving: in[7]&1 == 1, Hop: uint32(in[8])}
	for j := 0; j < g.hops; j++ {
		e.B[j] = in[9+j]
	}
	e.Ignore = uint32(in[9+g.hops])
	var r gonerc.SPERCResult
	g.m.StepTo(&e, &r)
	out[0], out[1], out[2], out[3] = uint64(r.Conn), uint64(r.Kind), r.B, r.X
	out[4], out[5], out[6] = block.Bit(r.Ignore), uint64(r.State), block.Bit(r.Error)
}

func (g spercGolden) Reset() { g.m.Reset() }

type spercCycler struct{ p *gonerc.SPERCPipeline }

func (c spercCycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	out := c.p.Cycle(pipe.In[gonerc.SPERCEvent]{SValid: valid, MReady: ready, Event: gonerc.SPERCEvent{Conn: conn, Kind: gonerc.SpOpen}})
	return out.SReady, out.MValid
}

// resolveSPERC reads block "sperc_link" of a configuration.
func resolveSPERC(s block.Section, env block.Env) SPERCParams {
	def := DefaultSPERCParams()
	g := def.SPERCParams
	g.ConnW = int(env.ConnW)
	g.NumConn = int(s.Whole("links", 64, block.Default, "64 ports of a switch"))
	g.RateW = int(s.Whole("rate_width", 28, block.Default, "1 Mb/s units: b of a flow of weight 255 alone on 800 Gb/s is 204 Tb/s per unit of weight"))
	g.CapRate = s.Whole("capacity", 800000, block.Default, "800 Gb/s in units of 1 Mb/s")
	g.WeightW = int(s.Whole("weight_width", 8, block.Default, "up to 255 connections per host"))
	g.InvF = int(s.Whole("inv_frac_width", 16, block.Default, "1/weight within 0.2% at 255"))
	g.NumBW = int(s.Whole("num_b_width", 12, block.Default, "up to 4,095 flows of weight 1 per link"))
	g.Hops = int(s.Whole("hops", 4, block.Default, "a two-level fat tree: host, ToR, spine, ToR"))
	g.K = int(s.Whole("recip_bits", 12, block.Default, "b within 2^-11 of its value"))
	g.RoundW = int(s.Whole("round_width", 8, block.Default, "rounds compare modulo 256"))
	if !block.FitsConnID(s, "links", g.NumConn, env) {
		return def
	}
	if err := gonerc.ValidateSPERC(g); err != nil {
		s.Errorf(block.FirstSet(s, "", "capacity", "rate_width", "weight_width", "inv_frac_width", "num_b_width", "hops", "recip_bits", "round_width"), "%v", err)
		return def
	}
	p := SPERCParams{SPERCParams: g, WaitSlots: block.WaitSlots(s)}
	depth, ok := block.DerivedDepth(s, func() (int, error) { return NeededSPERCDepth(p) })
	if !ok {
		return def
	}
	p.Depth = depth
	return p
}

// SPERCOf is the parameters of block sperc_link in a configuration.
func SPERCOf(c block.Config) (SPERCParams, error) {
	return block.ParamsOf[SPERCParams](c, "sperc_link")
}

// SmallSPERCParams is sperc_link shrunk for the proofs: 2 links, 6-bit
// rates of a 12-unit link, 2-bit weights, 3 fraction bits, 2 hops, a
// 16-entry reciprocal table, 2-bit rounds.
func SmallSPERCParams() SPERCParams {
	g := gonerc.SPERCParams{NumConn: 2, ConnW: 2, KindW: SPERCKindW, RateW: 6, CapRate: 12, WeightW: 2, InvF: 3, NumBW: 2,
		Hops: 2, K: 4, RoundW: 2}
	p := SPERCParams{SPERCParams: g}
	p.Depth = connpipe.MustDepth(NeededSPERCDepth(p))
	return p
}

func spercFormalJob(name, doc string, p SPERCParams, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return SPERCLink(p)
	}}
	if breaks {
		j.OwnOnly = true
		j.Mutants = connpipe.WithShellMutants(p.Depth, "b", map[string][]hdlgen.Mutation{
			// an E flow raises MaxE' and forgets MaxE
			"max_e2_le_max_e": {{Node: "max_e_next", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return get("max_e_r")
			}}},
			// x is e, whatever b says
			"x_le_b": {{Node: "x", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return get("e_min")
			}}},
			// a new flow keeps its state (NEW_FLOW) instead of joining B
			"ctrl_settles": {{Node: "joins_b", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return get("is_e")
			}}},
		})
	}
	return j
}

// spercFormalJobs are sperc_link's proofs: the small configuration with
// its broken variants at pipeline depth 1, and at depth 4.
func spercFormalJobs() []block.FormalJob {
	small := SmallSPERCParams()
	small.Depth = 1
	deep := small
	deep.Depth = 4
	return []block.FormalJob{
		spercFormalJob("sperc_link", "2 links, RateW 6, c 12, WeightW 2, InvF 3, NumBW 2, 2 hops, K 4, RoundW 2, depth 1", small, true),
		spercFormalJob("sperc_link_depth4", "as sperc_link, pipeline depth 4", deep, false),
	}
}
