package snyder

import (
	"math"
	"math/rand/v2"
)

// HPCCParams configure the float64 reference of HPCC as the thesis runs it
// (S3 Section 3.2.1, Table 3.1: AI 50 Mb/s, eta 0.95, increment stage 5),
// windows in packets, times in ns. The window law is HPCC's: per ACK, the
// normalised inflight U of the bottleneck from the in-band telemetry
// (queue length, bytes sent, time), smoothed over the base RTT T; then
// W = Wc / (U/eta) + W_AI when U >= eta or after MaxStage additive
// steps, else W = Wc + W_AI; the reference window Wc follows W once per
// RTT (the first ACK of a packet sent after the last update).
type HPCCParams struct {
	Eta       float64 // 0.95
	MaxStage  int     // 5
	AIPkts    float64 // W_AI: 50 Mb/s over T, in packets
	BaseRTTNs float64 // T
	LinkBpns  float64 // B: the bottleneck's bytes per ns
	MaxCwnd   float64
	MTU       float64
	VAI       *VAIParams // measured congestion: the RTT's largest queue, bytes
	SF        int        // > 0: Wc also follows W every SF ACKs while decreasing
	// SFKeepsRTT keeps the per-RTT move of Wc while decreasing with SF
	// (A-38's second reading, S3:L1022-1024); false, SF's period
	// replaces it (S3:L1020).
	SFKeepsRTT bool
	// RandomFeedback ignores a decrease that would move Wc when
	// W < rand() % MaxWindow (S3:L659-669): feedback is used with
	// probability W / MaxCwnd.
	RandomFeedback bool
	Seed           uint64
}

// DefaultHPCC is Table 3.1's HPCC on links of linkGbps, packets of mtu
// bytes and an unloaded RTT of baseRTTNs.
func DefaultHPCC(linkGbps float64, mtu int, baseRTTNs float64) HPCCParams {
	t := baseRTTNs
	return HPCCParams{Eta: 0.95, MaxStage: 5, AIPkts: 50e6 * t * 1e-9 / 8 / float64(mtu), BaseRTTNs: t,
		LinkBpns: linkGbps / 8, MaxCwnd: linkGbps / 8 * t / float64(mtu), MTU: float64(mtu)}
}

// HPCC is one flow.
type HPCC struct {
	W, Wc, U      float64
	VAI           VAI
	ai            float64
	incStage      int
	lastUpdateSeq int64
	prevTx        float64
	prevTs        float64
	prevQ         float64
	havePrev      bool
	sfAcks        int
	rttW          float64
	rng           *rand.Rand
}

// NewHPCC starts a flow at window w.
func NewHPCC(p HPCCParams, w float64, flow int) *HPCC {
	return &HPCC{W: w, Wc: w, ai: p.AIPkts, rttW: w, rng: rand.New(rand.NewPCG(p.Seed, uint64(flow)))}
}

// Ack takes one ACK and returns the window after it.
func (h *HPCC) Ack(p HPCCParams, a Ack) float64 {
	// MeasureInflight, one hop
	if h.havePrev && a.TsNs > h.prevTs {
		tau := a.TsNs - h.prevTs
		txRate := (a.TxBytes - h.prevTx) / tau
		u := math.Min(a.QLenBytes, h.prevQ)/(p.LinkBpns*p.BaseRTTNs) + txRate/p.LinkBpns
		tau = math.Min(tau, p.BaseRTTNs)
		h.U = (1-tau/p.BaseRTTNs)*h.U + tau/p.BaseRTTNs*u
	}
	h.prevTx, h.prevTs, h.prevQ, h.havePrev = a.TxBytes, a.TsNs, a.QLenBytes, true
	rttEnd := a.Seq > h.lastUpdateSeq // the first ACK of a packet sent after the last RTT's end
	perRTT := rttEnd
	mimd := h.U >= p.Eta || h.incStage >= p.MaxStage
	if p.VAI != nil {
		h.VAI.Observe(a.QLenBytes, h.U >= p.Eta) // C = U/eta >= 1
		if rttEnd {
			h.VAI.EndRTT(*p.VAI)
			h.ai = h.VAI.Increase(*p.VAI, h.W >= h.rttW) // spent per RTT while rising
			h.rttW = h.W
		}
	}
	// Sampling Frequency moves Wc every SF ACKs while U >= eta, by the
	// decrease alone: the additive increase stays once per RTT
	// (S3:L1020-1024). In place of the per-RTT move (A-38, S3:L1020), or
	// besides it (SFKeepsRTT, S3:L1022-1024)
	sfUpdate := false
	if p.SF > 0 && h.U >= p.Eta {
		perRTT = perRTT && p.SFKeepsRTT
		if h.sfAcks++; h.sfAcks >= p.SF {
			sfUpdate, h.sfAcks = true, 0
			if p.VAI != nil { // spent per decrease period while falling
				h.ai = h.VAI.Increase(*p.VAI, true)
			}
		}
	}
	update := perRTT || sfUpdate
	if update && h.U >= p.Eta && p.RandomFeedback && h.W < float64(h.rng.IntN(max(1, int(p.MaxCwnd)))) {
		update, sfUpdate, mimd = false, false, false // this feedback is ignored
	}
	// where the RTT and the SF period both end on this ACK, the RTT's
	// move: Wc follows W, its AI included
	sfUpdate = sfUpdate && !perRTT
	switch {
	case sfUpdate:
		h.Wc /= h.U / p.Eta
		h.W = h.Wc + h.ai
	case mimd:
		h.W = h.Wc/(h.U/p.Eta) + h.ai
		if update {
			h.incStage, h.Wc = 0, h.W
		}
	default:
		h.W = h.Wc + h.ai
		if update {
			h.incStage++
			h.Wc = h.W
		}
	}
	if rttEnd {
		h.lastUpdateSeq = a.SndNxt
	}
	h.W = math.Min(math.Max(h.W, 0.01), p.MaxCwnd)
	return h.W
}
