package threecpo

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/golden/pipe"
	gthreecpo "github.com/nicgen/nicgen/golden/threecpo"
	"github.com/nicgen/nicgen/hdlgen"
)

// WMCtrlDescriptor is wm_ctrl to nicgen's tools (package blocks lists it).
func WMCtrlDescriptor() block.Block {
	return block.Define(block.Desc[WMCtrlParams]{
		Name:   "wm_ctrl",
		Title:  "3CPO watermark control (S3 Algorithm 6): multicast-to-unicast conversion, FBS decrease, AI",
		Cocotb: block.Replay{Icarus: 6000},
		Attrs: []block.Attr{
			{Name: "wm_max", Kind: block.Whole, Lo: 2, Hi: 65535, Doc: "WM_MAX: the largest watermark, tokens per WM_MAX cycles (S3:L1579: 2468)"},
			{Name: "wm_min", Kind: block.Whole, Lo: 1, Hi: 65534, Doc: "WM_MIN: the smallest watermark (S3:L1579: 100)"},
			{Name: "lat_thresh", Kind: block.Whole, Lo: 1, Hi: 1<<24 - 2, Unit: "cycles", Doc: "below it a probe adds AI; above it the network is congested (S3:L1579: 2,000)"},
			{Name: "max_lat_thresh", Kind: block.Whole, Lo: 2, Hi: 1<<24 - 1, Unit: "cycles", Doc: "from it the decrease fraction is base_md (S3:L1579: 5,000)"},
			{Name: "base_md", Kind: block.Number, Min: 1.0 / 65536, Max: 65535.0 / 65536, Doc: "the largest decrease fraction (S3:L1579: 0.5, halving)"},
			{Name: "ai", Kind: block.Whole, Lo: 0, Hi: 65535, Doc: "WM_AI: additive increase per calm probe (S3:L1579: 50)"},
			{Name: "else_of_line_12", Kind: block.Bool, Doc: "Algorithm 6's line 18 is the else of line 12 (A-31: the text and Fig. 6.9); false reads the listing as printed, where a shrinking equivalent never decreases the watermark"},
			{Name: "frac_width", Kind: block.Whole, Lo: 0, Hi: 12, Unit: "bits", Doc: "fraction bits of the watermark (even: 1/sqrt of 2^-frac is a shift)"},
			{Name: "lat_width", Kind: block.Whole, Lo: 8, Hi: 24, Unit: "bits", Doc: "width of a probe's latency, cycles"},
			{Name: "tokens_width", Kind: block.Whole, Lo: 1, Hi: 24, Unit: "bits", Doc: "width of the matched tokens of an RTT (saturating)"},
			{Name: "recip_bits", Kind: block.Whole, Lo: 4, Hi: 14, Unit: "bits", Doc: "index bits of the reciprocal table of the latency (relative error 1.5 x 2^-bits)"},
			{Name: "rsqrt_bits", Kind: block.Whole, Lo: 4, Hi: 14, Unit: "bits", Doc: "index bits of fbs's 1/sqrt table"},
			block.DepthAttr,
			block.WaitSlotsAttr,
		},
		Default: DefaultWMCtrlParams,
		Resolve: resolveWMCtrl,
		Build:   WMCtrl,
		Paper:   func(WMCtrlParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p WMCtrlParams) int { return p.NumConn },
		Slots:   func(p WMCtrlParams) int { return p.WaitSlots },
		Kinds:   WMKindNames,
		Golden: func(p WMCtrlParams) (block.Golden, error) {
			t, err := gthreecpo.NewWMTable(p.WMFxParams, p.NumConn, p.ConnW, WMKindW)
			return wmGolden{t}, err
		},
		Cycler: func(p WMCtrlParams) (block.Cycler, error) {
			t, err := gthreecpo.NewWMTable(p.WMFxParams, p.NumConn, p.ConnW, WMKindW)
			if err != nil {
				return nil, err
			}
			return wmCycler{pipe.NewShell[gthreecpo.WMEvent, gthreecpo.WMResult](t, p.Depth, p.WaitSlots, nil)}, nil
		},
		Formal: wmFormalJobs,
	})
}

type wmGolden struct{ t *gthreecpo.WMTable }

// WMEventFields and WMResultFields are wm_ctrl's stream fields in the
// golden model's order.
var (
	WMEventFields  = []string{"conn", "kind", "lat", "rtt_end", "tokens"}
	WMResultFields = []string{"conn", "kind", "wm", "eq", "decreased", "error"}
)

func (g wmGolden) Fields() ([]string, []string) { return WMEventFields, WMResultFields }

func (g wmGolden) Step(in, out []uint64) {
	e := gthreecpo.WMEvent{Conn: uint32(in[0]), Kind: gthreecpo.WMKind(in[1]), Lat: uint32(in[2]), RTTEnd: in[3]&1 == 1, Tokens: uint32(in[4])}
	var r gthreecpo.WMResult
	g.t.StepTo(&e, &r)
	out[0], out[1], out[2], out[3], out[4], out[5] = uint64(r.Conn), uint64(r.Kind), uint64(r.WM), uint64(r.Eq), block.Bit(r.Decreased), block.Bit(r.Error)
}

func (g wmGolden) Reset() { g.t.Reset() }

type wmCycler struct{ p *gthreecpo.WMPipeline }

func (c wmCycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	out := c.p.Cycle(pipe.In[gthreecpo.WMEvent]{SValid: valid, MReady: ready, Event: gthreecpo.WMEvent{Conn: conn, Kind: gthreecpo.WMOpen}})
	return out.SReady, out.MValid
}

// resolveWMCtrl reads block "wm_ctrl" of a configuration.
func resolveWMCtrl(s block.Section, env block.Env) WMCtrlParams {
	def := DefaultWMCtrlParams()
	g := def.WMFxParams
	g.WMMax = uint32(s.Whole("wm_max", 2468, block.Default, "S3:L1579"))
	g.WMMin = uint32(s.Whole("wm_min", 100, block.Default, "S3:L1579"))
	g.LatThresh = uint32(s.Whole("lat_thresh", 2000, block.Default, "S3:L1579"))
	g.MaxLatThresh = uint32(s.Whole("max_lat_thresh", 5000, block.Default, "S3:L1579"))
	md := s.Number("base_md", 0.5, "S3:L1579: halving above max_lat_thresh")
	g.BaseMD16 = uint32(md*65536 + 0.5)
	g.AI = uint32(s.Whole("ai", 50, block.Default, "S3:L1579"))
	g.ElseOfLine12 = s.Bool("else_of_line_12", true, "A-31's recommendation")
	g.F = int(s.Whole("frac_width", 8, block.Default, "a decrease of 2^-8 of a token per WM_MAX cycles"))
	g.LatW = int(s.Whole("lat_width", 17, block.Default, "latencies up to 131,071 cycles (S3 Fig. 6.3's tails reach 70,000)"))
	g.GDW = int(s.Whole("tokens_width", 16, block.Default, "up to 65,535 matched tokens per RTT"))
	g.K = int(s.Whole("recip_bits", 12, block.Default, "the equivalent within 3.7e-4 of its value"))
	g.RsqrtBits = int(s.Whole("rsqrt_bits", 10, block.Default, "fbs within 0.0013"))
	ok := true
	check := func(bad bool, attrs []string, format string, args ...any) {
		if !bad {
			return
		}
		s.Errorf(block.FirstSet(s, attrs[0], attrs...), format, args...)
		ok = false
	}
	check(g.WMMin >= g.WMMax, []string{"wm_min", "wm_max"}, "wm_min = %d must be below wm_max = %d", g.WMMin, g.WMMax)
	check(g.LatThresh >= g.MaxLatThresh, []string{"lat_thresh", "max_lat_thresh"}, "lat_thresh = %d must be below max_lat_thresh = %d", g.LatThresh, g.MaxLatThresh)
	check(g.F%2 != 0, []string{"frac_width"}, "frac_width = %d must be even (1/sqrt of 2^-frac_width is a shift)", g.F)
	check(uint64(g.MaxLatThresh) >= uint64(1)<<uint(g.LatW), []string{"lat_width", "max_lat_thresh"}, "max_lat_thresh = %d does not fit lat_width = %d bits", g.MaxLatThresh, g.LatW)
	check(g.AI >= g.WMMax, []string{"ai", "wm_max"}, "ai = %d must be below wm_max = %d", g.AI, g.WMMax)
	check(g.BaseMD16 == 0 || g.BaseMD16 >= 1<<16, []string{"base_md"}, "base_md = %g rounds to %d/65536: want 1..65535", md, g.BaseMD16)
	if !ok {
		return def
	}
	if err := g.Validate(); err != nil { // what the checks above do not name
		s.Errorf(block.FirstSet(s, "", "wm_min", "wm_max", "lat_thresh", "max_lat_thresh", "frac_width", "lat_width", "base_md", "ai"), "%v", err)
		return def
	}
	p := WMCtrlParams{WMFxParams: g, NumConn: int(env.Conns), ConnW: int(env.ConnW), WaitSlots: block.WaitSlots(s)}
	s.Info("wm_width", fmt.Sprint(p.WMW()), "frac_width + bits of wm_max")
	depth, ok := block.DerivedDepth(s, func() (int, error) { return NeededWMCtrlDepth(p) })
	if !ok {
		return def
	}
	p.Depth = depth
	return p
}

// WMCtrlOf is the parameters of block wm_ctrl in a configuration.
func WMCtrlOf(c block.Config) (WMCtrlParams, error) {
	return block.ParamsOf[WMCtrlParams](c, "wm_ctrl")
}

// SmallWMCtrlParams is wm_ctrl shrunk for the proofs: 2 instances,
// watermarks to 60 in 2^-2, thresholds 20 and 50 cycles, 8-bit latencies,
// 4-bit matched tokens, 16-entry tables.
func SmallWMCtrlParams() WMCtrlParams {
	g := gthreecpo.WMFxParams{WMMax: 60, WMMin: 4, LatThresh: 20, MaxLatThresh: 50, BaseMD16: 32768, AI: 3,
		F: 2, LatW: 8, GDW: 4, K: 4, RsqrtBits: 4, ElseOfLine12: true}
	p := WMCtrlParams{WMFxParams: g, NumConn: 2, ConnW: 2}
	p.Depth = connpipe.MustDepth(NeededWMCtrlDepth(p))
	return p
}

func wmFormalJob(name, doc string, p WMCtrlParams, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return WMCtrl(p)
	}}
	if breaks {
		j.OwnOnly = true
		j.Mutants = connpipe.WithShellMutants(p.Depth, "wm", map[string][]hdlgen.Mutation{
			// the bounds are forgotten: a decrease may go below WM_MIN
			"result_wm_in_range": {{Node: "wm_next", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return get("wm3")
			}}},
			"wm_valid": {{Node: "wm_next", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return get("wm3")
			}}},
			// the equivalent forgets its cap at WM_MAX
			"eq_le_max": {{Node: "eq_capped", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.And(orig.Not())
			}}},
		})
	}
	return j
}

// wmFormalJobs are wm_ctrl's proofs: the small configuration with its
// broken variants at pipeline depth 1, and at depth 4.
func wmFormalJobs() []block.FormalJob {
	small := SmallWMCtrlParams()
	small.Depth = 1
	deep := small
	deep.Depth = 4
	printed := small
	printed.ElseOfLine12 = false
	return []block.FormalJob{
		wmFormalJob("wm_ctrl", "2 instances, WM_MAX 60 in 2^-2, thresholds 20 and 50, 8-bit latencies, 4-bit tokens, 16-entry tables, depth 1", small, true),
		wmFormalJob("wm_ctrl_printed", "as wm_ctrl with line 18 as printed", printed, false),
		wmFormalJob("wm_ctrl_depth4", "as wm_ctrl, pipeline depth 4", deep, false),
	}
}
