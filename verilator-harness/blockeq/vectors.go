package blockeq

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/reps"
	goldenreps "github.com/nicgen/nicgen/golden/reps"
)

// Vector export: a random event sequence and the golden model's answer to
// each event, as JSON lines, for testbenches that cannot link Go (cocotb
// under Icarus and Verilator). The cycle-level behaviour is the testbench's
// business; a vector only says what the block must answer, in order.
//
// File format: one header line (VectorHeader), then one VectorEvent per
// line, in acceptance order.

// VectorHeader is the first line of a vector file.
type VectorHeader struct {
	Block  string `json:"block"`
	Seed   uint64 `json:"seed"`
	Events int    `json:"events"`
	// Params are the golden model's parameters the expectations were
	// computed with (the block's configuration, converted field by field).
	Params any `json:"params"`
	// Ports maps every port of the generated top module to its width, from
	// the block's declaration, so a testbench checks the design it drives
	// against the one the vectors were made for instead of hard-coding
	// widths.
	Ports map[string]int `json:"ports"`
	// Kinds names the s_event_kind values, for readable reports.
	Kinds []string `json:"kinds"`
}

// VectorEvent is one event offered on s_event_* and the result expected on
// m_result_*. Now is absent for blocks without an s_event_now port.
type VectorEvent struct {
	Conn   uint32       `json:"conn"`
	Kind   uint8        `json:"kind"`
	ECN    uint8        `json:"ecn"`
	EV     uint32       `json:"ev"`
	Now    *uint64      `json:"now,omitempty"`
	Expect VectorResult `json:"expect"`
}

// VectorResult is the expected m_result_* beat. Frozen is absent for blocks
// without an m_result_frozen port.
type VectorResult struct {
	Conn     uint32 `json:"conn"`
	Kind     uint8  `json:"kind"`
	EV       uint32 `json:"ev"`
	Explored bool   `json:"explored"`
	Frozen   *bool  `json:"frozen,omitempty"`
	Error    bool   `json:"error"`
}

// VectorSet is a generated vector file in memory, with the coverage its
// expectations reach (counted from the golden model's results).
type VectorSet struct {
	Header   VectorHeader
	Events   []VectorEvent
	Coverage *Coverage
}

// vectorMix is the event mix of an exported sequence. Unlike Profile it is
// per event, not per cycle: the testbench chooses the valid and ready
// timing.
type vectorMix struct {
	activeConns int     // in-range connections the sequence uses, each opened before use
	hotConns    int     // the first few opened take most of the traffic
	pSame       float64 // same connection as the previous in-range event: back-to-back hazards
	pHot        float64 // one of the hot connections
	pOutOfRange float64 // an id >= NumConn (an error whatever the kind)
	pOpenNext   float64 // once the hot ones are open, an event opens the next connection
	kindWeights [8]float64
	pECN        float64 // on every kind: only acks may look at it
	pEchoEV     float64 // an ack or nack carries an EV recently sent on its connection
	recentEVs   int     // how many sent EVs per connection are remembered for echoes
	// freezeSpans is how many FreezeTime periods `now` advances over the
	// whole sequence, so that freezes both start and expire at any length.
	freezeSpans uint64
}

// defaultVectorMix reaches every behaviour of both REPS blocks within a few
// thousand events: the hot connections finish exploring (210 sends) early,
// so timeouts freeze them, and time runs fast enough for freezes to expire
// and exploration to restart. Re-opens are rare because each one restarts
// exploration.
var defaultVectorMix = vectorMix{
	activeConns: 48,
	hotConns:    4,
	pSame:       0.4,
	pHot:        0.6,
	pOutOfRange: 0.01,
	pOpenNext:   0.25,
	// Kinds open (a re-open), send, ack, nack, timeout, invalid 5, 6, 7.
	// With 15% of acks marked, unmarked acks about match sends, so the
	// EV buffer both fills up and drains; timeouts are rare enough that a
	// connection recycles EVs for a while before it freezes.
	kindWeights: [8]float64{0.0005, 0.4, 0.46, 0.04, 0.025, 0.004, 0.004, 0.004},
	pECN:        0.15,
	pEchoEV:     0.7,
	recentEVs:   8,
	freezeSpans: 16,
}

// vectorGen draws the events of one sequence.
type vectorGen struct {
	mix      vectorMix
	r        *rng
	cum      [8]uint64 // cumulative kind weights as 53-bit thresholds
	numConn  uint64
	connSpan uint64 // 2^width(s_event_conn)
	evSpan   uint64 // 2^width(s_event_ev)
	active   []uint32
	opened   int // active[:opened] have been opened
	hot      []uint32
	last     uint32
	haveLast bool
	sent     map[uint32][]uint32 // recent send EVs per connection, oldest first

	hasNow  bool
	now     uint64
	nowMask uint64
	nowStep uint64 // time advances uniformly by 0..nowStep per event
}

func newVectorGen(mix vectorMix, seed uint64, numConn int, ports map[string]int, n int, freezeTime uint64) (*vectorGen, error) {
	connW, ok := ports["s_event_conn"]
	if !ok {
		return nil, fmt.Errorf("blockeq: design has no port s_event_conn")
	}
	evW, ok := ports["s_event_ev"]
	if !ok {
		return nil, fmt.Errorf("blockeq: design has no port s_event_ev")
	}
	if connW > 32 || evW > 32 {
		return nil, fmt.Errorf("blockeq: s_event_conn (%d bits) or s_event_ev (%d bits) is wider than 32", connW, evW)
	}
	g := &vectorGen{
		mix: mix, r: newRNG(seed), numConn: uint64(numConn),
		connSpan: uint64(1) << connW, evSpan: uint64(1) << evW,
		sent: map[uint32][]uint32{},
	}
	total := 0.0
	for _, w := range mix.kindWeights {
		total += w
	}
	acc := 0.0
	for i, w := range mix.kindWeights {
		acc += w
		g.cum[i] = uint64(acc / total * (1 << 53))
	}
	g.cum[7] = 1 << 53

	// The active connections: both ends of the table and random ones, in
	// random order; the first hotConns of them are hot.
	k := min(mix.activeConns, numConn)
	seen := map[uint32]bool{}
	add := func(c uint32) {
		if !seen[c] && len(g.active) < k {
			seen[c] = true
			g.active = append(g.active, c)
		}
	}
	add(0)
	add(uint32(numConn - 1))
	for len(g.active) < k {
		add(uint32(g.r.below(uint64(numConn))))
	}
	for i := len(g.active) - 1; i > 0; i-- {
		j := g.r.below(uint64(i + 1))
		g.active[i], g.active[j] = g.active[j], g.active[i]
	}
	g.hot = g.active[:min(mix.hotConns, len(g.active))]

	if timeW, ok := ports["s_event_now"]; ok {
		if timeW > 63 {
			return nil, fmt.Errorf("blockeq: s_event_now is %d bits, wider than 63", timeW)
		}
		g.hasNow = true
		g.nowMask = uint64(1)<<timeW - 1
		// mean step = freezeSpans*freezeTime/n, so the sequence spans
		// freezeSpans freezes whatever its length; but at most one freeze
		// per event, so short sequences keep time meaningful (a step of
		// 2^(TimeW-1) or more would read as going back in time).
		g.nowStep = max(2, min(freezeTime, 2*mix.freezeSpans*freezeTime/uint64(max(n, 1))))
		// Start just before the wrap of the timestamp so that wrapping is
		// exercised within the first hundred events.
		g.now = (g.nowMask + 1 - 64*g.nowStep) & g.nowMask
	}
	return g, nil
}

// next draws the next event.
func (g *vectorGen) next() goldenreps.Event {
	r, mix := g.r, g.mix
	var e goldenreps.Event
	if g.hasNow {
		g.now = (g.now + r.below(g.nowStep+1)) & g.nowMask
		e.Now = g.now
	}
	// Fields the kind does not use carry random values: the block must
	// ignore them.
	e.ECN = g.chance(mix.pECN)
	e.EV = uint32(r.below(g.evSpan))

	// Open every connection before it is used: the hot ones first, then
	// the others interleaved with traffic. A never-opened word is all zero
	// under Verilator but X under Icarus.
	if g.opened < len(g.hot) || (g.opened < len(g.active) && g.chance(mix.pOpenNext)) {
		e.Conn, e.Kind = g.active[g.opened], goldenreps.KindOpen
		g.opened++
		g.last, g.haveLast = e.Conn, true
		return e
	}

	switch {
	case g.haveLast && g.chance(mix.pSame):
		e.Conn = g.last
	case g.chance(mix.pHot):
		e.Conn = g.hot[r.below(uint64(len(g.hot)))]
	default:
		e.Conn = g.active[r.below(uint64(g.opened))]
	}
	g.last, g.haveLast = e.Conn, true
	if g.connSpan > g.numConn && g.chance(mix.pOutOfRange) {
		switch r.below(4) {
		case 0:
			e.Conn = uint32(g.numConn) // the first id past the table
		case 1:
			e.Conn = uint32(g.connSpan - 1) // all ones
		default:
			e.Conn = uint32(g.numConn + r.below(g.connSpan-g.numConn))
		}
	}

	x := r.next() >> 11
	k := 0
	for k < 7 && x >= g.cum[k] {
		k++
	}
	e.Kind = goldenreps.Kind(k)

	if e.Kind == goldenreps.KindAck || e.Kind == goldenreps.KindNack {
		if evs := g.sent[e.Conn]; len(evs) > 0 && g.chance(mix.pEchoEV) {
			e.EV = evs[r.below(uint64(len(evs)))]
		}
	}
	return e
}

// chance is true with probability p.
func (g *vectorGen) chance(p float64) bool { return g.r.hit(thresholdOf(p)) }

// observe remembers the EV a send got, for later acks to echo.
func (g *vectorGen) observe(res goldenreps.Result) {
	if res.Error || res.Kind != goldenreps.KindSend {
		return
	}
	evs := append(g.sent[res.Conn], res.EV&uint32(g.evSpan-1))
	if len(evs) > g.mix.recentEVs {
		evs = evs[1:]
	}
	g.sent[res.Conn] = evs
}

// GenerateVectors draws n events for a block of the default configuration
// (blocks.DefaultConfig, the configuration verilog-out/ is generated from)
// and computes the expected result of each with the block's golden
// transaction-level model, starting from reset and an all-zero table.
func GenerateVectors(block string, n int, seed uint64) (*VectorSet, error) {
	if n < 1 {
		return nil, fmt.Errorf("blockeq: %d events: need at least 1", n)
	}
	b, err := blocks.Lookup(block)
	if err != nil {
		return nil, err
	}
	cfg := blocks.DefaultConfig()
	d, err := b.Elaborate(cfg)
	if err != nil {
		return nil, fmt.Errorf("block %s: %w", block, err)
	}
	ports := map[string]int{}
	for _, p := range d.Top.Ports() {
		ports[p.Name()] = p.Width()
	}

	var (
		model      goldenreps.Stepper
		params     any
		numConn    int
		freezeTime uint64
		hasFrozen  bool
	)
	switch block {
	case "reps":
		p := GoldenRepsParams(cfg.Reps)
		m, err := goldenreps.NewModel(p)
		if err != nil {
			return nil, err
		}
		model, params, numConn, freezeTime, hasFrozen = m, p, p.NumConn, p.FreezeTime, true
	case "reps_conf":
		p := GoldenConfParams(cfg.RepsConf)
		m, err := goldenreps.NewConfModel(p)
		if err != nil {
			return nil, err
		}
		model, params, numConn = m, p, p.NumConn
	default:
		return nil, fmt.Errorf("blockeq: no golden model is wired for block %q", block)
	}
	if _, ok := ports["m_result_frozen"]; ok != hasFrozen {
		return nil, fmt.Errorf("blockeq: block %s: m_result_frozen port present = %v, golden model has frozen = %v", block, ok, hasFrozen)
	}

	g, err := newVectorGen(defaultVectorMix, seed, numConn, ports, n, freezeTime)
	if err != nil {
		return nil, fmt.Errorf("block %s: %w", block, err)
	}
	vs := &VectorSet{
		Header:   VectorHeader{Block: block, Seed: seed, Events: n, Params: params, Ports: ports, Kinds: reps.KindNames},
		Events:   make([]VectorEvent, 0, n),
		Coverage: NewCoverage(hasFrozen),
	}
	model.Reset()
	for range n {
		e := g.next()
		res := model.Step(e)
		g.observe(res)
		vs.Coverage.count(res)
		ve := VectorEvent{
			Conn: e.Conn, Kind: uint8(e.Kind), ECN: uint8(b2u(e.ECN)), EV: e.EV,
			Expect: VectorResult{Conn: res.Conn, Kind: uint8(res.Kind), EV: res.EV, Explored: res.Explored, Error: res.Error},
		}
		if g.hasNow {
			now := e.Now
			ve.Now = &now
		}
		if hasFrozen {
			frozen := res.Frozen
			ve.Expect.Frozen = &frozen
		}
		vs.Events = append(vs.Events, ve)
	}
	return vs, nil
}

// WriteTo writes the header line and one line per event.
func (vs *VectorSet) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	bw := bufio.NewWriter(cw)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(vs.Header); err != nil {
		return cw.n, fmt.Errorf("vectors %s: header: %w", vs.Header.Block, err)
	}
	for i := range vs.Events {
		if err := enc.Encode(&vs.Events[i]); err != nil {
			return cw.n, fmt.Errorf("vectors %s: event %d: %w", vs.Header.Block, i, err)
		}
	}
	err := bw.Flush()
	return cw.n, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// WriteVectors writes n events of a block with their golden expectations
// as JSON lines (see VectorHeader and VectorEvent). The same block, n and
// seed always give the same bytes.
func WriteVectors(w io.Writer, block string, n int, seed uint64) error {
	vs, err := GenerateVectors(block, n, seed)
	if err != nil {
		return err
	}
	_, err = vs.WriteTo(w)
	return err
}
