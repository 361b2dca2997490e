package smartt_test

import (
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/stim"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// smarttPorts are the positions of the SMaRTT stream ports.
type smarttPorts struct {
	sValid, sConn, sKind, sSize, sECN, sRTT, sUnacked, sNow, mReady int
	sReady, mValid, mConn, mKind, mCwnd, mCase, mQA, mFast, mErr    int
	mMembers                                                        int // -1: the plain shell
}

func newSmarttPorts(pm blockeq.PortMap) smarttPorts {
	return smarttPorts{
		sValid: pm.In("s_event_valid"), sConn: pm.In("s_event_conn"), sKind: pm.In("s_event_kind"),
		sSize: pm.In("s_event_size"), sECN: pm.In("s_event_ecn"), sRTT: pm.In("s_event_rtt"),
		sUnacked: pm.In("s_event_unacked"), sNow: pm.In("s_event_now"), mReady: pm.In("m_result_ready"),
		sReady: pm.Out("s_event_ready"), mValid: pm.Out("m_result_valid"), mConn: pm.Out("m_result_conn"),
		mKind: pm.Out("m_result_kind"), mCwnd: pm.Out("m_result_cwnd"), mCase: pm.Out("m_result_case"),
		mQA: pm.Out("m_result_qa"), mFast: pm.Out("m_result_fast"), mErr: pm.Out("m_result_error"),
		mMembers: pm.Out("m_result_members"),
	}
}

// The typed SMaRTT stimulus drives smartt's and nscc's ports for the tests
// that check the RTL against SmarttReference (equiv_rtl_test.go,
// xprop_rtl_test.go; a recorded trace replays through smarttPorts too). The
// equivalence bench and `nicgen vectors` run the blocks' own stimulus
// (blocks/smartt/stim.go), whose bench mix is this one under the same
// profiles, drawn in the generic bench's order per cycle.

// SmarttProfile is a random SMaRTT event mix.
type SmarttProfile struct {
	PValid, PReady float64
	KindWeights    [8]float64 // open, ack, nack, timeout, then invalid kinds
	PECN           float64
	PSame, PHot    float64
	HotConns       int
	ConnSpan       uint64
	MTU            uint64
	PSmall         float64 // a packet smaller than the MTU
	RTTMin, RTTMax uint64  // ns, uniform
	PLowRTT        float64 // an RTT at the base RTT (FastIncrease territory)
	BrttNs         uint64
	UnackedMax     uint64
	NowStart       uint64
	NowStepMax     uint64 // ns per cycle
	OpenFirst      uint64
	Strides        uint64 // Profile.Strides
	// ECNRun, when nonzero, marks ACKs in runs: the ECN echo holds for
	// 1..ECNRun events, then flips (PECN is then unused)
	ECNRun uint64
}

// DefaultSmarttProfile is a mixed workload around the given base RTT and
// MTU: mostly acks with RTTs from the base RTT to three target RTTs, a
// third of them ECN-marked, trims and timeouts, strong connection locality,
// backpressure on both streams, time starting before the 32-bit wrap.
func DefaultSmarttProfile(numConn int, mtu, brttNs uint64) SmarttProfile {
	return SmarttProfile{
		PValid: 0.9, PReady: 0.85,
		KindWeights: [8]float64{0.002, 0.90, 0.04, 0.02, 0.002, 0.002, 0.002, 0.002},
		PECN:        0.3, PSame: 0.3, PHot: 0.6, HotConns: 8,
		ConnSpan: uint64(numConn) + uint64(numConn)/64 + 1,
		MTU:      mtu, PSmall: 0.1, RTTMin: brttNs, RTTMax: 5 * brttNs, PLowRTT: 0.3, BrttNs: brttNs,
		UnackedMax: 1 << 16, NowStart: (1 << 32) - 5_000_000, NowStepMax: 200,
	}
}

type smarttStim struct {
	p                                   smarttPorts
	prof                                SmarttProfile
	r                                   *stim.Rand
	kinds                               stim.Kinds
	conns                               stim.Locality
	valid                               bool
	conn, kind, size, ecn, rtt, unacked uint64
	now, opened                         uint64
	ecnLeft                             uint64 // ECNRun: events left in the run
	pValid, pReady, pECN, pSmall, pLow  stim.Threshold
}

// NewSmarttStimulus returns a reproducible stimulus factory.
func NewSmarttStimulus(d harness.Design, prof SmarttProfile, seed uint64) func() harness.Stimulus {
	sp := newSmarttPorts(blockeq.NewPortMap(d))
	return func() harness.Stimulus {
		s := &smarttStim{p: sp, prof: prof, r: stim.New(seed), now: prof.NowStart, kinds: stim.NewKinds(prof.KindWeights)}
		s.conns = stim.NewLocality(s.r, prof.HotConns, prof.ConnSpan, prof.PSame, prof.PHot)
		s.conns.Strides = prof.Strides
		s.pValid, s.pReady, s.pECN = stim.ThresholdOf(prof.PValid), stim.ThresholdOf(prof.PReady), stim.ThresholdOf(prof.PECN)
		s.pSmall, s.pLow = stim.ThresholdOf(prof.PSmall), stim.ThresholdOf(prof.PLowRTT)
		return s
	}
}

func (s *smarttStim) newEvent() {
	r, prof := s.r, &s.prof
	if s.opened < prof.OpenFirst {
		s.conn, s.kind = s.opened, 0
		s.conns.Force(s.opened)
		s.opened++
		return
	}
	s.conn = s.conns.Pick(r)
	s.kind = s.kinds.Pick(r)
	s.size = prof.MTU
	if r.Hit(s.pSmall) {
		s.size = 64 + r.Below(prof.MTU-64)
	}
	if prof.ECNRun > 0 {
		if s.ecnLeft == 0 {
			s.ecn, s.ecnLeft = 1-s.ecn, 1+r.Below(prof.ECNRun)
		}
		s.ecnLeft--
	} else {
		s.ecn = blockeq.B2U(r.Hit(s.pECN))
	}
	if r.Hit(s.pLow) {
		s.rtt = prof.BrttNs + r.Below(1200)
	} else {
		s.rtt = prof.RTTMin + r.Below(prof.RTTMax-prof.RTTMin+1)
	}
	s.unacked = r.Below(prof.UnackedMax)
}

func (s *smarttStim) Next(prevOut, in []uint64) {
	p := s.p
	if !s.valid || (prevOut != nil && prevOut[p.sReady] == 1) {
		s.valid = s.r.Hit(s.pValid)
		if s.valid {
			s.newEvent()
		}
	}
	s.now += s.r.Below(s.prof.NowStepMax + 1)
	in[p.sValid] = blockeq.B2U(s.valid)
	in[p.sConn], in[p.sKind], in[p.sSize], in[p.sECN] = s.conn, s.kind, s.size, s.ecn
	in[p.sRTT], in[p.sUnacked], in[p.sNow] = s.rtt, s.unacked, s.now
	in[p.mReady] = blockeq.B2U(s.r.Hit(s.pReady))
}

// applySmartt adapts the SMaRTT event mix to a profile.
func applySmartt(p SmarttProfile, name string) SmarttProfile {
	switch name {
	case "same-conn":
		p.PSame, p.HotConns, p.PHot = 1, 1, 1
	case "all-ecn":
		p.PECN = 1
	case "all-loss":
		p.KindWeights = [8]float64{0.001, 0, 0.5, 0.5, 0, 0, 0, 0}
	case "idle":
		p.PValid = 0.1
	case "backpressure":
		p.PReady = 0.2
	case "extremes":
		p.PSmall, p.RTTMin, p.RTTMax, p.PLowRTT, p.UnackedMax = 0.5, 0, 1<<20-1, 0.2, 1<<21
	case "wrap":
		p.NowStepMax = 1 << 22
	case "hazard":
		p.PValid, p.PReady, p.Strides = 1, 0.8, hazardStrides
	case "line-rate":
		p.PValid, p.PReady, p.PSame, p.HotConns, p.PHot, p.PSmall = 1, 1, 1, 1, 1, 0
		p.KindWeights = [8]float64{0, 1}
	case "incast-2", "incast-8", "incast-64":
		k := map[string]int{"incast-2": 2, "incast-8": 8, "incast-64": 64}[name]
		p.PValid, p.PReady, p.PSame, p.HotConns, p.PHot = 1, 1, 0, k, 1
		p.KindWeights = [8]float64{0, 1}
	case "ce-burst":
		p.PValid, p.PReady, p.PSame, p.HotConns, p.PHot, p.ECNRun = 1, 1, 0, 4, 1, 16
		p.KindWeights = [8]float64{0, 1}
	case "barriers":
		p.PValid, p.PReady, p.PSame, p.HotConns, p.PHot = 1, 1, 0, 4, 1
		p.KindWeights = [8]float64{0.05, 0.8, 0.1, 0.05}
	}
	return p
}

// hazardStrides covers every pipeline depth plus one.
const hazardStrides = connpipe.MaxDepth + 1
