package threecpo

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/golden/pipe"
	gthreecpo "github.com/nicgen/nicgen/golden/threecpo"
	"github.com/nicgen/nicgen/hdlgen"
)

// IRLTokensDescriptor is irl_tokens to nicgen's tools (package blocks lists it).
func IRLTokensDescriptor() block.Block {
	return block.Define(block.Desc[IRLTokensParams]{
		Name:   "irl_tokens",
		Title:  "3CPO injection-rate-limit tokens (S3 Section 6.1.3): per GPU port, a token per cycle iff rand < watermark, requests take their flits, counters may go negative",
		Cocotb: block.Replay{Icarus: 10000},
		Attrs: []block.Attr{
			{Name: "ports", Kind: block.Whole, Lo: 2, Hi: 65536, Doc: "GPU injection ports of the table; each event is one cycle of one port"},
			{Name: "wm_max", Kind: block.Whole, Lo: 2, Hi: 65536, Doc: "WM_MAX: a token arrives iff rand < watermark, rand uniform in [0, WM_MAX) (S3:L1579: 2468)"},
			{Name: "rand_bits", Kind: block.Whole, Lo: 8, Hi: 16, Unit: "bits", Doc: "random bits per draw: rand = (r x WM_MAX) >> rand_bits, within 2^-rand_bits of uniform"},
			{Name: "cap", Kind: block.Whole, Lo: 1, Hi: 1<<15 - 1, Unit: "tokens", Doc: "the bucket's capacity: a counter never rises above it (the thesis gives none; one 9-flit packet)"},
			{Name: "max_cost", Kind: block.Whole, Lo: 1, Hi: 1<<15 - 1, Unit: "tokens", Doc: "the most tokens of one type one request may take (its flits plus matched remote flits: 64 senders' 9-flit packets)"},
			block.DepthAttr,
			block.WaitSlotsAttr,
		},
		Default: DefaultIRLTokensParams,
		Resolve: resolveIRL,
		Build:   IRLTokens,
		Paper:   func(IRLTokensParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p IRLTokensParams) int { return p.NumConn },
		Slots:   func(p IRLTokensParams) int { return p.WaitSlots },
		Kinds:   IRLKindNames,
		Golden: func(p IRLTokensParams) (block.Golden, error) {
			t, err := gthreecpo.NewIRLTable(p.IRLTableParams)
			return irlGolden{t, p.TokW()}, err
		},
		Cycler: func(p IRLTokensParams) (block.Cycler, error) {
			t, err := gthreecpo.NewIRLTable(p.IRLTableParams)
			if err != nil {
				return nil, err
			}
			return irlCycler{pipe.NewShell[gthreecpo.IRLEvent, gthreecpo.IRLEventResult](t, p.Depth, p.WaitSlots, nil)}, nil
		},
		Stimulus: irlStimulus,
		Formal:   irlFormalJobs,
	})
}

// IRLEventFields and IRLResultFields are irl_tokens's stream fields in
// the golden model's order.
var (
	IRLEventFields  = []string{"conn", "kind", "seed", "send", "req_cost", "rsp_cost", "req_wm", "rsp_wm"}
	IRLResultFields = []string{"conn", "kind", "sent", "refused", "new_req", "new_rsp", "req_tokens", "rsp_tokens", "may_send", "error"}
)

// IRLEventOf is the golden event of field values in IRLEventFields's order.
func IRLEventOf(in []uint64) gthreecpo.IRLEvent {
	return gthreecpo.IRLEvent{Conn: uint32(in[0]), Kind: gthreecpo.IRLKind(in[1]), Seed: uint32(in[2]), Send: in[3]&1 == 1,
		ReqCost: uint32(in[4]), RspCost: uint32(in[5]), ReqWM: uint32(in[6]), RspWM: uint32(in[7])}
}

// IRLResultValues writes a golden result as field values in
// IRLResultFields's order; the counters in two's complement of tokW bits.
func IRLResultValues(r *gthreecpo.IRLEventResult, tokW int, out []uint64) {
	tok := func(v int32) uint64 { return uint64(int64(v)) & (uint64(1)<<uint(tokW) - 1) }
	out[0], out[1], out[2], out[3], out[4] = uint64(r.Conn), uint64(r.Kind), block.Bit(r.Sent), block.Bit(r.Refused), block.Bit(r.NewReq)
	out[5], out[6], out[7], out[8], out[9] = block.Bit(r.NewRsp), tok(r.Req), tok(r.Rsp), block.Bit(r.MaySend), block.Bit(r.Error)
	if r.Error {
		out[6], out[7] = 0, 0
	}
}

type irlGolden struct {
	t    *gthreecpo.IRLTable
	tokW int
}

func (irlGolden) Fields() ([]string, []string) { return IRLEventFields, IRLResultFields }

func (g irlGolden) Step(in, out []uint64) {
	e := IRLEventOf(in)
	var r gthreecpo.IRLEventResult
	g.t.StepTo(&e, &r)
	IRLResultValues(&r, g.tokW, out)
}

func (g irlGolden) Reset() { g.t.Reset() }

type irlCycler struct{ p *gthreecpo.IRLPipeline }

func (c irlCycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	out := c.p.Cycle(pipe.In[gthreecpo.IRLEvent]{SValid: valid, MReady: ready, Event: gthreecpo.IRLEvent{Conn: conn, Kind: gthreecpo.IRLTick}})
	return out.SReady, out.MValid
}

// resolveIRL reads block "irl_tokens" of a configuration.
func resolveIRL(s block.Section, env block.Env) IRLTokensParams {
	def := DefaultIRLTokensParams()
	g := def.IRLTableParams
	g.ConnW = int(env.ConnW)
	g.NumConn = int(s.Whole("ports", 64, block.Default, "64 GPUs in one multicast group (S3:L1570)"))
	g.WMMax = uint32(s.Whole("wm_max", 2468, block.Default, "S3:L1579"))
	g.RandBits = int(s.Whole("rand_bits", 16, block.Default, "a token's probability within 2^-16 of watermark / WM_MAX"))
	g.Cap = int32(s.Whole("cap", 9, block.Default, "one full packet of 9 flits"))
	g.MaxCost = int32(s.Whole("max_cost", 9*64, block.Default, "a 9-flit packet with 63 other senders' matched flits"))
	if !block.FitsConnID(s, "ports", g.NumConn, env) {
		return def
	}
	if err := g.ValidateTable(); err != nil {
		s.Errorf(block.FirstSet(s, "", "wm_max", "rand_bits", "cap", "max_cost", "ports"), "%v", err)
		return def
	}
	p := IRLTokensParams{IRLTableParams: g, WaitSlots: block.WaitSlots(s)}
	s.Info("tokens_width", fmt.Sprint(g.TokW()), "a counter holds cap and 1 - max_cost")
	depth, ok := block.DerivedDepth(s, func() (int, error) { return NeededIRLDepth(p) })
	if !ok {
		return def
	}
	p.Depth = depth
	return p
}

// IRLTokensOf is the parameters of block irl_tokens in a configuration.
func IRLTokensOf(c block.Config) (IRLTokensParams, error) {
	return block.ParamsOf[IRLTokensParams](c, "irl_tokens")
}

// SmallIRLTokensParams is irl_tokens shrunk for the proofs: 2 ports,
// WM_MAX 10, 8 random bits, a bucket of 3, costs up to 5.
func SmallIRLTokensParams() IRLTokensParams {
	g := gthreecpo.IRLTableParams{IRLParams: gthreecpo.IRLParams{WMMax: 10, RandBits: 8, Cap: 3, MaxCost: 5, Seed: 1}, NumConn: 2, ConnW: 2, KindW: IRLKindW}
	p := IRLTokensParams{IRLTableParams: g}
	p.Depth = connpipe.MustDepth(NeededIRLDepth(p))
	return p
}

func irlFormalJob(name, doc string, p IRLTokensParams, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return IRLTokens(p)
	}}
	if breaks {
		j.OwnOnly = true
		j.Mutants = connpipe.WithShellMutants(p.Depth, "sent", map[string][]hdlgen.Mutation{
			// the cap forgotten: a token may raise a counter above it (the
			// gate's own mutation, sends from empty counters, also breaks
			// may_send on set_wm, which the solver may find first)
			"tokens_in_range": {{Node: "req_over", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.And(orig.Not())
			}}},
			// a watermark above WM_MAX loads as it is
			"wm_le_max": {{Node: "set_wm_req", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return get("s1_req_wm_reg")
			}}},
			// a refused request also counts as sent
			"sent_or_refused": {{Node: "sent", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.Or(get("refused"))
			}}},
			// may_send from the counters before the cycle
			"may_send_means_tokens": {{Node: "may_send", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.Xor(get("sent"))
			}}},
		})
	}
	return j
}

// irlFormalJobs are irl_tokens's proofs: the small configuration with its
// broken variants. (The thesis's WM_MAX, cap and max cost on 2 ports took
// about a minute with 8 random bits and is left to the equivalence, for
// CI's time.)
func irlFormalJobs() []block.FormalJob {
	small := SmallIRLTokensParams()
	return []block.FormalJob{
		irlFormalJob("irl_tokens", fmt.Sprintf("2 ports, WM_MAX 10, 8 random bits, cap 3, max cost 5, depth %d", small.Depth), small, true),
	}
}
