package blockeq

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/nicgen/nicgen/blocks"
	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/blocks/stim"
	"github.com/nicgen/nicgen/golden/pipe"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
)

// Vector export: a random event sequence and the golden model's answer to
// each event, as JSON lines, for testbenches that cannot link Go (cocotb
// under Icarus and Verilator). The cycle-level behaviour is the testbench's
// business; a vector only says what the block must answer, in order.
//
// File format: one header line (VectorHeader), then one line per event, in
// acceptance order: a SmarttVectorEvent for the SMaRTT blocks, a
// FieldVector for the others (drawn by the block's own stimulus, profile
// stim.Vectors, or by the generic draw). Every field of an event line is
// named after its s_event_<field> port and every field of its "expect"
// object after its m_result_<field> port, so a testbench maps lines to
// ports from the names alone; flags are JSON booleans.

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

// VectorLine is one event line of a vector file: *SmarttVectorEvent or
// *FieldVector.
type VectorLine interface{ vectorLine() }

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

func (*SmarttVectorEvent) vectorLine() {}

// VectorSet is a generated vector file in memory, with the coverage its
// expectations reach (counted from the golden model's results).
type VectorSet struct {
	Header   VectorHeader
	Events   []VectorLine
	Coverage CoverageReport
}

// smarttMix is the event mix of an exported SMaRTT sequence: a sender's
// view of a loaded fabric. Each connection sits at a queueing level that
// persists for a while (so the RTT averages and the Wait-to-Decrease EWMA
// move), and the ECN mark follows the level.
type smarttMix struct {
	conns       stim.ConnMix
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
	conns: stim.ConnMix{
		ActiveConns: 48,
		HotConns:    4,
		PSame:       0.35,
		PHot:        0.6,
		POutOfRange: 0.01,
		POpenNext:   0.25,
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
	conns  *stim.Conns
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
		conns: stim.NewConns(mix.conns, r, gp.NumConn, ports["s_event_conn"]),
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
	if c, ok := g.conns.OpenNext(); ok {
		e.Conn, e.Kind = c, gsmartt.KindOpen
		g.level[c] = int(g.levels.Pick(g.r))
	} else {
		e.Conn = g.conns.Pick()
		e.Kind = gsmartt.Kind(g.kinds.Pick(g.r))
		if g.chance(mix.pLevelChange) {
			g.level[e.Conn] = int(g.levels.Pick(g.r))
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
// as JSON lines (see VectorHeader, FieldVector and SmarttVectorEvent). The
// same block, n and seed always give the same bytes.
func WriteVectors(w io.Writer, block string, n int, seed uint64) error {
	vs, err := GenerateVectors(block, n, seed)
	if err != nil {
		return err
	}
	_, err = vs.WriteTo(w)
	return err
}
