package snyder

import (
	"math"
	"testing"
)

// TestHPCCRandomFeedback: with the random feedback variant a decrease that
// would move the reference is used with probability W / MaxWindow
// (S3:L659-669): at half the maximum about half of them, at the maximum
// all, and increases are never dropped.
func TestHPCCRandomFeedback(t *testing.T) {
	p := DefaultHPCC(thesisLink())
	p.MaxCwnd, p.RandomFeedback, p.Seed = 100, true, 7
	for _, c := range []struct {
		w, want, tol float64
		u            float64
	}{{50, 0.5, 0.03, 0}, {100, 1, 0, 0}, {25, 0.25, 0.03, 0}, {50, 1, 0, 0.5}} {
		h := NewHPCC(p, c.w, 0)
		used := 0
		const n = 4000
		for i := 0; i < n; i++ {
			h.W, h.Wc, h.U, h.havePrev = c.w, c.w, 2, false // a decrease (U >= eta)...
			if c.u != 0 {
				h.U = c.u // ...or an increase
			}
			h.Ack(p, Ack{Seq: h.lastUpdateSeq + 1, SndNxt: h.lastUpdateSeq + 2}) // ...that moves the reference
			if h.Wc != c.w {
				used++
			}
		}
		if got := float64(used) / n; math.Abs(got-c.want) > c.tol {
			t.Errorf("window %g of 100, U %g: feedback used %.3f of the time, want %.2f", c.w, h.U, got, c.want)
		}
	}
}

// sfReadingCase is a sequence of congested ACKs of one flow at U / eta =
// 2 (the thesis's "R/2", S3:L1022-1024), W = Wc = 16 packets, an AI of
// one packet and SF 3, with the hand-derived window and reference after
// each ACK under each reading of A-38 (docs/blocks/hpcc.md).
type sfReadingCase struct {
	name  string
	seqs  []int64 // the stored snd_nxt is 10 and becomes 20 at the RTT's end
	keeps bool    // SFKeepsRTT
	w, wc []float64
	moved []bool
	doc   string
}

// sfReadingCases: ACK 2 ends the RTT (seq 11 past 10); ACK 3 ends the
// SF period (the third congested ACK). The first two cases differ at ACK
// 2: replaced, the reference stays 16 until the period's end halves it
// to 8; kept, it follows W = 16/2 + 1 = 9 at the RTT's end, and the
// period's end halves that. The last two put the RTT's end on the
// period's end (ACK 3): replaced, SF's move, Wc = 16/2 = 8, the decrease
// alone; kept, the RTT's move, Wc = W = 16/2 + 1 = 9, its AI included.
var sfReadingCases = []sfReadingCase{
	{name: "replaced", seqs: []int64{5, 11, 12, 13}, keeps: false,
		w: []float64{9, 9, 9, 5}, wc: []float64{16, 16, 8, 8}, moved: []bool{false, false, true, false},
		doc: "ACK 1: 16/2+1; ACK 2: no move; ACK 3: Wc = 16/2, W = 8+1; ACK 4: 8/2+1"},
	{name: "kept", seqs: []int64{5, 11, 12, 13}, keeps: true,
		w: []float64{9, 9, 5.5, 3.25}, wc: []float64{16, 9, 4.5, 4.5}, moved: []bool{false, true, true, false},
		doc: "ACK 1: 16/2+1; ACK 2: Wc = W = 16/2+1; ACK 3: Wc = 9/2, W = 4.5+1; ACK 4: 4.5/2+1"},
	{name: "replaced, RTT's end on the period's end", seqs: []int64{5, 6, 11, 12}, keeps: false,
		w: []float64{9, 9, 9, 5}, wc: []float64{16, 16, 8, 8}, moved: []bool{false, false, true, false},
		doc: "ACK 3: SF's move, Wc = 16/2; ACK 4: 8/2+1"},
	{name: "kept, RTT's end on the period's end", seqs: []int64{5, 6, 11, 12}, keeps: true,
		w: []float64{9, 9, 9, 5.5}, wc: []float64{16, 16, 9, 9}, moved: []bool{false, false, true, false},
		doc: "ACK 3: the RTT's move, Wc = W = 16/2+1; ACK 4: 9/2+1"},
}

// TestHPCCSFReadings runs sfReadingCases on the float64 reference: the
// windows and references are the hand-derived ones exactly (halving and
// adding 1 are exact in float64).
func TestHPCCSFReadings(t *testing.T) {
	for _, c := range sfReadingCases {
		p := DefaultHPCC(thesisLink())
		p.Eta, p.AIPkts, p.SF, p.SFKeepsRTT, p.MaxCwnd = 0.5, 1, 3, c.keeps, 100
		h := NewHPCC(p, 16, 0)
		h.U, h.lastUpdateSeq = 1, 10 // U/eta = 2; the stamps never advance, so U stays
		for i, seq := range c.seqs {
			wcBefore := h.Wc
			w := h.Ack(p, Ack{Seq: seq, SndNxt: 20})
			if w != c.w[i] || h.Wc != c.wc[i] || (h.Wc != wcBefore) != c.moved[i] {
				t.Errorf("%s, ACK %d: W %g, Wc %g (moved %v), want %g, %g (%v): %s", c.name, i+1, w, h.Wc, h.Wc != wcBefore, c.w[i], c.wc[i], c.moved[i], c.doc)
			}
		}
	}
}

// thesisLink is the thesis's microbenchmark (S3:L657): 100 Gb/s links,
// 1000 B packets, an unloaded RTT of 4.16 us (two serialisations and four
// propagation delays of 1 us).
func thesisLink() (linkGbps float64, mtu int, baseRTTNs float64) {
	return 100, 1000, 2*1000*8/100 + 4*1000
}
