package snyder

import (
	"math"

	"github.com/nicgen/nicgen/blocks/stim"
	gsnyder "github.com/nicgen/nicgen/golden/snyder"
)

// hpcc's stimulus (block.Desc.Stimulus): one bottleneck whose stamp
// advances as a NIC clock does and whose bytes-sent counter follows a
// load that alternates between calm phases (below eta, a short queue) and
// congested ones (above the link, a queue of a few BDPs), with each
// connection's sequence numbers running ahead of its last RTT's end;
// extremes (a stamp repeated or older, an interval past the base RTT, the
// largest queue, a late ACK, the counter's jump); its coverage is every
// outcome of an ACK.

// hpccDraw draws hpcc's events.
type hpccDraw struct {
	ackDraw
	timeW, seqW, qW, txW int
	bpns                 float64 // the bottleneck's bytes per ns
	bdp                  uint64  // bytes
	ts                   uint64
	tx                   float64
	q                    float64
	seq                  []uint64 // each connection's next sequence number
}

// hpccStimulus is hpcc's block.Desc.Stimulus.
func hpccStimulus(p HPCCParams, profile string, r *stim.Rand) (stim.Source, stim.Coverage, error) {
	mix, err := ackMixFor("hpcc", p.NumConn, max(2, 2*p.BaseRTTNs/100), profile)
	if err != nil {
		return stim.Source{}, nil, err
	}
	start := uint64(1_000)
	if profile == "wrap" {
		start = uint64(1)<<uint(p.TimeW) - 1000*p.BaseRTTNs
	}
	d := &hpccDraw{ackDraw: newAckDraw(mix, r), timeW: p.TimeW, seqW: p.SeqW, qW: p.QW, txW: p.TxW,
		bpns: p.LinkBpns, bdp: max(uint64(p.LinkBpns*float64(p.BaseRTTNs)), 1), ts: start, seq: make([]uint64, mix.active)}
	return d.source(profile, d.tick, d.event), newHPCCCoverage(p), nil
}

// tick advances the bottleneck by one cycle: the stamp, the bytes it sent
// (at 60-100% of the link when calm, 90-130% when congested, so that U
// passes eta) and its queue.
func (d *hpccDraw) tick() {
	step := d.r.Below(d.mix.stepMax + 1)
	d.ts += step
	load := 0.6 + 0.4*float64(d.r.Below(1001))/1000
	if d.congested() {
		load += 0.3
	}
	d.tx += d.bpns * float64(step) * min(load, 1)
	d.q = max(0, min(d.q+d.bpns*float64(step)*(load-1), float64(4*d.bdp)))
}

// event draws conn, kind, seq, snd_nxt, qlen, tx_bytes, ts (hpccGolden's
// event fields) into f.
func (d *hpccDraw) event(f []uint64) {
	if c, ok := d.open(); ok {
		d.seq[c] = d.r.Below(1 << 10)
		f[0], f[1], f[2], f[3] = c, uint64(gsnyder.HPCCOpen), 0, maskBits(d.seq[c], d.seqW)
		f[4], f[5], f[6] = 0, 0, 0
		return
	}
	conn := d.next()
	seq := d.seq[conn]
	d.seq[conn]++
	sndNxt := seq + 1 + d.r.Below(48)
	q := uint64(math.Round(d.q))
	ts, tx := d.ts, uint64(math.Round(d.tx))
	switch d.extreme(5) {
	case 0:
		ts -= d.r.Below(3) // a stamp repeated or older
	case 1:
		ts += 4 * d.r.Below(d.mix.stepMax*200+1) // past the base RTT
	case 2:
		q = uint64(1)<<uint(d.qW) - 1
	case 3:
		seq -= d.r.Below(64) // a late ACK
	case 4:
		tx += uint64(1) << uint(d.txW-1) // the counter jumps half its circle
	}
	conn, kind := d.fault(conn, uint64(gsnyder.HPCCOpen), uint64(gsnyder.HPCCAck), uint64(gsnyder.HPCCNumKinds))
	f[0], f[1], f[2], f[3] = conn, kind, maskBits(seq, d.seqW), maskBits(sndNxt, d.seqW)
	f[4], f[5], f[6] = maskBits(q, d.qW), maskBits(tx, d.txW), maskBits(ts, d.timeW)
}

// hpccCoverage counts the outcomes of hpcc a run reached, from the golden
// results: conn, kind, cwnd, u, congested, moved, error (hpccGolden's
// result fields), and the member count of the merging shell.
type hpccCoverage struct {
	stim.Cases
	min, max, satU uint64
	// With sf_keeps_rtt_update, sf is SF and sfAcks each connection's
	// congested ACKs since its SF period last ended, counted from the
	// results as the model counts them: a congested move off a period's
	// end is then the RTT's move that the option keeps.
	sf     uint64
	sfAcks []uint64
}

// hpccKeptRTTMove is the coverage case of sf_keeps_rtt_update.
const hpccKeptRTTMove = "congested, RTT's move kept beside SF"

func newHPCCCoverage(p HPCCParams) *hpccCoverage {
	c := &hpccCoverage{Cases: stim.NewCases("open", "congested, reference moved", "congested, held", "calm, reference moved", "calm, held",
		"U saturated", "window at min", "window at max", "error", "merged ack", hpccKeptRTTMove), min: p.MinCwnd, max: p.MaxCwnd, satU: p.SatU()}
	c.Skip("window at min", p.AI >= p.MinCwnd) // the increase keeps every window above it
	c.Skip("merged ack", p.MergeSlots == 0)
	keeps := p.SF > 0 && p.SFKeepsRTT
	c.Skip(hpccKeptRTTMove, !keeps)
	if keeps {
		c.sf, c.sfAcks = p.SF, make([]uint64, p.NumConn)
	}
	return c
}

// sfPeriod counts a result in its connection's SF period and reports a
// congested move that did not end one.
func (c *hpccCoverage) sfPeriod(conn uint64, open, congested, moved bool) bool {
	if c.sf == 0 || conn >= uint64(len(c.sfAcks)) {
		return false
	}
	if open {
		c.sfAcks[conn] = 0
		return false
	}
	if !congested {
		return false
	}
	c.sfAcks[conn]++
	end := c.sfAcks[conn] >= c.sf
	if end {
		c.sfAcks[conn] = 0
	}
	return moved && !end
}

func (c *hpccCoverage) Count(res []uint64) {
	kind, cwnd, u, congested, moved, failed := res[1], res[2], res[3], res[4] == 1, res[5] == 1, res[6] == 1
	if members(res, 7) > 1 {
		c.Add("merged ack")
	}
	switch {
	case failed:
		c.Add("error")
		return
	case kind == uint64(gsnyder.HPCCOpen):
		c.Add("open")
		c.sfPeriod(res[0], true, false, false)
		return
	}
	if c.sfPeriod(res[0], false, congested, moved) {
		c.Add(hpccKeptRTTMove)
	}
	switch {
	case congested && moved:
		c.Add("congested, reference moved")
	case congested:
		c.Add("congested, held")
	case moved:
		c.Add("calm, reference moved")
	default:
		c.Add("calm, held")
	}
	if u == c.satU {
		c.Add("U saturated")
	}
	switch cwnd {
	case c.min:
		c.Add("window at min")
	case c.max:
		c.Add("window at max")
	}
}
