package smartt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
	"github.com/nicgen/nicgen/hdlgen"
)

// Rules names the m_result_case values.
var Rules = []string{"none", "FD", "MD", "FI", "MI", "QuickAdapt", "FastIncrease", "loss"}

// attrs is the configuration section of smartt and nscc; an attribute of
// one variant only says so with Only.
var attrs = []block.Attr{
	{Name: "size_width", Kind: block.Whole, Lo: 1, Hi: 20, Unit: "bits", Doc: "width of s_event_size; must hold the mtu"},
	{Name: "rtt_width", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "bits", Doc: "width of s_event_rtt (ns); must hold the QuickAdapt delay threshold"},
	{Name: "byte_width", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "bits", Doc: "width of s_event_unacked and the byte counters; must hold the max window (and 8 x mtu for nscc with adjust_period)"},
	{Name: "time_width", Kind: block.Whole, Lo: 8, Hi: 63, Unit: "bits", Doc: "width of s_event_now (ns); at least stamp_width + stamp_shift"},
	{Name: "byte_shift", Kind: block.Whole, Lo: 0, Hi: 16, Doc: "the byte counters (acked, ignore_left, count, recv) count units of 2^byte_shift bytes, a packet ceil(size / unit); they are byte_width - byte_shift bits"},
	{Name: "stamp_shift", Kind: block.Whole, Lo: 0, Hi: 16, Doc: "the stored timestamps (QuickAdapt window end, last MD, last adjustment) count units of 2^stamp_shift ns"},
	{Name: "stamp_width", Kind: block.Whole, Lo: 4, Hi: 32, Unit: "bits", Doc: "width of the stored timestamps; the target RTT must be below half their cycle"},
	{Name: "f", Kind: block.Whole, Lo: 0, Hi: 16, Unit: "bits", Doc: "fraction bits of the window register (the default column gives each block's, lowered when the window register would pass 32 bits or a product 64)"},
	{Name: "k", Kind: block.Whole, Lo: 4, Hi: 12, Unit: "bits", Doc: "index bits of the reciprocal table"},
	{Name: "wtd_shift", Kind: block.Whole, Lo: 1, Hi: 7, Doc: "Wait-to-Decrease EWMA gain 2^-wtd_shift (A-8)",
		Only: "smartt", OnlyWhy: "Wait-to-Decrease is absent from S1 (A-8)"},
	{Name: "avg_shift", Kind: block.Whole, Lo: 1, Hi: 10, Doc: "RTT EWMA gain 2^-avg_shift (A-11)",
		Only: "nscc", OnlyWhy: "only S1 keeps an RTT average (A-11)"},
	{Name: "avg_rtt_width", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "bits", Doc: "width of the RTT average (ns), which saturates there; at most rtt_width",
		Only: "nscc", OnlyWhy: "only S1 keeps an RTT average (A-11)"},
	{Name: "inc_width", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "bits", Doc: "width of the increase accumulated over an adjustment period, which saturates there; at most cwnd_width + f",
		Only: "nscc", OnlyWhy: "the adjustment period is S1's (S1:L838-854)"},
	{Name: "fi_tol_ns", Kind: block.Whole, Lo: 0, Hi: 1_000_000, Unit: "ns", Doc: "FastIncrease tolerance: rtt <= base_rtt_ns + fi_tol_ns counts as rtt ~ brtt (A-9)"},
	{Name: "init_cwnd", Kind: block.Whole, Lo: 1, Hi: 1<<32 - 1, Unit: "bytes", Doc: "window after open; mtu..max window (A-15)"},
	{Name: "timeouts_replace_trims", Kind: block.Bool, Doc: "md doubled: timeouts stand in for trims (S0:L234)",
		Only: "smartt", OnlyWhy: "S1's multiplicative decrease has no md constant (S1 Eq. 1)"},
	{Name: "clamp_on_early_return", Kind: block.Bool, Doc: "clamp the window after QuickAdapt and FastIncrease too (A-2)"},
	{Name: "adjust_period", Kind: block.Bool, Doc: "accumulate increases and apply them every 8 MTU or base RTT (S1 III-G)",
		Only: "nscc", OnlyWhy: "the adjustment period is S1's (S1:L838-854)"},
	{Name: "delay_qa", Kind: block.Bool, Doc: "a high RTT triggers QuickAdapt, for networks without trimming (A-10)",
		Only: "nscc", OnlyWhy: "S0 has no delay-based QuickAdapt trigger (A-10)"},
	{Name: "ignore_phase_timeouts", Kind: block.Bool, Doc: "a timeout during the QuickAdapt ignore phase leaves the window alone (S1:L799-801)",
		Only: "nscc", OnlyWhy: "S0 treats timeouts as trims, which cut the window in the ignore phase too (S0:L197-202, A-7)"},
	{Name: "trims_count_as_acked", Kind: block.Bool, Doc: "trims and timeouts add to acked, as the pseudocode literally does (A-7)"},
	{Name: "zero_stamp_expired", Kind: block.Bool, Doc: "a stored timestamp of 0 reads as long past"},
	block.DepthAttr,
	{Name: "merge_slots", Kind: block.Whole, Lo: 0, Hi: connpipe.MaxSlots, Doc: "waiting slots of the merging shell, 2..32: events of a connection in flight wait there (or fold, with merge_acks) and no connection blocks another; 0: the plain shell (docs/pipeline.md)"},
	{Name: "merge_acks", Kind: block.Bool, Doc: "with merge_slots, an ACK folds into its connection's pending ACK of the same ECN echo, up to 32 KiB (docs/blocks/smartt.md, Merged ACKs); on by default for nscc, off for smartt, whose per-ACK decreases a merge changes"},
	{Name: "merge_nacks", Kind: block.Bool, Doc: "with merge_acks, a NACK folds into its connection's pending NACK too, up to 32 KiB: a run of trims is answered as one trim of their bytes (docs/blocks/smartt.md, Merged ACKs); on by default with merge_acks"},
}

// Descriptor is smartt (v = Conf) or nscc (v = NSCC) to nicgen's tools:
// its configuration section, its module and its golden model (package
// blocks lists both).
func Descriptor(v Variant) block.Block {
	title := "SMaRTT, S0: conference congestion control with QuickAdapt, FastIncrease, Wait-to-Decrease"
	paper := block.PaperFigure{PerConnBytes: 19, GlobalBytes: 28, Source: "S0:L167"}
	if v == NSCC {
		title = "SMaRTT, S1: journal / UEC NSCC congestion control"
		paper.Source = "S1:L861-862"
	}
	kinds := kindNames()
	return block.Define(block.Desc[Params]{
		Name:   v.String(),
		Title:  title,
		Cocotb: block.Replay{Icarus: 5000, Verilator: 10000},
		Attrs:  attrs,
		Default: func() Params {
			p := DefaultParams(v)
			if d, err := DepthFor(p); err == nil {
				p.Depth = d
			}
			return p
		},
		Resolve: func(s block.Section, env block.Env) Params { return resolve(s, v, env) },
		Build:   Block,
		Paper:   func(Params) (block.PaperFigure, bool) { return paper, true },
		NumConn: func(p Params) int { return p.NumConn },
		Kinds:   kinds,
		Decode:  []block.Names{{Field: "case", Key: "rule", Names: Rules}},
		Golden: func(p Params) (block.Golden, error) {
			m, err := gsmartt.NewModel(p.Golden())
			return eventModel{m}, err
		},
		Cycler: func(p Params) (block.Cycler, error) {
			m, err := gsmartt.NewModel(p.Golden())
			if err != nil {
				return nil, err
			}
			return cycler{p: GoldenPipeline(p, m), mtu: p.Net.MTU, rtt: p.Net.BrttNs}, nil
		},
		Cycle:    cycleModel,
		Stimulus: stimulus,
		Formal:   func() []block.FormalJob { return formalJobs(v) },
		Macros:   Macros,
		Explore:  sweepState,
	})
}

// Of is the parameters of block smartt or nscc in a configuration.
func Of(c block.Config, v Variant) (Params, error) { return block.ParamsOf[Params](c, v.String()) }

// eventModel drives the golden model by field values (block.Golden).
type eventModel struct{ m *gsmartt.Model }

var (
	eventFields  = []string{"conn", "kind", "size", "ecn", "rtt", "unacked", "now"}
	resultFields = []string{"conn", "kind", "cwnd", "case", "qa", "fast", "error"}
)

func (e eventModel) Fields() ([]string, []string) { return eventFields, resultFields }

func (e eventModel) Step(in, out []uint64) {
	r := e.m.Step(gsmartt.Event{Conn: uint32(in[0]), Kind: gsmartt.Kind(in[1]), Size: uint32(in[2]),
		ECN: in[3] == 1, RTT: uint32(in[4]), Unacked: uint32(in[5]), Now: in[6]})
	out[0], out[1], out[2], out[3] = uint64(r.Conn), uint64(r.Kind), uint64(r.Cwnd), uint64(r.Case)
	out[4], out[5], out[6] = block.Bit(r.QA), block.Bit(r.Fast), block.Bit(r.Error)
}

func (e eventModel) Reset() { e.m.Reset() }

// Tune sets a run-time setting (block.Tuner): TARGET_RTT, MI_GAIN or
// QA_SCALING (docs/control.md).
func (e eventModel) Tune(name string, v uint64) error { return TuneGolden(e.m, name, v) }

// TuneGolden sets run-time setting name of a golden model to v, the
// others left as they are, but for TARGET_RTT, which sets the MI gain
// derived from it too, as the control wrapper does (uet_cc's window
// controller tunes through it).
func TuneGolden(m *gsmartt.Model, name string, v uint64) error {
	d := m.Derived()
	trtt, kmi, qa := uint64(d.TrttNs), d.KMi, uint64(d.QaScale)
	switch name {
	case SetTargetRTT:
		// the wrapper derives the gain from the target (the MI_GAIN_FOR
		// macro's control.Quotient), within MI_GAIN's range: here the
		// golden model's own integer formula, clamped alike
		trtt = v
		if v > uint64(d.BrttNs) && v>>32 == 0 {
			kmiMax := uint64(1)<<uint(bitsFor(m.Params().Derive().KMi)) - 1
			kmi = min(max(m.MIGainFor(uint32(v)), 1), kmiMax)
		}
	case SetMIGain:
		kmi = v
	case SetQAScaling:
		qa = v
	default:
		return fmt.Errorf("%s has no run-time setting %s", m.Params().Variant, name)
	}
	if trtt>>32 != 0 || qa>>32 != 0 {
		return fmt.Errorf("%s = %d does not fit the golden model", name, v)
	}
	return m.Retune(uint32(trtt), kmi, uint32(qa))
}

// cycler offers ACKs of one MTU at the base RTT (block.Cycler): the plain
// shell's timing depends on the connections alone, and the merging
// shell's on ACKs, which fold.
type cycler struct {
	p        *gsmartt.Pipeline
	mtu, rtt uint32
}

func (c cycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	out := c.p.Cycle(gsmartt.CycleIn{SValid: valid, MReady: ready, Event: gsmartt.Event{Conn: conn, Kind: gsmartt.KindAck, Size: c.mtu, RTT: c.rtt}})
	return out.SReady, out.MValid
}

func bitsFor64(v uint64) uint64 { return uint64(hdlgen.BitsFor(v)) }

// resolve reads block "smartt" or "nscc" of a configuration.
func resolve(s block.Section, v Variant, env block.Env) Params {
	p := DefaultParams(v)
	p.Net = Network{LinkGbps: env.LinkGbps, MTU: uint32(env.MTU), BrttNs: uint32(env.BaseRTTNs)}
	p.NumConn, p.ConnW = int(env.Conns), int(env.ConnW)
	d := p.Derive() // the network's constants do not depend on the widths
	ratio, ratioSrc := "1.25", "S0:L263"
	if v == NSCC {
		ratio, ratioSrc = "1.5", "S1:L1024"
	}
	s.Info("max_window_bytes", strconv.FormatUint(d.MaxCwnd, 10), fmt.Sprintf("floor(%s x bdp_bytes = %d) (%s)", ratio, d.BDP, ratioSrc))
	s.Info("cwnd_width", strconv.Itoa(d.CwndW), "bits to hold max_window_bytes")
	s.Info("qa_rtt_ns", strconv.FormatUint(d.QaRttNs, 10), "base_rtt_ns + 4 x (target_rtt_ns - base_rtt_ns), the QuickAdapt delay threshold (A-10)")

	mtu := env.MTU
	if d.MaxCwnd < mtu {
		// nothing below makes sense for a window smaller than a packet
		s.Errorf("", "block %q: max_window_bytes = %d (%s x bdp_bytes = %d) is below one mtu = %d: the network is too small for SMaRTT", s.Name(), d.MaxCwnd, ratio, d.BDP, mtu)
	}
	mergeSlots := s.Whole("merge_slots", 0, block.Default, "the plain shell (docs/pipeline.md)")
	if mergeSlots == 1 {
		s.Errorf("merge_slots", "merge_slots = 1: want 0 (the plain shell) or 2..%d", connpipe.MaxSlots)
	}
	mergeAcks := false
	if mergeSlots == 0 && s.IsSet("merge_acks") {
		s.Errorf("merge_acks", "merge_acks needs merge_slots (2..%d): the plain shell merges nothing", connpipe.MaxSlots)
	} else if mergeSlots > 0 {
		why := "nscc's increases are linear in acked bytes and its MD comes once per base RTT: a merged ACK is one a coalescing receiver could send"
		if v == Conf {
			why = "smartt decreases per ACK (S0): merging changes its trajectory (docs/blocks/smartt.md, Merged ACKs)"
		}
		mergeAcks = s.Bool("merge_acks", v == NSCC, why)
	}
	// (merge_nacks set while merge_acks is off is refused as an option of
	// a feature that is off)
	mergeNacks := false
	if mergeAcks {
		mergeNacks = s.Bool("merge_nacks", true, "a trim storm's NACKs would otherwise reach the window one per pipeline_depth cycles, and the sends behind them wait (docs/blocks/smartt.md, Merged ACKs)")
	}
	p.MergeSlots, p.MergeAcks, p.MergeNacks = int(mergeSlots), mergeAcks, mergeNacks
	sizeNeed := bitsFor64(mtu)
	sizeMin, sizeWhy := uint64(14), "max(14, bits to hold mtu = %d), at most cwnd_width = %d"
	if mergeAcks {
		sizeMin, sizeWhy = bitsFor64(gsmartt.MergeCapBytes), "max(16, bits to hold mtu = %d) for merged ACKs of 32 KiB, at most cwnd_width = %d"
	}
	sizeW := s.Whole("size_width", min(max(sizeMin, sizeNeed), max(sizeNeed, uint64(d.CwndW))), block.Derived,
		fmt.Sprintf(sizeWhy, mtu, d.CwndW))
	fiTol := s.Whole("fi_tol_ns", 1000, block.Default, "htsim's 1 us of queuing delay (A-9)")
	// the RTT port carries every RTT the datapath compares with
	rttMax, rttWhat := d.QaRttNs, fmt.Sprintf("qa_rtt_ns = %d", d.QaRttNs)
	if fiMax := env.BaseRTTNs + fiTol; fiMax > rttMax {
		rttMax, rttWhat = fiMax, fmt.Sprintf("base_rtt_ns + fi_tol_ns = %d", fiMax)
	}
	rttNeed := bitsFor64(rttMax)
	rttW := s.Whole("rtt_width", max(20, rttNeed), block.Derived, fmt.Sprintf("max(20, bits to hold %s)", rttWhat))
	timeW := s.Whole("time_width", env.TimeW, block.Derived, "hardware.time_width")
	stampWhy := [2]string{"16 ns units (docs/blocks/smartt.md Section 3)", ""}
	if v == NSCC {
		q := p
		q.StampShift = DefaultStampShift(v)
		stampWhy = [2]string{fmt.Sprintf("256 ns units: %d per base RTT (docs/blocks/smartt.md Section 3)", q.Derive().BrttQ), ""}
	}
	stampShift := s.Whole("stamp_shift", uint64(DefaultStampShift(v)), block.Default, stampWhy[0])
	var stampW uint64
	if v == NSCC {
		// 11 bits (a 0.5 ms cycle of 256 ns), more when the stamp cycle would
		// hold fewer than four target RTTs of the configured units
		q := p
		q.StampShift = int(stampShift)
		trttQ := q.Derive().TrttQ
		stampW = s.Whole("stamp_width", max(uint64(DefaultStampW(v)), bitsFor64(trttQ)+2), block.Derived,
			fmt.Sprintf("max(%d, bits to hold 4 x target RTT = 4 x %d units) (docs/blocks/smartt.md Section 3)", DefaultStampW(v), trttQ))
	} else {
		stampW = s.Whole("stamp_width", uint64(DefaultStampW(v)), block.Default, "a 268 ms stamp cycle (docs/blocks/smartt.md Section 3)")
	}
	{
		q := p
		q.StampShift = int(stampShift)
		if dq := q.Derive(); stampW >= 1 && max(dq.TrttH, dq.BrttH) >= 1<<(stampW-1) {
			s.Errorf("stamp_width", "stamp_width = %d is too narrow: a QuickAdapt window's end lies up to %d units of %d ns ahead (the target RTT plus half a unit), which must be below half the stamp cycle, 2^%d; widen stamp_width or raise stamp_shift", stampW, max(dq.TrttH, dq.BrttH), 1<<stampShift, stampW-1)
		}
	}
	adjust := false
	if v == Conf {
		p.WtdShift = int(s.Whole("wtd_shift", 4, block.Default, "alpha = 1/16 (A-8)"))
		p.TimeoutsReplaceTrims = s.Bool("timeouts_replace_trims", false, "trims are available (S0:L234)")
	} else {
		p.AvgShift = int(s.Whole("avg_shift", 3, block.Default, "gain 1/8 (A-11)"))
		p.AdjustPeriod = s.Bool("adjust_period", true, "S1 III-G")
		p.DelayQA = s.Bool("delay_qa", false, "the network trims (A-10)")
		p.IgnorePhaseTimeouts = s.Bool("ignore_phase_timeouts", true, "S1:L799-801: the ignore phase also suppresses timeouts")
		adjust = p.AdjustPeriod
	}
	byteNeed, byteWhy := bitsFor64(d.MaxCwnd), fmt.Sprintf("bits to hold max_window_bytes = %d", d.MaxCwnd)
	if adjust {
		// the adjustment period ends after 8 MTU of acked bytes (S1:L853)
		byteNeed = max(byteNeed, bitsFor64(8*mtu))
		byteWhy = fmt.Sprintf("bits to hold max_window_bytes = %d and 8 x mtu = %d (S1:L853)", d.MaxCwnd, 8*mtu)
	}
	byteW := s.Whole("byte_width", byteNeed, block.Derived, byteWhy)

	f := resolveF(s, v, p, sizeW, rttW)
	k := s.Whole("k", 10, block.Default, "docs/blocks/smartt.md Section 3")
	var initCwnd uint64
	if iv, ok := s.WholeIfSet("init_cwnd"); ok {
		initCwnd = iv
		if iv < mtu || iv > d.MaxCwnd {
			s.Errorf("init_cwnd", "init_cwnd = %d is out of range: must be mtu..max_window_bytes = %d..%d (A-15)", iv, mtu, d.MaxCwnd)
		}
		if iv == d.MaxCwnd {
			initCwnd = 0 // the blocks' spelling of "the max window"
		}
	} else {
		s.Record("init_cwnd", strconv.FormatUint(d.MaxCwnd, 10), block.Derived, "max_window_bytes (A-15)")
	}
	p.ClampOnEarlyReturn = s.Bool("clamp_on_early_return", true, "A-2")
	p.TrimsCountAsAcked = s.Bool("trims_count_as_acked", false, "QuickAdapt counts delivered bytes (A-7)")
	p.ZeroStampExpired = s.Bool("zero_stamp_expired", true, "docs/blocks/smartt.md Section 3")

	if sizeW < sizeNeed {
		s.Errorf("size_width", "size_width = %d is too narrow: it must hold mtu = %d, which needs %d bits", sizeW, mtu, sizeNeed)
	} else if sizeW > uint64(d.CwndW) && d.MaxCwnd >= mtu {
		s.Errorf("size_width", "size_width = %d is wider than the window (cwnd_width = %d bits): no packet is larger than the max window; must be %d..%d", sizeW, d.CwndW, sizeNeed, d.CwndW)
	}
	if rttW < rttNeed {
		s.Errorf("rtt_width", "rtt_width = %d is too narrow: it must hold %s, which needs %d bits", rttW, rttWhat, rttNeed)
	}
	if byteW < byteNeed {
		s.Errorf("byte_width", "byte_width = %d is too narrow: it must hold %s, which needs %d bits", byteW, strings.TrimPrefix(byteWhy, "bits to hold "), byteNeed)
	}
	if timeW < stampW+stampShift {
		s.Errorf("time_width", "time_width = %d (%s) is too narrow for block %q: the %d-bit stamps in %d ns units need %d bits; set time_width in this block", timeW, s.Origin("time_width"), s.Name(), stampW, 1<<stampShift, stampW+stampShift)
	}

	p.SizeW, p.RttW, p.ByteW, p.TimeW, p.F, p.K = int(sizeW), int(rttW), int(byteW), int(timeW), int(f), int(k)
	p.StampShift, p.StampW = int(stampShift), int(stampW)
	unitWhy := "bytes (docs/blocks/smartt.md Section 3)"
	if v == NSCC {
		unitWhy = "64 B units (docs/blocks/smartt.md Section 3)"
	}
	byteShift := s.Whole("byte_shift", uint64(DefaultByteShift(v)), block.Default, unitWhy)
	if byteShift >= byteW {
		s.Errorf("byte_shift", "byte_shift = %d leaves no counter bits: it must be below byte_width = %d", byteShift, byteW)
	}
	p.ByteShift = int(byteShift)
	p.FiTolNs, p.InitCwnd = uint32(fiTol), uint32(initCwnd)
	def, err := DepthFor(p)
	if err != nil {
		def = 1 // the block's own validation reports the configuration
	}
	p.Depth = int(s.Whole("pipeline_depth", uint64(def), block.Derived, "the stages the block's cuts reach (docs/pipeline.md)"))
	if v == NSCC {
		// the RTT average saturates at 4 target RTTs: an MD is capped at
		// half the window from 2.7 target RTTs on, so above that the
		// average only delays the return below the cap (Section 6)
		avgNeed := bitsFor64(uint64(4 * d.TrttNs))
		avgW := s.Whole("avg_rtt_width", min(max(avgNeed, bitsFor64(uint64(env.BaseRTTNs))), rttW), block.Derived,
			fmt.Sprintf("bits to hold 4 x target RTT = %d ns, at most rtt_width (docs/blocks/smartt.md Section 6)", 4*d.TrttNs))
		if avgW > rttW || uint64(env.BaseRTTNs)>>avgW != 0 {
			s.Errorf("avg_rtt_width", "avg_rtt_width = %d: must hold base_rtt_ns = %d and be at most rtt_width = %d", avgW, env.BaseRTTNs, rttW)
		}
		p.AvgW = int(avgW)
		incW := s.Whole("inc_width", uint64(DefaultIncW(p)), block.Derived,
			fmt.Sprintf("bits to hold the most one adjustment period accumulates, %d (docs/blocks/smartt.md Section 6)", p.IncBound()))
		if int(incW) > p.cw() {
			s.Errorf("inc_width", "inc_width = %d: at most cwnd_width + f = %d", incW, p.cw())
		}
		p.IncW = int(incW)
	}
	return p
}

// MustOf is Of for configurations known to hold the block (tests, the
// embedded default); it panics otherwise.
func MustOf(c block.Config, v Variant) Params {
	p, err := Of(c, v)
	if err != nil {
		panic(err)
	}
	return p
}

// kindNames are the names of s_event_kind's values.
func kindNames() []string {
	kinds := make([]string, NumKinds)
	for i := range kinds {
		kinds[i] = gsmartt.Kind(i).String()
	}
	return kinds
}

// resolveF reads smartt's or nscc's f: the widest window fraction that
// keeps the window register within 32 bits and every product of the
// datapath within 64 (contract Section 3); the contract's 6 when the
// network allows it. A set f that does not fit is an error at f, with the
// range that does.
func resolveF(s block.Section, v Variant, p Params, sizeW, rttW uint64) uint64 {
	fits := func(f uint64) string {
		q := p
		q.F = int(f)
		dd := q.Derive()
		if cw := uint64(dd.CwndW) + f; cw > 32 {
			return fmt.Sprintf("the window register c takes cwnd_width + f = %d + %d = %d bits, above 32", dd.CwndW, f, cw)
		}
		if b := sizeW + bitsFor64(dd.KFi) + 2; b > 64 {
			return fmt.Sprintf("the Fair Increase product size x KFi takes size_width + bits of KFi + 2 = %d + %d + 2 = %d bits, above 64", sizeW, bitsFor64(dd.KFi), b)
		}
		if b := sizeW + bitsFor64(dd.KMi) + rttW; b > 64 {
			return fmt.Sprintf("the Multiplicative Increase product size x KMi x (target_rtt - rtt) takes size_width + bits of KMi + rtt_width = %d + %d + %d = %d bits, above 64", sizeW, bitsFor64(dd.KMi), rttW, b)
		}
		if b := rttW + sizeW + bitsFor64(dd.KMd); v == Conf && b > 64 {
			return fmt.Sprintf("the Multiplicative Decrease product (rtt - target_rtt) x size x KMd takes rtt_width + size_width + bits of KMd = %d + %d + %d = %d bits, above 64", rttW, sizeW, bitsFor64(dd.KMd), b)
		}
		return ""
	}
	var f uint64
	if fv, ok := s.WholeIfSet("f"); ok {
		f = fv
		if why := fits(f); why != "" {
			hi := int64(-1)
			for g := int64(f) - 1; g >= 0 && hi < 0; g-- {
				if fits(uint64(g)) == "" {
					hi = g
				}
			}
			if hi >= 0 {
				s.Errorf("f", "f = %d: %s; with these widths and this network f must be 0..%d", f, why, hi)
			} else {
				s.Errorf("f", "f = %d: %s; no f fits: narrow size_width or rtt_width, or lower network.link_gbps or base_rtt_ns", f, why)
			}
		}
	} else {
		f = uint64(DefaultF(v))
		why, src := "docs/blocks/smartt.md Section 3; lowered when the network needs it", block.Default
		if v == NSCC {
			why = "1/8 B of window resolution (docs/blocks/smartt.md Section 6); lowered when the network needs it"
		}
		if first := fits(f); first != "" {
			src = block.Derived
			for f > 0 && fits(f) != "" {
				f--
			}
			why = fmt.Sprintf("lowered from %d: %s", DefaultF(v), first)
			if last := fits(f); last != "" {
				s.Errorf("", "block %q: %s even with f = 0: narrow size_width or rtt_width, or lower network.link_gbps or base_rtt_ns", s.Name(), last)
			}
		}
		s.Record("f", strconv.FormatUint(f, 10), src, why)
	}
	return f
}
