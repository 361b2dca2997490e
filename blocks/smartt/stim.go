package smartt

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/stim"
)

// The stimulus of smartt and nscc (block.Desc.Stimulus), one for both: for
// the equivalence bench a random mix of ACKs (RTTs from the base RTT to
// five base RTTs, a third ECN-marked), trims, timeouts and invalid kinds
// over connections drawn with locality (and past the table, for errors),
// the clock advancing every cycle; the line-rate profiles drive a merging
// shell with an event on every cycle. For `nicgen vectors` (profile
// stim.Vectors) a sender's view of a loaded fabric (vector_stim.go).
// Events are written in the golden model's field order, eventFields
// (conn, kind, size, ecn, rtt, unacked, now). The coverage is every
// window rule, QuickAdapt firing, FastIncrease ending, errors, and the
// merged ACKs and NACKs of a merging shell.

// stimulus is smartt's and nscc's block.Desc.Stimulus.
func stimulus(p Params, profile string, r *stim.Rand) (stim.Source, stim.Coverage, error) {
	if profile == stim.Vectors {
		d, err := newVectorDraw(p, r)
		if err != nil {
			return stim.Source{}, nil, err
		}
		// the vectors step the transaction model: no merged results
		return stim.Source{Event: d.event}, newCoverage(p.Variant, false, false), nil
	}
	mix, err := benchMixFor(p, profile)
	if err != nil {
		return stim.Source{}, nil, err
	}
	d := newBenchDraw(mix, r)
	return mix.Source(d.tick, d.event), NewCoverage(p), nil
}

// benchMix is the equivalence bench's event mix. Probabilities are per
// cycle (valid, ready) or per event (the rest).
type benchMix struct {
	stim.Shape
	kindWeights [8]float64 // open, ack, nack, timeout, then invalid kinds
	pECN        float64
	// connections (Shape): the previous one with PSame, one of Hot with
	// PHot, else uniform in [0, connSpan) (above the block's connections:
	// out-of-range errors); Strides, when above 0, replaces the locality
	// (stim.Locality.Strides)
	connSpan       uint64
	mtu            uint64
	pSmall         float64 // a packet smaller than the MTU
	rttMin, rttMax uint64  // ns, uniform
	pLowRTT        float64 // an RTT at the base RTT (FastIncrease territory)
	brttNs         uint64
	unackedMax     uint64
	nowStart       uint64 // first timestamp, before the 32-bit wrap
	nowStepMax     uint64 // time advances uniformly by 0..nowStepMax ns per cycle
	// ecnRun, when above 0, marks ACKs in runs: the ECN echo holds for
	// 1..ecnRun events, then flips (pECN is then unused)
	ecnRun uint64
}

// benchMixFor is the mixed workload around the block's base RTT and MTU,
// adapted to a named profile: mostly ACKs with RTTs from the base RTT to
// five base RTTs, a third of them ECN-marked, trims and timeouts, strong
// connection locality, backpressure on both streams, time starting before
// the 32-bit wrap. The line-rate profiles offer an event on every cycle
// and take every result.
func benchMixFor(p Params, profile string) (benchMix, error) {
	brtt := uint64(p.Net.BrttNs)
	m := benchMix{Shape: stim.Shape{PValid: 0.9, PReady: 0.85, PSame: 0.3, PHot: 0.6, Hot: 8},
		kindWeights: [8]float64{0.002, 0.90, 0.04, 0.02, 0.002, 0.002, 0.002, 0.002},
		pECN:        0.3,
		connSpan:    uint64(p.NumConn) + uint64(p.NumConn)/64 + 1,
		mtu:         uint64(p.Net.MTU), pSmall: 0.1, rttMin: brtt, rttMax: 5 * brtt, pLowRTT: 0.3, brttNs: brtt,
		unackedMax: 1 << 16, nowStart: (1 << 32) - 5_000_000, nowStepMax: 200,
	}
	if m.Profile(profile, connpipe.MaxDepth+1) {
		return m, nil
	}
	switch profile {
	case "mixed":
	case "all-ecn":
		m.pECN = 1
	case "all-loss": // trims and timeouts only
		m.kindWeights = [8]float64{0.001, 0, 0.5, 0.5, 0, 0, 0, 0}
	case "extremes":
		m.pSmall, m.rttMin, m.rttMax, m.pLowRTT, m.unackedMax = 0.5, 0, 1<<20-1, 0.2, 1<<21
	case "wrap":
		m.nowStepMax = 1 << 22
	case "line-rate": // one connection, ACKs of one MTU
		m.PValid, m.PReady, m.PSame, m.Hot, m.PHot, m.pSmall = 1, 1, 1, 1, 1, 0
		m.kindWeights = [8]float64{0, 1}
	case "incast-2", "incast-8", "incast-64": // ACKs on k connections in random order
		k := map[string]int{"incast-2": 2, "incast-8": 8, "incast-64": 64}[profile]
		m.PValid, m.PReady, m.PSame, m.Hot, m.PHot = 1, 1, 0, k, 1
		m.kindWeights = [8]float64{0, 1}
	case "ce-burst": // ACKs on 4 connections, ECN-marked in runs
		m.PValid, m.PReady, m.PSame, m.Hot, m.PHot, m.ecnRun = 1, 1, 0, 4, 1, 16
		m.kindWeights = [8]float64{0, 1}
	case "barriers": // ACKs on 4 connections, opens, NACKs and timeouts between them
		m.PValid, m.PReady, m.PSame, m.Hot, m.PHot = 1, 1, 0, 4, 1
		m.kindWeights = [8]float64{0.05, 0.8, 0.1, 0.05}
	default:
		return m, fmt.Errorf("%s: no stimulus profile %q", p.Variant, profile)
	}
	return m, nil
}

// benchDraw draws the bench's events.
type benchDraw struct {
	mix                benchMix
	r                  *stim.Rand
	kinds              stim.Kinds
	conns              stim.Locality
	pECN, pSmall, pLow stim.Threshold
	now, ecn, ecnLeft  uint64 // ecnLeft: with ecnRun, events left in the run
}

func newBenchDraw(mix benchMix, r *stim.Rand) *benchDraw {
	d := &benchDraw{mix: mix, r: r, kinds: stim.NewKinds(mix.kindWeights), now: mix.nowStart,
		pECN: stim.ThresholdOf(mix.pECN), pSmall: stim.ThresholdOf(mix.pSmall), pLow: stim.ThresholdOf(mix.pLowRTT)}
	d.conns = mix.Locality(r, mix.connSpan)
	return d
}

// tick advances the clock by one cycle.
func (d *benchDraw) tick() { d.now += d.r.Below(d.mix.nowStepMax + 1) }

// event draws conn, kind, size, ecn, rtt, unacked; now is the clock's.
func (d *benchDraw) event(f []uint64) {
	r, mix := d.r, &d.mix
	f[0] = d.conns.Pick(r)
	f[1] = d.kinds.Pick(r)
	size := mix.mtu
	if r.Hit(d.pSmall) {
		size = 64 + r.Below(mix.mtu-64)
	}
	if mix.ecnRun > 0 {
		if d.ecnLeft == 0 {
			d.ecn, d.ecnLeft = 1-d.ecn, 1+r.Below(mix.ecnRun)
		}
		d.ecnLeft--
	} else {
		d.ecn = block.Bit(r.Hit(d.pECN))
	}
	var rtt uint64
	if r.Hit(d.pLow) {
		rtt = mix.brttNs + r.Below(1200)
	} else {
		rtt = mix.rttMin + r.Below(mix.rttMax-mix.rttMin+1)
	}
	f[2], f[3], f[4], f[5], f[6] = size, d.ecn, rtt, r.Below(mix.unackedMax), d.now
}

// caseNames names the m_result_case values in the coverage.
var caseNames = [8]string{"no window rule", "fair decrease", "multiplicative decrease", "fair increase",
	"multiplicative/proportional increase", "quickadapt", "fastincrease", "loss"}

// Coverage points beyond the window rules (caseNames), by position in
// coverage.names.
const (
	covError = len(caseNames) + iota
	covQA
	covFastExit
	covMerged
	covMergedNack
)

// coverage counts the behaviours of smartt or nscc a run reached, from
// the golden results: conn, kind, cwnd, case, qa, fast, error (the golden
// model's result fields), and the member count of a merging shell. Fair
// Decrease exists only in smartt; merged ACKs (and NACKs) only in a shell
// that merges them.
type coverage struct {
	names    []string
	counts   [covMergedNack + 1]int64
	skipFD   bool
	lastFast []bool // by connection id
}

// NewCoverage is the coverage of the block with parameters p: a merging
// shell must also produce merged ACKs (and, with MergeNacks, merged
// NACKs). For a bench that builds its own stimulus (blockeq's typed SMaRTT
// tests).
func NewCoverage(p Params) stim.Coverage {
	merge := p.MergeSlots > 0 && p.MergeAcks
	return newCoverage(p.Variant, merge, merge && p.MergeNacks)
}

func newCoverage(v Variant, merged, mergedNack bool) *coverage {
	c := &coverage{names: append(caseNames[:], "error", "quickadapt fired", "fastincrease exit"), skipFD: v != Conf}
	if merged {
		c.names = append(c.names, "merged ack")
	}
	if mergedNack {
		c.names = append(c.names, "merged nack")
	}
	return c
}

func (c *coverage) Count(res []uint64) {
	if res[6] == 1 {
		c.counts[covError]++
		return
	}
	kind := res[1]
	c.counts[res[3]&7]++
	if len(res) > 7 && res[7] > 1 {
		if kind == KindNack {
			c.counts[covMergedNack]++
		} else {
			c.counts[covMerged]++
		}
	}
	if res[4] == 1 {
		c.counts[covQA]++
	}
	conn, fast := res[0], res[5] == 1
	for conn >= uint64(len(c.lastFast)) {
		c.lastFast = append(c.lastFast, make([]bool, len(c.lastFast)+64)...)
	}
	if c.lastFast[conn] && !fast && kind != KindOpen {
		c.counts[covFastExit]++
	}
	c.lastFast[conn] = fast
}

// Counts is every behaviour with its count.
func (c *coverage) Counts() map[string]int64 {
	m := make(map[string]int64, len(c.names))
	for i, n := range c.names {
		m[n] = c.counts[i]
	}
	return m
}

// Missing lists the behaviours never reached, in the order they are named
// (Fair Decrease not for nscc).
func (c *coverage) Missing() []string {
	var miss []string
	for i, n := range c.names {
		if c.counts[i] == 0 && !(i == CaseFD && c.skipFD) {
			miss = append(miss, n)
		}
	}
	return miss
}
