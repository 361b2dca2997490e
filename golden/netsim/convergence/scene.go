package convergence

import (
	"fmt"
	"math"
	"slices"

	"github.com/nicgen/nicgen/golden/netsim"
	"github.com/nicgen/nicgen/golden/snyder"
)

// Window is a window-based congestion control as the convergence
// simulator sees it: an ACK in, the window (packets) after it out.
type Window interface {
	Ack(a snyder.Ack) float64
}

// SwiftFlow puts a Swift flow behind Window over a path of Hops hops.
type SwiftFlow struct {
	P    snyder.SwiftParams
	S    *snyder.Swift
	Hops int
}

func (f *SwiftFlow) Ack(a snyder.Ack) float64 {
	return f.S.Ack(f.P, a.DelayNs, f.Hops, a.Acked, a.NowNs)
}

// Bottleneck is the thesis's microbenchmark (S3:L657, Fig. 3.1) reduced
// to what convergence needs: senders with links of the bottleneck's rate
// to one switch, whose egress toward the receiver is the only queue; the
// ACKs return at once over the reverse path. Flow i starts at i x
// StaggerNs with window InitCwnd and never stops.
type Bottleneck struct {
	Flows             int
	LinkGbps          float64 // every link (100 Gb/s)
	MTU               int     // bytes (1000)
	PropNs            float64 // each link's propagation delay (1 us)
	StaggerNs         float64 // one join per this
	InitCwnd          float64 // packets
	DurationNs, BinNs float64
	JainTarget        float64 // 0.95
	// Only, when not empty, runs these of Modes (by name) and no others.
	Only []string
}

// DefaultBottleneck is the thesis's 16-1 incast (S3:L657): 16 flows on
// 100 Gb/s links of 1 us, joining 20 us apart, each starting at one BDP
// (52 packets of 1000 B at the unloaded RTT of 4.16 us), for 5 ms; Jain's
// index over 50 us bins.
func DefaultBottleneck() Bottleneck {
	return Bottleneck{Flows: 16, LinkGbps: 100, MTU: 1000, PropNs: 1000, StaggerNs: 20_000, InitCwnd: 52,
		DurationNs: 5e6, BinNs: 50_000, JainTarget: 0.95}
}

// Mode is which of the thesis's mechanisms a run has.
type Mode struct {
	Name    string
	VAI, SF bool
	// SFKeepsRTT is hpcc's reading of SF: the per-RTT reference
	// move kept beside SF's period (true) or replaced by it while
	// congested.
	SFKeepsRTT bool
}

// Modes are the four runs of a comparison.
var Modes = []Mode{{"plain", false, false, false}, {"vai", true, false, false}, {"sf", false, true, false}, {"vai+sf", true, true, false}}

// HPCCModes are hpcc's runs: Modes, and SF in each reading of A-38
// (docs/blocks/hpcc.md): "+rtt" keeps the per-RTT reference move beside
// SF's period.
var HPCCModes = []Mode{{"plain", false, false, false}, {"vai", true, false, false}, {"sf", false, true, false}, {"vai+sf", true, true, false},
	{"sf+rtt", false, true, true}, {"vai+sf+rtt", true, true, true}}

// SwiftMode is p with the mode's mechanisms: VAI with Table 4.1's Swift
// constants (Token_Thresh 4 us over the target delay at hops hops without
// flow-based scaling; AI in p's unit), SF every 30 ACKs, and the
// additive increase on every ACK whenever either is on (S3:L1026).
func SwiftMode(p snyder.SwiftParams, m Mode, hops int) snyder.SwiftParams {
	if m.VAI {
		v := snyder.SwiftVAI(p.BaseNs + float64(hops)*p.PerHopNs)
		v.BaseAI = p.AIPkts
		p.VAI = &v
	}
	if m.SF {
		p.SF = 30
	}
	p.AlwaysAI = m.VAI || m.SF
	return p
}

// SwiftConvergence runs b with Swift flows over one switch (hops 1) in
// each mode.
func SwiftConvergence(b Bottleneck, p snyder.SwiftParams) ([]*ConvergeResult, error) {
	return b.runModes(Modes, func(m Mode, i int) Window {
		mp := SwiftMode(p, m, 1)
		return &SwiftFlow{P: mp, S: snyder.NewSwift(mp, b.InitCwnd, float64(i)*b.StaggerNs), Hops: 1}
	})
}

// HPCCMode is p with the mode's mechanisms: VAI with Table 4.1's HPCC
// constants (AI in p's unit), SF every 30 ACKs.
func HPCCMode(p snyder.HPCCParams, m Mode) snyder.HPCCParams {
	if m.VAI {
		v := snyder.HPCCVAI()
		v.BaseAI = p.AIPkts
		p.VAI = &v
	}
	if m.SF {
		p.SF, p.SFKeepsRTT = 30, m.SFKeepsRTT
	}
	return p
}

// HPCCConvergence runs b with HPCC flows in each of HPCCModes.
func HPCCConvergence(b Bottleneck, p snyder.HPCCParams) ([]*ConvergeResult, error) {
	return b.runModes(HPCCModes, func(m Mode, i int) Window {
		mp := HPCCMode(p, m)
		return &HPCCFlow{P: mp, H: snyder.NewHPCC(mp, b.InitCwnd, i)}
	})
}

// BaseRTT is the unloaded RTT of a packet: its serialisation at the
// sender and at the egress, and four propagation delays (there and back).
func (b Bottleneck) BaseRTT() float64 { return 2*float64(b.MTU)*8/b.LinkGbps + 4*b.PropNs }

func (b Bottleneck) runModes(modes []Mode, mk func(m Mode, flow int) Window) ([]*ConvergeResult, error) {
	var rs []*ConvergeResult
	for _, m := range modes {
		if len(b.Only) > 0 && !slices.Contains(b.Only, m.Name) {
			continue
		}
		ws := make([]Window, b.Flows)
		for i := range ws {
			ws[i] = mk(m, i)
		}
		r, err := b.Run(ws)
		if err != nil {
			return nil, err
		}
		r.Mode = m.Name
		rs = append(rs, r)
	}
	return rs, nil
}

// ConvergeResult is a run's measurement.
type ConvergeResult struct {
	Mode string `json:"mode"`
	// ConvergeNs is the time from the last flow's join until Jain's index
	// of the flows' rates (per bin) reaches JainTarget and stays there for
	// the rest of the run, or -1 if it never does.
	ConvergeNs float64 `json:"converge_ns"`
	// JainLast is the mean index over the run's last tenth, JainEarly over
	// the first 500 us after the last join.
	JainLast  float64 `json:"jain_last"`
	JainEarly float64 `json:"jain_early"`
	// Utilisation and MeanQueue (packets) after the last join.
	Utilisation float64 `json:"utilisation"`
	MeanQueue   float64 `json:"mean_queue"`
	MaxQueue    int     `json:"max_queue"`
	// Jain per bin from the last join on, for plots.
	Jain []float64 `json:"jain"`
}

type cEv struct {
	kind uint8 // 0 send opportunity, 1 reaches the egress, 2 egress done, 3 ACK back
	flow int
	sent float64
	pkt  int64 // the packet's sequence number
	// INT stamped at the egress
	qlen, tx, ts float64
}

// Run simulates the flows (one Window each).
func (b Bottleneck) Run(flows []Window) (*ConvergeResult, error) {
	if len(flows) != b.Flows || b.Flows < 2 || b.LinkGbps <= 0 || b.MTU < 1 || b.DurationNs <= 0 || b.BinNs <= 0 ||
		b.StaggerNs < 0 || b.InitCwnd <= 0 || float64(b.Flows-1)*b.StaggerNs >= b.DurationNs {
		return nil, fmt.Errorf("bottleneck: %d flows for %d windows, %g Gb/s, MTU %d, %g ns in bins of %g, joins %g ns apart: not a run", b.Flows, len(flows), b.LinkGbps, b.MTU, b.DurationNs, b.BinNs, b.StaggerNs)
	}
	ser := float64(b.MTU) * 8 / b.LinkGbps
	n := b.Flows
	cwnd := make([]float64, n)
	inflight := make([]int, n)
	hostFree := make([]float64, n)
	sndNxt := make([]int64, n)
	var txBytes float64
	bins := int(math.Ceil(b.DurationNs / b.BinNs))
	delivered := make([][]int, bins)
	for i := range delivered {
		delivered[i] = make([]int, n)
	}
	var h netsim.Queue[float64, cEv]
	for i := 0; i < n; i++ {
		cwnd[i] = b.InitCwnd
		h.Push(float64(i)*b.StaggerNs, cEv{kind: 0, flow: i})
	}
	var fifo []cEv
	egressBusy := false
	lastJoin := float64(n-1) * b.StaggerNs
	var qArea, busyArea, lastT float64
	maxQ := 0
	for h.Len() > 0 {
		at, e := h.Pop()
		if at > b.DurationNs {
			break
		}
		if at > lastJoin { // queue and utilisation after the last join
			from := math.Max(lastT, lastJoin)
			qArea += float64(len(fifo)) * (at - from)
			if egressBusy {
				busyArea += at - from
			}
		}
		lastT = at
		now := at
		switch e.kind {
		case 0: // the sender may send
			if hostFree[e.flow] <= now && float64(inflight[e.flow]) < math.Max(cwnd[e.flow], 1) {
				inflight[e.flow]++
				hostFree[e.flow] = now + ser
				h.Push(now+ser+b.PropNs, cEv{kind: 1, flow: e.flow, sent: now, pkt: sndNxt[e.flow]})
				sndNxt[e.flow]++
				h.Push(now+ser, cEv{kind: 0, flow: e.flow})
			}
		case 1: // reaches the egress queue
			fifo = append(fifo, e)
			maxQ = max(maxQ, len(fifo))
			if !egressBusy {
				egressBusy = true
				h.Push(now+ser, cEv{kind: 2})
			}
		case 2: // the egress sent its head
			p := fifo[0]
			fifo = fifo[1:]
			txBytes += float64(b.MTU)
			p.qlen, p.tx, p.ts = float64(len(fifo)*b.MTU), txBytes, now
			bin := min(int(now/b.BinNs), bins-1)
			delivered[bin][p.flow]++
			// the data reaches the receiver, the ACK comes back
			p.kind = 3
			h.Push(now+3*b.PropNs, p)
			if len(fifo) > 0 {
				h.Push(now+ser, cEv{kind: 2})
			} else {
				egressBusy = false
			}
		case 3: // the ACK
			inflight[e.flow]--
			cwnd[e.flow] = flows[e.flow].Ack(snyder.Ack{DelayNs: now - e.sent, Acked: 1, NowNs: now, Seq: e.pkt, SndNxt: sndNxt[e.flow],
				QLenBytes: e.qlen, TxBytes: e.tx, TsNs: e.ts})
			h.Push(math.Max(now, hostFree[e.flow]), cEv{kind: 0, flow: e.flow})
		}
	}
	r := &ConvergeResult{ConvergeNs: -1, MaxQueue: maxQ}
	span := b.DurationNs - lastJoin
	r.Utilisation = busyArea / span
	r.MeanQueue = qArea / span
	first := int(math.Ceil(lastJoin / b.BinNs))
	for i := first; i < bins; i++ {
		xs := make([]float64, n)
		for f := range xs {
			xs[f] = float64(delivered[i][f])
		}
		r.Jain = append(r.Jain, netsim.Jain(xs))
	}
	// the first bin from which the index stays at or above the target
	for i := len(r.Jain) - 1; i >= 0 && r.Jain[i] >= b.JainTarget; i-- {
		r.ConvergeNs = float64(first+i)*b.BinNs - lastJoin
	}
	early := r.Jain[:min(len(r.Jain), max(1, int(500_000/b.BinNs)))]
	for _, j := range early {
		r.JainEarly += j / float64(len(early))
	}
	tail := r.Jain[len(r.Jain)*9/10:]
	var sum float64
	for _, j := range tail {
		sum += j
	}
	r.JainLast = sum / float64(len(tail))
	return r, nil
}

// JainChart draws Jain's index per bin from the last join on, one line
// per run, with the target as a reference line.
func JainChart(rs []*ConvergeResult, control string, b Bottleneck) netsim.Chart {
	c := netsim.Chart{Title: fmt.Sprintf("%s: %d flows joining %g us apart at %g Gb/s", control, b.Flows, b.StaggerNs/1000, b.LinkGbps),
		XLabel: "time after the last join (µs)", YLabel: "Jain's index per bin", Refs: []netsim.Ref{{Name: fmt.Sprintf("%.2f", b.JainTarget), Y: b.JainTarget}}}
	for _, r := range rs {
		ser := netsim.Series{Name: r.Mode}
		for i, j := range r.Jain {
			ser.X = append(ser.X, float64(i)*b.BinNs/1000)
			ser.Y = append(ser.Y, j)
		}
		ser.XEnd = float64(len(r.Jain)) * b.BinNs / 1000
		c.Series = append(c.Series, ser)
	}
	return c
}

// SwiftFxStepper is a swift block as the convergence simulator drives it:
// the golden model (SwiftFxModel) or the RTL behind an adapter.
type SwiftFxStepper interface {
	StepTo(e *snyder.SwiftFxEvent, r *snyder.SwiftFxResult)
}

// SwiftFxFlow puts connection Conn of a swift block behind Window: times
// and delays rounded to whole ns (delays saturating at the delay's
// width), the packets acknowledged at the acked field's width.
type SwiftFxFlow struct {
	M    SwiftFxStepper
	P    snyder.SwiftFxParams
	Conn uint32
	Hops int
}

// NewSwiftFxFlow opens connection conn of m at time nowNs.
func NewSwiftFxFlow(m SwiftFxStepper, p snyder.SwiftFxParams, conn uint32, hops int, nowNs float64) *SwiftFxFlow {
	f := &SwiftFxFlow{M: m, P: p, Conn: conn, Hops: hops}
	var r snyder.SwiftFxResult
	m.StepTo(&snyder.SwiftFxEvent{Conn: conn, Kind: snyder.SwiftOpen, Now: uint64(math.Round(nowNs))}, &r)
	return f
}

func (f *SwiftFxFlow) Ack(a snyder.Ack) float64 {
	e := snyder.SwiftFxEvent{Conn: f.Conn, Kind: snyder.SwiftAck, Now: uint64(math.Round(a.NowNs)),
		Delay: min(uint64(math.Round(a.DelayNs)), uint64(1)<<uint(f.P.DelayW)-1),
		Hops:  uint64(f.Hops), Acked: min(uint64(math.Round(a.Acked)), uint64(1)<<uint(f.P.AckW)-1)}
	var r snyder.SwiftFxResult
	f.M.StepTo(&e, &r)
	return math.Ldexp(float64(r.Cwnd), -f.P.FracW)
}

// SwiftFxMode is p with the mode's mechanisms as SwiftMode sets them for
// the float64 reference: VAI with Table 4.1's Swift constants at hops
// hops, SF every 30 ACKs, the increase on every ACK with either.
func SwiftFxMode(p snyder.SwiftFxParams, m Mode, hops int) snyder.SwiftFxParams {
	p.VAI, p.SF = nil, 0
	if m.VAI {
		p.VAI = snyder.DefaultSwiftVAIFx(p.BaseNs + uint64(hops)*p.PerHopNs)
	}
	if m.SF {
		p.SF = 30
	}
	p.AlwaysAI = m.VAI || m.SF
	return p
}

// SwiftFxConvergence runs b in each mode with the flows as connections
// 0..Flows-1 of one swift block per mode, which newBlock makes (the
// golden model, or the RTL); p's initial window is b's.
func SwiftFxConvergence(b Bottleneck, p snyder.SwiftFxParams, newBlock func(snyder.SwiftFxParams) (SwiftFxStepper, error)) ([]*ConvergeResult, error) {
	p.InitCwnd = snyder.FixedOfFloat(b.InitCwnd, p.FracW)
	if p.NumConn < b.Flows {
		return nil, fmt.Errorf("swift: %d connections for %d flows", p.NumConn, b.Flows)
	}
	blocks := newModeBlocks(newBlock, SwiftFxStepper(nopSwift{}))
	rs, err := b.runModes(Modes, func(m Mode, i int) Window {
		mp := SwiftFxMode(p, m, 1)
		return NewSwiftFxFlow(blocks.get(m.Name, mp), mp, uint32(i), 1, float64(i)*b.StaggerNs)
	})
	if blocks.err != nil {
		return nil, blocks.err
	}
	return rs, err
}

// modeBlocks makes one block per mode on its first use; a block that
// cannot be made is nop, and the first error is kept for the caller.
type modeBlocks[P, B any] struct {
	make   func(P) (B, error)
	nop    B
	blocks map[string]B
	err    error
}

func newModeBlocks[P, B any](make func(P) (B, error), nop B) *modeBlocks[P, B] {
	return &modeBlocks[P, B]{make: make, nop: nop, blocks: map[string]B{}}
}

func (m *modeBlocks[P, B]) get(mode string, p P) B {
	if blk, ok := m.blocks[mode]; ok {
		return blk
	}
	blk, err := m.make(p)
	if err != nil {
		if m.err == nil {
			m.err = err
		}
		blk = m.nop
	}
	m.blocks[mode] = blk
	return blk
}

// nopSwift stands in for a block that could not be made (its error is
// returned).
type nopSwift struct{}

func (nopSwift) StepTo(_ *snyder.SwiftFxEvent, r *snyder.SwiftFxResult) { *r = snyder.SwiftFxResult{} }

// GoldenSwiftFx makes the golden model (SwiftFxConvergence's newBlock).
func GoldenSwiftFx(p snyder.SwiftFxParams) (SwiftFxStepper, error) { return snyder.NewSwiftFxModel(p) }

// HPCCFlow puts an HPCC flow behind Window.
type HPCCFlow struct {
	P snyder.HPCCParams
	H *snyder.HPCC
}

func (f *HPCCFlow) Ack(a snyder.Ack) float64 { return f.H.Ack(f.P, a) }

// HPCCFxStepper is an hpcc block as the convergence simulator drives it.
type HPCCFxStepper interface {
	StepTo(e *snyder.HPCCFxEvent, r *snyder.HPCCFxResult)
}

// HPCCFxFlow puts connection Conn of an hpcc block behind Window, the
// telemetry rounded to whole bytes and ns.
type HPCCFxFlow struct {
	M    HPCCFxStepper
	P    snyder.HPCCFxParams
	Conn uint32
}

// NewHPCCFxFlow opens connection conn of m.
func NewHPCCFxFlow(m HPCCFxStepper, p snyder.HPCCFxParams, conn uint32) *HPCCFxFlow {
	var r snyder.HPCCFxResult
	m.StepTo(&snyder.HPCCFxEvent{Conn: conn, Kind: snyder.HPCCOpen}, &r)
	return &HPCCFxFlow{M: m, P: p, Conn: conn}
}

func (f *HPCCFxFlow) Ack(a snyder.Ack) float64 {
	e := snyder.HPCCFxEvent{Conn: f.Conn, Kind: snyder.HPCCAck, Seq: uint64(a.Seq), SndNxt: uint64(a.SndNxt),
		QLen: min(uint64(math.Round(a.QLenBytes)), uint64(1)<<uint(f.P.QW)-1),
		TxB:  uint64(math.Round(a.TxBytes)), Ts: uint64(math.Round(a.TsNs))}
	var r snyder.HPCCFxResult
	f.M.StepTo(&e, &r)
	return math.Ldexp(float64(r.Cwnd), -f.P.FracW)
}

// HPCCFxMode is p with the mode's mechanisms, as HPCCMode sets them for
// the float64 reference.
func HPCCFxMode(p snyder.HPCCFxParams, m Mode) snyder.HPCCFxParams {
	p.VAI, p.SF, p.SFKeepsRTT = nil, 0, false
	if m.VAI {
		p.VAI = snyder.DefaultHPCCVAIFx()
	}
	if m.SF {
		p.SF, p.SFKeepsRTT = 30, m.SFKeepsRTT
	}
	return p
}

// HPCCFxConvergence runs b in each of HPCCModes with one hpcc block per mode
// (newBlock makes it: the golden model or the RTL); p's link, base RTT
// and initial window are b's.
func HPCCFxConvergence(b Bottleneck, p snyder.HPCCFxParams, newBlock func(snyder.HPCCFxParams) (HPCCFxStepper, error)) ([]*ConvergeResult, error) {
	p.InitCwnd = snyder.FixedOfFloat(b.InitCwnd, p.FracW)
	p.LinkBpns, p.BaseRTTNs = b.LinkGbps/8, uint64(math.Round(b.BaseRTT()))
	p.AI = snyder.FixedOfFloat(50e6*b.BaseRTT()/8e12*1000/float64(b.MTU), p.FracW)
	p.MaxCwnd = min(snyder.FixedOfFloat(b.LinkGbps/8*b.BaseRTT()/float64(b.MTU), p.FracW), uint64(1)<<uint(p.CwndW())-1)
	if p.NumConn < b.Flows {
		return nil, fmt.Errorf("hpcc: %d connections for %d flows", p.NumConn, b.Flows)
	}
	blocks := newModeBlocks(newBlock, HPCCFxStepper(nopHPCC{}))
	rs, err := b.runModes(HPCCModes, func(m Mode, i int) Window {
		mp := HPCCFxMode(p, m)
		return NewHPCCFxFlow(blocks.get(m.Name, mp), mp, uint32(i))
	})
	if blocks.err != nil {
		return nil, blocks.err
	}
	return rs, err
}

type nopHPCC struct{}

func (nopHPCC) StepTo(_ *snyder.HPCCFxEvent, r *snyder.HPCCFxResult) { *r = snyder.HPCCFxResult{} }

// GoldenHPCCFx makes the golden model (HPCCFxConvergence's newBlock).
func GoldenHPCCFx(p snyder.HPCCFxParams) (HPCCFxStepper, error) { return snyder.NewHPCCFxModel(p) }
