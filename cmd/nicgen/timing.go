package main

import (
	"fmt"
	"sync"

	"github.com/nicgen/nicgen/blocks"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
)

// cycleModel is a block's golden cycle-level model reduced to what timing
// needs: drive s_event_valid and m_result_ready with one fixed event, see
// s_event_ready and m_result_valid.
type cycleModel func(valid, ready bool, conn uint32) (sReady, mValid bool)

func goldenCycleModel(cfg blocks.Config, name string) (cycleModel, error) {
	b, err := blocks.Lookup(name)
	if err != nil {
		return nil, err
	}
	c, err := b.Cycler(cfg)
	if err != nil {
		return nil, err
	}
	return c.Cycle, nil
}

// timing is a block's latency and throughput, measured on its golden
// cycle model (which nicgen equiv proves equal to the RTL, cycle by cycle).
type timing struct {
	latency    int     // cycles from an accepted event to its result valid
	perClock   float64 // results per cycle for back-to-back events to one connection
	mixed      float64 // results per cycle for back-to-back events to different connections
	depth      int     // datapath stages
	burst      int     // events in the throughput measurement
	burstCycle int     // cycles from the first result to the last
}

func measureTiming(cfg blocks.Config, block string) (timing, error) {
	const burst = 64
	var t timing
	m, err := goldenCycleModel(cfg, block)
	if err != nil {
		return t, err
	}
	// latency: one event accepted at cycle 0 into an empty pipeline
	if ready, _ := m(true, true, 0); !ready {
		return t, fmt.Errorf("%s: the golden model does not take an event when empty", block)
	}
	t.latency = -1
	for c := 1; c <= 64; c++ {
		if _, valid := m(false, true, 0); valid {
			t.latency = c
			break
		}
	}
	if t.latency < 0 {
		return t, fmt.Errorf("%s: no result within 64 cycles", block)
	}
	for c := 0; c < 64; c++ { // drain
		m(false, true, 0)
	}
	// throughput: a burst to connection 0, result always ready
	t.perClock, t.burstCycle, err = offer(m, make([]uint32, burst))
	if err != nil {
		return t, fmt.Errorf("%s: %w", block, err)
	}
	t.burst = burst
	// a burst over connections 0, 1, 0, 1, ... of a fresh model: two
	// connections alternate, which a depth-2 pipeline cannot hide
	if m, err = goldenCycleModel(cfg, block); err != nil {
		return t, err
	}
	conns := uint32(1)
	for uint32(t.latency) > conns && conns < 64 {
		conns++
	}
	alt := make([]uint32, burst)
	for i := range alt {
		alt[i] = uint32(i) % conns
	}
	if t.mixed, _, err = offer(m, alt); err != nil {
		return t, fmt.Errorf("%s: %w", block, err)
	}
	b, err := blocks.Lookup(block)
	if err != nil {
		return t, err
	}
	t.depth, err = b.Depth(cfg)
	return t, err
}

// offer drives conns back to back into a fresh cycle model, results
// always taken, and returns the events taken per clock: the events over
// the cycles from the first result to the last. A merging shell answers
// several events with one result (docs/pipeline.md), so the run ends when
// every event is taken and no result came for drainCycles cycles.
func offer(m cycleModel, conns []uint32) (perClock float64, span int, err error) {
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
		return 0, 0, fmt.Errorf("%d of %d events taken in %d cycles", sent, len(conns), limit)
	}
	span = last - first + 1
	return float64(len(conns)) / float64(span), span, nil
}

// loadRates are a block's events per clock under three loads, measured on
// its golden cycle model with every event offered at once and results
// always taken; the pipeline's timing depends only on the sequence of
// connections, so each load is a sequence of connections.
type loadRates struct {
	uniform, incast, single float64
	incastConns             int
	incast64                float64 // a recorded 64:1 incast
}

// measureLoads runs the three loads: connections uniform at random over
// the configured connections; the connection sequence of a recorded
// closed-loop 8:1 incast (golden SMaRTT senders on the network model,
// 1 MiB each); one connection only.
func measureLoads(cfg blocks.Config, block string) (loadRates, error) {
	var lr loadRates
	run := func(conns []uint32) (float64, error) {
		m, err := goldenCycleModel(cfg, block)
		if err != nil {
			return 0, err
		}
		r, _, err := offer(m, conns)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", block, err)
		}
		return r, nil
	}
	const n = 20000
	numConn := connections(cfg, block)
	r := uint64(0x9E3779B97F4A7C15)
	uniform := make([]uint32, n)
	for i := range uniform {
		r ^= r << 13
		r ^= r >> 7
		r ^= r << 17
		uniform[i] = uint32(r % uint64(numConn))
	}
	single := make([]uint32, n/10)
	var err error
	if lr.uniform, err = run(uniform); err != nil {
		return lr, err
	}
	if lr.single, err = run(single); err != nil {
		return lr, err
	}
	incast, err := incastConns(8)
	if err != nil {
		return lr, err
	}
	lr.incastConns = 8
	if lr.incast, err = run(incast); err != nil {
		return lr, err
	}
	incast64, err := incastConns(64)
	if err != nil {
		return lr, err
	}
	lr.incast64, err = run(incast64)
	return lr, err
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
	events, err := recordACKs(gsmartt.DefaultParams(gsmartt.NSCC), senders, 1<<20)
	if err != nil {
		return nil, err
	}
	conns := make([]uint32, len(events))
	for i, e := range events {
		conns[i] = e.Conn
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
