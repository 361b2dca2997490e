package smartt

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/nicgen/nicgen/golden/fixed"
)

// Variant selects the algorithm of the block.
type Variant int

// The two variants of docs/blocks/smartt.md.
const (
	Conf Variant = iota // smartt: S0 Algorithm 1 (conference paper)
	NSCC                // nscc: S1 Algorithms 1-4 (journal paper, UEC NSCC)
)

func (v Variant) String() string {
	switch v {
	case Conf:
		return "smartt"
	case NSCC:
		return "nscc"
	}
	return fmt.Sprintf("variant(%d)", int(v))
}

// Network describes the network the block is tuned for (contract Section 2).
type Network struct {
	LinkGbps float64 // link rate in Gb/s (= bits per ns)
	MTU      uint32  // bytes
	BrttNs   uint32  // base RTT in ns
}

// DefaultNetwork returns the papers' setting: 800 Gb/s, 4096 B MTU, 8.6 us
// base RTT (S0:L324, S0:L377).
func DefaultNetwork() Network {
	return Network{LinkGbps: 800, MTU: 4096, BrttNs: 8600}
}

// Fixed facts of the contract that are not parameters.
const (
	// FdShift is the right shift of the FD product (c * size * KFd) >> 40.
	FdShift = 40
	// ConfStampShift and ConfStampW are smartt's per-connection timestamps,
	// the contract's: q(t) = (t >> 4) mod 2^24, in units of 16 ns.
	ConfStampShift = 4
	ConfStampW     = 24
	// NSCCStampShift and NSCCStampW are nscc's: 12 bits of 256 ns, a 1 ms
	// cycle (docs/blocks/smartt.md Section 3).
	NSCCStampShift = 8
	NSCCStampW     = 11
	// NSCCF is nscc's window fraction: 1/8 B (smartt keeps 6).
	NSCCF = 3
	// NSCCByteShift: nscc counts bytes in units of 64 B, 64 per 4 KiB
	// packet (docs/blocks/smartt.md Section 3); smartt in bytes.
	NSCCByteShift = 6
	// RefBDP is the reference BDP of S0:L283 (100 Gb/s, 12 us) in bytes.
	RefBDP = 150000

	fdConst      = 0.8  // S0:L279
	fiConst      = 0.25 // S0:L279
	mdConst      = 2.0  // S0:L147
	mdTimeouts   = 4.0  // S0:L234: md doubled when timeouts replace trims
	fastK        = 2    // S0:L241: FastIncrease step in MTUs
	qaScaleConf  = 0.8  // S0:L223, S0:L275
	qaScaleNSCC  = 1.0  // S1:L735
	maxRatioConf = 1.25 // S0:L263
	maxRatioNSCC = 1.5  // S1:L1024
	wtdThreshold = 0.25 // S0:L318
	mdGain       = 0.8  // S1 Eq. 1
	trttRatio    = 1.5  // S0:L98
	qaRttTargets = 4    // htsim: QA delay trigger at 4 target delays
	adjustMTUs   = 8    // S1:L853: adjust after 8 packets
	qaGateShift  = 3    // htsim qa_gate: acked < MaxCwnd >> 3
)

// Params are the parameters of the smartt and nscc blocks
// (docs/blocks/smartt.md). DefaultParams gives the contract's values.
type Params struct {
	Network Network
	Variant Variant
	Depth   int // datapath stages of the RTL shell (golden/pipe); 0 reads as 1

	NumConn int // connections in the state table
	ConnW   int // width of s_event_conn
	SizeW   int // width of s_event_size
	RttW    int // width of s_event_rtt and of avg_rtt
	ByteW   int // width of s_event_unacked and of the byte counters
	TimeW   int // width of s_event_now

	// StampShift and StampW are the per-connection timestamps (end,
	// md_end, adj_end: the deadlines of the intervals they time, formed
	// by Derived.Deadline), compared with q(t) = (t >> StampShift) mod
	// 2^StampW, in units of 2^StampShift ns.
	StampShift, StampW int
	// ByteShift is the unit of the byte counters (acked, ignored,
	// to_ignore, count, recv): 2^ByteShift bytes, a packet counting
	// ceil(size / unit) units; they are ByteW - ByteShift bits wide.
	ByteShift int
	// IncW (nscc) is the width of inc, which saturates at 2^IncW - 1; 0
	// reads as CwndW + F, the window's width, and so does any IncW
	// without AdjustPeriod (the increase is applied at once).
	IncW int
	// AvgW (nscc) is the width of avg_rtt (ns), which saturates at
	// 2^AvgW - 1; 0 reads as RttW.
	AvgW int

	F        int    // fraction bits of the window c
	K        int    // index bits of the reciprocal table (div)
	WtdShift int    // WTD EWMA gain 2^-WtdShift
	AvgShift int    // nscc avg_rtt EWMA gain 2^-AvgShift
	FiTolNs  uint32 // FastIncrease "rtt ~ brtt" tolerance

	// InitCwnd is the window after open in bytes; 0 means MaxCwnd.
	InitCwnd uint32

	// TimeoutsReplaceTrims doubles md (2 -> 4) for smartt (S0:L234).
	TimeoutsReplaceTrims bool
	// ClampOnEarlyReturn clamps after QuickAdapt / FastIncrease returns
	// too. Off is the literal pseudocode.
	ClampOnEarlyReturn bool
	// AdjustPeriod (nscc) accumulates increases and applies them every
	// 8 MTU or base RTT (S1:L838-854). Off applies them on every ack.
	AdjustPeriod bool
	// DelayQA (nscc) lets a high RTT trigger QuickAdapt; only meant for
	// networks without trimming.
	DelayQA bool
	// IgnorePhaseTimeouts (nscc) ignores a timeout that arrives during the
	// QuickAdapt ignore phase (bytes_ignored < bytes_to_ignore after the
	// event's bytes): the window keeps its value, as S1:L799-801 asks
	// ("we need to ignore such timeouts after dropping the cwnd to the
	// QuickAdapt value"). Off, a timeout always takes its packet out of
	// the window, as the trimmed branch of S1 Algorithm 4 does for trims.
	IgnorePhaseTimeouts bool
	// ZeroStampExpired makes a per-connection timestamp (end, md_end,
	// adj_end) equal to 0 read as "long ago". It is this package's
	// resolution of a defect of the literal contract; see Derived.passed.
	ZeroStampExpired bool
	// TrimsCountAsAcked adds the bytes of nacks and timeouts to acked, as
	// the pseudocode literally does; off by default.
	TrimsCountAsAcked bool
}

func stampShift(v Variant) int {
	if v == NSCC {
		return NSCCStampShift
	}
	return ConfStampShift
}

func fracBits(v Variant) int {
	if v == NSCC {
		return NSCCF
	}
	return 6
}

func byteShift(v Variant) int {
	if v == NSCC {
		return NSCCByteShift
	}
	return 0
}

func stampW(v Variant) int {
	if v == NSCC {
		return NSCCStampW
	}
	return ConfStampW
}

// DefaultParams returns the defaults of docs/blocks/smartt.md for variant v.
func DefaultParams(v Variant) Params {
	p := Params{
		Network:             DefaultNetwork(),
		Variant:             v,
		NumConn:             4096,
		ConnW:               16,
		SizeW:               14,
		RttW:                20,
		ByteW:               21,
		TimeW:               32,
		StampShift:          stampShift(v),
		StampW:              stampW(v),
		ByteShift:           byteShift(v),
		F:                   fracBits(v),
		K:                   10,
		WtdShift:            4,
		AvgShift:            3,
		FiTolNs:             1000,
		ClampOnEarlyReturn:  true,
		AdjustPeriod:        true,
		DelayQA:             false,
		ZeroStampExpired:    true,
		IgnorePhaseTimeouts: v == NSCC,
	}
	if v == NSCC {
		d := p.Derive()
		p.AvgW = min(bits.Len32(4*d.TrttNs), p.RttW) // 4 target RTTs
		p.IncW = DefaultIncW(p)
	}
	return p
}

// DefaultIncW is the width of nscc's inc that holds the most one
// adjustment period can accumulate (docs/blocks/smartt.md Section 6): a
// period ends once recv passes 8 MTU, so its acks carry at most 8 MTU, one
// counter unit and one largest packet of bytes, each byte adding at most
// 2^F of Proportional and KFi / (MTU << F) of Fair Increase, plus div's
// 2^-9 and a floor per ack. At most the window's width.
func DefaultIncW(p Params) int {
	d := p.Derive()
	b := uint64(adjustMTUs)*uint64(p.Network.MTU) + 1<<p.ByteShift + 1<<p.SizeW
	minC := uint64(p.Network.MTU) << p.F
	perByte := uint64(1)<<p.F + (d.KFi+minC-1)/minC + 1
	return min(bits.Len64(b*perByte*513/512), d.CW)
}

// Derived holds every value the contract derives from Params (Sections 2
// and 3), plus the masks and limits the datapath uses. Byte quantities are
// in bytes, windows written c... in cwnd units (bytes * 2^F), times ...Ns
// in ns and ...Q in 16 ns stamp units.
type Derived struct {
	Variant Variant
	F       int // fraction bits of c
	K       int // reciprocal index bits
	MTU     uint32

	BDP      uint64  // floor(LinkGbps * BrttNs / 8)
	Gamma    float64 // BDP / RefBDP
	TrttNs   uint32  // round(1.5 * BrttNs)
	BrttNs   uint32  // copy of Network.BrttNs
	MaxCwnd  uint32  // floor(MaxRatio * BDP): 1.25 smartt, 1.5 nscc
	MinCwnd  uint32  // MTU
	InitCwnd uint32  // Params.InitCwnd, or MaxCwnd when that is 0
	CwndW    int     // bits of MaxCwnd: width of the cwnd result port
	CW       int     // CwndW + F: width of c and of inc

	TrttQ uint32 // ceil(TrttNs / unit), unit = 2^StampShift ns
	BrttQ uint32 // ceil(BrttNs / unit)
	// Deadlines (Section 3): an interval of dur ns that starts at now ends
	// at stamp ((now + dur + unit/2) >> StampShift) mod 2^StampW, the
	// unit boundary nearest now + dur. TrttC and BrttC are the target and
	// base RTT plus half a unit (ns); TrttH and BrttH the most units such
	// a deadline lies ahead of now's stamp, ceil((dur + unit/2) / unit).
	TrttC, BrttC uint32
	TrttH, BrttH uint32

	Mi        float64 // BrttNs / (TrttNs - BrttNs)
	KFi       uint64  // round(MTU * fi * gamma * 2^(2F))
	KMi       uint64  // round(MTU * mi * gamma * 2^(2F))
	KMd       uint64  // md * 2^F, md = 2 or 4
	KFd       uint64  // round(fd / BDP * 2^40)
	QaScale   uint32  // round(qa_scaling * 2^16)
	WtdShift  int     // WTD EWMA shift
	WtdThresh uint32  // round(0.25 * 4096)
	FiRttMax  uint32  // BrttNs + FiTolNs
	KFast     uint64  // 2 * MTU * 2^F
	MdGain    uint32  // round(0.8 * 2^16)
	QaRttNs   uint32  // BrttNs + 4 * (TrttNs - BrttNs)

	MinC     uint32 // MTU << F
	MaxC     uint32 // MaxCwnd << F
	CMax     uint32 // 2^CW - 1: the largest c the word holds
	IncMax   uint32 // 2^IncW - 1: where inc saturates (CMax by default)
	AvgMax   uint32 // 2^AvgW - 1: where avg_rtt saturates (RttMax by default)
	ByteMax  uint32 // 2^ByteW - 1: the largest unacked
	CountMax uint32 // 2^(ByteW - ByteShift) - 1: where the byte counters saturate, in units
	// ByteShift copies the Params: the byte counters count units of
	// 2^ByteShift bytes.
	ByteShift int
	RttMax    uint32 // 2^RttW - 1
	QaGate    uint32 // MaxCwnd >> 3 (nscc delay trigger), bytes
	AdjBytes  uint32 // 8 * MTU (nscc adjustment period), bytes
	// QaGateUnits = ceil(QaGate / unit) and AdjUnits = floor(AdjBytes /
	// unit) state the two in counter units: acked * unit < QaGate iff
	// acked < QaGateUnits, recv * unit > AdjBytes iff recv > AdjUnits.
	QaGateUnits, AdjUnits uint32
	// RecvMax = 2^RecvW - 1, RecvW = bits to hold AdjUnits + 1: recv is
	// only ever compared with AdjUnits, and any sum above it ends the
	// period, so saturating there reads the same as at CountMax.
	RecvMax uint32

	// ZeroStampExpired copies the Params option the QuickAdapt sub-block
	// needs, so that the sub-block functions take Derived alone.
	ZeroStampExpired bool
	// TrimsCountAsAcked adds the bytes of nacks and timeouts to acked, as
	// the pseudocode literally does; off by default.
	TrimsCountAsAcked bool

	// StampShift and StampW copy the Params: stamps are q(t) = (t >>
	// StampShift) mod 2^StampW, and StampMask is 2^StampW - 1.
	StampShift, StampW int
	StampMask          uint32

	// rom is RecipTable(K), the reciprocal ROM the model reads instead of
	// dividing (as the hardware does); nil for a K out of range.
	rom []uint32
}

// pow2 is 2^e as a float64 (e may be negative).
func pow2(e int) float64 { return math.Ldexp(1, e) }

// roundU is math.Round of a non-negative float64 as a uint64; NaN and
// negative values give 0 so that Derive never panics on bad Params.
func roundU(x float64) uint64 {
	if !(x > 0) {
		return 0
	}
	if x >= pow2(64) {
		return math.MaxUint64
	}
	return uint64(math.Round(x))
}

// floorU is math.Floor with the same guards as roundU.
func floorU(x float64) uint64 {
	if !(x > 0) {
		return 0
	}
	if x >= pow2(64) {
		return math.MaxUint64
	}
	return uint64(math.Floor(x))
}

// shl is v << s for a shift that may come from bad Params: a negative or
// huge s gives 0 instead of a panic.
func shl(v uint64, s int) uint64 {
	if s < 0 || s > 63 {
		return 0
	}
	return v << s
}

// maskOf is 2^w - 1 for 0 <= w <= 32, saturating outside.
func maskOf(w int) uint32 {
	if w <= 0 {
		return 0
	}
	if w >= 32 {
		return math.MaxUint32
	}
	return mask32(w)
}

// Derive computes the derived values of Sections 2 and 3, in float64 with
// math.Round (or floor / ceil where the contract says so) exactly as the
// contract states them. It never panics; on Params that fail Validate the
// values are meaningless.
func (p Params) Derive() Derived {
	n := p.Network
	d := Derived{
		Variant:          p.Variant,
		F:                p.F,
		K:                p.K,
		MTU:              n.MTU,
		BrttNs:           n.BrttNs,
		WtdShift:         p.WtdShift,
		ZeroStampExpired: p.ZeroStampExpired,
	}
	maxRatio, qaScaling := maxRatioConf, qaScaleConf
	if p.Variant == NSCC {
		maxRatio, qaScaling = maxRatioNSCC, qaScaleNSCC
	}
	md := mdConst
	if p.TimeoutsReplaceTrims {
		md = mdTimeouts
	}

	d.BDP = floorU(n.LinkGbps * float64(n.BrttNs) / 8)
	d.TrttNs = uint32(min(roundU(trttRatio*float64(n.BrttNs)), math.MaxUint32))
	d.Gamma = float64(d.BDP) / RefBDP
	d.MaxCwnd = uint32(min(floorU(maxRatio*float64(d.BDP)), math.MaxUint32))
	d.MinCwnd = n.MTU
	d.InitCwnd = p.InitCwnd
	if d.InitCwnd == 0 {
		d.InitCwnd = d.MaxCwnd
	}
	d.CwndW = bits.Len32(d.MaxCwnd)
	d.CW = d.CwndW + p.F

	d.StampShift, d.StampW = p.StampShift, p.StampW
	d.StampMask = maskOf(p.StampW)
	unit := uint64(1) << min(max(p.StampShift, 0), 32)
	d.setTarget(d.TrttNs)
	d.BrttQ = uint32(min((uint64(n.BrttNs)+unit-1)/unit, math.MaxUint32))
	d.BrttC, d.BrttH = deadlineConsts(uint64(n.BrttNs), unit)

	scale2F := pow2(2 * p.F)
	d.KFi = roundU(float64(n.MTU) * fiConst * d.Gamma * scale2F)
	d.KMi = roundU(float64(n.MTU) * d.Mi * d.Gamma * scale2F)
	d.KMd = roundU(md * pow2(p.F))
	d.KFd = roundU(fdConst / float64(d.BDP) * pow2(FdShift))
	d.QaScale = uint32(roundU(qaScaling * pow2(16)))
	d.WtdThresh = uint32(roundU(wtdThreshold * 4096))
	d.FiRttMax = uint32(min(uint64(n.BrttNs)+uint64(p.FiTolNs), math.MaxUint32))
	d.KFast = shl(fastK*uint64(n.MTU), p.F)
	d.MdGain = uint32(roundU(mdGain * pow2(16)))

	d.MinC = uint32(min(shl(uint64(n.MTU), p.F), math.MaxUint32))
	d.MaxC = uint32(min(shl(uint64(d.MaxCwnd), p.F), math.MaxUint32))
	d.CMax = maskOf(d.CW)
	d.IncMax = d.CMax
	if p.IncW > 0 && p.AdjustPeriod { // without the period inc is never kept
		d.IncMax = min(maskOf(p.IncW), d.CMax)
	}
	d.ByteMax = maskOf(p.ByteW)
	d.ByteShift = min(max(p.ByteShift, 0), 31)
	d.CountMax = maskOf(p.ByteW - d.ByteShift)
	d.RttMax = maskOf(p.RttW)
	d.AvgMax = d.RttMax
	if p.AvgW > 0 {
		d.AvgMax = min(maskOf(p.AvgW), d.RttMax)
	}
	d.QaGate = d.MaxCwnd >> qaGateShift
	d.AdjBytes = uint32(min(adjustMTUs*uint64(n.MTU), math.MaxUint32))
	unitB := uint64(1) << d.ByteShift
	d.QaGateUnits = uint32((uint64(d.QaGate) + unitB - 1) >> d.ByteShift)
	d.AdjUnits = uint32(uint64(d.AdjBytes) >> d.ByteShift)
	d.RecvMax = min(maskOf(bits.Len32(d.AdjUnits+1)), d.CountMax)
	if p.K >= 1 && p.K <= 20 {
		d.rom = fixed.RecipTable(p.K)
	}
	return d
}

// checkWidth reports a width outside lo..hi.
func checkWidth(name string, w, lo, hi int) error {
	if w < lo || w > hi {
		return fmt.Errorf("%s = %d: must be in %d..%d", name, w, lo, hi)
	}
	return nil
}

// Validate reports every parameter the block cannot implement as specified.
func (p Params) Validate() error {
	n := p.Network
	errs := []error{
		checkWidth("ConnW", p.ConnW, 1, 32),
		checkWidth("SizeW", p.SizeW, 1, 32),
		checkWidth("RttW", p.RttW, 1, 32),
		checkWidth("ByteW", p.ByteW, 1, 32),
		checkWidth("ByteShift", p.ByteShift, 0, max(0, min(p.ByteW-1, 16))),
		checkWidth("IncW", p.IncW, 0, 32),
		checkWidth("AvgW", p.AvgW, 0, 32),
		checkWidth("StampShift", p.StampShift, 0, 16),
		checkWidth("StampW", p.StampW, 4, 32),
		// q(t) = (t >> StampShift) mod 2^StampW must wrap together with
		// now, which needs 2^(TimeW-StampShift) to be a multiple of
		// 2^StampW.
		checkWidth("TimeW", p.TimeW, p.StampShift+p.StampW, 63),
		checkWidth("F", p.F, 0, 16), // QuickAdapt shifts by 16 - F
		checkWidth("K", p.K, 1, 20),
		checkWidth("WtdShift", p.WtdShift, 1, 8),
		checkWidth("AvgShift", p.AvgShift, 0, 31),
	}
	if p.Variant != Conf && p.Variant != NSCC {
		errs = append(errs, fmt.Errorf("Variant = %d: must be Conf or NSCC", int(p.Variant)))
	}
	if p.NumConn < 1 {
		errs = append(errs, fmt.Errorf("NumConn = %d: must be >= 1", p.NumConn))
	} else if p.ConnW >= 1 && p.ConnW <= 32 && uint64(p.NumConn) > uint64(1)<<p.ConnW {
		errs = append(errs, fmt.Errorf("NumConn = %d exceeds 2^ConnW = 2^%d", p.NumConn, p.ConnW))
	}
	if !(n.LinkGbps > 0) || math.IsInf(n.LinkGbps, 0) {
		errs = append(errs, fmt.Errorf("LinkGbps = %v: must be positive and finite", n.LinkGbps))
	}
	if n.BrttNs < 1 {
		errs = append(errs, errors.New("BrttNs must be >= 1"))
	} else if p.RttW >= 1 && p.RttW <= 32 && n.BrttNs > mask32(p.RttW) {
		// avg_rtt starts at BrttNs in RttW bits.
		errs = append(errs, fmt.Errorf("BrttNs = %d does not fit RttW = %d bits", n.BrttNs, p.RttW))
	}
	if n.MTU < 1 {
		errs = append(errs, errors.New("MTU must be >= 1"))
	} else if p.SizeW >= 1 && p.SizeW <= 32 && n.MTU > mask32(p.SizeW) {
		errs = append(errs, fmt.Errorf("MTU = %d does not fit SizeW = %d bits", n.MTU, p.SizeW))
	}
	if err := errors.Join(errs...); err != nil {
		return err // the derived checks below assume sane basics
	}

	d := p.Derive()
	if uint64(d.MaxCwnd) < uint64(n.MTU) || d.BDP >= 1<<40 {
		errs = append(errs, fmt.Errorf("MaxCwnd = %d B (BDP %d B): must be in MTU = %d .. 2^40", d.MaxCwnd, d.BDP, n.MTU))
	}
	if d.CW > 32 {
		errs = append(errs, fmt.Errorf("CwndW + F = %d + %d: c must fit 32 bits", d.CwndW, p.F))
	}
	if p.InitCwnd != 0 && (p.InitCwnd < n.MTU || p.InitCwnd > d.MaxCwnd) {
		errs = append(errs, fmt.Errorf("InitCwnd = %d: must be 0 or in MTU..MaxCwnd = %d..%d", p.InitCwnd, n.MTU, d.MaxCwnd))
	}
	// A window or hold-off must be a small part of the stamp cycle: at
	// most half of it.
	for _, q := range []struct {
		name string
		v    uint32
	}{{"TrttH", d.TrttH}, {"BrttH", d.BrttH}} {
		if uint64(q.v) >= uint64(1)<<(p.StampW-1) {
			errs = append(errs, fmt.Errorf("%s = %d stamp units of %d ns: must be < 2^%d, half the stamp cycle (StampW = %d)", q.name, q.v, 1<<p.StampShift, p.StampW-1, p.StampW))
		}
	}
	// Every product the datapath forms must fit 64 bits (the RTL sizes
	// its multipliers from the same bounds).
	products := []struct {
		what string
		bits int
	}{
		{"size * KFi (+ headroom for the sums)", p.SizeW + bits.Len64(d.KFi) + 2},
		{"size * KMi * Trtt", p.SizeW + bits.Len64(d.KMi) + bits.Len32(d.TrttNs)},
		{"(rtt - Trtt) * size * KMd", p.RttW + p.SizeW + bits.Len64(d.KMd)},
		{"c * size", d.CW + p.SizeW},
		{"c * (avg_rtt - Trtt)", d.CW + p.RttW},
	}
	for _, pr := range products {
		if pr.bits > 64 {
			errs = append(errs, fmt.Errorf("%s needs %d bits: must fit 64", pr.what, pr.bits))
		}
	}
	return errors.Join(errs...)
}

// deadlineConsts are an interval's dur + unit/2 (ns) and the most units
// its deadline lies ahead of the start's stamp, ceil((dur + unit/2) /
// unit).
func deadlineConsts(dur, unit uint64) (c, h uint32) {
	cn := dur + unit/2
	return uint32(min(cn, math.MaxUint32)), uint32(min((cn+unit-1)/unit, math.MaxUint32))
}

// setTarget sets the target RTT and what follows from it alone: its stamp
// units, mi and the QuickAdapt delay threshold (Derive, Model.Retune).
// StampShift and BrttNs must be set.
func (d *Derived) setTarget(trttNs uint32) {
	unit := uint64(1) << min(max(d.StampShift, 0), 32)
	d.TrttNs = trttNs
	d.TrttQ = uint32(min((uint64(trttNs)+unit-1)/unit, math.MaxUint32))
	d.TrttC, d.TrttH = deadlineConsts(uint64(trttNs), unit)
	d.Mi = float64(d.BrttNs) / (float64(trttNs) - float64(d.BrttNs))
	d.QaRttNs = uint32(min(uint64(d.BrttNs)+qaRttTargets*(uint64(trttNs)-min(uint64(trttNs), uint64(d.BrttNs))), math.MaxUint32))
}
