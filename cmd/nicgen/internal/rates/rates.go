// Package rates measures a block's latency and event rates on its golden
// cycle model, which `nicgen equiv` proves equal to the RTL cycle by
// cycle: what the datasheets and `nicgen synth --target ecp5` quote. A
// block's pipeline timing depends only on the sequence of connections of
// its events, so every load is a sequence of connections: bursts to one
// connection and to connections in turn (Timing), and connections uniform
// at random, a recorded closed-loop incast and one connection alone
// (Loads).
package rates

import (
	"fmt"
	"sync"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/golden/netsim"
)

// CycleModel is a block's golden cycle-level model reduced to what timing
// needs: drive s_event_valid and m_result_ready with one fixed event to
// connection conn, see s_event_ready and m_result_valid.
type CycleModel func(valid, ready bool, conn uint32) (sReady, mValid bool)

// GoldenCycleModel is a fresh golden cycle model of block in cfg.
func GoldenCycleModel(cfg blocks.Config, block string) (CycleModel, error) {
	b, err := blocks.Lookup(block)
	if err != nil {
		return nil, err
	}
	c, err := b.Cycler(cfg)
	if err != nil {
		return nil, err
	}
	return c.Cycle, nil
}

// Timing is a block's latency and throughput on its golden cycle model.
type Timing struct {
	Latency  int     // cycles from an accepted event to its result valid
	PerClock float64 // results per cycle for back-to-back events to one connection
	Mixed    float64 // results per cycle for back-to-back events to connections in turn
	Depth    int     // datapath stages
	Burst    int     // events in each throughput measurement
}

// MeasureTiming measures block's Timing in cfg: the latency of one event
// into an empty pipeline, then bursts of Burst events, to one connection
// and to as many connections in turn as the latency has cycles.
func MeasureTiming(cfg blocks.Config, block string) (Timing, error) {
	const burst = 64
	var t Timing
	m, err := GoldenCycleModel(cfg, block)
	if err != nil {
		return t, err
	}
	// latency: one event accepted at cycle 0 into an empty pipeline
	if ready, _ := m(true, true, 0); !ready {
		return t, fmt.Errorf("%s: the golden model does not take an event when empty", block)
	}
	t.Latency = -1
	for c := 1; c <= 64; c++ {
		if _, valid := m(false, true, 0); valid {
			t.Latency = c
			break
		}
	}
	if t.Latency < 0 {
		return t, fmt.Errorf("%s: no result within 64 cycles", block)
	}
	for c := 0; c < 64; c++ { // drain
		m(false, true, 0)
	}
	// throughput: a burst to connection 0, result always ready
	if t.PerClock, err = offer(m, make([]uint32, burst)); err != nil {
		return t, fmt.Errorf("%s: %w", block, err)
	}
	t.Burst = burst
	// a burst over connections 0, 1, 0, 1, ... of a fresh model: two
	// connections alternate, which a depth-2 pipeline cannot hide
	if m, err = GoldenCycleModel(cfg, block); err != nil {
		return t, err
	}
	conns := uint32(1)
	for uint32(t.Latency) > conns && conns < 64 {
		conns++
	}
	alt := make([]uint32, burst)
	for i := range alt {
		alt[i] = uint32(i) % conns
	}
	if t.Mixed, err = offer(m, alt); err != nil {
		return t, fmt.Errorf("%s: %w", block, err)
	}
	b, err := blocks.Lookup(block)
	if err != nil {
		return t, err
	}
	t.Depth, err = b.Depth(cfg)
	return t, err
}

// offer drives conns back to back into a fresh cycle model, results
// always taken, and returns the events taken per clock: the events over
// the cycles from the first result to the last. A merging shell answers
// several events with one result (docs/pipeline.md), so the run ends when
// every event is taken and no result came for drainCycles cycles.
func offer(m CycleModel, conns []uint32) (perClock float64, err error) {
	const drainCycles = 256
	sent, first, last, quiet := 0, -1, -1, 0
	limit := 64*len(conns) + 64
	for c := 0; c < limit && (sent < len(conns) || quiet < drainCycles); c++ {
		valid := sent < len(conns)
		conn := uint32(0)
		if valid {
			conn = conns[sent]
		}
		ready, mValid := m(valid, true, conn)
		if valid && ready {
			sent++
		}
		quiet++
		if mValid {
			if first < 0 {
				first = c
			}
			last, quiet = c, 0
		}
	}
	if sent < len(conns) || first < 0 {
		return 0, fmt.Errorf("%d of %d events taken in %d cycles", sent, len(conns), limit)
	}
	return float64(len(conns)) / float64(last-first+1), nil
}

// Loads are a block's events per clock under three loads, measured on its
// golden cycle model with every event offered at once and results always
// taken.
type Loads struct {
	Uniform     float64 // connections uniform at random over the configured connections
	Incast      float64 // the recorded IncastConns:1 incast
	IncastConns int     // the senders of the recorded Incast
	Incast64    float64 // the recorded 64:1 incast
	Single      float64 // one connection alone
}

// uniformEvents and singleEvents are the lengths of the uniform and the
// one-connection loads.
const (
	uniformEvents = 20000
	singleEvents  = uniformEvents / 10
)

// MeasureLoads runs the loads of block in cfg: connections uniform at
// random over the configured connections; the connection sequences of
// recorded closed-loop 8:1 and 64:1 incasts (netsim.RecordIncast, 1 MiB per
// sender); one connection only.
func MeasureLoads(cfg blocks.Config, block string) (Loads, error) {
	var lr Loads
	run := func(conns []uint32) (float64, error) {
		m, err := GoldenCycleModel(cfg, block)
		if err != nil {
			return 0, err
		}
		r, err := offer(m, conns)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", block, err)
		}
		return r, nil
	}
	b, err := blocks.Lookup(block)
	if err != nil {
		return lr, err
	}
	numConn, err := b.NumConn(cfg)
	if err != nil {
		return lr, err
	}
	if lr.Uniform, err = run(uniformConns(uniformEvents, numConn)); err != nil {
		return lr, err
	}
	if lr.Single, err = run(make([]uint32, singleEvents)); err != nil {
		return lr, err
	}
	incast, err := incastConns(8)
	if err != nil {
		return lr, err
	}
	lr.IncastConns = 8
	if lr.Incast, err = run(incast); err != nil {
		return lr, err
	}
	incast64, err := incastConns(64)
	if err != nil {
		return lr, err
	}
	lr.Incast64, err = run(incast64)
	return lr, err
}

// uniformConns is the uniform load: n connections drawn from 0..numConn-1
// by a fixed xorshift sequence, the same in every run.
func uniformConns(n, numConn int) []uint32 {
	r := uint64(0x9E3779B97F4A7C15)
	conns := make([]uint32, n)
	for i := range conns {
		r ^= r << 13
		r ^= r >> 7
		r ^= r << 17
		conns[i] = uint32(r % uint64(numConn))
	}
	return conns
}

// incastConns is the connection sequence of a recorded N:1 incast of
// 1 MiB messages with the golden nscc senders (recorded once per N: the
// same for every block).
func incastConns(senders int) ([]uint32, error) {
	recorded.Lock()
	defer recorded.Unlock()
	if c, ok := recorded.conns[senders]; ok {
		return c, nil
	}
	conns, err := netsim.IncastConns(senders, 1<<20)
	if err != nil {
		return nil, err
	}
	if recorded.conns == nil {
		recorded.conns = map[int][]uint32{}
	}
	recorded.conns[senders] = conns
	return conns, nil
}

var recorded struct {
	sync.Mutex
	conns map[int][]uint32
}
