// Package newflow shows 1RC's headline (S3 Section 5.2, S3:L1225-1254): a
// flow that joins a busy bottleneck gets its fair share within one RTT,
// its speculative packets are dropped in order, and nothing arrives out of
// order. The switch port runs onerc_switch (the golden model, or the
// Verilated block behind the same interface); everything else is kept
// ideal, because sperc_link is not built yet: the port's fair rate b is
// C / (flows), and rate_to_window(b) = floor(b x epoch / MTU).
//
// The scene: Old flows share a link of C at C/Old each, paced. At Join a
// new flow (weight Weight) sends its first control packet and, behind it,
// speculative packets at line rate, sequence 0, 1, 2, ... The control
// packet reaches the port after Prop, fills the epoch's entry and carries
// let_through back; the packets reach the port behind it and are dropped
// from max(1, entry / weight) on. One RTT after joining the flow learns
// let_through L and its rate b, and sends the rest of its message
// non-speculatively from sequence L at rate b / weight.
package newflow

import (
	"fmt"
	"math"

	"github.com/nicgen/nicgen/golden/onerc"
)

// Port is onerc_switch as the scene sees it.
type Port interface {
	StepTo(*onerc.SwitchEvent, *onerc.SwitchResult)
}

// Config is one scene; times in ns, rates in Gb/s.
type Config struct {
	LinkGbps          float64
	MTU               int
	Old               int     // flows already at their fair share
	Weight            uint64  // the new flow's weight (its host's connections)
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

// Result is what the new flow saw.
type Result struct {
	FairGbps   float64 // b / weight, the new flow's fair share
	Window     uint64  // rate_to_window(b), the epoch's entry
	LetThrough uint64  // what the control packet brought back
	// Delivered is the sequence of packets the receiver got, in arrival
	// order; Dropped the speculative ones the port dropped.
	Delivered, Dropped []uint64
	// FirstRTTGbps is the new flow's delivered rate over its first RTT
	// after the first arrival; SteadyGbps over the next RTT.
	FirstRTTGbps, SteadyGbps float64
	InOrder                  bool // the receiver saw 0, 1, 2, ... with no gap or repeat
}

// Run plays the scene with the port p (opened here).
func Run(c Config, p Port) (*Result, error) {
	if c.Old < 1 || c.Weight < 1 || c.LinkGbps <= 0 || c.MTU < 1 || c.PropNs <= 0 || c.EpochNs <= 0 || c.MessagePackets < 1 || c.Slots < 2 {
		return nil, fmt.Errorf("newflow: %+v: not a scene", c)
	}
	pktNs := float64(c.MTU) * 8 / c.LinkGbps
	fair := c.LinkGbps / float64(c.Old+1)
	win := uint64(math.Floor(fair * c.EpochNs / (8 * float64(c.MTU))))
	if win>>uint(c.WinW) != 0 {
		return nil, fmt.Errorf("newflow: a window of %d packets does not fit %d bits", win, c.WinW)
	}
	r := &Result{FairGbps: fair / float64(c.Weight), Window: win, InOrder: true}
	step := func(e onerc.SwitchEvent) onerc.SwitchResult {
		var res onerc.SwitchResult
		p.StepTo(&e, &res)
		return res
	}
	for s := 0; s < c.Slots; s++ {
		step(onerc.SwitchEvent{Conn: uint32(s), Kind: onerc.SwOpen})
	}
	epoch := uint64(c.JoinNs / c.EpochNs)
	slot, tag := uint32(epoch%uint64(c.Slots)), (epoch/uint64(c.Slots))&(uint64(1)<<uint(c.TagW)-1)
	// the control packet leaves first and reaches the port first
	ctrl := step(onerc.SwitchEvent{Conn: slot, Kind: onerc.SwCtrl, Tag: tag, Window: win, Weight: c.Weight, LetThrough: uint64(1)<<uint(c.WinW) - 1})
	if ctrl.Error {
		return nil, fmt.Errorf("newflow: the port refused the control packet")
	}
	r.LetThrough = ctrl.LetThrough
	learnNs := c.JoinNs + 2*c.PropNs // its answer is back one RTT later
	type arrival struct {
		seq uint64
		at  float64
	}
	var got []arrival
	// speculative packets at line rate until the answer is back
	seq := uint64(0)
	for t := c.JoinNs + pktNs; t < learnNs && seq < uint64(c.MessagePackets); t += pktNs {
		res := step(onerc.SwitchEvent{Conn: slot, Kind: onerc.SwData, Tag: tag, Weight: c.Weight, Seq: seq, Spec: true})
		if res.Error {
			return nil, fmt.Errorf("newflow: the port refused speculative packet %d", seq)
		}
		if res.Drop {
			r.Dropped = append(r.Dropped, seq)
		} else {
			got = append(got, arrival{seq, t + 2*c.PropNs})
		}
		seq++
	}
	// then the rest from let_through on, scheduled, at the fair rate
	// divided by the weight (S3:L1350)
	gap := float64(c.MTU) * 8 / r.FairGbps
	t := learnNs
	for s := r.LetThrough; s < uint64(c.MessagePackets); s++ {
		t += gap
		res := step(onerc.SwitchEvent{Conn: slot, Kind: onerc.SwData, Tag: tag, Weight: c.Weight, Seq: s, Spec: false})
		if res.Drop || res.Error {
			return nil, fmt.Errorf("newflow: the port dropped scheduled packet %d", s)
		}
		got = append(got, arrival{s, t + 2*c.PropNs})
	}
	for i, a := range got {
		r.Delivered = append(r.Delivered, a.seq)
		if a.seq != uint64(i) {
			r.InOrder = false
		}
	}
	if len(got) > 0 {
		rtt := 2 * c.PropNs
		first := got[0].at
		count := func(from, to float64) int {
			n := 0
			for _, a := range got {
				if a.at >= from && a.at < to {
					n++
				}
			}
			return n
		}
		r.FirstRTTGbps = float64(count(first, first+rtt)*c.MTU*8) / rtt
		r.SteadyGbps = float64(count(first+rtt, first+2*rtt)*c.MTU*8) / rtt
	}
	return r, nil
}
