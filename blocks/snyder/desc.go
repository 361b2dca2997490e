package snyder

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/golden/pipe"
	gsnyder "github.com/nicgen/nicgen/golden/snyder"
	"github.com/nicgen/nicgen/hdlgen"
)

// SwiftDescriptor is swift to nicgen's tools (package blocks lists it).
func SwiftDescriptor() block.Block {
	return block.Define(block.Desc[SwiftParams]{
		Name:   "swift",
		Title:  "Swift (S3 Eqs. 3.1-3.3) with flow-based scaling, Variable AI and Sampling Frequency as options",
		Cocotb: block.Replay{Icarus: 6000, Verilator: 10000},
		Attrs: []block.Attr{
			{Name: "base_delay_ns", Kind: block.Whole, Lo: 1, Hi: 1 << 20, Unit: "ns", Doc: "the target's base delay (Table 3.1: 5 us)"},
			{Name: "per_hop_ns", Kind: block.Whole, Lo: 0, Hi: 1 << 20, Unit: "ns", Doc: "the target's scaling per hop (Table 3.1: 2 us)"},
			{Name: "fs_range_ns", Kind: block.Whole, Lo: 1, Hi: 1 << 24, Unit: "ns", Doc: "flow-based scaling's range (Table 3.1: 5 x base delay)"},
			{Name: "fs_min_cwnd", Kind: block.Number, Min: 1e-3, Max: 1e4, Unit: "packets", Doc: "window at which fbs reaches fs_range (Table 3.1: 0.1)"},
			{Name: "fs_max_cwnd", Kind: block.Number, Min: 1e-3, Max: 1e4, Unit: "packets", Doc: "window from which fbs is 0 (Table 3.1: 50; 100 in the datacenter runs)"},
			{Name: "beta", Kind: block.Number, Min: 1e-3, Max: 1, Doc: "multiplicative decrease factor of Eq. 3.1 (Table 3.1: 0.8)"},
			{Name: "max_mdf", Kind: block.Number, Min: 0, Max: 1, Doc: "largest decrease per step (Table 3.1: 0.5)"},
			{Name: "ai_packets", Kind: block.Number, Min: 1e-6, Max: 1e4, Unit: "packets per RTT", Doc: "additive increase (Table 3.1: 50 Mb/s over the base delay)"},
			{Name: "init_cwnd", Kind: block.Number, Min: 1e-6, Max: 1e6, Unit: "packets", Doc: "window at open"},
			{Name: "min_cwnd", Kind: block.Number, Min: 1e-6, Max: 1e6, Unit: "packets", Doc: "smallest window"},
			{Name: "max_cwnd", Kind: block.Number, Min: 1e-6, Max: 1e6, Unit: "packets", Doc: "largest window"},
			{Name: "frac_width", Kind: block.Whole, Lo: 2, Hi: 20, Unit: "bits", Doc: "fraction bits of the window (even: 1/sqrt of 2^-frac is a shift)"},
			{Name: "int_width", Kind: block.Whole, Lo: 1, Hi: 20, Unit: "bits", Doc: "integer bits of the window"},
			{Name: "delay_width", Kind: block.Whole, Lo: 4, Hi: 32, Unit: "bits", Doc: "width of the delay, ns"},
			{Name: "hop_width", Kind: block.Whole, Lo: 1, Hi: 6, Unit: "bits", Doc: "width of the hop count"},
			{Name: "acked_width", Kind: block.Whole, Lo: 1, Hi: 12, Unit: "bits", Doc: "width of the packets an ACK acknowledges"},
			{Name: "time_width", Kind: block.Whole, Lo: 8, Hi: 48, Unit: "bits", Doc: "width of s_event_now and the stored times"},
			{Name: "sampling_frequency", Kind: block.Whole, Lo: 0, Hi: 4095, Unit: "ACKs", Doc: "SF: decrease against a reference that follows every this many congested ACKs (Table 4.1: 30); 0 decreases once per RTT"},
			{Name: "always_ai", Kind: block.Bool, Doc: "additive increase on congested ACKs too (S3:L1026, the thesis's change with VAI and SF); by default on exactly when vai or sampling_frequency is"},
			{Name: "vai", Kind: block.Bool, Doc: "Variable Additive Increase (S3 Algorithms 1 and 2)"},
			{Name: "token_thresh_ns", Kind: block.Whole, Lo: 1, Hi: 1<<32 - 1, Unit: "ns", Doc: "VAI: Token_Thresh, 4 us + the target delay (S3:L1047)", Needs: "vai = true"},
			{Name: "ai_div_ns", Kind: block.Whole, Lo: 1, Hi: 1<<32 - 1, Unit: "ns", Doc: "VAI: AI_DIV, ns of delay per token (Table 4.1: 30)", Needs: "vai = true"},
			{Name: "ai_cap", Kind: block.Whole, Lo: 1, Hi: 4096, Unit: "tokens", Doc: "VAI: AI_Cap (Table 4.1: 100)", Needs: "vai = true"},
			{Name: "bank_cap", Kind: block.Whole, Lo: 1, Hi: 1 << 20, Unit: "tokens", Doc: "VAI: Bank_Cap (Table 4.1: 1000)", Needs: "vai = true"},
			{Name: "dampener_constant", Kind: block.Whole, Lo: 1, Hi: 256, Doc: "VAI: Dampener_Constant (Table 4.1: 8)", Needs: "vai = true"},
			{Name: "merge_slots", Kind: block.Whole, Lo: 0, Hi: connpipe.MaxSlots, Doc: "waiting slots of the merging shell, 2..32: an ACK of a connection in flight folds into its pending ACK (acked counts summed, the last delay; docs/blocks/swift.md, Merged ACKs) and no connection blocks another; 0: the plain shell (docs/pipeline.md)"},
			block.DepthAttr,
		},
		Default: DefaultSwiftParams,
		Resolve: resolveSwift,
		Build:   Swift,
		Paper:   func(SwiftParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p SwiftParams) int { return p.NumConn },
		Kinds:   SwiftKindNames,
		Golden: func(p SwiftParams) (block.Golden, error) {
			m, err := gsnyder.NewSwiftFxModel(p.Golden())
			return swiftGolden{m, p.UsesNow(), p.MergeSlots > 0}, err
		},
		Cycler: func(p SwiftParams) (block.Cycler, error) {
			m, err := gsnyder.NewSwiftFxModel(p.Golden())
			if err != nil {
				return nil, err
			}
			return swiftCycler{p: SwiftGoldenPipeline(p, m), ack: p.MergeSlots > 0}, nil
		},
		Cycle:    swiftCycle,
		Stimulus: swiftStimulus,
		Formal:   swiftFormalJobs,
	})
}

type swiftGolden struct {
	m       *gsnyder.SwiftFxModel
	now     bool // the event has the time (UsesNow)
	members bool // the merging shell's m_result_members: each event alone stands for itself
}

func (g swiftGolden) Fields() ([]string, []string) {
	in := []string{"conn", "kind", "now", "delay", "hops", "acked"}
	if !g.now {
		in = append(in[:2:2], in[3:]...)
	}
	out := []string{"conn", "kind", "cwnd", "target", "congested", "decreased", "error"}
	if g.members {
		out = append(out, "members")
	}
	return in, out
}

func (g swiftGolden) Step(in, out []uint64) {
	e := g.eventOf(in)
	var r gsnyder.SwiftFxResult
	g.m.StepTo(&e, &r)
	putSwiftResult(&r, out)
	if g.members {
		out[7] = 1 - block.Bit(r.Error)
	}
}

// eventOf is the event of the fields of Fields.
func (g swiftGolden) eventOf(in []uint64) gsnyder.SwiftFxEvent {
	e := gsnyder.SwiftFxEvent{Conn: uint32(in[0]), Kind: gsnyder.SwiftKind(in[1])}
	f := in[2:]
	if g.now {
		e.Now, f = f[0], f[1:]
	}
	e.Delay, e.Hops, e.Acked = f[0], f[1], f[2]
	return e
}

// putSwiftResult writes the result's fields of swiftGolden.Fields but the
// member count.
func putSwiftResult(r *gsnyder.SwiftFxResult, out []uint64) {
	out[0], out[1], out[2], out[3] = uint64(r.Conn), uint64(r.Kind), r.Cwnd, r.Target
	out[4], out[5], out[6] = block.Bit(r.Congested), block.Bit(r.Decreased), block.Bit(r.Error)
}

// swiftCycle is swift's golden cycle-level model on fields
// (block.Desc.Cycle) in the merging shell, whose results depend on
// timing: ACKs in flight fold together, and m_result_members counts them.
// The plain shell's results do not (ok false).
func swiftCycle(p SwiftParams) (block.CycleModel, bool, error) {
	if p.MergeSlots == 0 {
		return nil, false, nil
	}
	m, err := gsnyder.NewSwiftFxModel(p.Golden())
	if err != nil {
		return nil, false, err
	}
	g := swiftGolden{m, p.UsesNow(), true}
	event, result := g.Fields()
	return newMergeCycle(event, result, SwiftGoldenPipeline(p, m), g.eventOf, func(r *gsnyder.SwiftFxResult, out []uint64) {
		putSwiftResult(r, out)
		out[7] = uint64(r.Members)
	}), true, nil
}

func (g swiftGolden) Reset() { g.m.Reset() }

// swiftCycler drives the golden cycle model for timing (block.Cycler):
// opens, or with merging ACKs of one packet, which a merging shell folds.
type swiftCycler struct {
	p   *gsnyder.SwiftFxPipeline
	ack bool
}

func (c swiftCycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	e := gsnyder.SwiftFxEvent{Conn: conn, Kind: gsnyder.SwiftOpen}
	if c.ack {
		e.Kind, e.Acked, e.Delay = gsnyder.SwiftAck, 1, 1
	}
	out := c.p.Cycle(pipe.In[gsnyder.SwiftFxEvent]{SValid: valid, MReady: ready, Event: e})
	return out.SReady, out.MValid
}

// resolveSwift reads block "swift" of a configuration.
func resolveSwift(s block.Section, env block.Env) SwiftParams {
	def := DefaultSwiftParams()
	g := def.SwiftFxParams
	g.NumConn, g.ConnW = int(env.Conns), int(env.ConnW)
	g.BaseNs = s.Whole("base_delay_ns", 5000, block.Default, "S3 Table 3.1: 5 us")
	g.PerHopNs = s.Whole("per_hop_ns", 2000, block.Default, "S3 Table 3.1: 2 us")
	g.FBS.RangeNs = float64(s.Whole("fs_range_ns", 5*g.BaseNs, block.Derived, "S3 Table 3.1: 5 x base delay"))
	g.FBS.MinWin = s.Number("fs_min_cwnd", 0.1, "S3 Table 3.1")
	g.FBS.MaxWin = s.Number("fs_max_cwnd", 50, "S3 Table 3.1 (100 in the datacenter runs)")
	g.FracW = int(s.Whole("frac_width", 16, block.Default, "an AI of 0.03125 packets per RTT over 1000 packets is 2 units"))
	g.IntW = int(s.Whole("int_width", 10, block.Default, "windows up to 1023 packets"))
	if g.FracW%2 != 0 {
		s.Errorf("frac_width", "frac_width = %d is odd: swift's window needs an even fraction width (1/sqrt of 2^-frac_width is a shift)", g.FracW)
		return def
	}
	fx := func(v float64) uint64 { return gsnyder.FixedOfFloat(v, g.FracW) }
	beta := s.Number("beta", 0.8, "S3 Table 3.1")
	maxMDF := s.Number("max_mdf", 0.5, "S3 Table 3.1")
	g.Beta, g.MaxMDF = gsnyder.FixedOfFloat(beta, g.MdfFrac), gsnyder.FixedOfFloat(maxMDF, g.MdfFrac)
	g.AI = fx(s.Number("ai_packets", 50e6*float64(g.BaseNs)/8e12, "S3 Table 3.1: 50 Mb/s over the base delay, 1000 B packets"))
	g.InitCwnd = fx(s.Number("init_cwnd", 10, "10 packets"))
	g.MinCwnd = fx(s.Number("min_cwnd", 0.01, "Swift's smallest window (0.01 packets)"))
	g.MaxCwnd = fx(s.Number("max_cwnd", 1000, "1000 packets"))
	g.DelayW = int(s.Whole("delay_width", 20, block.Default, "delays up to 1.05 ms"))
	g.HopW = int(s.Whole("hop_width", 3, block.Default, "up to 7 hops"))
	g.AckW = int(s.Whole("acked_width", 4, block.Default, "up to 15 packets per ACK"))
	g.TimeW = int(s.Whole("time_width", env.TimeW, block.Derived, "hardware.time_width"))
	g.SF = s.Whole("sampling_frequency", 0, block.Default, "off: Swift decreases once per RTT (Table 4.1's SF is 30)")
	vai := s.Bool("vai", false, "off: Swift's fixed AI")
	// S3:L1026 runs the increase on congested ACKs too with VAI and SF:
	// the default follows them
	if s.IsSet("always_ai") {
		g.AlwaysAI = s.Bool("always_ai", false, "")
	} else {
		g.AlwaysAI = vai || g.SF > 0
		why := "off with vai and sampling_frequency: Swift's increase only on uncongested ACKs"
		if g.AlwaysAI {
			why = "on with vai or sampling_frequency (S3:L1026)"
		}
		s.Record("always_ai", strconv.FormatBool(g.AlwaysAI), block.Derived, why)
	}
	if vai {
		v := gsnyder.DefaultSwiftVAIFx(g.BaseNs + g.PerHopNs)
		v.TokenThresh = s.Whole("token_thresh_ns", 4000+g.BaseNs+g.PerHopNs, block.Derived, "4 us + the one-hop target (S3:L1047)")
		v.AIDiv = s.Whole("ai_div_ns", 30, block.Default, "S3 Table 4.1")
		v.AICap = s.Whole("ai_cap", 100, block.Default, "S3 Table 4.1")
		v.BankCap = s.Whole("bank_cap", 1000, block.Default, "S3 Table 4.1")
		v.DampConst = s.Whole("dampener_constant", 8, block.Default, "S3:L1047")
		g.VAI = v
	}
	if !checkFixed(s, g.FracW, map[string]uint64{"init_cwnd": g.InitCwnd, "min_cwnd": g.MinCwnd, "max_cwnd": g.MaxCwnd, "ai_packets": g.AI}) {
		return def
	}
	if beta == 0 || g.Beta == 0 || math.IsNaN(beta) {
		s.Errorf("beta", "beta = %g rounds to 0 at %d fraction bits", beta, g.MdfFrac)
		return def
	}
	if err := gsnyder.ValidateSwiftFx(g); err != nil {
		errorAtFirstSet(s, err, "max_cwnd", "min_cwnd", "init_cwnd", "frac_width", "int_width", "ai_packets", "fs_max_cwnd", "fs_min_cwnd", "delay_width", "base_delay_ns")
		return def
	}
	p := SwiftParams{SwiftFxParams: g}
	mergeSlots := s.Whole("merge_slots", 0, block.Default, "the plain shell (docs/pipeline.md)")
	if mergeSlots == 1 {
		s.Errorf("merge_slots", "merge_slots = 1: want 0 (the plain shell) or 2..%d", connpipe.MaxSlots)
		return def
	}
	p.MergeSlots = int(mergeSlots)
	s.Info("cwnd_width", fmt.Sprint(g.CwndW()), "int_width + frac_width")
	s.Info("target_width", fmt.Sprint(g.TargetW()), "base + every hop + fs_range, ns")
	depth, ok := block.DerivedDepth(s, func() (int, error) { return NeededSwiftDepth(p) })
	if !ok {
		return def
	}
	p.Depth = depth
	return p
}

// checkFixed reports, at its attribute, a value that rounds to 0 at the
// block's fraction bits; it says whether every value is above 0.
func checkFixed(s block.Section, fracW int, vals map[string]uint64) bool {
	names := make([]string, 0, len(vals))
	for n := range vals {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if vals[n] == 0 {
			s.Errorf(n, "%s rounds to 0 at %d fraction bits", n, fracW)
			return false
		}
	}
	return true
}

// errorAtFirstSet reports err at the first of attrs the file writes (at
// the block's label when it writes none).
func errorAtFirstSet(s block.Section, err error, attrs ...string) {
	s.Errorf(block.FirstSet(s, "", attrs...), "%v", err)
}

// SwiftOf is the parameters of block swift in a configuration.
func SwiftOf(c block.Config) (SwiftParams, error) { return block.ParamsOf[SwiftParams](c, "swift") }

// SmallSwiftParams is swift shrunk for the proofs and the small benches:
// 2 connections, 12-bit time, 10-bit delays, a 2.4-bit window, a 4-entry
// table.
func SmallSwiftParams(sf uint64, vai bool) SwiftParams {
	g := gsnyder.SwiftFxParams{NumConn: 2, ConnW: 2, KindW: SwiftKindW, TimeW: 12, DelayW: 10, HopW: 1, AckW: 2,
		FracW: 4, IntW: 2, InitCwnd: 2 << 4, MinCwnd: 1, MaxCwnd: 60, BaseNs: 40, PerHopNs: 20,
		FBS: gsnyder.FBSParams{RangeNs: 200, MinWin: 0.1, MaxWin: 3}, TableBits: 3, OutW: 6, AlphaFrac: 2,
		MdfFrac: 4, Beta: 13, MaxMDF: 8, AI: 3, K: 3, SF: sf}
	if vai {
		g.VAI = &gsnyder.VAIFx{TokenThresh: 150, AIDiv: 30, AICap: 4, BankCap: 20, DampConst: 2, DampFrac: 1, DampW: 4, MultFrac: 1}
	}
	p := SwiftParams{SwiftFxParams: g}
	p.Depth = connpipe.MustDepth(NeededSwiftDepth(p))
	return p
}

func swiftFormalJob(name, doc string, p SwiftParams, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return Swift(p)
	}}
	if breaks {
		own := map[string][]hdlgen.Mutation{
			// the clamp forgets its floor
			"result_cwnd_in_range": {{Node: "below_min", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.And(get("above_max"))
			}}},
		}
		// a decrease when an RTT ends, congested or not
		own["decrease_when_congested"] = []hdlgen.Mutation{{Node: "do_dec", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(get("vai_rtt_end"))
		}}}
		if p.VAI != nil {
			// the bank forgets its cap
			own["bank_le_cap"] = []hdlgen.Mutation{{Node: "vai_bank_full", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.And(orig.Not()) // never full: the sum wraps into the bank
			}}}
		}
		j.Mutants = connpipe.WithShellMutants(p.Depth, "cwnd", own)
		j.OwnOnly = true
	}
	return j
}

// swiftFormalJobs are swift's proofs: a small SF configuration with VAI
// and its broken variants, and a small per-RTT one, both at pipeline depth
// 1 (at the depth their cuts reach, 20, the induction did not finish in
// its 5 minutes), and the first at depth 4.
func swiftFormalJobs() []block.FormalJob {
	sf := SmallSwiftParams(3, true)
	sf.Depth = 1
	rtt := SmallSwiftParams(0, false)
	rtt.Depth = 1
	deep := sf
	deep.Depth = 4
	return []block.FormalJob{
		swiftFormalJob("swift", "2 connections, 12-bit time, 10-bit delays, 2.4-bit window, SF 3, VAI, depth 1", sf, true),
		swiftFormalJob("swift_rtt", "as swift with per-RTT decreases and without VAI", rtt, false),
		swiftFormalJob("swift_depth4", "as swift, pipeline depth 4", deep, false),
	}
}
