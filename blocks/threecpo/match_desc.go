package threecpo

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/golden/pipe"
	gthreecpo "github.com/nicgen/nicgen/golden/threecpo"
	"github.com/nicgen/nicgen/hdlgen"
)

// MCastMatchDescriptor is mcast_match to nicgen's tools (package blocks lists it).
func MCastMatchDescriptor() block.Block {
	return block.Define(block.Desc[MCastMatchParams]{
		Name:   "mcast_match",
		Title:  "3CPO multicast matching (S3 Section 6.2.2): per matcher, each member's unmatched and outstanding flits; a send or a remote request pays its matched flits times the MI factor",
		Cocotb: block.Replay{Icarus: 10000},
		Attrs: []block.Attr{
			{Name: "matchers", Kind: block.Whole, Lo: 2, Hi: 65536, Doc: "matchers of the table: a GPU's traffic classes times its multicast groups"},
			{Name: "members", Kind: block.Whole, Lo: 1, Hi: 63, Doc: "the other GPUs of a group (N - 1; the thesis's 64-GPU group is 63, a 1,523-bit word)"},
			{Name: "flits_width", Kind: block.Whole, Lo: 1, Hi: 10, Unit: "bits", Doc: "width of a request's flits (the thesis's packets are 9 flits)"},
			{Name: "count_width", Kind: block.Whole, Lo: 3, Hi: 24, Unit: "bits", Doc: "width of the signed counters: local flits up to 2^(count_width-1) - 1, queued flits per member as many"},
			{Name: "lat_width", Kind: block.Whole, Lo: 1, Hi: 24, Unit: "bits", Doc: "width of the measured collective latency, cycles"},
			{Name: "time_width", Kind: block.Whole, Lo: 8, Hi: 48, Unit: "bits", Doc: "width of the arrival time, the wait and the expiry (wrapping)"},
			{Name: "mi_low_lat", Kind: block.Whole, Lo: 0, Hi: 1<<24 - 2, Unit: "cycles", Doc: "below it a matched flit costs mi_low tokens (S3:L1661-1663: 1,000)"},
			{Name: "mi_high_lat", Kind: block.Whole, Lo: 1, Hi: 1<<24 - 1, Unit: "cycles", Doc: "from it a matched flit costs 1 token; linear between (S3:L1661-1663: 2,000)"},
			{Name: "mi_low", Kind: block.Number, Min: 0, Max: 1, Doc: "the factor below mi_low_lat, in fifths (S3:L1661-1663: 0.8); products are rounded up"},
			block.DepthAttr,
			block.WaitSlotsAttr,
		},
		Default: DefaultMCastMatchParams,
		Resolve: resolveMatch,
		Build:   MCastMatch,
		Paper:   func(MCastMatchParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p MCastMatchParams) int { return p.NumConn },
		Slots:   func(p MCastMatchParams) int { return p.WaitSlots },
		Kinds:   MatchKindNames,
		Golden: func(p MCastMatchParams) (block.Golden, error) {
			t, err := gthreecpo.NewMatchTable(p.MatchTableParams)
			return matchGolden{t}, err
		},
		Cycler: func(p MCastMatchParams) (block.Cycler, error) {
			t, err := gthreecpo.NewMatchTable(p.MatchTableParams)
			if err != nil {
				return nil, err
			}
			return matchCycler{pipe.NewShell[gthreecpo.MatchEvent, gthreecpo.MatchResult](t, p.Depth, p.WaitSlots, nil)}, nil
		},
		Formal: matchFormalJobs,
	})
}

// MatchEventFields and MatchResultFields are mcast_match's stream fields
// in the golden model's order.
var (
	MatchEventFields  = []string{"conn", "kind", "src", "flits", "lat", "now", "wait"}
	MatchResultFields = []string{"conn", "kind", "tokens", "matched", "expiry", "refused", "error"}
)

// MatchEventOf is the golden event of field values in MatchEventFields's order.
func MatchEventOf(in []uint64) gthreecpo.MatchEvent {
	return gthreecpo.MatchEvent{Conn: uint32(in[0]), Kind: gthreecpo.MatchKind(in[1]), Src: uint32(in[2]), Flits: uint32(in[3]),
		Lat: uint32(in[4]), Now: in[5], Wait: in[6]}
}

// MatchResultValues writes a golden result as field values in
// MatchResultFields's order.
func MatchResultValues(r *gthreecpo.MatchResult, out []uint64) {
	out[0], out[1], out[2], out[3] = uint64(r.Conn), uint64(r.Kind), uint64(r.Tokens), uint64(r.Matched)
	out[4], out[5], out[6] = r.Expiry, block.Bit(r.Refused), block.Bit(r.Error)
}

type matchGolden struct{ t *gthreecpo.MatchTable }

func (matchGolden) Fields() ([]string, []string) { return MatchEventFields, MatchResultFields }

func (g matchGolden) Step(in, out []uint64) {
	e := MatchEventOf(in)
	var r gthreecpo.MatchResult
	g.t.StepTo(&e, &r)
	MatchResultValues(&r, out)
}

func (g matchGolden) Reset() { g.t.Reset() }

type matchCycler struct{ p *gthreecpo.MatchPipeline }

func (c matchCycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	out := c.p.Cycle(pipe.In[gthreecpo.MatchEvent]{SValid: valid, MReady: ready, Event: gthreecpo.MatchEvent{Conn: conn, Kind: gthreecpo.MatchResponseKind, Flits: 1}})
	return out.SReady, out.MValid
}

// resolveMatch reads block "mcast_match" of a configuration.
func resolveMatch(s block.Section, env block.Env) MCastMatchParams {
	def := DefaultMCastMatchParams()
	g := def.MatchTableParams
	g.ConnW = int(env.ConnW)
	g.NumConn = int(s.Whole("matchers", 64, block.Default, "one per GPU port, as irl_tokens's 64"))
	g.Members = int(s.Whole("members", 7, block.Default, "an 8-GPU group behind one switch (the thesis's 8 GPUs per ToR)"))
	g.FlitW = int(s.Whole("flits_width", 4, block.Default, "requests up to 15 flits (9-flit packets)"))
	g.CountW = int(s.Whole("count_width", 12, block.Default, "2,047 local flits awaiting responses"))
	g.LatW = int(s.Whole("lat_width", 17, block.Default, "latencies up to 131,071 cycles (S3 Fig. 6.3's tails reach 70,000)"))
	g.TimeW = int(s.Whole("time_width", 32, block.Default, "a cycle counter of 32 bits"))
	g.MILoLat = uint32(s.Whole("mi_low_lat", 1000, block.Default, "S3:L1661-1663"))
	g.MIHiLat = uint32(s.Whole("mi_high_lat", 2000, block.Default, "S3:L1661-1663"))
	low := s.Number("mi_low", 0.8, "S3:L1661-1663")
	g.MIDen = 5
	g.MILowNum = uint32(low*5 + 0.5)
	if float64(g.MILowNum) != low*5 {
		s.Errorf("mi_low", "mi_low = %g is not a whole number of fifths (0, 0.2, 0.4, 0.6, 0.8, 1)", low)
		return def
	}
	if g.MILoLat >= g.MIHiLat {
		s.Errorf(block.FirstSet(s, "mi_low_lat", "mi_low_lat", "mi_high_lat"), "mi_low_lat = %d must be below mi_high_lat = %d (the MI ramp runs from one to the other)", g.MILoLat, g.MIHiLat)
		return def
	}
	if !block.FitsConnID(s, "matchers", g.NumConn, env) {
		return def
	}
	if err := g.ValidateTable(); err != nil {
		s.Errorf(block.FirstSet(s, "", "mi_low_lat", "mi_high_lat", "count_width", "flits_width", "lat_width", "time_width", "members", "matchers"), "%v", err)
		return def
	}
	p := MCastMatchParams{MatchTableParams: g, WaitSlots: block.WaitSlots(s)}
	s.Info("word_width", fmt.Sprint(MatchWordLayout(p).Width()), "count_width - 1 + members x 2 x count_width")
	depth, ok := block.DerivedDepth(s, func() (int, error) { return NeededMatchDepth(p) })
	if !ok {
		return def
	}
	p.Depth = depth
	return p
}

// MCastMatchOf is the parameters of block mcast_match in a configuration.
func MCastMatchOf(c block.Config) (MCastMatchParams, error) {
	return block.ParamsOf[MCastMatchParams](c, "mcast_match")
}

// SmallMCastMatchParams is mcast_match shrunk for the proofs: 2 matchers
// of 3 members, 2-bit flits, 5-bit counters, 11-bit latencies, 8-bit
// times, pipeline depth 1 (the stages after the word are the cost's, fed
// forward).
func SmallMCastMatchParams() MCastMatchParams {
	g := gthreecpo.DefaultMatchTableParams()
	g.Members, g.NumConn, g.ConnW, g.FlitW, g.CountW, g.LatW, g.TimeW = 3, 2, 2, 2, 5, 11, 8
	return MCastMatchParams{MatchTableParams: g, Core: connpipe.Core{Depth: 1}}
}

func matchFormalJob(name, doc string, p MCastMatchParams, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return MCastMatch(p)
	}}
	if breaks {
		j.OwnOnly = true
		j.Mutants = connpipe.WithShellMutants(p.Depth, "tokens", map[string][]hdlgen.Mutation{
			// only a send is ever refused: an arrival may queue past the
			// range, an expire raise outstanding above 0
			"counts_ordered": {{Node: "refused", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.And(get("send_over"))
			}}},
			// a refused send still pays its flits
			"refused_pays_nothing": {{Node: "tokens", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.Or(hdlgen.Mux(get("refused"), hdlgen.Const(orig.Width(), 1), hdlgen.Const(orig.Width(), 0)))
			}}},
			// the cost of a match rounded up once more than exact
			"cost_within_matched": {{Node: "mi_x_up", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				more := orig.Add(hdlgen.Const(orig.Width(), uint64(p.MIDen)*uint64(p.MIHiLat-p.MILoLat)))
				return hdlgen.Mux(get("matched").IsZero(), orig, more)
			}}},
		})
	}
	return j
}

// matchFormalJobs are mcast_match's proofs: the small configuration with
// its broken variants.
func matchFormalJobs() []block.FormalJob {
	small := SmallMCastMatchParams()
	return []block.FormalJob{
		matchFormalJob("mcast_match", fmt.Sprintf("2 matchers, 3 members, 2-bit flits, 5-bit counters, depth %d", small.Depth), small, true),
	}
}
