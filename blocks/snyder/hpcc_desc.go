package snyder

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/golden/pipe"
	gsnyder "github.com/nicgen/nicgen/golden/snyder"
	"github.com/nicgen/nicgen/hdlgen"
)

// HPCCDescriptor is hpcc to nicgen's tools (package blocks lists it).
func HPCCDescriptor() block.Block {
	return block.Define(block.Desc[HPCCParams]{
		Name:   "hpcc",
		Title:  "HPCC (S3 Section 3.2.1) from in-band telemetry against eta, with random feedback, Variable AI and Sampling Frequency as options",
		Cocotb: block.Replay{Icarus: 6000, Verilator: 10000},
		Attrs: []block.Attr{
			{Name: "eta", Kind: block.Number, Min: 0.01, Max: 4, Doc: "target utilisation (Table 3.1: 0.95)"},
			{Name: "increment_stage", Kind: block.Whole, Lo: 1, Hi: 255, Doc: "additive steps before a multiplicative one (Table 3.1: 5)"},
			{Name: "ai_packets", Kind: block.Number, Min: 1e-6, Max: 1e4, Unit: "packets per RTT", Doc: "additive increase W_AI (Table 3.1: 50 Mb/s over the base RTT)"},
			{Name: "init_cwnd", Kind: block.Number, Min: 1e-6, Max: 1e6, Unit: "packets", Doc: "window at open"},
			{Name: "min_cwnd", Kind: block.Number, Min: 1e-6, Max: 1e6, Unit: "packets", Doc: "smallest window"},
			{Name: "max_cwnd", Kind: block.Number, Min: 1e-6, Max: 1e6, Unit: "packets", Doc: "largest window, MaxWindow of the random feedback"},
			{Name: "frac_width", Kind: block.Whole, Lo: 2, Hi: 20, Unit: "bits", Doc: "fraction bits of the window"},
			{Name: "int_width", Kind: block.Whole, Lo: 1, Hi: 20, Unit: "bits", Doc: "integer bits of the window"},
			{Name: "u_frac_width", Kind: block.Whole, Lo: 4, Hi: 20, Unit: "bits", Doc: "fraction bits of the normalised inflight U (4 integer bits)"},
			{Name: "time_width", Kind: block.Whole, Lo: 8, Hi: 48, Unit: "bits", Doc: "width of the telemetry's timestamp, ns"},
			{Name: "seq_width", Kind: block.Whole, Lo: 4, Hi: 48, Unit: "bits", Doc: "width of sequence numbers (serial comparison)"},
			{Name: "queue_width", Kind: block.Whole, Lo: 4, Hi: 32, Unit: "bits", Doc: "width of the telemetry's queue length, bytes"},
			{Name: "tx_width", Kind: block.Whole, Lo: 8, Hi: 48, Unit: "bits", Doc: "width of the telemetry's bytes-sent counter (wrapping)"},
			{Name: "sampling_frequency", Kind: block.Whole, Lo: 0, Hi: 4095, Unit: "ACKs", Doc: "SF: the reference follows every this many congested ACKs (Table 4.1: 30), in place of once per RTT while congested unless sf_keeps_rtt_update; 0 is off"},
			{Name: "sf_keeps_rtt_update", Kind: block.Bool, Doc: "SF: keep the per-RTT reference move on congested ACKs beside SF's period (A-38's second reading, S3:L1022-1024); off, the period replaces it while congested (S3:L1020; docs/blocks/hpcc.md)", Needs: "sampling_frequency > 0"},
			{Name: "random_feedback", Kind: block.Bool, Doc: "ignore a decrease that would move the reference when W < rand % MaxWindow (S3:L659-669)"},
			{Name: "lfsr_seed", Kind: block.Seed, Lo: 1, Hi: 1<<32 - 1, Doc: "seed of the random-feedback LFSR; nonzero"},
			{Name: "vai", Kind: block.Bool, Doc: "Variable Additive Increase (S3 Algorithms 1 and 2) on the RTT's largest queue"},
			{Name: "token_thresh_bytes", Kind: block.Whole, Lo: 1, Hi: 1<<32 - 1, Unit: "bytes", Doc: "VAI: Token_Thresh, the smallest BDP of the network (Table 4.1: 50 KB)", Needs: "vai = true"},
			{Name: "ai_div_bytes", Kind: block.Whole, Lo: 1, Hi: 1<<32 - 1, Unit: "bytes", Doc: "VAI: AI_DIV, bytes of queue per token (Table 4.1: 1 KB)", Needs: "vai = true"},
			{Name: "ai_cap", Kind: block.Whole, Lo: 1, Hi: 4096, Unit: "tokens", Doc: "VAI: AI_Cap (Table 4.1: 100)", Needs: "vai = true"},
			{Name: "bank_cap", Kind: block.Whole, Lo: 1, Hi: 1 << 20, Unit: "tokens", Doc: "VAI: Bank_Cap (Table 4.1: 1000)", Needs: "vai = true"},
			{Name: "dampener_constant", Kind: block.Whole, Lo: 1, Hi: 256, Doc: "VAI: Dampener_Constant (Table 4.1: 8)", Needs: "vai = true"},
			{Name: "merge_slots", Kind: block.Whole, Lo: 0, Hi: connpipe.MaxSlots, Doc: "waiting slots of the merging shell, 2..32: an ACK of a connection in flight folds into its pending ACK (the latest telemetry sample; docs/blocks/hpcc.md, Merged ACKs) and no connection blocks another; 0: the plain shell (docs/pipeline.md)"},
			block.DepthAttr,
		},
		Default: DefaultHPCCParams,
		Resolve: resolveHPCC,
		Build:   HPCC,
		Paper:   func(HPCCParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p HPCCParams) int { return p.NumConn },
		Kinds:   HPCCKindNames,
		Golden: func(p HPCCParams) (block.Golden, error) {
			m, err := gsnyder.NewHPCCFxModel(p.Golden())
			return hpccGolden{m, p.MergeSlots > 0}, err
		},
		Cycler: func(p HPCCParams) (block.Cycler, error) {
			m, err := gsnyder.NewHPCCFxModel(p.Golden())
			if err != nil {
				return nil, err
			}
			return hpccCycler{p: HPCCGoldenPipeline(p, m), ack: p.MergeSlots > 0}, nil
		},
		Cycle:    hpccCycle,
		Stimulus: hpccStimulus,
		Formal:   hpccFormalJobs,
	})
}

type hpccGolden struct {
	m       *gsnyder.HPCCFxModel
	members bool // the merging shell's m_result_members: each event alone stands for itself
}

func (g hpccGolden) Fields() ([]string, []string) {
	out := []string{"conn", "kind", "cwnd", "u", "congested", "moved", "error"}
	if g.members {
		out = append(out, "members")
	}
	return []string{"conn", "kind", "seq", "snd_nxt", "qlen", "tx_bytes", "ts"}, out
}

func (g hpccGolden) Step(in, out []uint64) {
	e := hpccEventOf(in)
	var r gsnyder.HPCCFxResult
	g.m.StepTo(&e, &r)
	putHPCCResult(&r, out)
	if g.members {
		out[7] = 1 - block.Bit(r.Error)
	}
}

// hpccEventOf is the event of the fields of hpccGolden.Fields.
func hpccEventOf(in []uint64) gsnyder.HPCCFxEvent {
	return gsnyder.HPCCFxEvent{Conn: uint32(in[0]), Kind: gsnyder.HPCCKind(in[1]), Seq: in[2], SndNxt: in[3], QLen: in[4], TxB: in[5], Ts: in[6]}
}

// putHPCCResult writes the result's fields of hpccGolden.Fields but the
// member count.
func putHPCCResult(r *gsnyder.HPCCFxResult, out []uint64) {
	out[0], out[1], out[2], out[3] = uint64(r.Conn), uint64(r.Kind), r.Cwnd, r.U
	out[4], out[5], out[6] = block.Bit(r.Congested), block.Bit(r.Moved), block.Bit(r.Error)
}

// hpccCycle is hpcc's golden cycle-level model on fields (block.Desc.Cycle)
// in the merging shell, whose results depend on timing: ACKs in flight
// fold together, and m_result_members counts them. The plain shell's
// results do not (ok false).
func hpccCycle(p HPCCParams) (block.CycleModel, bool, error) {
	if p.MergeSlots == 0 {
		return nil, false, nil
	}
	m, err := gsnyder.NewHPCCFxModel(p.Golden())
	if err != nil {
		return nil, false, err
	}
	g := hpccGolden{m, true}
	event, result := g.Fields()
	return newMergeCycle(event, result, HPCCGoldenPipeline(p, m), hpccEventOf, func(r *gsnyder.HPCCFxResult, out []uint64) {
		putHPCCResult(r, out)
		out[7] = uint64(r.Members)
	}), true, nil
}

func (g hpccGolden) Reset() { g.m.Reset() }

// hpccCycler drives the golden cycle model for timing (block.Cycler):
// opens, or with merging ACKs, which a merging shell folds.
type hpccCycler struct {
	p   *gsnyder.HPCCFxPipeline
	ack bool
}

func (c hpccCycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	e := gsnyder.HPCCFxEvent{Conn: conn, Kind: gsnyder.HPCCOpen}
	if c.ack {
		e.Kind = gsnyder.HPCCAck
	}
	out := c.p.Cycle(pipe.In[gsnyder.HPCCFxEvent]{SValid: valid, MReady: ready, Event: e})
	return out.SReady, out.MValid
}

// resolveHPCC reads block "hpcc" of a configuration: the link and the
// base RTT come from the network section.
func resolveHPCC(s block.Section, env block.Env) HPCCParams {
	def := DefaultHPCCParams()
	g := def.HPCCFxParams
	g.NumConn, g.ConnW = int(env.Conns), int(env.ConnW)
	g.LinkBpns, g.BaseRTTNs = env.LinkGbps/8, env.BaseRTTNs
	s.Info("link_bytes_per_ns", fmt.Sprint(g.LinkBpns), "network.link_gbps / 8")
	s.Info("base_rtt_ns", fmt.Sprint(g.BaseRTTNs), "network.base_rtt_ns: HPCC's T")
	g.FracW = int(s.Whole("frac_width", 16, block.Default, "fine enough for an AI of a few hundredths of a packet"))
	g.IntW = int(s.Whole("int_width", 10, block.Default, "windows up to 1023 packets"))
	g.UFrac = int(s.Whole("u_frac_width", 16, block.Default, "U in 2^-16, up to 16"))
	g.UW = g.UFrac + 4
	fx := func(v float64) uint64 { return gsnyder.FixedOfFloat(v, g.FracW) }
	g.Eta = gsnyder.FixedOfFloat(s.Number("eta", 0.95, "S3 Table 3.1"), g.UFrac)
	g.MaxStage = s.Whole("increment_stage", 5, block.Default, "S3 Table 3.1")
	mtu := float64(max(env.MTU, 1))
	g.AI = fx(s.Number("ai_packets", 50e6*float64(env.BaseRTTNs)/8e9/mtu, "S3 Table 3.1: 50 Mb/s over the base RTT, in MTU packets"))
	g.InitCwnd = fx(s.Number("init_cwnd", float64(max(env.BDPPackets, 1)), "one BDP (network)"))
	g.MinCwnd = fx(s.Number("min_cwnd", 0.01, "0.01 packets"))
	g.MaxCwnd = fx(s.Number("max_cwnd", float64(max(env.BDPPackets, 1)), "one BDP (network): HPCC's largest window"))
	g.TimeW = int(s.Whole("time_width", env.TimeW, block.Derived, "hardware.time_width"))
	g.SeqW = int(s.Whole("seq_width", 32, block.Default, "32-bit sequence numbers"))
	g.QW = int(s.Whole("queue_width", 24, block.Default, "queues up to 16 MB"))
	g.TxW = int(s.Whole("tx_width", 32, block.Default, "a 32-bit byte counter wraps every 42 ms at 800 Gb/s"))
	g.SF = s.Whole("sampling_frequency", 0, block.Default, "off: the reference moves once per RTT (Table 4.1's SF is 30)")
	if g.SF > 0 {
		g.SFKeepsRTT = s.Bool("sf_keeps_rtt_update", false, "off: SF's period replaces the per-RTT move while congested (A-38), the reading whose early fairness reproduces S3 chapter 4")
	}
	g.RandomFeedback = s.Bool("random_feedback", false, "off: every feedback is used")
	g.Seed = uint32(s.Seed("lfsr_seed", 0xACE12D3B, "any nonzero value"))
	if s.Bool("vai", false, "off: HPCC's fixed AI") {
		v := gsnyder.DefaultHPCCVAIFx()
		v.TokenThresh = s.Whole("token_thresh_bytes", 50_000, block.Default, "S3 Table 4.1")
		v.AIDiv = s.Whole("ai_div_bytes", 1_000, block.Default, "S3 Table 4.1")
		v.AICap = s.Whole("ai_cap", 100, block.Default, "S3 Table 4.1")
		v.BankCap = s.Whole("bank_cap", 1000, block.Default, "S3 Table 4.1")
		v.DampConst = s.Whole("dampener_constant", 8, block.Default, "S3 Table 4.1")
		g.VAI = v
	}
	if !checkFixed(s, g.FracW, map[string]uint64{"init_cwnd": g.InitCwnd, "min_cwnd": g.MinCwnd, "max_cwnd": g.MaxCwnd, "ai_packets": g.AI, "eta": g.Eta}) {
		return def
	}
	if err := gsnyder.ValidateHPCCFx(g); err != nil {
		errorAtFirstSet(s, err, "max_cwnd", "min_cwnd", "init_cwnd", "frac_width", "int_width", "ai_packets", "eta", "queue_width", "time_width", "token_thresh_bytes")
		return def
	}
	p := HPCCParams{HPCCFxParams: g}
	mergeSlots := s.Whole("merge_slots", 0, block.Default, "the plain shell (docs/pipeline.md)")
	if mergeSlots == 1 {
		s.Errorf("merge_slots", "merge_slots = 1: want 0 (the plain shell) or 2..%d", connpipe.MaxSlots)
		return def
	}
	p.MergeSlots = int(mergeSlots)
	s.Info("cwnd_width", fmt.Sprint(g.CwndW()), "int_width + frac_width")
	depth, ok := block.DerivedDepth(s, func() (int, error) { return NeededHPCCDepth(p) })
	if !ok {
		return def
	}
	p.Depth = depth
	return p
}

// HPCCOf is the parameters of block hpcc in a configuration.
func HPCCOf(c block.Config) (HPCCParams, error) { return block.ParamsOf[HPCCParams](c, "hpcc") }

// SmallHPCCParams is hpcc shrunk for the proofs and the small benches: 2
// connections, 10-bit stamps and sequence numbers, 8-bit queues and byte
// counts, a 3.4-bit window, U in 2^-6, increment stage 5 (3 bits, so
// that stage <= 5 is not implied by the width).
func SmallHPCCParams(sf uint64, rf, vai bool) HPCCParams {
	g := gsnyder.HPCCFxParams{NumConn: 2, ConnW: 2, KindW: HPCCKindW, TimeW: 10, SeqW: 10, QW: 8, TxW: 8,
		FracW: 4, IntW: 3, InitCwnd: 4 << 4, MinCwnd: 1, MaxCwnd: 100, LinkBpns: 2, BaseRTTNs: 40,
		UFrac: 6, UW: 8, G: 4, S1: 4, Eta: 60, MaxStage: 5, AI: 3, K: 3, SF: sf, RandomFeedback: rf, RandW: 4, Seed: 0xACE1}
	if vai {
		g.VAI = &gsnyder.VAIFx{TokenThresh: 60, AIDiv: 20, AICap: 4, BankCap: 20, DampConst: 2, DampFrac: 1, DampW: 4, MultFrac: 1}
	}
	p := HPCCParams{HPCCFxParams: g}
	p.Depth = connpipe.MustDepth(NeededHPCCDepth(p))
	return p
}

func hpccFormalJob(name, doc string, p HPCCParams, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return HPCC(p)
	}}
	if breaks {
		j.OwnOnly = true
		j.Mutants = connpipe.WithShellMutants(p.Depth, "cwnd", map[string][]hdlgen.Mutation{
			// the clamp forgets its ceiling
			"result_cwnd_in_range": {{Node: "w_clamped_above_max", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.And(orig.Not())
			}}},
			// the step count jumps past the increment stage (5 in 3 bits)
			"stage_le_max": {{Node: "stage_new", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return hdlgen.Mux(get("moved"), orig.Or(hdlgen.Const(orig.Width(), 6)), orig)
			}}},
		})
	}
	return j
}

// hpccFormalJobs are hpcc's proofs at pipeline depth 1: a small
// configuration with SF, random feedback and VAI and its broken variants,
// and one without them.
func hpccFormalJobs() []block.FormalJob {
	all := SmallHPCCParams(3, true, true)
	all.Depth = 1
	plain := SmallHPCCParams(0, false, false)
	plain.Depth = 1
	return []block.FormalJob{
		hpccFormalJob("hpcc", "2 connections, 10-bit stamps and sequence numbers, 8-bit queues and byte counts, 3.4-bit window, U in 2^-6, SF 3, random feedback, VAI, depth 1", all, true),
		hpccFormalJob("hpcc_plain", "as hpcc without SF, random feedback and VAI", plain, false),
	}
}
