// Package collective is the closed loop of 3CPO (S3 chapter 6, issue 13):
// GPUs of one multicast group behind one switch run an all-reduce, each
// initiator doing read reductions each followed by a write multicast (a
// transaction), under no congestion control, the static windows of S3
// Table 6.1, or 3CPO: the irl_tokens unit gates every request, the
// wm_ctrl unit sets its watermarks from probes and matched tokens, and
// multicast matching (golden/threecpo Matcher) charges each send the
// flits of the other senders' requests it contends with.
//
// The simulator is cycle-level and deterministic: one flit per cycle per
// link, output-queued switch ports with a request and a response VC,
// constant switch and memory latencies. The irl_tokens and wm_ctrl units
// come through the IRL and WM interfaces, so the Verilated blocks can
// replace the golden models (verilator-harness/blockeq, TestCollective*)
// and must give the identical run. Choices where the thesis is silent
// are in docs/sim.md ("Collective").
package collective

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/nicgen/nicgen/golden/threecpo"
)

// Control is the congestion control of a run.
type Control string

// The controls: no congestion control, the static hand-tuned window of
// Table 6.1, and 3CPO.
const (
	None     Control = "none"
	Window   Control = "window"
	ThreeCPO Control = "3cpo"
)

// Controls are the three, in the report's order.
var Controls = []Control{None, Window, ThreeCPO}

// ParseControl reads a control's name.
func ParseControl(s string) (Control, error) {
	for _, c := range Controls {
		if string(c) == s {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown control %q (want none, window or 3cpo)", s)
}

// Table61 is S3 Table 6.1: the hand-tuned window for each initiator
// count of the thesis's 64-GPU all-reduce.
var Table61 = map[int]int{64: 3, 32: 5, 16: 12, 8: 24, 4: 48, 2: 128, 1: 128}

// TableWindow is Table 6.1's window for n initiators: the entry of the
// smallest listed count at or above n (64's beyond it).
func TableWindow(n int) int {
	for _, k := range []int{1, 2, 4, 8, 16, 32, 64} {
		if k >= n {
			return Table61[k]
		}
	}
	return Table61[64]
}

// Config is one run.
type Config struct {
	GPUs         int // members of the multicast group, all behind one switch
	Initiators   int // GPUs 0..Initiators-1 run transactions
	Transactions int // per initiator: read reductions, each followed by its write multicast
	Control      Control
	// Window is the static window, per operation type (reads and writes
	// each, as S3:L1566's example), for Control Window; 0 takes
	// TableWindow(Initiators).
	Window int
	// SwitchLatency is one switch's latency in cycles (S3:L1570: 150);
	// Hops switches lie on every path (3: GPU, ToR, core, ToR, GPU of the
	// thesis's two-level tree, as latency only).
	SwitchLatency, Hops int
	MemLatency          int // cycles from a request's arrival to its response (S3:L1577: 180)
	// BufferFlits is the room of each output port's request VC, and of
	// each input's VCs beyond the PathLatency flits its path holds in
	// flight: a GPU starts a packet only when its switch input has credits
	// for it. Responses always drain (the reductions and the GPUs take
	// them), so only requests back up. 300: twice the switch latency, the
	// round trip between switches (S3:L1575).
	BufferFlits int
	DataFlits   int // a data packet: 128 B payload and a 16 B header in 16 B flits (9)
	// IRL and WM are the parameters of the irl_tokens and wm_ctrl units
	// (their golden models; the Verilated blocks are built at the same).
	// IRL.MaxCost also bounds what the loop makes one send pay of the
	// matched tokens owed (sim.go, send): the rest waits for the VC's
	// next send.
	IRL   threecpo.IRLParams
	WM    threecpo.WMFxParams
	Match threecpo.MatchParams // MI parameters (Members is set from GPUs)
	// IRLPorts and WMInstances are the units' table sizes: two irl_tokens
	// ports per initiator (its read and its write VC) and two wm_ctrl
	// instances (its request and response watermarks).
	IRLPorts, WMInstances int
	Seed                  uint32 // the ports' LFSR seeds derive from it
	MaxCycles             int64  // a run longer than this fails
}

// Default is the thesis's setting (S3:L1570-1579) on one switch: 64
// GPUs, 64 initiators of 128 transactions, 9-flit packets, 150-cycle
// switches on 3-hop paths, 180-cycle memory, under 3CPO with the blocks'
// default parameters.
func Default() Config {
	return Config{GPUs: 64, Initiators: 64, Transactions: 128, Control: ThreeCPO, SwitchLatency: 150, Hops: 3, MemLatency: 180, BufferFlits: 300,
		DataFlits: 9, IRL: threecpo.DefaultIRLParams(), WM: threecpo.DefaultWMFx(), Match: threecpo.DefaultMatchParams(),
		IRLPorts: 128, WMInstances: 4096, Seed: 0x3C90A5E1, MaxCycles: 50_000_000}
}

// PathLatency is the switches' latency on a path: SwitchLatency x Hops.
func (c Config) PathLatency() int { return c.SwitchLatency * c.Hops }

// Validate reports what is out of range.
func (c Config) Validate() error {
	var errs []error
	if c.GPUs < 2 || c.GPUs > 1024 {
		errs = append(errs, fmt.Errorf("GPUs %d: want 2..1024", c.GPUs))
	}
	if c.Initiators < 1 || c.Initiators > c.GPUs {
		errs = append(errs, fmt.Errorf("initiators %d: want 1..GPUs (%d)", c.Initiators, c.GPUs))
	}
	if c.Transactions < 1 || c.Transactions > 1<<20 {
		errs = append(errs, fmt.Errorf("transactions %d: want 1..2^20", c.Transactions))
	}
	if _, err := ParseControl(string(c.Control)); err != nil {
		errs = append(errs, err)
	}
	if c.Window < 0 {
		errs = append(errs, fmt.Errorf("window %d: want 0 (Table 6.1) or more", c.Window))
	}
	if c.SwitchLatency < 0 || c.Hops < 1 || c.MemLatency < 0 || c.PathLatency() > 1<<16 || c.MemLatency > 1<<16 {
		errs = append(errs, fmt.Errorf("latencies: switch %d x %d hops, memory %d: want hops >= 1, each at most 65536", c.SwitchLatency, c.Hops, c.MemLatency))
	}
	if c.BufferFlits < c.DataFlits || c.BufferFlits > 1<<20 {
		errs = append(errs, fmt.Errorf("buffer %d flits: want a data packet (%d) to 2^20", c.BufferFlits, c.DataFlits))
	}
	if c.DataFlits < 2 || c.DataFlits > 64 {
		errs = append(errs, fmt.Errorf("data flits %d: want 2..64", c.DataFlits))
	}
	if c.Control == ThreeCPO {
		if err := c.IRL.Validate(); err != nil {
			errs = append(errs, err)
		}
		if err := c.WM.Validate(); err != nil {
			errs = append(errs, err)
		}
		m := c.Match
		m.Members = c.GPUs - 1
		if err := m.Validate(); err != nil {
			errs = append(errs, err)
		}
		if 2*c.Initiators > c.IRLPorts || 2*c.Initiators > c.WMInstances {
			errs = append(errs, fmt.Errorf("%d initiators need %d irl_tokens ports and %d wm_ctrl instances: the units have %d and %d",
				c.Initiators, 2*c.Initiators, 2*c.Initiators, c.IRLPorts, c.WMInstances))
		}
		if c.IRL.MaxCost < int32(c.DataFlits) || c.IRL.MaxCost > 1<<16 || c.IRL.WMMax != c.WM.WMMax {
			errs = append(errs, fmt.Errorf("irl_tokens's max cost %d must hold a %d-flit packet and be at most 65536, and its WM_MAX %d be wm_ctrl's %d",
				c.IRL.MaxCost, c.DataFlits, c.IRL.WMMax, c.WM.WMMax))
		}
	}
	if c.MaxCycles < 1 {
		errs = append(errs, errors.New("MaxCycles must be positive"))
	}
	return errors.Join(errs...)
}

// Bound is the effective bandwidth the links allow: per transaction of
// each initiator every member's downlink carries the read request (1
// flit) and the write (DataFlits), its uplink the read response
// (DataFlits) and the write's ack (1 flit); an initiator's links carry
// its own transaction's packets on top. It is 2 D/(D+1) I/(I+1) for D
// data flits and I initiators: 1.8 x 64/65 = 1.772 for the thesis's 64.
func (c Config) Bound() float64 {
	d, i := float64(c.DataFlits), float64(c.Initiators)
	return 2 * d / (d + 1) * i / (i + 1)
}

// IRLTableParams are the irl_tokens unit's table at this configuration.
func (c Config) IRLTableParams() threecpo.IRLTableParams {
	return threecpo.IRLTableParams{IRLParams: c.IRL, NumConn: c.IRLPorts, ConnW: max(16, bits.Len(uint(c.IRLPorts-1))), KindW: 2}
}

// GoldenUnits are the golden models of irl_tokens and wm_ctrl at the
// configuration's parameters.
func GoldenUnits(c Config) (Units, error) {
	irl, err := threecpo.NewIRLTable(c.IRLTableParams())
	if err != nil {
		return Units{}, err
	}
	wm, err := threecpo.NewWMTable(c.WM, c.WMInstances, max(16, bits.Len(uint(c.WMInstances-1))), 2)
	if err != nil {
		return Units{}, err
	}
	return Units{IRL: irl, WM: wm}, nil
}

// IRL is the irl_tokens unit as the loop sees it: one event at a time,
// its result at once (golden/threecpo IRLTable, or the Verilated block).
type IRL interface {
	StepTo(*threecpo.IRLEvent, *threecpo.IRLEventResult)
}

// WM is the wm_ctrl unit as the loop sees it (golden/threecpo WMTable, or
// the Verilated block).
type WM interface {
	StepTo(*threecpo.WMEvent, *threecpo.WMResult)
}

// Units are a 3CPO run's irl_tokens and wm_ctrl.
type Units struct {
	IRL IRL
	WM  WM
}
