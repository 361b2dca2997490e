package netsim

import (
	"fmt"

	"github.com/nicgen/nicgen/golden/smartt"
	"github.com/nicgen/nicgen/golden/uet"
)

// Engine is a sender's whole congestion engine (uet_cc): a window
// controller that also sees every send and chooses its entropy. The
// simulator calls Send before a packet leaves, gives the packet the entropy
// it returns, and hands that entropy back with the packet's ack or nack
// (StepEV). Its Step, the Controller method, serves the open.
type Engine interface {
	Controller
	Send(conn, size uint32, nowNs uint64) (ev uint32, err error)
	StepEV(e smartt.Event, ev uint32) smartt.Result
}

// UETStepper is a uet_cc model: the golden composition (golden/uet) or the
// Verilated block behind the same events.
type UETStepper interface {
	Step(uet.Event) uet.Result
}

// UETEngine drives a uet_cc model as a sender's Engine. It checks the
// engine's bytes in flight against the simulator's after every event (they
// count the same packets), and counts the entropies.
type UETEngine struct {
	M UETStepper
	// Explored and Recycled count the sends' entropies by origin;
	// Frozen the results in freezing mode.
	Explored, Recycled, Frozen int64
	// EVs counts the sends of each entropy.
	EVs map[uint32]int64
	err error
}

// NewUETEngine wraps m.
func NewUETEngine(m UETStepper) *UETEngine { return &UETEngine{M: m, EVs: map[uint32]int64{}} }

// Err is the first disagreement between the engine's bytes in flight and
// the simulator's.
func (u *UETEngine) Err() error { return u.err }

var uetKinds = [...]uet.Kind{smartt.KindOpen: uet.KindOpen, smartt.KindAck: uet.KindAck, smartt.KindNack: uet.KindNack, smartt.KindTimeout: uet.KindTimeout}

// Step runs a window controller's event (the open) without an entropy.
func (u *UETEngine) Step(e smartt.Event) smartt.Result { return u.StepEV(e, 0) }

// StepEV runs an ack, nack or timeout carrying the packet's entropy.
func (u *UETEngine) StepEV(e smartt.Event, ev uint32) smartt.Result {
	r := u.M.Step(uet.Event{Conn: e.Conn, Kind: uetKinds[e.Kind&3], Size: e.Size, ECN: e.ECN, RTT: e.RTT, EV: ev, Now: e.Now})
	if r.Inflight != e.Unacked && u.err == nil && !r.Error {
		u.err = fmt.Errorf("uet_cc connection %d: %d bytes in flight after %v, the simulator %d", e.Conn, r.Inflight, e.Kind, e.Unacked)
	}
	if r.Frozen {
		u.Frozen++
	}
	return smartt.Result{Conn: r.Conn, Kind: e.Kind, Cwnd: r.Cwnd, Case: r.Case, QA: r.QA, Fast: r.Fast, Error: r.Error}
}

// Send asks for a packet's entropy and counts it in flight.
func (u *UETEngine) Send(conn, size uint32, nowNs uint64) (uint32, error) {
	r := u.M.Step(uet.Event{Conn: conn, Kind: uet.KindSend, Size: size, Now: nowNs})
	if r.Error {
		return 0, fmt.Errorf("uet_cc connection %d: the send was refused", conn)
	}
	u.count(&r)
	return r.EV, nil
}

// GoldenEngines gives each of n senders a uet_cc golden model of its own as
// its engine, as each sender has a NIC of its own, with its REPS LFSR
// seeded apart (LFSR_SEED is a Verilog parameter) so that the senders
// explore different entropies.
func GoldenEngines(p uet.Params, n int) ([]Controller, []*UETEngine, error) {
	cs := make([]Controller, n)
	es := make([]*UETEngine, n)
	for i := range cs {
		m, err := uet.NewModel(seeded(p, i))
		if err != nil {
			return nil, nil, fmt.Errorf("uet_cc model: %w", err)
		}
		es[i] = NewUETEngine(m)
		cs[i] = es[i]
	}
	return cs, es, nil
}

// seeded is sender i's parameters: its own REPS LFSR seed.
func seeded(p uet.Params, i int) uet.Params {
	p.REPS.LFSRSeed += uint32(i) * 0x9E3779B9
	if p.REPS.LFSRSeed == 0 {
		p.REPS.LFSRSeed = 1
	}
	return p
}

// Entropies is the engines' account of their sends.
type Entropies struct {
	Explored int64 `json:"explored"`
	Recycled int64 `json:"recycled"`
	Distinct int   `json:"distinct"` // entropy values, over every engine
}

// EntropyTotals sums the engines' entropies; its error is the first
// engine's disagreement with the simulator's bytes in flight.
func EntropyTotals(engines []*UETEngine) (Entropies, error) {
	var t Entropies
	seen := map[uint32]bool{}
	for i, e := range engines {
		if e.Err() != nil {
			return t, fmt.Errorf("sender %d: %w", i, e.Err())
		}
		t.Explored += e.Explored
		t.Recycled += e.Recycled
		for ev := range e.EVs {
			seen[ev] = true
		}
	}
	t.Distinct = len(seen)
	return t, nil
}
