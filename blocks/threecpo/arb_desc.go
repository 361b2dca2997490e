package threecpo

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/golden/pipe"
	gthreecpo "github.com/nicgen/nicgen/golden/threecpo"
	"github.com/nicgen/nicgen/hdlgen"
)

// LRUArbDescriptor is lru_arb to nicgen's tools (package blocks lists it).
func LRUArbDescriptor() block.Block {
	return block.Define(block.Desc[LRUArbParams]{
		Name:   "lru_arb",
		Title:  "3CPO injection VC arbitration (S3 Section 6.2.5): per GPU port, the least recently granted VC among those whose IRL tokens suffice",
		Cocotb: block.Replay{Icarus: 10000},
		Attrs: []block.Attr{
			{Name: "ports", Kind: block.Whole, Lo: 2, Hi: 65536, Doc: "GPU injection ports of the table; each event is one arbitration of one port"},
			{Name: "vcs", Kind: block.Whole, Lo: 2, Hi: gthreecpo.MaxArbVCs, Doc: "injection VCs per port (S3:L1570-1577: read requests, write requests and responses)"},
			{Name: "policy", Kind: block.String, Options: []string{"lru", "round_robin"}, Doc: "lru, the thesis's arbiter; round_robin, the one it replaced because it starved a VC it skipped for lack of tokens (S3:L1769)"},
			block.DepthAttr,
		},
		Default: DefaultLRUArbParams,
		Resolve: resolveArb,
		Build:   LRUArb,
		Paper:   func(LRUArbParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p LRUArbParams) int { return p.NumConn },
		Kinds:   ArbKindNames,
		Golden: func(p LRUArbParams) (block.Golden, error) {
			t, err := gthreecpo.NewArbTable(p.ArbTableParams)
			return arbGolden{t}, err
		},
		Cycler: func(p LRUArbParams) (block.Cycler, error) {
			t, err := gthreecpo.NewArbTable(p.ArbTableParams)
			if err != nil {
				return nil, err
			}
			return arbCycler{gthreecpo.NewArbPipeline(t, p.Depth)}, nil
		},
		Formal: arbFormalJobs,
	})
}

// ArbEventFields and ArbResultFields are lru_arb's stream fields in the
// golden model's order.
var (
	ArbEventFields  = []string{"conn", "kind", "req", "ok"}
	ArbResultFields = []string{"conn", "kind", "granted", "grant", "error"}
)

// ArbEventOf is the golden event of field values in ArbEventFields's order.
func ArbEventOf(in []uint64) gthreecpo.ArbEvent {
	return gthreecpo.ArbEvent{Conn: uint32(in[0]), Kind: gthreecpo.ArbKind(in[1]), Req: uint32(in[2]), OK: uint32(in[3])}
}

// ArbResultValues writes a golden result as field values in
// ArbResultFields's order.
func ArbResultValues(r *gthreecpo.ArbResult, out []uint64) {
	out[0], out[1], out[2], out[3], out[4] = uint64(r.Conn), uint64(r.Kind), block.Bit(r.Granted), uint64(r.Grant), block.Bit(r.Error)
}

type arbGolden struct{ t *gthreecpo.ArbTable }

func (arbGolden) Fields() ([]string, []string) { return ArbEventFields, ArbResultFields }

func (g arbGolden) Step(in, out []uint64) {
	e := ArbEventOf(in)
	var r gthreecpo.ArbResult
	g.t.StepTo(&e, &r)
	ArbResultValues(&r, out)
}

func (g arbGolden) Reset() { g.t.Reset() }

type arbCycler struct{ p *gthreecpo.ArbPipeline }

func (c arbCycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	out := c.p.Cycle(pipe.In[gthreecpo.ArbEvent]{SValid: valid, MReady: ready, Event: gthreecpo.ArbEvent{Conn: conn, Kind: gthreecpo.ArbCycleKind}})
	return out.SReady, out.MValid
}

// resolveArb reads block "lru_arb" of a configuration.
func resolveArb(s block.Section, env block.Env) LRUArbParams {
	def := DefaultLRUArbParams()
	g := def.ArbTableParams
	g.ConnW = int(env.ConnW)
	g.NumConn = int(s.Whole("ports", 64, block.Default, "64 GPUs in one multicast group (S3:L1570)"))
	g.VCs = int(s.Whole("vcs", 3, block.Default, "read requests, write requests and responses at GPU injection (S3:L1570-1577)"))
	g.Policy = gthreecpo.ArbLRU
	if s.Choice("policy", "lru", "S3:L1769: least recently used replaced round robin") == "round_robin" {
		g.Policy = gthreecpo.ArbRoundRobin
	}
	if !block.FitsConnID(s, "ports", g.NumConn, env) {
		return def
	}
	if err := g.ValidateTable(); err != nil {
		s.Errorf(block.FirstSet(s, "", "vcs", "policy", "ports"), "%v", err)
		return def
	}
	p := LRUArbParams{ArbTableParams: g}
	s.Info("state_width", fmt.Sprint(g.StateW()), "lru: one bit per pair of VCs; round_robin: a VC index")
	depth, ok := block.DerivedDepth(s, func() (int, error) { return NeededArbDepth(p) })
	if !ok {
		return def
	}
	p.Depth = depth
	return p
}

// LRUArbOf is the parameters of block lru_arb in a configuration.
func LRUArbOf(c block.Config) (LRUArbParams, error) {
	return block.ParamsOf[LRUArbParams](c, "lru_arb")
}

// SmallLRUArbParams is lru_arb shrunk for the proofs: 2 ports, 3 VCs
// (an index of 2 bits may point past them).
func SmallLRUArbParams(pol gthreecpo.ArbPolicy) LRUArbParams {
	p := LRUArbParams{ArbTableParams: gthreecpo.ArbTableParams{ArbParams: gthreecpo.ArbParams{VCs: 3, Policy: pol}, NumConn: 2, ConnW: 2, KindW: ArbKindW}}
	p.Depth = connpipe.MustDepth(NeededArbDepth(p))
	return p
}

func arbFormalJob(name, doc string, p LRUArbParams, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return LRUArb(p)
	}}
	if !breaks {
		return j
	}
	j.OwnOnly = true
	muts := map[string][]hdlgen.Mutation{
		// a granted index counted one VC too far
		"grant_in_range": {{Node: "grant", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return hdlgen.Mux(get("granted"), hdlgen.Const(orig.Width(), uint64(p.VCs)), orig)
		}}},
		// a grant's index without its valid bit
		"grant_means_granted": {{Node: "granted", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(get("grant").Bit(0).Not())
		}}},
	}
	if p.Policy == gthreecpo.ArbRoundRobin {
		// the pointer counts past the last VC instead of wrapping
		muts["ptr_in_range"] = []hdlgen.Mutation{{Node: "ptr_next", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(hdlgen.Const(orig.Width(), uint64(p.VCs)))
		}}}
	} else {
		// the pair (0, 2) forgotten by the update: granting 0, then 1,
		// then 0 leaves 1 older than 0, 0 older than 2 and 2 older than 1
		muts["age_is_order"] = []hdlgen.Mutation{{Node: "older_next", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			b := hdlgen.Const(orig.Width(), uint64(1)<<uint(p.PairBit(0, 2)))
			return orig.And(b.Not()).Or(get("cur_older").And(b))
		}}}
	}
	j.Mutants = connpipe.WithShellMutants(p.Depth, "granted", muts)
	return j
}

// arbFormalJobs are lru_arb's proofs: 2 ports of 3 VCs, each policy, with
// their broken variants.
func arbFormalJobs() []block.FormalJob {
	lru, rr := SmallLRUArbParams(gthreecpo.ArbLRU), SmallLRUArbParams(gthreecpo.ArbRoundRobin)
	return []block.FormalJob{
		arbFormalJob("lru_arb", fmt.Sprintf("2 ports, 3 VCs, least recently used, depth %d", lru.Depth), lru, true),
		arbFormalJob("lru_arb_rr", fmt.Sprintf("2 ports, 3 VCs, round robin, depth %d", rr.Depth), rr, true),
	}
}
