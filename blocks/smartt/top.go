package smartt

import (
	"fmt"

	gsmartt "github.com/nicgen/nicgen/golden/smartt"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/hdlgen"
)

// WordLayout is the per-connection word of a variant (contract Sections 5, 6).
func WordLayout(p Params) *hdlgen.Layout {
	bw := p.cntW()
	u := byteUnits(p)
	l := hdlgen.NewLayout(p.Variant.String()+"_word").
		Field("c", p.cw(), fmt.Sprintf("cwnd in 2^-%d bytes", p.F)).
		Field("acked", bw, "acked: "+u+" acknowledged in the current QuickAdapt window (saturating)").
		Field("ignore_left", bw, "bytes_to_ignore - bytes_ignored: in-flight "+u+" at the last QuickAdapt not yet seen (counts down to 0)").
		Field("count", bw, "FastIncrease count of contiguous uncongested "+u+" (saturating)").
		Field("win_end", p.StampW, "end: end of the QuickAdapt window, "+stampUnits(p)).
		Field("trigger", 1, "trigger_qa: a trim asked for QuickAdapt").
		Field("increase", 1, "FastIncrease active")
	if p.Variant == Conf {
		l.Field("avg_wtd", WtdW, "Wait-to-Decrease ECN EWMA, Q0.12")
	} else {
		l.Field("avg_rtt", p.avgW(), "EWMA of the RTT, ns (saturating)").
			Field("md_end", p.StampW, "end of the hold-off after the last Multiplicative Decrease (a base RTT after it, to the nearest unit), "+stampUnits(p)).
			Field("inc", p.incW(), "increase accumulated over the adjustment period, 2^-F bytes (saturating)").
			Field("recv", p.recvW(), u+" acked since the last adjustment (saturating just above 8 MTU)").
			Field("adj_end", p.StampW, "end of the adjustment period after the last adjustment (a base RTT after it, to the nearest unit), "+stampUnits(p))
	}
	return l
}

// byteUnits names the unit of the byte counters.
func byteUnits(p Params) string {
	if p.ByteShift == 0 {
		return "bytes"
	}
	return fmt.Sprintf("%d B units", 1<<uint(p.ByteShift))
}

// stampUnits names the unit of the stored timestamps.
func stampUnits(p Params) string { return fmt.Sprintf("%d ns units", 1<<uint(p.StampShift)) }

// deadline is the stamp at which an interval that starts at now ends,
// c being its length plus half a stamp unit in ns (Derived.Deadline):
// ((now + c) >> StampShift) mod 2^StampW, the unit boundary nearest now
// plus the length. Only now's low StampShift + StampW bits count.
func deadline(p Params, now, c hdlgen.Expr, name string) hdlgen.Expr {
	n := p.StampShift + p.StampW
	if c.Width() >= n {
		c = c.Keep(n-1, 0)
	} else {
		c = c.ZExt(n)
	}
	return now.Keep(n-1, 0).Add(c).Named(name+"_sum").Keep(n-1, p.StampShift).Named(name)
}

// ahead is 1 while deadline dl lies 1..h units after nowq, (dl - nowq) mod
// 2^StampW in [1, h]: an interval still running (Derived.ahead). hNeg is
// 2^StampW - h for a run-time h; hConst is h when constant.
//
// It is computed as dl in [nowq + 1, nowq + h] (mod 2^StampW): both
// bounds come from the event's time alone, so the pipeline computes them
// before the state word arrives, and dl is compared with each side by
// side, not subtracted first and then compared.
func ahead(p Params, nowq, dl, h, hNeg hdlgen.Expr, hConst uint64, runTime bool, name string) hdlgen.Expr {
	if !runTime && hConst == 0 {
		return hdlgen.False()
	}
	lo := nowq.Add(cst(p.StampW, 1)).Named(name + "_lo")
	hi := nowq.Add(h).Named(name + "_hi")
	// hi < lo: nowq + h passes 2^StampW while nowq + 1 does not, tested
	// on nowq itself beside the two adds
	top := uint64(1)<<uint(p.StampW) - 1
	first := hNeg
	if !runTime {
		first = cst(p.StampW, top+1-hConst)
	}
	wraps := nowq.Ge(first).And(nowq.Ne(cst(p.StampW, top))).Named(name + "_wraps")
	aboveLo, belowHi := dl.Ge(lo), dl.Le(hi)
	return hdlgen.Mux(wraps, aboveLo.Or(belowHi), aboveLo.And(belowHi)).Named(name + "_ahead")
}

// passed is 1 when the MD hold-off or the adjustment period whose
// deadline is dl has ended at nowq (contract Section 3): dl is not 1..BrttH
// units ahead; with ZeroStampExpired a deadline of 0 has always passed.
func passed(p Params, d Derived, nowq, dl hdlgen.Expr, name string) hdlgen.Expr {
	due := ahead(p, nowq, dl, cst(p.StampW, d.BrttH), hdlgen.Expr{}, d.BrttH, false, name).Not()
	if p.ZeroStampExpired {
		due = due.Or(dl.IsZero())
	}
	return due
}

// windowOpen is 1 while the QuickAdapt window ending at end is open at
// nowq: end lies 1..TrttH units ahead; with ZeroStampExpired an end of 0
// is no window.
func windowOpen(p Params, k knobs, nowq, end hdlgen.Expr, prefix string) hdlgen.Expr {
	open := ahead(p, nowq, end, k.trttQ, k.trttQNeg, k.trttQConst, k.runTime, prefix+"win")
	if p.ZeroStampExpired {
		open = open.And(end.Any())
	}
	return open
}

// Block builds the `smartt` or `nscc` top.
func Block(p Params) (*hdlgen.Module, error) { return BlockNamed(p, p.Variant.String(), "") }

// BlockNamed builds the block as module name, with role (when not "")
// heading its doc: a composed block's window path (uet_cc's split engine).
func BlockNamed(p Params, name, role string) (*hdlgen.Module, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", p.Variant, err)
	}
	d := p.Derive()
	doc := "SMaRTT congestion control, conference version (S0 Algorithms 1-3, Wait-to-Decrease)."
	if p.Variant == NSCC {
		doc = "SMaRTT congestion control, journal version (S1 Algorithms 1-4; basis of the UEC NSCC)."
	}
	if role != "" {
		doc = role + "\n" + doc
	}
	m := hdlgen.NewModule(name, doc+"\nPer-connection state in block RAM, pipelined shell (docs/pipeline.md). Behaviour: docs/blocks/smartt.md.")
	m.Note("link %g Gb/s, MTU %d B, base RTT %d ns: BDP %d B, target RTT %d ns, gamma %.4f, max window %d B", p.Net.LinkGbps, p.Net.MTU, p.Net.BrttNs, d.BDP, d.TrttNs, d.Gamma, d.MaxCwnd)
	m.Note("KFi %d, KMi %d, KMd %d, KFd %d (>> %d), qa_scaling %d/65536, FastIncrease rtt <= %d ns", d.KFi, d.KMi, d.KMd, d.KFd, FdShift, d.QaScale, d.FiRttMax)
	m.Note("NumConn %d, F %d, K %d, ClampOnEarlyReturn %v, TimeoutsReplaceTrims %v, AdjustPeriod %v, DelayQA %v, TrimsCountAsAcked %v", p.NumConn, p.F, p.K, p.ClampOnEarlyReturn, p.TimeoutsReplaceTrims, p.AdjustPeriod, p.DelayQA, p.TrimsCountAsAcked)
	part := Part(m, p)
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: part.KindW, NumKinds: NumKinds, KindNames: part.KindNames,
		EventFields: part.EventFields, ResultFields: part.ResultFields,
		Word: part.Word, Core: p.Core, AutoStageNs: p.StageNs,
	}
	if p.Formal.Invariants {
		spec.WordInvariants, spec.ResultInvariants = part.Invariants, resultInvariants(p, d)
	}
	spec.WriteBehind = p.WriteBehind
	spec.Merge = MergeRule(p)
	err := connpipe.Build(m, spec, part.Step)
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}

// MergeRule is the merging shell of p (nil for the plain shell): its
// slots, and with MergeAcks the merge rule (gsmartt.AckMerger, written
// from the same contract, docs/blocks/smartt.md "Merged ACKs"): an ACK
// folds into a pending ACK of the same ECN echo, and with MergeNacks a
// NACK into a pending NACK, while the sizes' sum stays within 32 KiB and
// the size port; the merged event's RTT, bytes in flight and time are the
// last member's.
func MergeRule(p Params) *connpipe.Merge {
	if p.MergeSlots == 0 {
		return nil
	}
	g := &connpipe.Merge{Slots: p.MergeSlots, CountW: gsmartt.MergeMembersW}
	if !p.MergeAcks {
		return g
	}
	g.Sum, g.SumCap = "size", min(uint64(gsmartt.MergeCapBytes), uint64(1)<<uint(p.SizeW)-1)
	g.Fold = func(a, b connpipe.MergeEvent) hdlgen.Expr {
		acks := a.Kind.EqC(KindAck).And(b.Kind.EqC(KindAck)).And(a.Fields.F("ecn").Eq(b.Fields.F("ecn")))
		if !p.MergeNacks {
			return acks
		}
		return acks.Or(a.Kind.EqC(KindNack).And(b.Kind.EqC(KindNack)))
	}
	g.Combine = func(a, b connpipe.MergeEvent) hdlgen.Record {
		return hdlgen.NewRecord("the merged ack").
			Set("ecn", a.Fields.F("ecn")).
			Set("rtt", b.Fields.F("rtt")).
			Set("unacked", b.Fields.F("unacked")).
			Set("now", b.Fields.F("now"))
	}
	return g
}

// GoldenPipeline is the golden cycle model of p's shell around m: the
// plain shell, or the merging shell with p's slots and rule.
func GoldenPipeline(p Params, m *gsmartt.Model) *gsmartt.Pipeline {
	switch {
	case p.MergeSlots == 0:
		return gsmartt.NewPipeline(m, p.Depth)
	case p.MergeAcks:
		return gsmartt.NewMergingPipeline(m, p.Depth, p.MergeSlots, p.MergeNacks)
	}
	return gsmartt.NewPlainSlotPipeline(m, p.Depth, p.MergeSlots)
}

// Part is the datapath of smartt or nscc as it runs in module m
// (connpipe.Part): the block's own shell builds around it, and a composed
// block (uet_cc) runs it beside another part. p must satisfy Validate.
func Part(m *hdlgen.Module, p Params) connpipe.Part {
	d := p.Derive()
	word := WordLayout(p)
	return connpipe.Part{
		Name: p.Variant.String(), KindW: KindW, KindNames: KindNames,
		EventFields: []connpipe.Field{
			{Name: "size", Width: p.SizeW, Doc: "bytes of the acknowledged, trimmed or timed-out packet"},
			{Name: "ecn", Width: 1, Doc: "ECN echo of an ack"},
			{Name: "rtt", Width: p.RttW, Doc: "RTT of an ack, ns"},
			{Name: "unacked", Width: p.ByteW, Doc: "bytes in flight"},
			{Name: "now", Width: p.TimeW, Doc: "timestamp, ns (wraps)"},
		},
		ResultFields: []connpipe.Field{
			{Name: "cwnd", Width: d.CwndW, Doc: "congestion window after the event, bytes"},
			{Name: "case", Width: 3, Doc: "rule applied: 0 none, 1 FD, 2 MD, 3 FI, 4 MI/PI, 5 QuickAdapt, 6 FastIncrease, 7 loss"},
			{Name: "qa", Width: 1, Doc: "QuickAdapt fired"},
			{Name: "fast", Width: 1, Doc: "FastIncrease active after the event"},
		},
		Word: word, Invariants: wordInvariants(p, d, word),
		Step: func(st connpipe.Step) connpipe.Outcome { return datapath(m, p, d, word, st) },
	}
}

// Window is the congestion window in bytes held by a word of p's layout
// (its field c without the fraction bits): what the cwnd result of an
// event that leaves the window alone shows.
func Window(p Params, cur hdlgen.Record) hdlgen.Expr {
	return cur.F("c").Slice(p.cw()-1, p.F).Named("cwnd_held")
}

// clampWindow keeps a window in [MTU, max window] (S0/S1 step "cwnd =
// max(min(cwnd, max), mtu)"), in cw bits. Windows are fixed point with F
// fraction bits (hdlgen.Fixed): the bounds are constants of that format,
// and a bound of another format would be an error.
func clampWindow(p Params, d Derived, x hdlgen.Fixed) hdlgen.Fixed {
	w := x.Width()
	maxW := hdlgen.FixedConst(w, p.F, float64(d.MaxCwnd), hdlgen.Truncate)
	mtu := hdlgen.FixedConst(w, p.F, float64(p.Net.MTU), hdlgen.Truncate)
	if d.MaxCwnd < uint64(p.Net.MTU) { // Validate refuses it; the general form
		hi := hdlgen.FixedMux(x.Lt(maxW), x, maxW)
		return hdlgen.FixedMux(hi.Lt(mtu), mtu, hi).WrapTo(p.cw())
	}
	// max(MTU, min(x, MaxCwnd)) with both comparisons made on x side by
	// side (MTU <= MaxCwnd), not the second on the first's result
	return hdlgen.FixedMux(x.Lt(mtu), mtu, hdlgen.FixedMux(x.Lt(maxW), x, maxW)).WrapTo(p.cw()) // below 2^cw after the min
}

// window reads a value of window units (bytes with F fraction bits).
func window(p Params, x hdlgen.Expr) hdlgen.Fixed { return hdlgen.FixedOf(x, p.F) }

func datapath(m *hdlgen.Module, p Params, d Derived, word *hdlgen.Layout, st connpipe.Step) connpipe.Outcome {
	cw, bw := p.cw(), p.cntW()
	k := newKnobs(m, p, d)
	cur, ev := st.Cur, st.Event
	isOpen, isAck := st.KindIs(KindOpen), st.KindIs(KindAck)
	isLoss := st.KindIs(KindNack).Or(st.KindIs(KindTimeout)).Named("is_loss")
	size, rtt, ecn := ev.F("size"), ev.F("rtt"), ev.F("ecn")
	nowq := ev.F("now").Keep(p.StampShift+p.StampW-1, p.StampShift).Named("nowq")
	// where a QuickAdapt window that starts now ends
	winEndNext := deadline(p, ev.F("now"), k.trttC, "win_end_next")
	// size in window units (fits: SizeW + F <= cw)
	sizeC := hdlgen.FixedOf(size, 0).Rescale(p.F, hdlgen.Truncate).SatTo(cw).Named("size_c").Raw()
	c := cur.F("c")

	// counters of every event (A-7, literal), in units of 2^ByteShift bytes
	sizeU := units(p, size, "size_units")
	acked1 := counterAdd(p, "acked_no_wrap", cur.F("acked"), sizeU).Named("acked1")
	if !p.TrimsCountAsAcked {
		// QuickAdapt measures delivered bytes (A-7, S0:L214)
		acked1 = hdlgen.Mux(isAck, acked1, cur.F("acked")).Named("acked_in")
	}
	// ignored >= to_ignore after adding size, kept as their difference:
	// the bytes still to ignore count down and the ack is used once they
	// reach 0 (a saturating ignored is at most ByteMax >= to_ignore, so
	// the difference reads the same)
	left := cur.F("ignore_left")
	lw := max(bw, sizeU.Width())
	// the decision ends a stage: it selects among many values, whose
	// selections then come from a register
	qaCalled := st.Cut("qa_called", sizeU.ZExt(lw+1).Ge(left.ZExt(lw+1)).Named("qa_called"))
	// the difference with its borrow, then floored at 0
	leftDiff := left.ZExt(lw + 1).Sub(sizeU.ZExt(lw + 1)).Named("ignore_diff")
	left1 := hdlgen.Mux(leftDiff.Bit(lw), cst(lw, 0), leftDiff.Trunc(lw)).Named("ignore_left1")

	// a trim (or, for smartt, a timeout) first takes the packet out of the window
	trims := isLoss
	if p.Variant == NSCC {
		trims = st.KindIs(KindNack)
	}
	cLoss := subFloor(c, sizeC).Named("c_loss")
	// nscc: a timeout in the QuickAdapt ignore phase changes nothing
	// (S1:L799-801)
	lossRule := cst(3, CaseLoss)
	if p.Variant == NSCC && p.IgnorePhaseTimeouts {
		timeoutIgnored := st.KindIs(KindTimeout).And(qaCalled.Not()).Named("timeout_ignored")
		cLoss = hdlgen.Mux(timeoutIgnored, c, cLoss).Named("c_loss_nscc")
		lossRule = hdlgen.Mux(timeoutIgnored, cst(3, CaseNone), lossRule)
	}

	// QuickAdapt, entered with the window and trigger of this event; the
	// counter's add ends a stage, and so does QuickAdapt's window (its
	// multiply), so that neither shares a stage with the clamp after it
	acked1 = st.Cut("acked1", acked1)
	qaIn := qaIn{c: hdlgen.Mux(isLoss, cLoss, c), acked: acked1, trigger: cur.F("trigger").Or(trims),
		end: cur.F("win_end"), nowq: nowq, endNext: winEndNext, unacked: ev.F("unacked"), extra: hdlgen.False()}
	if p.Variant == NSCC && p.DelayQA {
		// acked * unit < MaxCwnd >> 3 iff acked < ceil((MaxCwnd >> 3) / unit)
		unit := uint64(1) << uint(p.ByteShift)
		qaIn.extra = isAck.And(rtt.Gt(k.qaRtt).And(acked1.Lt(cst(bw, (d.MaxCwnd>>3+unit-1)/unit))))
	}
	qa := quickAdapt(p, k, qaIn, "qa_", st.Cut)
	qaFired := qa.fired.And(qaCalled).And(isOpen.Not()).Named("qa_fired")
	qaUsed := qaCalled.And(isOpen.Not()).Named("qa_used")
	// timeouts of nscc do not enter QuickAdapt (S1:L746)
	if p.Variant == NSCC {
		qaUsed = qaUsed.And(st.KindIs(KindTimeout).Not()).Named("qa_used_nscc")
		qaFired = qaFired.And(st.KindIs(KindTimeout).Not()).Named("qa_fired_nscc")
	}
	cQA := st.Cut("c_qa", qa.c)

	// FastIncrease, on the window QuickAdapt produced (both run, S0 Alg. 1)
	fi := fastIncrease(p, d, fiIn{c: cQA, count: cur.F("count"), increase: cur.F("increase"), size: size, rtt: rtt, ecn: ecn}, "fi_", st.Cut)
	ackRun := isAck.And(qaCalled).Named("ack_run")
	fiFired := fi.fired.And(ackRun).Named("fi_fired")
	early := ackRun.And(qaFired.Or(fiFired)).Named("early")
	// the early window from a register: its select and the clamp after it
	// do not fit one stage at the clock (the ECP5 critical path)
	cEarly := st.Cut("c_early", hdlgen.Mux(fiFired, fi.c, cQA.ZExt(cw+1)).Named("c_early"))

	// core cases
	le := rtt.Le(k.trtt).Named("rtt_le_trtt")
	divC := newDivider(st.Cut, "recip_c", c, p.K)
	divRTT := newDivider(st.Cut, "recip_rtt", rtt, p.K)
	trttR := k.trtt
	// every product ends a stage (st.Cut), so a stage holds one multiply
	kmi := hdlgen.MulPieces(st.Cut, "size_kmi", size, k.kmi)
	perAck := divC.Div(kmi, "mi_base")                // (size/cwnd) * mtu * mi * gamma, window units
	upDelta := trttR.Sub(rtt).Named("trtt_minus_rtt") // valid when rtt <= trtt
	miNum := hdlgen.MulPieces(st.Cut, "mi_num", perAck, upDelta)
	if p.Variant == Conf || p.SizeW >= 16 {
		// smartt: the rows' sum from a fabric register, as the multipliers
		// after it take it into their input registers a long route away
		// (its ECP5 critical path; nscc's slowest paths are elsewhere, and
		// the register would cost it a stage). nscc with the 16-bit sizes
		// of merged ACKs takes it too: two more bits of size widen the
		// rows' sum past the stage
		miNum = st.Cut("mi_num_sum", miNum)
	}
	miRaw := divRTT.Div(miNum, "mi_raw")
	miInc := st.Cut("mi_inc", minSat(miRaw, cw, sizeC).Named("mi_inc"))
	kfi := hdlgen.MulPieces(st.Cut, "size_kfi", size, cst(bitsFor(d.KFi), d.KFi))
	fiOnC := st.Cut("fi_inc", satTo(divC.Div(kfi, "fi_c"), cw).Named("fi_inc"))

	var coreC, coreCase hdlgen.Expr
	var extraFields map[string]hdlgen.Value
	if p.Variant == Conf {
		coreC, coreCase, extraFields = smarttCore(m, p, d, k, st, c, le, divC, divRTT, miInc, fiOnC, kfi, sizeC, ackRun)
	} else {
		coreC, coreCase, extraFields = nsccCore(m, p, d, k, st, nowq, c, le, divC, miInc, fiOnC, qaFired, ackRun, early)
	}

	// choose the window
	clamp := func(x hdlgen.Expr) hdlgen.Expr { return clampWindow(p, d, window(p, x)).Raw() }
	var cAck hdlgen.Expr
	if p.ClampOnEarlyReturn {
		// clamp(early ? a : b) as early ? clamp(a) : clamp(b): both
		// clamps side by side, the late early bit selecting last
		cAck = st.Cut("c_ack_clamped", hdlgen.Mux(early, clamp(cEarly), clamp(coreC)).Named("c_ack_window"))
	} else {
		cAck = st.Cut("c_ack_clamped", hdlgen.Mux(early, satTo(cEarly, cw), clamp(coreC)).Named("c_ack_window"))
	}
	cAckAll := hdlgen.Mux(ackRun, cAck, c).Named("c_ack")
	// clamp(QuickAdapt ? cQA : cLoss), each clamped where it is computed
	// (the loss window from its own register: not in the stage that
	// computes it)
	cLossAll := hdlgen.Mux(qaUsed, clamp(cQA.ZExt(cw+1)), clamp(st.Cut("c_loss", cLoss).ZExt(cw+1))).Named("c_loss_all")
	newC := hdlgen.Mux(isLoss, cLossAll, cAckAll).Named("c_new")

	ackCase := hdlgen.Mux(ackRun, hdlgen.Mux(qaFired, cst(3, CaseQA), hdlgen.Mux(fiFired, cst(3, CaseFast), coreCase)), cst(3, CaseNone))
	lossCase := hdlgen.Mux(qaFired, cst(3, CaseQA), lossRule)
	resCase := hdlgen.Mux(isOpen, cst(3, CaseNone), hdlgen.Mux(isLoss, lossCase, ackCase))

	trigNext := hdlgen.Mux(qaUsed, qa.trigger, cur.F("trigger").Or(trims))
	countNext := hdlgen.Mux(ackRun, fi.count, cur.F("count"))
	incNext := hdlgen.Mux(ackRun, fi.increase, cur.F("increase"))
	if p.Variant == NSCC {
		// an MD resets FastIncrease (htsim multiplicative_decrease)
		mdReset := extraFields["_md"].(hdlgen.Expr)
		countNext = hdlgen.Mux(mdReset, cst(bw, 0), countNext)
		incNext = incNext.And(mdReset.Not())
		delete(extraFields, "_md")
	}
	fields := map[string]hdlgen.Value{
		"c":     newC,
		"acked": hdlgen.Mux(qaUsed, qa.acked, acked1),
		// a QuickAdapt that fires starts ignoring the bytes in flight;
		// otherwise the bytes of this event were seen
		"ignore_left": hdlgen.Mux(qaFired, qa.ignore, left1.Keep(bw-1, 0)), // at most ignore_left: the top bits of a wider size are 0
		"win_end":     hdlgen.Mux(qaUsed, qa.end, cur.F("win_end")),
		"trigger":     trigNext,
		"count":       countNext,
		"increase":    incNext,
	}
	openFields := map[string]hdlgen.Value{"c": cst(cw, d.InitCwnd<<uint(p.F)).Named("c_open")}
	for k, v := range extraFields {
		fields[k] = v
	}
	for _, f := range word.Fields() {
		if _, ok := openFields[f.Name]; !ok {
			openFields[f.Name] = cst(f.Width, 0)
		}
	}
	if p.Variant == NSCC {
		openFields["avg_rtt"] = cst(p.avgW(), uint64(p.Net.BrttNs))
	}
	newWord := hdlgen.Mux(isOpen, word.Pack(openFields), word.Pack(fields))
	resCwnd := newC.Slice(cw-1, p.F).Named("cwnd_result")
	if p.Formal.Invariants {
		datapathProperties(m, p, d, word, st, newWord, nowq, winEndNext, qaFired, sizeU)
	}
	return connpipe.Outcome{
		Word: newWord,
		Result: map[string]hdlgen.Value{
			"cwnd": hdlgen.Mux(isOpen, cst(d.CwndW, d.InitCwnd), resCwnd),
			"case": resCase,
			"qa":   qaFired,
			"fast": hdlgen.Mux(isOpen, hdlgen.False(), incNext),
		},
	}
}

// smarttCore is smartt's core cases (S0 Alg. 1): Wait-to-Decrease, then
// the fair or multiplicative decrease on an ECN echo and the fair or
// multiplicative increase otherwise, on the event's connection word c. It
// returns the core window (one bit wider than the window, from a
// register), its case and the word fields it writes (avg_wtd).
func smarttCore(m *hdlgen.Module, p Params, d Derived, k knobs, st connpipe.Step, c, le hdlgen.Expr, divC, divRTT hdlgen.RecipDivider,
	miInc, fiOnC, kfi, sizeC, ackRun hdlgen.Expr) (coreC, coreCase hdlgen.Expr, extraFields map[string]hdlgen.Value) {
	cw := p.cw()
	cur, ev := st.Cur, st.Event
	size, rtt, ecn := ev.F("size"), ev.F("rtt"), ev.F("ecn")
	trttR := k.trtt
	wtd := m.Instantiate("u_wtd", WaitToDecrease(p))
	wtd.In("avg", cur.F("avg_wtd")).In("ecn", ecn)
	can := wtd.Out("can_decrease")
	fd := func(x hdlgen.Expr, name string) hdlgen.Expr {
		xs := hdlgen.MulPieces(st.Cut, name+"_xs", x, size)
		prod := hdlgen.MulPieces(st.Cut, name+"_prod", xs, cst(bitsFor(d.KFd), d.KFd))
		dec := satTo(prod.Keep(prod.Width()-1, FdShift), cw)
		return subFloor(x, dec).Named(name)
	}
	// valid when rtt > trtt; from a register of its own, so that the
	// multiplier takes it into its input register
	downDelta := st.Cut("rtt_minus_trtt", rtt.Sub(trttR).Named("rtt_minus_trtt"))
	mdDs := hdlgen.MulPieces(st.Cut, "md_ds", downDelta, size)
	mdNum := hdlgen.MulPieces(st.Cut, "md_num", mdDs, cst(bitsFor(d.KMd), d.KMd))

	// the decreased window from a register: a multiplier's stage holds
	// the multiplier and its routing only. c - md_dec, md_dec = min(MD
	// step saturated, the packet's size), the min and the subtraction
	// in stages of their own: c_md feeds the FD multipliers' input
	// registers, which sit far from the logic (a long route after it)
	mdDec := st.Cut("md_dec", minSat(divRTT.Div(mdNum, "md_raw"), cw, sizeC).Named("md_dec"))
	cMD := fd(st.Cut("c_md_r", st.Cut("c_md", subFloor(c, mdDec).Named("c_md"))), "c_md_fd")
	cFD := fd(c, "c_fd")
	cFI := c.ZExt(cw + 1).Add(fiOnC.ZExt(cw + 1)).Named("c_fi")
	cMI := c.ZExt(cw + 1).Add(miInc.ZExt(cw + 1)).Named("c_mi")
	// FI after MI reads the window MI produced: a second reciprocal
	cMIsat := st.Cut("c_mi_sat", satTo(cMI, cw).Named("c_mi_sat"))
	divMI := newDivider(st.Cut, "recip_mi", cMIsat, p.K)
	// saturated in a stage of its own: the add after it and the core
	// window's select fill the next
	fiOnMI := st.Cut("fi_mi_sat", satTo(divMI.Div(kfi, "fi_mi"), cw).Named("fi_mi_sat"))
	cMIFI := cMIsat.ZExt(cw + 1).Add(fiOnMI.ZExt(cw + 1)).Named("c_mi_fi")
	ecnHeld := ecn.And(can.Not())
	coreC = st.Cut("core_c", hdlgen.Mux(ecn,
		hdlgen.Mux(can, hdlgen.Mux(le, cFD, cMD), c).ZExt(cw+1),
		hdlgen.Mux(le, cMIFI, cFI)).Named("core_c"))
	coreCase = hdlgen.Mux(ecnHeld, cst(3, CaseNone),
		hdlgen.Mux(ecn, hdlgen.Mux(le, cst(3, CaseFD), cst(3, CaseMD)),
			hdlgen.Mux(le, cst(3, CaseMI), cst(3, CaseFI)))).Named("core_case")
	extraFields = map[string]hdlgen.Value{"avg_wtd": hdlgen.Mux(ackRun, wtd.Out("avg_out"), cur.F("avg_wtd"))}
	return coreC, coreCase, extraFields
}
