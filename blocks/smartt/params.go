// Package smartt holds the SMaRTT congestion-control blocks: `smartt`
// (conference version, S0) and `nscc` (journal version, S1, the basis of
// the Ultra Ethernet NSCC), with QuickAdapt, FastIncrease and
// Wait-to-Decrease as modules of their own. Behaviour, fixed-point formats
// and every resolved ambiguity: docs/blocks/smartt.md.
package smartt

import (
	"fmt"
	"math"

	"github.com/nicgen/nicgen/blocks/connpipe"
)

// Variant selects the algorithm version.
type Variant int

const (
	Conf Variant = iota // `smartt`, S0 Algorithms 1-3 with Wait-to-Decrease
	NSCC                // `nscc`, S1 Algorithms 1-4, UEC reference simulator as tie-breaker
)

func (v Variant) String() string {
	if v == NSCC {
		return "nscc"
	}
	return "smartt"
}

// Event kinds.
const (
	KindOpen    = 0
	KindAck     = 1
	KindNack    = 2
	KindTimeout = 3
	NumKinds    = 4
	KindW       = 3
)

// KindNames documents the kinds in port comments.
var KindNames = []string{"open", "ack", "nack (trim)", "timeout"}

// Result cases.
const (
	CaseNone = 0
	CaseFD   = 1
	CaseMD   = 2
	CaseFI   = 3
	CaseMI   = 4
	CaseQA   = 5
	CaseFast = 6
	CaseLoss = 7
)

// Network is the setting the constants are derived from.
type Network struct {
	LinkGbps float64
	MTU      uint32 // bytes
	BrttNs   uint32 // base RTT
}

// Params are the generation-time parameters of a SMaRTT block.
type Params struct {
	connpipe.Core
	Variant Variant
	Net     Network
	NumConn int
	ConnW   int
	SizeW   int
	RttW    int
	ByteW   int
	TimeW   int
	// StampShift and StampW are the per-connection timestamps (win_end,
	// md_end, adj_end): q(now) = (now >> StampShift) mod 2^StampW, in
	// units of 2^StampShift ns (contract Section 3).
	StampShift int
	StampW     int
	// ByteShift is the unit of the byte counters (acked, ignore_left,
	// count, recv): 2^ByteShift bytes, a packet counting ceil(size / unit)
	// units; the counters are ByteW - ByteShift bits (contract Section 3).
	ByteShift int
	// IncW and AvgW (nscc) are the widths of inc and avg_rtt, which
	// saturate there (contract Section 6); 0 reads as the window's width
	// and RttW.
	IncW     int
	AvgW     int
	F        int // fraction bits of the window
	K        int // reciprocal table index bits
	WtdShift int // WTD EWMA gain 2^-WtdShift
	AvgShift int // nscc RTT EWMA gain 2^-AvgShift
	FiTolNs  uint32
	InitCwnd uint32 // 0: MaxCwnd

	TimeoutsReplaceTrims bool // S0:L234: md doubled
	ClampOnEarlyReturn   bool
	AdjustPeriod         bool // nscc, S1 III-G
	DelayQA              bool // nscc without trimming
	IgnorePhaseTimeouts  bool // nscc: a timeout in the QuickAdapt ignore phase changes nothing (S1:L799-801)
	TrimsCountAsAcked    bool // A-7 literal: trims and timeouts add to acked
	ZeroStampExpired     bool // a stored timestamp of 0 reads as long past
	// MergeSlots is the merging shell's waiting slots (docs/pipeline.md,
	// "Merge stage"); 0 is the plain shell, where an event waits while
	// its connection is in flight and every event behind it waits too.
	MergeSlots int
	// MergeAcks folds ACKs into the pending ACK of their connection
	// (gsmartt.AckMerger) in the merging shell; without it every event
	// is issued alone.
	MergeAcks bool
	// MergeNacks, with MergeAcks, folds NACKs into the pending NACK of
	// their connection too.
	MergeNacks bool
	// StageNs is the estimated logic per stage with which hdlgen places
	// the stage boundaries besides the block's own cuts (hdlgen
	// Pipeline.Auto); 0 places only the cuts
	StageNs float64
	// WriteBehind writes the state table from registers a cycle after the
	// last stage (connpipe Spec.WriteBehind): uet_cc's split window path
	// sets it; no configuration attribute, no change of behaviour.
	WriteBehind bool
}

// DefaultParams is the papers' setting: 800 Gb/s, 4 KiB MTU, 8.6 us.
func DefaultParams(v Variant) Params {
	p := Params{
		Variant: v, Net: Network{LinkGbps: 800, MTU: 4096, BrttNs: 8600},
		NumConn: 4096, ConnW: 16, SizeW: 14, RttW: 20, ByteW: 21, TimeW: 32,
		StampShift: DefaultStampShift(v), StampW: DefaultStampW(v), ByteShift: DefaultByteShift(v),
		F: DefaultF(v), K: 10, WtdShift: 4, AvgShift: 3, FiTolNs: 1000,
		ClampOnEarlyReturn: true, AdjustPeriod: true, ZeroStampExpired: true, IgnorePhaseTimeouts: v == NSCC,
		Core: connpipe.Core{Depth: DefaultDepth}, StageNs: DefaultStageNs,
	}
	if v == NSCC {
		d := p.Derive()
		p.AvgW = min(bitsFor(4*d.TrttNs), p.RttW) // 4 target RTTs (Section 6)
		p.IncW = DefaultIncW(p)
	}
	return p
}

// DefaultDepth is the number of datapath stages of a Params value built
// by hand; configurations use DepthFor, the depth the block's cuts reach.
const DefaultDepth = 1

// DefaultStageNs is 0: the default configuration places only the block's
// own cuts (each product and its sum, the reciprocals in four stages and
// their shifts in two), placed where the measured ECP5 paths are:
// docs/blocks/smartt.md, "Clock".
const DefaultStageNs = 0

// Derived are the values computed from the parameters (contract Sections 2, 3).
type Derived struct {
	BDP, TrttNs, MaxCwnd, InitCwnd uint64
	Gamma                          float64
	CwndW                          int
	TrttQ, BrttQ                   uint64
	// TrttC, BrttC: the target and base RTT plus half a stamp unit (ns):
	// an interval that starts at now ends at stamp (now + C) >>
	// StampShift, the unit boundary nearest its end; TrttH, BrttH: the
	// most units such an end lies ahead of now's stamp, ceil(C / unit)
	TrttC, BrttC, TrttH, BrttH uint64
	KFi, KMi, KMd, KFd, KFast  uint64
	QaScale, WtdThresh, MdGain uint64
	FiRttMax, QaRttNs          uint64
}

// FdShift is the scale of KFd.
const FdShift = 40

// DefaultStampShift and DefaultStampW are the stored timestamps of a
// variant: smartt keeps the contract's 24 bits of 2^4 = 16 ns (a 268 ms
// cycle); nscc, with three stamps, 12 bits of 2^8 = 256 ns (a 1 ms cycle,
// docs/blocks/smartt.md Section 3).
func DefaultStampShift(v Variant) int {
	if v == NSCC {
		return 8
	}
	return 4
}

// DefaultF is the fraction bits of a variant's window: smartt keeps the
// contract's 6; nscc 3, 1/8 B (docs/blocks/smartt.md Section 6).
func DefaultF(v Variant) int {
	if v == NSCC {
		return 3
	}
	return 6
}

// DefaultByteShift is the unit of a variant's byte counters: bytes for
// smartt, 64 B for nscc (docs/blocks/smartt.md Section 3).
func DefaultByteShift(v Variant) int {
	if v == NSCC {
		return 6
	}
	return 0
}

// incW is the width of nscc's inc.
func (p Params) incW() int {
	if p.IncW > 0 && p.AdjustPeriod { // without the period inc is never kept
		return min(p.IncW, p.cw())
	}
	return p.cw()
}

// avgW is the width of nscc's avg_rtt.
func (p Params) avgW() int {
	if p.AvgW > 0 {
		return min(p.AvgW, p.RttW)
	}
	return p.RttW
}

// DefaultIncW is the width that holds IncBound, at most the window's.
func DefaultIncW(p Params) int { return min(bitsFor(p.IncBound()), p.cw()) }

// IncBound is the most an adjustment period can accumulate in inc, in
// 2^-F bytes: a period ends once recv passes 8 MTU, so its acks carry at
// most 8 MTU + one counter unit + one largest packet of bytes; each byte
// adds at most 2^F of Proportional Increase (min(size << F, ...)) and
// KFi / (MTU << F) of Fair Increase (the window is at least one MTU),
// plus div's 2^-9 and a floor per ack.
func (p Params) IncBound() uint64 {
	d := p.Derive()
	bytes := 8*uint64(p.Net.MTU) + 1<<uint(p.ByteShift) + 1<<uint(p.SizeW)
	minC := uint64(p.Net.MTU) << uint(p.F)
	perByte := 1<<uint(p.F) + (d.KFi+minC-1)/minC + 1
	return bytes * perByte * 513 / 512
}

// cntW is the width of the byte counters, in units of 2^ByteShift bytes.
func (p Params) cntW() int { return p.ByteW - p.ByteShift }

// recvW is the width of nscc's recv: it is only compared with the 8 MTU
// of an adjustment period, floor(8 MTU / unit) units, and any sum above
// that ends the period, so it saturates just above (contract Section 6).
func (p Params) recvW() int {
	adj := 8 * uint64(p.Net.MTU) >> uint(p.ByteShift)
	return min(bitsFor(adj+1), p.cntW())
}

// DefaultStampW: see DefaultStampShift.
func DefaultStampW(v Variant) int {
	if v == NSCC {
		return 11
	}
	return 24
}

// WtdW is the width of the Wait-to-Decrease average (Q0.12).
const WtdW = 12

func bitsFor(v uint64) int {
	n := 1
	for v>>uint(n) != 0 {
		n++
	}
	return n
}

// Derive computes the constants. Every float64 expression is rounded with
// math.Round as the contract states.
func (p Params) Derive() Derived {
	var d Derived
	mtu, brtt := float64(p.Net.MTU), float64(p.Net.BrttNs)
	d.BDP = uint64(math.Floor(p.Net.LinkGbps * brtt / 8))
	d.TrttNs = uint64(math.Round(1.5 * brtt))
	d.Gamma = float64(d.BDP) / 150000
	ratio := 1.25
	qa := 0.8
	if p.Variant == NSCC {
		ratio, qa = 1.5, 1.0
	}
	d.MaxCwnd = uint64(math.Floor(ratio * float64(d.BDP)))
	d.InitCwnd = d.MaxCwnd
	if p.InitCwnd != 0 {
		d.InitCwnd = uint64(p.InitCwnd)
	}
	d.CwndW = bitsFor(d.MaxCwnd)
	unit := uint64(1) << uint(min(max(p.StampShift, 0), 32))
	d.TrttQ = (d.TrttNs + unit - 1) / unit
	d.BrttQ = (uint64(p.Net.BrttNs) + unit - 1) / unit
	d.TrttC, d.BrttC = d.TrttNs+unit/2, uint64(p.Net.BrttNs)+unit/2
	d.TrttH, d.BrttH = (d.TrttC+unit-1)/unit, (d.BrttC+unit-1)/unit
	scale := math.Ldexp(1, 2*p.F)
	mi := brtt / (float64(d.TrttNs) - brtt)
	d.KFi = uint64(math.Round(mtu * 0.25 * d.Gamma * scale))
	d.KMi = miGain(p, d.Gamma, mi)
	md := uint64(2)
	if p.TimeoutsReplaceTrims {
		md = 4
	}
	d.KMd = md << uint(p.F)
	d.KFd = uint64(math.Round(0.8 / float64(d.BDP) * math.Ldexp(1, FdShift)))
	d.KFast = 2 * uint64(p.Net.MTU) << uint(p.F)
	d.QaScale = uint64(math.Round(qa * 65536))
	d.WtdThresh = uint64(math.Round(0.25 * 4096))
	d.MdGain = uint64(math.Round(0.8 * 65536))
	d.FiRttMax = uint64(p.Net.BrttNs) + uint64(p.FiTolNs)
	d.QaRttNs = uint64(p.Net.BrttNs) + 4*(d.TrttNs-uint64(p.Net.BrttNs))
	return d
}

// Validate reports the first parameter that cannot be built.
func (p Params) Validate() error {
	d := p.Derive()
	switch {
	case p.Net.LinkGbps <= 0 || p.Net.MTU < 64 || p.Net.BrttNs == 0:
		return fmt.Errorf("network: link %v Gb/s, MTU %d, base RTT %d ns must be positive", p.Net.LinkGbps, p.Net.MTU, p.Net.BrttNs)
	case p.NumConn < 2 || p.ConnW < 1 || p.ConnW > 32 || uint64(p.NumConn-1)>>uint(p.ConnW) != 0:
		return fmt.Errorf("NumConn = %d does not fit ConnW = %d", p.NumConn, p.ConnW)
	case uint64(p.Net.MTU)>>uint(p.SizeW) != 0:
		return fmt.Errorf("SizeW = %d cannot hold the MTU %d", p.SizeW, p.Net.MTU)
	case d.MaxCwnd>>uint(p.ByteW) != 0:
		return fmt.Errorf("ByteW = %d cannot hold the max window %d", p.ByteW, d.MaxCwnd)
	case uint64(d.QaRttNs)>>uint(p.RttW) != 0:
		return fmt.Errorf("RttW = %d cannot hold %d ns", p.RttW, d.QaRttNs)
	case p.IncW < 0 || p.IncW > 32 || p.AvgW < 0 || p.AvgW > 32 || (p.AvgW > 0 && uint64(p.Net.BrttNs)>>uint(p.AvgW) != 0):
		return fmt.Errorf("IncW = %d or AvgW = %d out of range (0..32; avg_rtt must hold the base RTT %d ns)", p.IncW, p.AvgW, p.Net.BrttNs)
	case p.ByteShift < 0 || p.ByteShift > 16 || p.ByteShift >= p.ByteW:
		return fmt.Errorf("ByteShift = %d must be 0..16 and below ByteW = %d", p.ByteShift, p.ByteW)
	case p.StampShift < 0 || p.StampShift > 16 || p.StampW < 4 || p.StampW > 32:
		return fmt.Errorf("StampShift = %d (0..16) or StampW = %d (4..32) out of range", p.StampShift, p.StampW)
	case d.TrttH >= 1<<uint(p.StampW-1) || d.BrttH >= 1<<uint(p.StampW-1):
		return fmt.Errorf("a QuickAdapt window ends up to %d stamp units of %d ns ahead and a hold-off up to %d: both must be below half the stamp cycle, 2^%d (StampW = %d)", d.TrttH, 1<<uint(p.StampShift), d.BrttH, p.StampW-1, p.StampW)
	case p.TimeW < p.StampW+p.StampShift || p.TimeW > 63:
		return fmt.Errorf("TimeW = %d must be %d..63", p.TimeW, p.StampW+p.StampShift)
	case d.InitCwnd < uint64(p.Net.MTU) || d.InitCwnd > d.MaxCwnd:
		return fmt.Errorf("InitCwnd = %d must be within [MTU, MaxCwnd] = [%d, %d]", d.InitCwnd, p.Net.MTU, d.MaxCwnd)
	case p.F < 0 || p.F > 16 || p.K < 4 || p.K > 12:
		return fmt.Errorf("F = %d (0..16) or K = %d (4..12) out of range", p.F, p.K)
	case p.WtdShift < 1 || p.WtdShift > 7 || p.AvgShift < 1 || p.AvgShift > 10:
		return fmt.Errorf("WtdShift = %d (1..7) or AvgShift = %d (1..10) out of range", p.WtdShift, p.AvgShift)
	case p.Depth < 1 || p.Depth > connpipe.MaxDepth:
		return fmt.Errorf("Depth = %d: the datapath has 1 to %d stages", p.Depth, connpipe.MaxDepth)
	}
	return nil
}

// DepthFor is the datapath depth of p by default: every stage its cuts
// reach (NeededDepth). The cuts do not depend on the clock: a shallower
// pipeline_depth keeps the first cuts and clocks slower (docs/benchmarks.md).
func DepthFor(p Params) (int, error) { return NeededDepth(p) }

// NeededDepth is the number of datapath stages p's datapath reaches when
// it may use all of them: its cuts and, with StageNs, the boundaries hdlgen
// places. A configuration needs at least that depth.
func NeededDepth(p Params) (int, error) { return connpipe.NeededDepth(p, connpipe.MaxDepth, Block) }
