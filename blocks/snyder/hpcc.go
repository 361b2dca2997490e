package snyder

import (
	"fmt"
	"math"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/golden/fixed"
	gsnyder "github.com/nicgen/nicgen/golden/snyder"
	"github.com/nicgen/nicgen/hdlgen"
)

// HPCCParams configure hpcc: the golden model's parameters, the pipeline's
// depth and the proofs' properties.
type HPCCParams struct {
	gsnyder.HPCCFxParams
	connpipe.Core

	// MergeSlots is the merging shell's waiting slots (docs/pipeline.md,
	// "Merge stage"), where an ACK folds into its connection's pending ACK
	// (HPCCMergeRule); 0: the plain shell.
	MergeSlots int
}

// HPCCMergeRule is hpcc's merging shell (nil for the plain shell): its
// slots and the ACK merge rule (golden model gsnyder.HPCCAckMerger,
// written from the same contract, docs/blocks/hpcc.md "Merged ACKs"): an
// ACK folds into its connection's pending ACK, and the merged ACK is the
// last member, the latest telemetry sample; an open is a barrier.
func HPCCMergeRule(p HPCCParams) *connpipe.Merge {
	if p.MergeSlots == 0 {
		return nil
	}
	return &connpipe.Merge{Slots: p.MergeSlots, CountW: gsnyder.MergeMembersW,
		Fold: func(a, b connpipe.MergeEvent) hdlgen.Expr {
			return a.Kind.EqC(uint64(gsnyder.HPCCAck)).And(b.Kind.EqC(uint64(gsnyder.HPCCAck)))
		},
		Combine: func(_, b connpipe.MergeEvent) hdlgen.Record {
			r := hdlgen.NewRecord("the merged ack")
			for _, n := range []string{"seq", "snd_nxt", "qlen", "tx_bytes", "ts"} {
				r.Set(n, b.Fields.F(n))
			}
			return r
		},
	}
}

// HPCCGoldenPipeline is the golden cycle model of p's shell around m.
func HPCCGoldenPipeline(p HPCCParams, m *gsnyder.HPCCFxModel) *gsnyder.HPCCFxPipeline {
	if p.MergeSlots == 0 {
		return gsnyder.NewHPCCFxPipeline(m, p.Depth)
	}
	return gsnyder.NewHPCCFxMergingPipeline(m, p.Depth, p.MergeSlots)
}

// hpcc's event kinds (golden/snyder HPCCKind).
const (
	HPCCKindW    = 2
	HPCCNumKinds = int(gsnyder.HPCCNumKinds)
)

// HPCCKindNames names the kinds.
var HPCCKindNames = []string{"open", "ack"}

// DefaultHPCCParams is Table 3.1's HPCC (golden/snyder DefaultHPCCFx) on
// nicgen's default network, as the embedded default configuration
// resolves it: 800 Gb/s (B = 100 bytes per ns), an 8.6 us base RTT, 4 KiB
// packets, so an AI of 50 Mb/s over the base RTT of 0.0131 packets and
// windows up to one BDP (210 packets, also the initial window); 4096
// connections, without VAI, SF or random feedback.
func DefaultHPCCParams() HPCCParams {
	g := gsnyder.DefaultHPCCFx()
	const linkGbps, rttNs, mtu = 800, 8600, 4096
	bdp := uint64(math.Ceil(float64(linkGbps) / 8 * rttNs / mtu))
	g.LinkBpns, g.BaseRTTNs = linkGbps/8, rttNs
	g.AI = gsnyder.FixedOfFloat(50e6*rttNs/8e9/mtu, g.FracW)
	g.InitCwnd, g.MaxCwnd = bdp<<uint(g.FracW), bdp<<uint(g.FracW)
	p := HPCCParams{HPCCFxParams: g}
	p.Depth = connpipe.MustDepth(NeededHPCCDepth(p))
	return p
}

// Golden is the golden model's view of the parameters.
func (p HPCCParams) Golden() gsnyder.HPCCFxParams {
	g := p.HPCCFxParams
	g.KindW = HPCCKindW
	return g
}

// KeepsW reports whether the word keeps the window: HPCC's update reads
// the reference window only; random feedback and VAI read the window.
func (p HPCCParams) KeepsW() bool { return p.RandomFeedback || p.VAI != nil }

// StageW is the width of the additive-step count.
func (p HPCCParams) StageW() int { return hdlgen.BitsFor(p.MaxStage) }

// HPCCWordLayout is the per-connection word of hpcc.
func HPCCWordLayout(p HPCCParams) *hdlgen.Layout {
	cw := p.CwndW()
	l := hdlgen.NewLayout("hpcc_word")
	if p.KeepsW() {
		l = l.Field("w", cw, fmt.Sprintf("window, 2^-%d packets (read by random feedback and VAI only)", p.FracW))
	}
	l = l.Field("wc", cw, "reference window Wc").
		Field("u", p.UW, fmt.Sprintf("normalised inflight U, 2^-%d (saturating)", p.UFrac)).
		Field("stage", p.StageW(), "additive steps since the reference moved (up to the increment stage)").
		Field("last_seq", p.SeqW, "snd_nxt at the last RTT's end").
		Field("prev_tx", p.TxW, "the last telemetry's bytes sent").
		Field("prev_ts", p.TimeW, "the last telemetry's timestamp, ns").
		Field("prev_q", p.QW, "the last telemetry's queue, bytes").
		Field("have_prev", 1, "a telemetry was seen since open")
	if p.SF > 0 {
		l = l.Field("sf_acks", hdlgen.BitsFor(p.SF), "SF: congested ACKs since the reference moved (below SF)")
	}
	if v := p.VAI; v != nil {
		l = l.Field("ai", p.AIW(), fmt.Sprintf("VAI: the additive increase of this RTT, 2^-%d packets", p.FracW)).
			Field("bank", hdlgen.BitsFor(v.BankCap), "VAI: AI_Bank, tokens (at most Bank_Cap)").
			Field("damp", v.DampW, fmt.Sprintf("VAI: dampener, 2^-%d (saturating)", v.DampFrac)).
			Field("mc", p.QW, "VAI: the RTT's largest queue, bytes").
			Field("cong", 1, "VAI: a congested ACK in this RTT").
			Field("rtt_cwnd", cw, "VAI: the window when the RTT started")
	}
	return l
}

// NeededHPCCDepth is the number of datapath stages hpcc's cuts reach.
func NeededHPCCDepth(p HPCCParams) (int, error) {
	return connpipe.NeededDepth(p, connpipe.MaxDepth, HPCC)
}

// mulConstShr is (x * c) >> sh, all of its bits.
func mulConstShr(st connpipe.Step, name string, x hdlgen.Expr, c uint64, sh int) hdlgen.Expr {
	pr := hdlgen.MulPieces(st.Cut, name+"_prod", x, hdlgen.Const(hdlgen.BitsFor(c), c))
	if sh == 0 {
		return pr
	}
	return pr.Keep(pr.Width()-1, sh).Named(name)
}

// satTo is x clamped to hi as a w-bit value.
func satTo(x hdlgen.Expr, hi uint64, w int) hdlgen.Expr {
	xw := max(x.Width(), w)
	over := x.ZExt(xw).Gt(hdlgen.Const(xw, hi))
	return hdlgen.Mux(over, hdlgen.Const(w, hi), x.ZExt(xw).Keep(w-1, 0))
}

// hpccSpec is hpcc's shell: its event and result fields, its word, and
// with Formal.Invariants its properties.
func hpccSpec(p HPCCParams, word *hdlgen.Layout) connpipe.Spec {
	cw := p.CwndW()
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: HPCCKindW, NumKinds: HPCCNumKinds, KindNames: HPCCKindNames,
		EventFields: []connpipe.Field{
			{Name: "seq", Width: p.SeqW, Doc: "ack: the acknowledged packet's sequence number"},
			{Name: "snd_nxt", Width: p.SeqW, Doc: "open, ack: the sender's next sequence number"},
			{Name: "qlen", Width: p.QW, Doc: "ack: the bottleneck's queue when the packet left, bytes"},
			{Name: "tx_bytes", Width: p.TxW, Doc: "ack: the bottleneck's bytes sent so far (wrapping)"},
			{Name: "ts", Width: p.TimeW, Doc: "ack: the telemetry's timestamp, ns (wrapping)"},
		},
		ResultFields: []connpipe.Field{
			{Name: "cwnd", Width: cw, Doc: fmt.Sprintf("the window after the event, 2^-%d packets", p.FracW)},
			{Name: "u", Width: p.UW, Doc: fmt.Sprintf("ack: the normalised inflight after the ACK, 2^-%d", p.UFrac)},
			{Name: "congested", Width: 1, Doc: "ack: U >= eta"},
			{Name: "moved", Width: 1, Doc: "ack: the reference window moved"},
		},
		Word: word, Core: p.Core,
	}
	if p.Formal.Invariants {
		spec.ResultInvariants = []connpipe.Invariant{cwndInRange(cw, p.MinCwnd, p.MaxCwnd)}
		spec.WordInvariants = []connpipe.Invariant{
			{Name: "stage_le_max", Holds: func(r hdlgen.Record) hdlgen.Value {
				return r.F("stage").Le(hdlgen.Const(p.StageW(), p.MaxStage))
			}},
		}
	}
	spec.Merge = HPCCMergeRule(p)
	return spec
}

// HPCC builds the hpcc top: per connection, an ACK's telemetry updates the
// normalised inflight U, and the window follows HPCC's law against eta with
// a reference window moved once per RTT (or per SF period), optionally
// ignoring feedback at random and with VAI (docs/blocks/hpcc.md).
func HPCC(p HPCCParams) (*hdlgen.Module, error) {
	g := p.Golden()
	if err := gsnyder.ValidateHPCCFx(g); err != nil {
		return nil, err
	}
	m := hdlgen.NewModule("hpcc", "HPCC's window update from in-band telemetry (S3 Section 3.2.1) with random feedback, VAI\nand SF as options (S3 chapters 3-4), per connection in block RAM, pipelined shell\n(docs/pipeline.md). Behaviour: docs/blocks/hpcc.md.")
	m.Note("NumConn = %d, ConnW = %d, TimeW = %d, SeqW = %d, QW = %d, TxW = %d; window %d.%d bits in [%d, %d], initial %d",
		p.NumConn, p.ConnW, p.TimeW, p.SeqW, p.QW, p.TxW, p.IntW, p.FracW, p.MinCwnd, p.MaxCwnd, p.InitCwnd)
	m.Note("B %g bytes/ns, T %d ns; U %d bits with %d fraction bits, eta %d; K1 %d >> %d, KB %d, EWMA weight in 2^-%d; stage %d; AI %d; K %d; SF %d; random feedback %v; VAI %v",
		p.LinkBpns, p.BaseRTTNs, p.UW, p.UFrac, p.Eta, p.K1(), p.S1, p.KB(), p.G, p.MaxStage, p.AI, p.K, p.SF, p.RandomFeedback, p.VAI != nil)
	if p.SF > 0 && p.SFKeepsRTT {
		m.Note("SF keeps the per-RTT reference move on congested ACKs (A-38's second reading)")
	}
	word := HPCCWordLayout(p)
	cw := p.CwndW()
	var lfsr *hdlgen.Reg
	if p.RandomFeedback {
		seed := m.Param("LFSR_SEED", 32, uint64(p.Seed), "seed of the random-feedback LFSR; must be nonzero").
			Limit(1, 1<<32-1, "an LFSR in state 0 stays 0")
		lfsr = m.Reg("lfsr", 32, "random-feedback generator (Galois LFSR)", hdlgen.ResetToParam(seed), hdlgen.GlobalState())
	}
	spec := hpccSpec(p, word)
	err := connpipe.Build(m, spec, func(st connpipe.Step) connpipe.Outcome {
		isOpen, isAck := st.KindIs(int(gsnyder.HPCCOpen)), st.KindIs(int(gsnyder.HPCCAck))
		seq, sndNxt, q, tx, ts := st.Event.F("seq"), st.Event.F("snd_nxt"), st.Event.F("qlen"), st.Event.F("tx_bytes"), st.Event.F("ts")
		wc, u0 := st.Cur.F("wc"), st.Cur.F("u")
		var w hdlgen.Expr
		if p.KeepsW() {
			w = st.Cur.F("w")
		}

		// MeasureInflight: u = min(q, q_prev) K1 >> S1 + div(dtx KB, tau)
		tau := st.Cut("tau", ts.Sub(st.Cur.F("prev_ts")).Named("tau"))
		fresh := st.Cur.F("have_prev").And(tau.Any()).And(tau.Bit(p.TimeW - 1).Not()).Named("fresh")
		dtx := st.Cut("dtx", tx.Sub(st.Cur.F("prev_tx")).Named("dtx"))
		dq := st.Cut("dq", umin(q, st.Cur.F("prev_q")).Named("dq"))
		term1 := mulConstShr(st, "u_queue", dq, p.K1(), p.S1)
		divTau := hdlgen.NewRecipDivider(st.Cut, "recip_tau", tau, p.K)
		term2 := divTau.Div(hdlgen.MulPieces(st.Cut, "dtx_kb", dtx, hdlgen.Const(hdlgen.BitsFor(p.KB()), p.KB())), "u_rate")
		sw := max(term1.Width(), term2.Width()) + 1
		usum := st.Cut("u_sum", term1.ZExt(sw).Add(term2.ZExt(sw)).Named("u_sum"))
		uMeas := st.Cut("u_meas", satTo(usum, p.SatU(), p.UW).Named("u_meas"))
		// the EWMA over T: a = floor(min(tau, T) 2^G / T)
		tw := hdlgen.BitsFor(p.BaseRTTNs)
		tShort := tau.Lt(hdlgen.Const(p.TimeW, p.BaseRTTNs)).Named("tau_short")
		tc := hdlgen.Mux(tShort, tau.Keep(tw-1, 0), hdlgen.Const(tw, p.BaseRTTNs)).Named("tau_clamped")
		tcS := st.Cut("tau_clamped", hdlgen.Cat(tc, hdlgen.Const(p.G, 0)).Named("tau_scaled"))
		a := hdlgen.DivConst(st.Cut, "ewma_a", tcS, p.BaseRTTNs) // <= 2^G
		gw := p.G + 1
		aw := satTo(a, uint64(1)<<uint(p.G), gw).Named("ewma_a_w")
		ga := st.Cut("ewma_ga", hdlgen.Const(gw, uint64(1)<<uint(p.G)).Sub(aw).Named("ewma_ga"))
		aC := st.Cut("ewma_a_c", aw)
		old := hdlgen.MulPieces(st.Cut, "ewma_old", u0, ga)
		nw := hdlgen.MulPieces(st.Cut, "ewma_new", uMeas, aC)
		ew := max(old.Width(), nw.Width()) + 1
		esum := st.Cut("ewma_sum", old.ZExt(ew).Add(nw.ZExt(ew)).Named("ewma_sum"))
		// U (2^G - a) + u a < 2^(UW+G): the top bits are 0. Rounded to
		// the nearest, halves up (the bit below the point added): the
		// sum plus 2^(G-1) is at most 2^G SatU + 2^(G-1), so U stays
		// within UW bits and the increment cannot wrap
		uEw := esum.Keep(p.G+p.UW-1, p.G).Add(esum.Keep(p.G-1, p.G-1).ZExt(p.UW)).Named("u_ewma")
		uNew := st.Cut("u_new", hdlgen.Mux(fresh, uEw, u0).Named("u_new"))
		cong := st.Cut("congested", uNew.Ge(hdlgen.Const(p.UW, p.Eta)).Named("congested"))

		// the RTT's end: seq past the stored snd_nxt (serial): the
		// difference nonzero and its top bit clear. Nonzero is compared
		// on the operands, beside the subtraction's carry chain, not
		// reduced after it (that reduction made hpcc's slowest path,
		// 6.75 ns, on a seed)
		last := st.Cur.F("last_seq")
		dseq := seq.Sub(last).Named("seq_ahead")
		rttEnd := st.Cut("rtt_end", seq.Ne(last).And(dseq.Keep(p.SeqW-1, p.SeqW-1).Not()).Named("rtt_end"))

		stage := st.Cur.F("stage")
		sgw := p.StageW()
		mimd := cong.Or(stage.Ge(hdlgen.Const(sgw, p.MaxStage))).Named("mimd")
		perRTT := rttEnd
		sfEnd0 := hdlgen.False()
		var sfNext hdlgen.Expr
		if p.SF > 0 {
			sfw := hdlgen.BitsFor(p.SF)
			cnt := st.Cur.F("sf_acks").ZExt(sfw + 1).Add(hdlgen.Const(sfw+1, 1)).Named("sf_count")
			sfEnd0 = cong.And(cnt.Ge(hdlgen.Const(sfw+1, p.SF))).Named("sf_end")
			if p.SFKeepsRTT {
				// A-38's second reading (S3:L1022-1024): the RTT's move
				// stays beside SF's period while congested
				perRTT = rttEnd.Named("per_rtt")
			} else {
				// A-38 (S3:L1020): SF's period replaces it while congested
				perRTT = rttEnd.And(cong.Not()).Named("per_rtt")
			}
			inc := st.Cur.F("sf_acks").Add(hdlgen.Const(sfw, 1)).Named("sf_next")
			sfNext = hdlgen.Mux(cong, hdlgen.Mux(sfEnd0, hdlgen.Const(sfw, 0), inc), st.Cur.F("sf_acks"))
		}
		update0 := perRTT.Or(sfEnd0).Named("update0")
		ignore := hdlgen.False()
		if p.RandomFeedback {
			st.Pipe.Source(lfsr, connpipe.FirstStage)
			// the LFSR of golden/reps (x^32 + x^22 + x^2 + x + 1)
			draw := hdlgen.GaloisSteps(lfsr.Expr, fixed.LFSRTaps, p.RandW).Named("lfsr_drawn")
			m.Comb("lfsr_update", func(pr *hdlgen.Process) {
				pr.If(st.Fire.And(isAck), func() { pr.Set(lfsr, draw) })
			})
			rnd := st.Cut("rnd", draw.Keep(p.RandW-1, 0).Named("rnd"))
			thr := mulConstShr(st, "rnd_thresh", rnd, p.MaxCwnd, p.RandW)
			tw2 := max(thr.Width(), cw)
			below := w.ZExt(tw2).Lt(thr.ZExt(tw2)).Named("below_rnd")
			ignore = update0.And(cong).And(below).Named("ignored")
		}
		update := update0.And(ignore.Not()).Named("moved")
		sfEnd := sfEnd0.And(ignore.Not())
		if p.SF > 0 && p.SFKeepsRTT {
			// an RTT's end on an SF period's end makes the RTT's move (Wc
			// follows W, its AI included)
			sfEnd = sfEnd.And(perRTT.Not()).Named("sf_move")
		}
		mimdE := mimd.And(ignore.Not()).Named("mimd_effective")

		// the window: Wc / (U / eta) + ai, or Wc + ai
		var ai hdlgen.Expr
		if p.VAI != nil {
			ai = st.Cur.F("ai")
		} else {
			ai = hdlgen.Const(p.AIW(), p.AI)
		}
		divU := hdlgen.NewRecipDivider(st.Cut, "recip_u", uNew, p.K)
		q2 := divU.Div(hdlgen.MulPieces(st.Cut, "wc_eta", wc, hdlgen.Const(hdlgen.BitsFor(p.Eta), p.Eta)), "wc_over_u")
		q2w := q2.Width()
		base := hdlgen.Mux(mimdE, q2, wc.ZExt(q2w)).Named("w_base")
		nsw := max(q2w, ai.Width()) + 1
		sum := st.Cut("w_sum", base.ZExt(nsw).Add(ai.ZExt(nsw)).Named("w_sum"))
		clamp := func(x hdlgen.Expr, name string) hdlgen.Expr {
			xw := x.Width()
			low := x.Lt(hdlgen.Const(xw, p.MinCwnd))
			high := x.Gt(hdlgen.Const(xw, p.MaxCwnd)).Named(name + "_above_max")
			return hdlgen.Mux(low, hdlgen.Const(cw, p.MinCwnd), hdlgen.Mux(high, hdlgen.Const(cw, p.MaxCwnd), x.Keep(cw-1, 0))).Named(name)
		}
		wNew := st.Cut("w_new", clamp(sum, "w_clamped"))
		wcSF := st.Cut("wc_sf", clamp(q2, "wc_sf"))
		wcNew := hdlgen.Mux(sfEnd, wcSF, hdlgen.Mux(update, wNew, wc)).Named("wc_new")
		stInc := hdlgen.Mux(stage.Ge(hdlgen.Const(sgw, p.MaxStage)), stage, stage.Add(hdlgen.Const(sgw, 1)))
		stageNew := hdlgen.Mux(sfEnd.Or(update.Not()), stage, hdlgen.Mux(mimdE, hdlgen.Const(sgw, 0), stInc)).Named("stage_new")

		fields := map[string]hdlgen.Value{
			"wc": wcNew, "u": uNew, "stage": stageNew,
			"last_seq": hdlgen.Mux(rttEnd, sndNxt, st.Cur.F("last_seq")),
			"prev_tx":  tx, "prev_ts": ts, "prev_q": q, "have_prev": hdlgen.True(),
		}
		init := hdlgen.Const(cw, p.InitCwnd)
		open := map[string]hdlgen.Value{
			"wc": init, "u": hdlgen.Const(p.UW, 0), "stage": hdlgen.Const(sgw, 0),
			"last_seq": sndNxt, "prev_tx": hdlgen.Const(p.TxW, 0), "prev_ts": hdlgen.Const(p.TimeW, 0),
			"prev_q": hdlgen.Const(p.QW, 0), "have_prev": hdlgen.False(),
		}
		if p.KeepsW() {
			fields["w"], open["w"] = wNew, init
		}
		if p.SF > 0 {
			fields["sf_acks"], open["sf_acks"] = sfNext, hdlgen.Const(hdlgen.BitsFor(p.SF), 0)
		}
		if v := p.VAI; v != nil {
			vaiCore(st, v, p.K, p.AI, p.AIW(), q, cong, rttEnd, p.SF > 0, sfEnd0, w, fields, open)
			open["rtt_cwnd"] = init
		}
		return connpipe.Outcome{
			Word: hdlgen.Mux(isOpen, word.Pack(open), word.Pack(fields)),
			Result: map[string]hdlgen.Value{
				"cwnd":      hdlgen.Mux(isOpen, init, wNew),
				"u":         hdlgen.Mux(isOpen, hdlgen.Const(p.UW, 0), uNew),
				"congested": isOpen.Not().And(cong),
				"moved":     isOpen.Not().And(update),
			},
		}
	})
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}
