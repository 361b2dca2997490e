package isolation

import (
	"fmt"
	"math"

	"github.com/nicgen/nicgen/golden/netsim/convergence"
	"github.com/nicgen/nicgen/golden/smartt"
	"github.com/nicgen/nicgen/golden/snyder"
)

// network is the dumbbell a control runs on: every link at LinkGbps, one
// propagation delay per hop (sender to switch, switch to receiver and back
// the same way), so that a full packet's unloaded RTT is its serialisation
// at the sender and at the egress plus four propagation delays. Times are
// in picoseconds, exact for both networks used here.
type network struct {
	Name     string  `json:"name"`
	LinkGbps float64 `json:"link_gbps"`
	MTU      int     `json:"mtu"`
	PropPs   int64   `json:"prop_ps"`
	BaseRTT  int64   `json:"base_rtt_ps"`
	BDP      int64   `json:"bdp_bytes"`
}

// serPs is the serialisation of size bytes on any link.
func (n network) serPs(size int) int64 {
	return int64(math.Round(float64(size) * 8000 / n.LinkGbps))
}

// smarttNet is the network SMaRTT's parameters are tuned for (800 Gb/s,
// 4096 B, 8.6 us base RTT): the propagation delays make a full packet's
// RTT exactly the base RTT the controller expects.
func smarttNet(p smartt.Params) network {
	n := network{Name: fmt.Sprintf("%g Gb/s, %d B, base RTT %d ns", p.Network.LinkGbps, p.Network.MTU, p.Network.BrttNs),
		LinkGbps: p.Network.LinkGbps, MTU: int(p.Network.MTU), BaseRTT: int64(p.Network.BrttNs) * 1000}
	n.PropPs = (n.BaseRTT - 2*n.serPs(n.MTU)) / 4
	n.BDP = int64(p.Derive().BDP)
	return n
}

// thesisNet is the thesis's microbenchmark network
// (convergence.DefaultBottleneck: 100 Gb/s, 1000 B, 1 us per hop, an unloaded
// RTT of 4.16 us and a BDP of 52 packets), which Swift's, HPCC's and 1RC's
// constants are written for.
func thesisNet() network {
	b := convergence.DefaultBottleneck()
	n := network{Name: fmt.Sprintf("%g Gb/s, %d B, base RTT %g ns", b.LinkGbps, b.MTU, b.BaseRTT()),
		LinkGbps: b.LinkGbps, MTU: b.MTU, PropPs: int64(b.PropNs * 1000)}
	n.BaseRTT = 2*n.serPs(n.MTU) + 4*n.PropPs
	n.BDP = int64(math.Floor(n.LinkGbps * float64(n.BaseRTT) / 8000))
	return n
}

// ackInfo is what a sender learns from one ACK (as snyder.Ack, plus the
// ECN echo and the state's bytes still in flight).
type ackInfo struct {
	delayNs, nowNs float64
	size           int
	ecn            bool
	unacked        int64
	seq, sndNxt    int64
	qlen, tx, tsNs float64
}

// window is one congestion-control state: an ACK in, the window in bytes
// out; close returns the state's resources (a connection id).
type window interface {
	ack(a ackInfo) (cwndBytes float64, err error)
	close()
}

// windowControl makes the states of a window control on its network.
type windowControl interface {
	net() network
	// open makes a state at time nowNs, with its initial window (bytes).
	open(id int, nowNs float64) (window, float64, error)
}

// smarttControl runs the smartt or nscc block's fixed-point golden model:
// one model (a NIC's state table) serves every state of a run, each state
// on a connection id of its own, reopened when reused.
type smarttControl struct {
	p    smartt.Params
	n    network
	m    *smartt.Model
	free []uint32 // connection ids of closed states, reused last-in first
	next uint32
}

func newSMaRTT(v smartt.Variant) (*smarttControl, error) {
	p := smartt.DefaultParams(v)
	// RDMA QPs start at line rate: one BDP, not the default MaxCwnd
	p.InitCwnd = uint32(p.Derive().BDP)
	m, err := smartt.NewModel(p)
	if err != nil {
		return nil, err
	}
	return &smarttControl{p: p, n: smarttNet(p), m: m}, nil
}

func (c *smarttControl) net() network { return c.n }

func (c *smarttControl) open(_ int, nowNs float64) (window, float64, error) {
	var conn uint32
	switch {
	case len(c.free) > 0:
		conn, c.free = c.free[len(c.free)-1], c.free[:len(c.free)-1]
	case int(c.next) < c.p.NumConn:
		conn = c.next
		c.next++
	default:
		return nil, 0, fmt.Errorf("%s: more than %d states open at once", c.p.Variant, c.p.NumConn)
	}
	r := c.m.Step(smartt.Event{Conn: conn, Kind: smartt.KindOpen, Now: uint64(nowNs)})
	if r.Error {
		return nil, 0, fmt.Errorf("%s: open of connection %d rejected", c.p.Variant, conn)
	}
	return &smarttWindow{c: c, conn: conn}, float64(r.Cwnd), nil
}

type smarttWindow struct {
	c    *smarttControl
	conn uint32
}

func (w *smarttWindow) ack(a ackInfo) (float64, error) {
	// an RTT beyond the port saturates (a wrapped one would read as an
	// empty network), as golden/netsim's feedbackIn does
	rttMax := uint64(1)<<uint(w.c.p.RttW) - 1
	byteMax := uint64(1)<<uint(w.c.p.ByteW) - 1
	e := smartt.Event{Conn: w.conn, Kind: smartt.KindAck, Size: uint32(a.size), ECN: a.ecn,
		RTT: uint32(min(uint64(a.delayNs), rttMax)), Unacked: uint32(min(uint64(a.unacked), byteMax)), Now: uint64(a.nowNs)}
	r := w.c.m.Step(e)
	if r.Error {
		return 0, fmt.Errorf("%s: ack %+v rejected", w.c.p.Variant, e)
	}
	return float64(r.Cwnd), nil
}

func (w *smarttWindow) close() { w.c.free = append(w.c.free, w.conn) }

// swiftControl runs the float64 reference of Swift (Table 3.1, one hop).
type swiftControl struct {
	p snyder.SwiftParams
	n network
}

func (c *swiftControl) net() network { return c.n }

func (c *swiftControl) open(_ int, nowNs float64) (window, float64, error) {
	init := float64(c.n.BDP) / float64(c.n.MTU)
	return &swiftWindow{c: c, s: snyder.NewSwift(c.p, init, nowNs)}, init * float64(c.n.MTU), nil
}

type swiftWindow struct {
	c *swiftControl
	s *snyder.Swift
}

func (w *swiftWindow) ack(a ackInfo) (float64, error) {
	return w.s.Ack(w.c.p, a.delayNs, 1, 1, a.nowNs) * float64(w.c.n.MTU), nil
}

func (w *swiftWindow) close() {}

// hpccControl runs the float64 reference of HPCC (Table 3.1) on the
// egress's in-band telemetry.
type hpccControl struct {
	p snyder.HPCCParams
	n network
}

func (c *hpccControl) net() network { return c.n }

func (c *hpccControl) open(id int, _ float64) (window, float64, error) {
	init := float64(c.n.BDP) / float64(c.n.MTU)
	return &hpccWindow{c: c, h: snyder.NewHPCC(c.p, init, id)}, init * float64(c.n.MTU), nil
}

type hpccWindow struct {
	c *hpccControl
	h *snyder.HPCC
}

func (w *hpccWindow) ack(a ackInfo) (float64, error) {
	win := w.h.Ack(w.c.p, snyder.Ack{DelayNs: a.delayNs, Acked: 1, NowNs: a.nowNs, Seq: a.seq, SndNxt: a.sndNxt,
		QLenBytes: a.qlen, TxBytes: a.tx, TsNs: a.tsNs})
	return win * float64(w.c.n.MTU), nil
}

func (w *hpccWindow) close() {}

// newWindowControl makes a fresh control for one run (the smartt model's
// table starts empty in every run).
func newWindowControl(k Control) (windowControl, error) {
	switch k {
	case SMaRTT:
		return newSMaRTT(smartt.Conf)
	case NSCC:
		return newSMaRTT(smartt.NSCC)
	case Swift:
		return &swiftControl{p: snyder.DefaultSwift(), n: thesisNet()}, nil
	case HPCC:
		return &hpccControl{p: thesisHPCC(), n: thesisNet()}, nil
	}
	return nil, fmt.Errorf("control %q has no window", k)
}

// thesisHPCC is Table 3.1's HPCC on the thesis's microbenchmark network.
func thesisHPCC() snyder.HPCCParams {
	b := convergence.DefaultBottleneck()
	return snyder.DefaultHPCC(b.LinkGbps, b.MTU, b.BaseRTT())
}
