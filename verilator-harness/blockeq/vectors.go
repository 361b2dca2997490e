package blockeq

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/reps"
	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/golden/pipe"
	goldenreps "github.com/nicgen/nicgen/golden/reps"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
)

// Vector export: a random event sequence and the golden model's answer to
// each event, as JSON lines, for testbenches that cannot link Go (cocotb
// under Icarus and Verilator). The cycle-level behaviour is the testbench's
// business; a vector only says what the block must answer, in order.
//
// File format: one header line (VectorHeader), then one line per event, in
// acceptance order: a VectorEvent for the REPS blocks, a SmarttVectorEvent
// for the SMaRTT blocks. Every field of an event line is named after its
// s_event_<field> port and every field of its "expect" object after its
// m_result_<field> port, so a testbench maps lines to ports from the names
// alone; flags are JSON booleans.

// VectorHeader is the first line of a vector file.
type VectorHeader struct {
	Block  string `json:"block"`
	Seed   uint64 `json:"seed"`
	Events int    `json:"events"`
	// Params are the golden model's parameters the expectations were
	// computed with (the block's configuration, converted field by field).
	Params any `json:"params"`
	// Depth is the block's pipeline_depth (its Params.Depth): the number of
	// datapath stages of the pipelined shell, which sets its cycle contract
	// (docs/pipeline.md: events of one connection Depth cycles apart, and
	// Latency and Credits below). The vectors do not depend on it; a
	// testbench checks the timing of the design generated from the same
	// configuration with it.
	Depth int `json:"depth"`
	// Latency is the number of cycles from an event's acceptance to its
	// result on m_result_* with no stall, and Credits the number of events
	// that may be issued and not yet taken (the result buffer's entries),
	// for Depth: pipe.Latency(Depth) and pipe.Credits(Depth), so that a
	// testbench needs no copy of the contract's stage count.
	Latency int `json:"latency"`
	Credits int `json:"credits"`
	// Ports maps every port of the generated top module to its width, from
	// the block's declaration, so a testbench checks the design it drives
	// against the one the vectors were made for instead of hard-coding
	// widths.
	Ports map[string]int `json:"ports"`
	// Kinds names the s_event_kind values, for readable reports.
	Kinds []string `json:"kinds"`
	// Cases names the m_result_case values of the blocks that have that
	// port (smartt, nscc), for readable reports.
	Cases []string `json:"cases,omitempty"`
}

// VectorLine is one event line of a vector file: *VectorEvent or
// *SmarttVectorEvent.
type VectorLine interface{ vectorLine() }

// VectorEvent is one event offered on s_event_* and the result expected on
// m_result_*, for the REPS blocks. Now is absent for blocks without an
// s_event_now port.
type VectorEvent struct {
	Conn   uint32       `json:"conn"`
	Kind   uint8        `json:"kind"`
	ECN    uint8        `json:"ecn"`
	EV     uint32       `json:"ev"`
	Now    *uint64      `json:"now,omitempty"`
	Expect VectorResult `json:"expect"`
}

// VectorResult is the expected m_result_* beat of a REPS block. Frozen is
// absent for blocks without an m_result_frozen port.
type VectorResult struct {
	Conn     uint32 `json:"conn"`
	Kind     uint8  `json:"kind"`
	EV       uint32 `json:"ev"`
	Explored bool   `json:"explored"`
	Frozen   *bool  `json:"frozen,omitempty"`
	Error    bool   `json:"error"`
}

// SmarttVectorEvent is one event and its expected result for the SMaRTT
// blocks (smartt, nscc; docs/blocks/smartt.md Section 1).
type SmarttVectorEvent struct {
	Conn    uint32             `json:"conn"`
	Kind    uint8              `json:"kind"`
	Size    uint32             `json:"size"`
	ECN     uint8              `json:"ecn"`
	RTT     uint32             `json:"rtt"`
	Unacked uint32             `json:"unacked"`
	Now     uint64             `json:"now"`
	Expect  SmarttVectorResult `json:"expect"`
}

// SmarttVectorResult is the expected m_result_* beat of a SMaRTT block.
type SmarttVectorResult struct {
	Conn  uint32 `json:"conn"`
	Kind  uint8  `json:"kind"`
	Cwnd  uint32 `json:"cwnd"`
	Case  uint8  `json:"case"`
	QA    bool   `json:"qa"`
	Fast  bool   `json:"fast"`
	Error bool   `json:"error"`
}

func (*VectorEvent) vectorLine()       {}
func (*SmarttVectorEvent) vectorLine() {}

// VectorSet is a generated vector file in memory, with the coverage its
// expectations reach (counted from the golden model's results).
type VectorSet struct {
	Header   VectorHeader
	Events   []VectorLine
	Coverage CoverageReport
}

// connMix is how an exported sequence picks connections; REPS and SMaRTT
// sequences share it. Probabilities are per event.
type connMix struct {
	activeConns int     // in-range connections the sequence uses, each opened before use
	hotConns    int     // the first few opened take most of the traffic
	pSame       float64 // same connection as the previous in-range event: back-to-back hazards
	pHot        float64 // one of the hot connections
	pOutOfRange float64 // an id >= NumConn (an error whatever the kind)
	pOpenNext   float64 // once the hot ones are open, an event opens the next connection
}

// connPicker draws connection ids: every in-range connection it returns
// was opened by an earlier event it returned (openNext), so the state
// table never reads a word that was not written. A never-opened word is
// all zero under Verilator but X under Icarus. (The equivalence stimulus's
// localityPicker draws uniformly over a span, without opening first.)
type connPicker struct {
	mix      connMix
	r        *rng
	numConn  uint64
	connSpan uint64 // 2^width(s_event_conn)
	active   []uint32
	opened   int // active[:opened] have been opened
	hot      []uint32
	last     uint32
	haveLast bool
}

// newConnPicker chooses the active connections: both ends of the table and
// random ones, in random order; the first hotConns of them are hot.
func newConnPicker(mix connMix, r *rng, numConn int, connW int) *connPicker {
	c := &connPicker{mix: mix, r: r, numConn: uint64(numConn), connSpan: uint64(1) << connW}
	k := min(mix.activeConns, numConn)
	seen := map[uint32]bool{}
	add := func(id uint32) {
		if !seen[id] && len(c.active) < k {
			seen[id] = true
			c.active = append(c.active, id)
		}
	}
	add(0)
	add(uint32(numConn - 1))
	for len(c.active) < k {
		add(uint32(r.Below(uint64(numConn))))
	}
	for i := len(c.active) - 1; i > 0; i-- {
		j := r.Below(uint64(i + 1))
		c.active[i], c.active[j] = c.active[j], c.active[i]
	}
	c.hot = c.active[:min(mix.hotConns, len(c.active))]
	return c
}

// openNext returns the next connection to open, if this event opens one:
// the hot ones first, then the others interleaved with traffic.
func (c *connPicker) openNext() (uint32, bool) {
	if c.opened < len(c.hot) || (c.opened < len(c.active) && c.r.Hit(thresholdOf(c.mix.pOpenNext))) {
		id := c.active[c.opened]
		c.opened++
		c.last, c.haveLast = id, true
		return id, true
	}
	return 0, false
}

// pick returns the connection of an event that opens none: often the
// previous one, often a hot one, otherwise any opened one; now and then an
// id past the table instead.
func (c *connPicker) pick() uint32 {
	r, mix := c.r, c.mix
	var id uint32
	switch {
	case c.haveLast && r.Hit(thresholdOf(mix.pSame)):
		id = c.last
	case r.Hit(thresholdOf(mix.pHot)):
		id = c.hot[r.Below(uint64(len(c.hot)))]
	default:
		id = c.active[r.Below(uint64(c.opened))]
	}
	c.last, c.haveLast = id, true
	if c.connSpan > c.numConn && r.Hit(thresholdOf(mix.pOutOfRange)) {
		switch r.Below(4) {
		case 0:
			id = uint32(c.numConn) // the first id past the table
		case 1:
			id = uint32(c.connSpan - 1) // all ones
		default:
			id = uint32(c.numConn + r.Below(c.connSpan-c.numConn))
		}
	}
	return id
}

// vectorMix is the event mix of an exported REPS sequence. Unlike Profile
// it is per event, not per cycle: the testbench chooses the valid and
// ready timing.
type vectorMix struct {
	conns       connMix
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
	conns: connMix{
		activeConns: 48,
		hotConns:    4,
		pSame:       0.4,
		pHot:        0.6,
		pOutOfRange: 0.01,
		pOpenNext:   0.25,
	},
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

// vectorGen draws the events of one REPS sequence.
type vectorGen struct {
	mix    vectorMix
	r      *rng
	kinds  kindPicker
	conns  *connPicker
	evSpan uint64              // 2^width(s_event_ev)
	sent   map[uint32][]uint32 // recent send EVs per connection, oldest first

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
	r := newRNG(seed)
	g := &vectorGen{
		mix: mix, r: r, kinds: newKindPicker(mix.kindWeights),
		conns:  newConnPicker(mix.conns, r, numConn, connW),
		evSpan: uint64(1) << evW,
		sent:   map[uint32][]uint32{},
	}
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
		g.now = (g.now + r.Below(g.nowStep+1)) & g.nowMask
		e.Now = g.now
	}
	// Fields the kind does not use carry random values: the block must
	// ignore them.
	e.ECN = g.chance(mix.pECN)
	e.EV = uint32(r.Below(g.evSpan))

	if c, ok := g.conns.openNext(); ok {
		e.Conn, e.Kind = c, goldenreps.KindOpen
		return e
	}
	e.Conn = g.conns.pick()
	e.Kind = goldenreps.Kind(g.kinds.pick(r))

	if e.Kind == goldenreps.KindAck || e.Kind == goldenreps.KindNack {
		if evs := g.sent[e.Conn]; len(evs) > 0 && g.chance(mix.pEchoEV) {
			e.EV = evs[r.Below(uint64(len(evs)))]
		}
	}
	return e
}

// chance is true with probability p.
func (g *vectorGen) chance(p float64) bool { return g.r.Hit(thresholdOf(p)) }

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

// smarttMix is the event mix of an exported SMaRTT sequence: a sender's
// view of a loaded fabric. Each connection sits at a queueing level that
// persists for a while (so the RTT averages and the Wait-to-Decrease EWMA
// move), and the ECN mark follows the level.
type smarttMix struct {
	conns       connMix
	kindWeights [8]float64 // open (a re-open), ack, nack, timeout, invalid 4..7
	pSmall      float64    // a packet shorter than the MTU
	// levels: the RTT of an ack is drawn from its connection's level, near
	// the base RTT (FastIncrease territory, up to FiRttMax), between the
	// base and the target RTT, or above the target up to targetsMax target
	// RTTs; pLevel are the weights of a new level and ecnLevel the
	// probability of an ECN mark at each.
	pLevel       [3]float64
	ecnLevel     [3]float64
	targetsMax   uint64
	pLevelChange float64 // an event redraws its connection's level
	pBoundaryRTT float64 // an ack's RTT is one of the comparison boundaries
	unackedMax   uint32  // bytes in flight, uniform 0..unackedMax
	meanStepNs   uint64  // mean time between events
	pIdle        float64 // a long quiet gap before an event...
	idleMaxNs    uint64  // ...of up to this long
	wrapAfter    uint64  // events before now crosses the 2^TimeW wrap
}

// defaultSmarttMix: mostly MTU-sized acks, about a third of them
// ECN-marked, 4% trims and 1.5% timeouts, 1.2% invalid kinds. At 60 ns
// between events (800 Gb/s of 4 KiB packets is 41 ns each) a hot
// connection sees a few dozen acks per target RTT, so QuickAdapt windows
// close with a count that lets FastIncrease fire afterwards; the rare long
// gaps expire every per-connection stamp.
var defaultSmarttMix = smarttMix{
	conns: connMix{
		activeConns: 48,
		hotConns:    4,
		pSame:       0.35,
		pHot:        0.6,
		pOutOfRange: 0.01,
		pOpenNext:   0.25,
	},
	kindWeights:  [8]float64{0.0005, 0.93, 0.04, 0.015, 0.003, 0.003, 0.003, 0.003},
	pSmall:       0.15,
	pLevel:       [3]float64{0.3, 0.35, 0.35},
	ecnLevel:     [3]float64{0.05, 0.3, 0.6},
	targetsMax:   3,
	pLevelChange: 0.02,
	pBoundaryRTT: 0.02,
	unackedMax:   64 << 10,
	meanStepNs:   60,
	pIdle:        0.003,
	idleMaxNs:    1_000_000,
	wrapAfter:    100,
}

// smarttGen draws the events of one SMaRTT sequence.
type smarttGen struct {
	mix    smarttMix
	r      *rng
	kinds  kindPicker
	conns  *connPicker
	d      gsmartt.Derived
	level  map[uint32]int // queueing level per connection
	levels kindPicker     // draws a level (first three weights)

	now, nowMask uint64
	wrapped      bool
}

func newSmarttGen(mix smarttMix, seed uint64, gp gsmartt.Params, d gsmartt.Derived, ports map[string]int) (*smarttGen, error) {
	need := map[string]uint64{
		"s_event_conn":    uint64(gp.NumConn - 1),
		"s_event_size":    uint64(d.MTU),
		"s_event_rtt":     uint64(mix.targetsMax) * uint64(d.TrttNs),
		"s_event_unacked": uint64(mix.unackedMax),
		"s_event_now":     0,
	}
	for name, v := range need {
		w, ok := ports[name]
		if !ok {
			return nil, fmt.Errorf("blockeq: design has no port %s", name)
		}
		if w > 32 || v >= uint64(1)<<w {
			return nil, fmt.Errorf("blockeq: port %s is %d bits: the vectors need values up to %d (and at most 32 bits)", name, w, v)
		}
	}
	r := newRNG(seed)
	g := &smarttGen{
		mix: mix, r: r, kinds: newKindPicker(mix.kindWeights),
		conns: newConnPicker(mix.conns, r, gp.NumConn, ports["s_event_conn"]),
		d:     d, level: map[uint32]int{},
		levels:  newKindPicker([8]float64{mix.pLevel[0], mix.pLevel[1], mix.pLevel[2]}),
		nowMask: uint64(1)<<ports["s_event_now"] - 1,
	}
	g.now = (g.nowMask + 1 - mix.wrapAfter*mix.meanStepNs) & g.nowMask
	return g, nil
}

func (g *smarttGen) chance(p float64) bool { return g.r.Hit(thresholdOf(p)) }

// between is uniform in [lo, hi].
func (g *smarttGen) between(lo, hi uint64) uint64 { return lo + g.r.Below(hi-lo+1) }

// advance moves time on. The first step past the wrap lands on exactly 0,
// whose 16 ns stamp 0 is the one that reads as "never" (ZeroStampExpired).
func (g *smarttGen) advance() uint64 {
	step := g.r.Below(2*g.mix.meanStepNs + 1)
	if g.chance(g.mix.pIdle) {
		step += g.r.Below(g.mix.idleMaxNs)
	}
	next := g.now + step
	if next > g.nowMask {
		if g.wrapped {
			next &= g.nowMask
		} else {
			next, g.wrapped = 0, true
		}
	}
	g.now = next
	return next
}

// rtt draws an ack's RTT at the connection's level.
func (g *smarttGen) rtt(conn uint32) uint32 {
	d, mix := g.d, g.mix
	brtt, trtt, fiMax := uint64(d.BrttNs), uint64(d.TrttNs), uint64(d.FiRttMax)
	if g.chance(mix.pBoundaryRTT) {
		// The comparisons of the contract, on both sides: rtt <= FiRttMax
		// (FastIncrease), rtt <= Trtt, the base RTT itself.
		b := [...]uint64{brtt, fiMax, fiMax + 1, trtt, trtt + 1}
		return uint32(b[g.r.Below(uint64(len(b)))])
	}
	switch g.level[conn] {
	case 0:
		return uint32(g.between(brtt, fiMax))
	case 1:
		return uint32(g.between(brtt, trtt))
	default:
		return uint32(g.between(trtt+1, mix.targetsMax*trtt))
	}
}

// next draws the next event. Fields the kind does not use (everything but
// conn on an open, ecn and rtt on a nack or timeout) carry values drawn as
// for an ack: the block must ignore them.
func (g *smarttGen) next() gsmartt.Event {
	mix, d := g.mix, g.d
	e := gsmartt.Event{Now: g.advance()}
	if c, ok := g.conns.openNext(); ok {
		e.Conn, e.Kind = c, gsmartt.KindOpen
		g.level[c] = int(g.levels.pick(g.r))
	} else {
		e.Conn = g.conns.pick()
		e.Kind = gsmartt.Kind(g.kinds.pick(g.r))
		if g.chance(mix.pLevelChange) {
			g.level[e.Conn] = int(g.levels.pick(g.r))
		}
	}
	e.Size = d.MTU
	if g.chance(mix.pSmall) {
		e.Size = uint32(g.between(64, uint64(d.MTU)-1))
	}
	lvl := min(g.level[e.Conn], 2)
	e.ECN = g.chance(mix.ecnLevel[lvl])
	e.RTT = g.rtt(e.Conn)
	e.Unacked = uint32(g.r.Below(uint64(mix.unackedMax) + 1))
	return e
}

// GenerateVectors draws n events for a block of the default configuration
// (blocks.DefaultConfig, the configuration verilog-out/ is generated from)
// and computes the expected result of each with the block's golden
// transaction-level model, starting from reset and an all-zero table.
func GenerateVectors(block string, n int, seed uint64) (*VectorSet, error) {
	return GenerateVectorsFor(blocks.DefaultConfig(), block, n, seed)
}

// GenerateVectorsFor is GenerateVectors for a block of a given
// configuration.
func GenerateVectorsFor(cfg blocks.Config, block string, n int, seed uint64) (*VectorSet, error) {
	if n < 1 {
		return nil, fmt.Errorf("blockeq: %d events: need at least 1", n)
	}
	b, err := blocks.Lookup(block)
	if err != nil {
		return nil, err
	}
	cfg.Control = false // the block's own ports (its control wrapper keeps their names)
	d, err := b.Elaborate(cfg)
	if err != nil {
		return nil, fmt.Errorf("block %s: %w", block, err)
	}
	ports := map[string]int{}
	var inOrder, outOrder []string
	for _, p := range d.Top.Ports() {
		ports[p.Name()] = p.Width()
		if name, ok := strings.CutPrefix(p.Name(), "s_event_"); ok && p.IsInput() && name != "valid" {
			inOrder = append(inOrder, name)
		}
		if name, ok := strings.CutPrefix(p.Name(), "m_result_"); ok && !p.IsInput() && name != "valid" {
			outOrder = append(outOrder, name)
		}
	}
	var vs *VectorSet
	if f, ok := lookupFamily(block); ok {
		vs, err = f.Vectors(cfg, block, ports, n, seed)
	} else {
		vs, err = genericVectors(cfg, b, ports, inOrder, outOrder, n, seed)
	}
	if err != nil {
		return nil, fmt.Errorf("block %s: %w", block, err)
	}
	return vs, nil
}

// repsVectors draws a REPS sequence and the golden results.
func repsVectors(cfg blocks.Config, block string, ports map[string]int, n int, seed uint64) (*VectorSet, error) {
	var (
		model      goldenreps.Stepper
		params     any
		numConn    int
		freezeTime uint64
		hasFrozen  bool
		depth      int
	)
	if block == "reps" {
		bp, err := reps.Of(cfg)
		if err != nil {
			return nil, err
		}
		p := bp.Golden()
		m, err := goldenreps.NewModel(p)
		if err != nil {
			return nil, err
		}
		model, params, numConn, freezeTime, hasFrozen = m, p, p.NumConn, p.FreezeTime, true
		depth = bp.Depth
	} else {
		bp, err := reps.ConfOf(cfg)
		if err != nil {
			return nil, err
		}
		p := bp.Golden()
		m, err := goldenreps.NewConfModel(p)
		if err != nil {
			return nil, err
		}
		model, params, numConn = m, p, p.NumConn
		depth = bp.Depth
	}
	if _, ok := ports["m_result_frozen"]; ok != hasFrozen {
		return nil, fmt.Errorf("blockeq: m_result_frozen port present = %v, golden model has frozen = %v", ok, hasFrozen)
	}

	g, err := newVectorGen(defaultVectorMix, seed, numConn, ports, n, freezeTime)
	if err != nil {
		return nil, err
	}
	cov := NewCoverage(hasFrozen)
	vs := &VectorSet{
		Header: VectorHeader{Block: block, Seed: seed, Events: n, Params: params, Depth: depth,
			Latency: pipe.Latency(depth), Credits: pipe.Credits(depth), Ports: ports, Kinds: reps.KindNames},
		Events:   make([]VectorLine, 0, n),
		Coverage: cov,
	}
	model.Reset()
	for range n {
		e := g.next()
		var res goldenreps.Result
		model.StepTo(&e, &res)
		g.observe(res)
		cov.count(&res)
		ve := &VectorEvent{
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

// smarttVectors draws a SMaRTT sequence and the golden results.
func smarttVectors(block string, p bsmartt.Params, ports map[string]int, n int, seed uint64) (*VectorSet, error) {
	gp := p.Golden()
	model, err := gsmartt.NewModel(gp)
	if err != nil {
		return nil, err
	}
	g, err := newSmarttGen(defaultSmarttMix, seed, gp, model.Derived(), ports)
	if err != nil {
		return nil, err
	}
	cov := NewSmarttCoverage(p.Variant)
	vs := &VectorSet{
		Header: VectorHeader{Block: block, Seed: seed, Events: n, Params: gp, Depth: p.Depth,
			Latency: pipe.Latency(p.Depth), Credits: pipe.Credits(p.Depth), Ports: ports,
			Kinds: bsmartt.KindNames, Cases: smarttCaseNames[:]},
		Events:   make([]VectorLine, 0, n),
		Coverage: cov,
	}
	model.Reset()
	for range n {
		e := g.next()
		res := model.Step(e)
		cov.count(&res)
		vs.Events = append(vs.Events, &SmarttVectorEvent{
			Conn: e.Conn, Kind: uint8(e.Kind), Size: e.Size, ECN: uint8(b2u(e.ECN)), RTT: e.RTT,
			Unacked: e.Unacked, Now: e.Now,
			Expect: SmarttVectorResult{
				Conn: res.Conn, Kind: uint8(res.Kind), Cwnd: res.Cwnd, Case: res.Case,
				QA: res.QA, Fast: res.Fast, Error: res.Error,
			},
		})
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
	for i, e := range vs.Events {
		if err := enc.Encode(e); err != nil {
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
// as JSON lines (see VectorHeader, VectorEvent and SmarttVectorEvent). The
// same block, n and seed always give the same bytes.
func WriteVectors(w io.Writer, block string, n int, seed uint64) error {
	vs, err := GenerateVectors(block, n, seed)
	if err != nil {
		return err
	}
	_, err = vs.WriteTo(w)
	return err
}
