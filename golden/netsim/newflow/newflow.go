// Package newflow shows 1RC's headline (S3 Section 5.2, S3:L1225-1254): a
// flow that joins a busy bottleneck gets its fair share within one RTT,
// its speculative packets are dropped in order, and nothing arrives out of
// order. The three 1RC blocks play their parts, each the golden model or
// the Verilated block behind the same interface:
//
//   - sperc_link at the bottleneck computes b, the fair rate per unit of
//     weight, from the control packets of every flow;
//   - onerc_switch at the same port keeps the window table (filled with
//     rate_to_window(b) by the epoch's first control packet) and drops the
//     new flow's speculative packets from max(1, entry / weight) on;
//   - onerc_host at the new flow's host gives its weight (the host's
//     connection count at the epoch's start), numbers its speculative
//     packets, and from the returning control packet the packet to resume
//     from and the pacing rate b / weight.
//
// The scene: Old flows of weight 1 share a link of C, each sending one
// control packet per epoch (the round of sperc_link) from time 0, so b
// has settled at C / Old when, at Join, a new flow opens on a host that
// had Weight connections open at the epoch's start (its weight, S3:L1340;
// none for a weight of 1, which the floor of one gives). Its
// first control packet reaches the port after Prop, joins B at the link
// (b = C / (Old + 1/w) per unit of weight), fills the epoch's entry and
// carries let_through back; its speculative packets, sent at line rate
// behind it, reach the port behind it and are dropped from the threshold
// on. One RTT after joining the flow learns let_through and its rate, and
// sends the rest of its message, scheduled, from the host's resume point
// at that rate. rate_to_window(b) = floor(b x epoch / MTU). Rates
// are in Mb/s, sperc_link's unit. The old flows keep their pace; the
// scene measures the new flow alone.
package newflow

import (
	"fmt"
	"math"

	"github.com/nicgen/nicgen/golden/onerc"
)

// Link, Port and Host are sperc_link, onerc_switch and onerc_host as the
// scene sees them.
type (
	Link interface {
		StepTo(*onerc.SPERCEvent, *onerc.SPERCResult)
	}
	Port interface {
		StepTo(*onerc.SwitchEvent, *onerc.SwitchResult)
	}
	Host interface {
		StepTo(*onerc.HostEvent, *onerc.HostResult)
	}
)

// Blocks are the three blocks of a run.
type Blocks struct {
	Link Link
	Port Port
	Host Host
}

// Config is one scene; times in ns, rates in Gb/s.
type Config struct {
	LinkGbps          float64
	MTU               int
	Old               int     // flows already at their fair share
	Weight            uint64  // connections open on the new flow's host at the epoch's start: its weight
	PropNs            float64 // one way, host to port and port to host
	EpochNs           float64 // the epoch length: the longest uncongested RTT
	JoinNs            float64
	MessagePackets    int
	Slots, TagW, WinW int // the port's window table (onerc_switch's parameters)
}

// Default is a 100 Gb/s link of 1000 B packets shared by 3 flows, a new
// flow joining at 30 us with a 200-packet message, 3 us each way, epochs
// of 6 us (the RTT), the default window table.
func Default() Config {
	return Config{LinkGbps: 100, MTU: 1000, Old: 3, Weight: 1, PropNs: 3000, EpochNs: 6000, JoinNs: 30_000,
		MessagePackets: 200, Slots: 16, TagW: 16, WinW: 12}
}

// LinkParams, PortParams and HostParams are the blocks' parameters for a
// scene: sperc_link's defaults with the link's capacity in Mb/s, the
// configured window table, onerc_host's defaults.
func LinkParams(c Config) onerc.SPERCParams {
	p := onerc.DefaultSPERCParams()
	p.CapRate = uint64(math.Round(c.LinkGbps * 1000))
	return p
}

func PortParams(c Config) onerc.SwitchParams {
	return onerc.SwitchParams{NumConn: c.Slots, ConnW: 16, KindW: 2, TagW: c.TagW, WinW: c.WinW, WeightW: 8, SeqW: 16}
}

func HostParams(Config) onerc.HostParams { return onerc.DefaultHostParams() }

// GoldenBlocks are the three golden models of a scene.
func GoldenBlocks(c Config) (Blocks, error) {
	l, err := onerc.NewSPERCModel(LinkParams(c))
	if err != nil {
		return Blocks{}, err
	}
	p, err := onerc.NewSwitchModel(PortParams(c))
	if err != nil {
		return Blocks{}, err
	}
	h, err := onerc.NewHostModel(HostParams(c))
	if err != nil {
		return Blocks{}, err
	}
	return Blocks{l, p, h}, nil
}

// Result is what the new flow saw.
type Result struct {
	B          uint64  // sperc_link's b for the new flow's first control packet, Mb/s per unit of weight
	Weight     uint64  // the weight onerc_host gave the flow
	RateMbps   uint64  // onerc_host's pacing rate from the return: floor(b / weight)
	FairGbps   float64 // RateMbps in Gb/s
	Window     uint64  // rate_to_window(b), the epoch's entry
	LetThrough uint64  // what the control packet brought back
	Resume     uint64  // onerc_host's resume point
	// Delivered is the sequence of packets the receiver got, in arrival
	// order; Dropped the speculative ones the port dropped (the flow's
	// own packet numbers).
	Delivered, Dropped []uint64
	// FirstRTTGbps is the new flow's delivered rate over its first RTT
	// after the first arrival; SteadyGbps over the next RTT.
	FirstRTTGbps, SteadyGbps float64
	InOrder                  bool // the receiver saw 0, 1, 2, ... with no gap or repeat
}

// scene runs the blocks, failing on the first error result.
type scene struct {
	b   Blocks
	err error
}

func (s *scene) link(e onerc.SPERCEvent) onerc.SPERCResult {
	var r onerc.SPERCResult
	s.b.Link.StepTo(&e, &r)
	if r.Error && s.err == nil {
		s.err = fmt.Errorf("newflow: sperc_link refused %+v", e)
	}
	return r
}

func (s *scene) port(e onerc.SwitchEvent) onerc.SwitchResult {
	var r onerc.SwitchResult
	s.b.Port.StepTo(&e, &r)
	if r.Error && s.err == nil {
		s.err = fmt.Errorf("newflow: onerc_switch refused %+v", e)
	}
	return r
}

func (s *scene) host(e onerc.HostEvent) onerc.HostResult {
	var r onerc.HostResult
	s.b.Host.StepTo(&e, &r)
	if r.Error && s.err == nil {
		s.err = fmt.Errorf("newflow: onerc_host refused %+v", e)
	}
	return r
}

// ctrl is a control packet of a flow at the link: this link is hop 0 of
// two, the other hop (the host's link) is ignored.
func (s *scene) ctrl(lp onerc.SPERCParams, round uint64, state onerc.FlowState, xl, oldW, newW uint64) onerc.SPERCResult {
	e := onerc.SPERCEvent{Kind: onerc.SpCtrl, Round: round & (uint64(1)<<uint(lp.RoundW) - 1), State: state, XL: xl,
		OldW: oldW, NewW: newW, Ignore: 1<<uint(lp.Hops) - 2}
	for j := range e.B {
		e.B[j] = lp.Inf()
	}
	return s.link(e)
}

// Run plays the scene with the blocks (opened here).
func Run(c Config, b Blocks) (*Result, error) {
	if c.Old < 1 || c.Weight < 1 || c.LinkGbps <= 0 || c.MTU < 1 || c.PropNs <= 0 || c.EpochNs <= 0 || c.MessagePackets < 1 ||
		c.Slots < 2 || c.JoinNs < c.EpochNs {
		return nil, fmt.Errorf("newflow: %+v: not a scene", c)
	}
	lp, hp := LinkParams(c), HostParams(c)
	s := &scene{b: b}
	pktNs := float64(c.MTU) * 8 / c.LinkGbps
	epochOf := func(t float64) uint64 { return uint64(t / c.EpochNs) }
	for slot := 0; slot < c.Slots; slot++ {
		s.port(onerc.SwitchEvent{Conn: uint32(slot), Kind: onerc.SwOpen})
	}
	s.link(onerc.SPERCEvent{Kind: onerc.SpOpen})
	// the old flows: one control packet each per epoch, until the join
	type oldFlow struct {
		state onerc.FlowState
		x     uint64
	}
	olds := make([]oldFlow, c.Old)
	for i := range olds {
		olds[i].state = onerc.StateNew
	}
	join := epochOf(c.JoinNs)
	for round := uint64(0); round < join; round++ {
		for i := range olds {
			r := s.ctrl(lp, round, olds[i].state, olds[i].x, 1, 1)
			olds[i] = oldFlow{r.State, r.X}
		}
	}
	// the new flow's host: Weight other connections open before the
	// epoch (for a weight of 1, none: the floor of one gives it)
	for k := uint64(1); c.Weight > 1 && k <= c.Weight; k++ {
		s.host(onerc.HostEvent{Conn: uint32(k), Kind: onerc.HostOpen, Epoch: join - 1})
	}
	open := s.host(onerc.HostEvent{Conn: 0, Kind: onerc.HostOpen, Epoch: join})
	r := &Result{Weight: open.NewWeight, InOrder: true}
	// its first control packet at the link and the port
	first := s.ctrl(lp, join, onerc.StateNew, 0, open.OldWeight, open.NewWeight)
	r.B = first.B
	r.Window = uint64(math.Floor(float64(first.B) * c.EpochNs / (8000 * float64(c.MTU))))
	if r.Window>>uint(c.WinW) != 0 {
		return nil, fmt.Errorf("newflow: a window of %d packets does not fit %d bits", r.Window, c.WinW)
	}
	slots := uint64(c.Slots)
	slot, tag := uint32(open.Epoch%slots), (open.Epoch/slots)&(uint64(1)<<uint(c.TagW)-1)
	sw := s.port(onerc.SwitchEvent{Conn: slot, Kind: onerc.SwCtrl, Tag: tag, Window: r.Window, Weight: open.NewWeight,
		LetThrough: uint64(1)<<uint(c.WinW) - 1})
	r.LetThrough = sw.LetThrough
	learnNs := c.JoinNs + 2*c.PropNs // its answer is back one RTT later
	type arrival struct {
		pkt uint64
		at  float64
	}
	var got []arrival
	// speculative packets at line rate until the answer is back
	pkt := uint64(0)
	for t := c.JoinNs + pktNs; t < learnNs && pkt < uint64(c.MessagePackets); t += pktNs {
		h := s.host(onerc.HostEvent{Conn: 0, Kind: onerc.HostSend, Epoch: epochOf(t)})
		if h.Status != onerc.StatusSpec {
			return nil, fmt.Errorf("newflow: speculative packet %d: onerc_host says status %d", pkt, h.Status)
		}
		d := s.port(onerc.SwitchEvent{Conn: slot, Kind: onerc.SwData, Tag: tag, Weight: h.NewWeight, Seq: h.Seq, Spec: true})
		if d.Drop {
			r.Dropped = append(r.Dropped, pkt)
		} else {
			got = append(got, arrival{pkt, t + 2*c.PropNs})
		}
		pkt++
	}
	// the return: the packet to resume from and the rate (S3:L1348-1350)
	back := s.host(onerc.HostEvent{Conn: 0, Kind: onerc.HostCtrlRx, Epoch: epochOf(learnNs), B: first.B,
		LetThrough: r.LetThrough, Weight: open.NewWeight, Bottleneck: true})
	if !back.Ended || back.Rate == 0 {
		return nil, fmt.Errorf("newflow: the control packet's return: %+v", back)
	}
	r.Resume, r.RateMbps = back.Resume, back.Rate
	r.FairGbps = float64(back.Rate) / 1000
	gap := float64(c.MTU) * 8 / r.FairGbps
	t := learnNs
	for p := r.Resume; p < uint64(c.MessagePackets); p++ {
		t += gap
		h := s.host(onerc.HostEvent{Conn: 0, Kind: onerc.HostSend, Epoch: epochOf(t)})
		if h.Status != onerc.StatusSched || h.Rate != back.Rate {
			return nil, fmt.Errorf("newflow: scheduled packet %d: onerc_host says %+v", p, h)
		}
		d := s.port(onerc.SwitchEvent{Conn: slot, Kind: onerc.SwData, Tag: tag, Weight: open.NewWeight, Seq: p & (uint64(1)<<uint(hp.SeqW) - 1)})
		if d.Drop {
			return nil, fmt.Errorf("newflow: the port dropped scheduled packet %d", p)
		}
		got = append(got, arrival{p, t + 2*c.PropNs})
	}
	if s.err != nil {
		return nil, s.err
	}
	for i, a := range got {
		r.Delivered = append(r.Delivered, a.pkt)
		if a.pkt != uint64(i) {
			r.InOrder = false
		}
	}
	if len(got) > 0 {
		rtt := 2 * c.PropNs
		from := got[0].at
		count := func(from, to float64) int {
			n := 0
			for _, a := range got {
				if a.at >= from && a.at < to {
					n++
				}
			}
			return n
		}
		r.FirstRTTGbps = float64(count(from, from+rtt)*c.MTU*8) / rtt
		r.SteadyGbps = float64(count(from+rtt, from+2*rtt)*c.MTU*8) / rtt
	}
	return r, nil
}
