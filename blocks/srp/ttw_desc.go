package srp

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/golden/pipe"
	gsrp "github.com/nicgen/nicgen/golden/srp"
	"github.com/nicgen/nicgen/hdlgen"
)

// TTWDescriptor is srp_ttw to nicgen's tools (package blocks lists it).
func TTWDescriptor() block.Block {
	return block.Define(block.Desc[TTWParams]{
		Name:   "srp_ttw",
		Title:  "SRP router TTW check (S2): speculative packets past their time-to-wait are dropped and NACKed",
		Cocotb: block.Replay{Icarus: 10000},
		Attrs: []block.Attr{
			{Name: "slots", Kind: block.Whole, Lo: 2, Hi: 65536, Unit: "packets", Doc: "slots of the input buffer, one word each (S2: 16 packets per VC)"},
			{Name: "ttw", Kind: block.Whole, Lo: 1, Hi: 1<<62 - 1, Unit: "ticks", Doc: "speculative packet time-to-wait, TTW (S2 Table 1: 1.3 us)"},
			{Name: "ttw_mode", Kind: block.String, Options: []string{"accumulated", "per_hop", "deadline"}, Doc: "how the wait is carried across hops (A-20): the header accumulates every hop's wait, each hop checks its own, or the header holds a deadline from the source"},
			{Name: "header_width", Kind: block.Whole, Lo: 1, Hi: 63, Unit: "bits", Doc: "width of the header field; a deadline is time_width bits"},
			{Name: "time_width", Kind: block.Whole, Lo: 2, Hi: 63, Unit: "bits", Doc: "width of s_event_now"},
			block.DepthAttr,
		},
		Default: DefaultTTWParams,
		Resolve: resolveTTW,
		Build:   TTW,
		Paper:   func(TTWParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p TTWParams) int { return p.NumConn },
		Kinds:   TTWKindNames,
		Golden: func(p TTWParams) (block.Golden, error) {
			m, err := gsrp.NewTTWModel(p.Golden())
			return ttwGolden{m}, err
		},
		Cycler: func(p TTWParams) (block.Cycler, error) {
			m, err := gsrp.NewTTWModel(p.Golden())
			if err != nil {
				return nil, err
			}
			return ttwCycler{gsrp.NewTTWPipeline(m, p.Depth)}, nil
		},
		Stimulus: ttwStimulus,
		Formal:   ttwFormalJobs,
	})
}

// ttwGolden drives the golden srp_ttw model by field values (block.Golden).
type ttwGolden struct{ m *gsrp.TTWModel }

func (ttwGolden) Fields() ([]string, []string) {
	return []string{"conn", "kind", "now", "hdr", "spec"}, []string{"conn", "kind", "drop", "spec", "hdr", "empty", "error"}
}

func (g ttwGolden) Step(in, out []uint64) {
	e := gsrp.TTWEvent{Conn: uint32(in[0]), Kind: gsrp.TTWKind(in[1]), Now: in[2], Hdr: in[3], Spec: in[4]&1 == 1}
	var r gsrp.TTWResult
	g.m.StepTo(&e, &r)
	out[0], out[1], out[2], out[3], out[4], out[5], out[6] = uint64(r.Conn), uint64(r.Kind), block.Bit(r.Drop), block.Bit(r.Spec), r.Hdr, block.Bit(r.Empty), block.Bit(r.Error)
}

func (g ttwGolden) Reset() { g.m.Reset() }

type ttwCycler struct{ p *gsrp.TTWPipeline }

func (c ttwCycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	out := c.p.Cycle(pipe.In[gsrp.TTWEvent]{SValid: valid, MReady: ready, Event: gsrp.TTWEvent{Conn: conn, Kind: gsrp.TTWOpen}})
	return out.SReady, out.MValid
}

// resolveTTW reads block "srp_ttw" of a configuration.
func resolveTTW(s block.Section, env block.Env) TTWParams {
	p := TTWParams{ConnW: int(env.ConnW)}
	p.NumConn = int(s.Whole("slots", 16, block.Default, "S2: 16 packets of input buffer per VC"))
	p.TTW = s.Whole("ttw", 1300, block.Default, "S2 Table 1: 1.3 us in 1 ns ticks")
	mode, err := parseTTWMode(s.Choice("ttw_mode", "accumulated", "A-20: the recommended header field acc_wait"))
	if err != nil {
		s.Errorf("ttw_mode", "%v", err)
	}
	p.Mode = mode
	p.TimeW = int(s.Whole("time_width", env.TimeW, block.Derived, "hardware.time_width"))
	if p.Mode == gsrp.TTWDeadline {
		p.HdrW = int(s.Whole("header_width", uint64(p.TimeW), block.Derived, "a deadline is a time: time_width"))
	} else {
		p.HdrW = int(s.Whole("header_width", 16, block.Default, "waits up to 65 us in 1 ns ticks, 50x the TTW"))
	}
	if !block.FitsConnID(s, "slots", p.NumConn, env) {
		return DefaultTTWParams()
	}
	if err := gsrp.ValidateTTW(p.Golden()); err != nil {
		s.Errorf(block.FirstSet(s, "ttw", "header_width", "ttw_mode", "time_width", "ttw"), "%v", err)
		return DefaultTTWParams()
	}
	depth, ok := block.DerivedDepth(s, func() (int, error) { return NeededTTWDepth(p) })
	if !ok {
		return DefaultTTWParams()
	}
	p.Depth = depth
	return p
}

// TTWOf is the parameters of block srp_ttw in a configuration.
func TTWOf(c block.Config) (TTWParams, error) { return block.ParamsOf[TTWParams](c, "srp_ttw") }

// SmallTTWParams is srp_ttw shrunk for the proofs: 2 slots, 5-bit time, a
// 4-bit header, TTW 5.
func SmallTTWParams(mode gsrp.TTWMode) TTWParams {
	p := TTWParams{NumConn: 2, ConnW: 2, TimeW: 5, HdrW: 4, TTW: 5, Mode: mode}
	if mode == gsrp.TTWDeadline {
		p.HdrW = p.TimeW
	}
	p.Depth = connpipe.MustDepth(NeededTTWDepth(p))
	return p
}

func ttwFormalJob(name, doc string, p TTWParams, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return TTW(p)
	}}
	if breaks {
		own := map[string][]hdlgen.Mutation{
			// a scheduled packet at the head is checked as a speculative one
			"scheduled_never_dropped": {{Node: "head_checked", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.Or(get("is_head").And(get("cur_valid")))
			}}},
		}
		if p.Mode == gsrp.TTWAccumulated {
			// the check lets one tick past the TTW through
			own["forwarded_within_ttw"] = []hdlgen.Mutation{{Node: "head_expired", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				sum := get("acc_sum")
				return orig.And(sum.Ne(hdlgen.Const(sum.Width(), p.TTW+1)))
			}}}
		}
		j.Mutants = connpipe.WithShellMutants(p.Depth, "drop", own)
		j.OwnOnly = true
	}
	return j
}

// ttwFormalJobs are srp_ttw's proofs: each A-20 mode small, with the
// broken variants on the accumulated one, and the default widths.
func ttwFormalJobs() []block.FormalJob {
	def := DefaultTTWParams()
	def.NumConn = 4
	var jobs []block.FormalJob
	for _, m := range ttwModes {
		p := SmallTTWParams(m)
		name := "srp_ttw"
		if m != gsrp.TTWAccumulated {
			name += "_" + m.String()
		}
		jobs = append(jobs, ttwFormalJob(name, fmt.Sprintf("mode %s, NumConn 2, TimeW 5, HdrW %d, TTW 5, depth %d", m, p.HdrW, p.Depth), p, m == gsrp.TTWAccumulated))
	}
	return append(jobs, ttwFormalJob("srp_ttw_default", "default widths (TimeW 32, HdrW 16, TTW 1300, accumulated), 4 slots", def, false))
}
