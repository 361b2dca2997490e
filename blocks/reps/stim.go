package reps

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/stim"
)

// The stimulus of reps and reps_conf (block.Desc.Stimulus), one for both:
// for the equivalence bench a random mix of kinds, ECN marks and EVs over
// connections drawn with locality (and past the table, for errors), the
// clock advancing every cycle; for `nicgen vectors` (profile stim.Vectors)
// a different draw that opens every connection before using it, echoes the
// EVs sends got in later acks and nacks, and spreads time over the file so
// that freezes both start and expire. Events are written in the golden
// model's field order, repsEvent (conn, kind, ecn, ev, now). The coverage
// is every behaviour, the freezing ones for reps alone.

// stimShape is what the stimulus needs of either block.
type stimShape struct {
	numConn    int
	connW, evW int    // widths of s_event_conn and s_event_ev
	timeW      int    // width of s_event_now; 0: the block has none (reps_conf)
	freezeTime uint64 // reps's; the vectors spread time over freezes
	frozen     bool   // the block freezes (m_result_frozen)
	// the bench's clock: it starts 10^6 ticks below 2^benchTimeW and
	// advances by 0..stepMax per cycle
	benchTimeW int
	stepMax    uint64
}

func repsStimulus(p Params, profile string, r *stim.Rand) (stim.Source, stim.Coverage, error) {
	return stimulus(stimShape{numConn: p.NumConn, connW: p.ConnW, evW: p.EVW, timeW: p.TimeW, freezeTime: p.FreezeTime,
		frozen: true, benchTimeW: p.TimeW, stepMax: 400}, profile, r)
}

func confStimulus(p ConfParams, profile string, r *stim.Rand) (stim.Source, stim.Coverage, error) {
	return stimulus(stimShape{numConn: p.NumConn, connW: p.ConnW, evW: p.EntW(), benchTimeW: 32}, profile, r)
}

func stimulus(sh stimShape, profile string, r *stim.Rand) (stim.Source, stim.Coverage, error) {
	if profile == stim.Vectors {
		d := newVectorDraw(sh, r)
		cov := newCoverage(sh.frozen)
		// the draw echoes the EVs that sends got: it sees every result
		// as the coverage counts it (vectors step the golden model
		// between draws)
		return stim.Source{Event: d.event, Length: d.length}, observer{cov, d}, nil
	}
	mix, err := benchMixFor(sh, profile)
	if err != nil {
		return stim.Source{}, nil, err
	}
	d := newBenchDraw(mix, r)
	return mix.Source(d.tick, d.event), newCoverage(sh.frozen), nil
}

// benchMix is the equivalence bench's event mix. Probabilities are per
// cycle (valid, ready) or per event (the rest).
type benchMix struct {
	stim.Shape
	kindWeights [8]float64 // kinds 0..7; 5..7 are invalid kinds
	pECN        float64
	// connections (Shape): the previous one with PSame, one of Hot with
	// PHot, else uniform in [0, connSpan) (above the block's connections:
	// out-of-range errors); Strides, when above 0, replaces the locality
	// (stim.Locality.Strides)
	connSpan   uint64
	evSpan     uint64 // EVs are uniform in [0, evSpan)
	nowStart   uint64 // first timestamp, near the wrap to test it early
	nowStepMax uint64 // time advances uniformly by 0..nowStepMax per cycle
}

// benchMixFor is the mixed workload adapted to a named profile. reps has
// no line-rate profiles (the harness refuses them first).
func benchMixFor(sh stimShape, profile string) (benchMix, error) {
	m := benchMix{Shape: stim.Shape{PValid: 0.9, PReady: 0.85, PSame: 0.3, PHot: 0.5, Hot: 8},
		kindWeights: [8]float64{0.003, 0.48, 0.40, 0.05, 0.06, 0.002, 0.002, 0.002},
		pECN:        0.3,
		connSpan:    uint64(sh.numConn) + uint64(sh.numConn)/64 + 1, evSpan: 1 << 16,
		nowStart: uint64(1)<<uint(sh.benchTimeW) - 1_000_000, nowStepMax: sh.stepMax,
	}
	if m.Profile(profile, connpipe.MaxDepth+1) {
		return m, nil
	}
	switch profile {
	case "mixed":
	case "all-ecn":
		m.pECN = 1
	case "all-loss": // timeouts and nacks only between sends
		m.kindWeights = [8]float64{0.001, 0.3, 0, 0.35, 0.35, 0, 0, 0}
	case "extremes":
		m.evSpan = 2    // EVs 0 and 1 only, and ...
		m.connSpan *= 4 // ... many out-of-range connection ids
	case "wrap":
		m.nowStepMax = uint64(1) << uint(max(sh.benchTimeW-10, 4))
	default:
		return m, fmt.Errorf("reps: no stimulus profile %q", profile)
	}
	return m, nil
}

// benchDraw draws the bench's events.
type benchDraw struct {
	mix   benchMix
	r     *stim.Rand
	kinds stim.Kinds
	conns stim.Locality
	pECN  stim.Threshold
	now   uint64
}

func newBenchDraw(mix benchMix, r *stim.Rand) *benchDraw {
	d := &benchDraw{mix: mix, r: r, kinds: stim.NewKinds(mix.kindWeights), pECN: stim.ThresholdOf(mix.pECN), now: mix.nowStart}
	d.conns = mix.Locality(r, mix.connSpan)
	return d
}

// tick advances the clock by one cycle (drawn on reps_conf too, which has
// no clock port, so both draw alike).
func (d *benchDraw) tick() { d.now += d.r.Below(d.mix.nowStepMax + 1) }

// event draws conn, kind, ecn, ev; now is the clock's.
func (d *benchDraw) event(f []uint64) {
	r := d.r
	f[0] = d.conns.Pick(r)
	f[1] = d.kinds.Pick(r)
	f[2] = block.Bit(r.Hit(d.pECN))
	f[3] = r.Below(d.mix.evSpan)
	f[4] = d.now
}

// vectorMix is the event mix of a vector file: per event, not per cycle
// (the testbench chooses the valid and ready timing). It reaches every
// behaviour of both blocks within a few thousand events: the hot
// connections finish exploring (210 sends) early, so timeouts freeze
// them, and time runs fast enough for freezes to expire and exploration to
// restart. Re-opens are rare because each one restarts exploration.
var vectorMix = struct {
	conns       stim.ConnMix
	kindWeights [8]float64
	pECN        float64 // on every kind: only acks may look at it
	pEchoEV     float64 // an ack or nack carries an EV recently sent on its connection
	recentEVs   int     // how many sent EVs per connection are remembered for echoes
	// freezeSpans is how many FreezeTime periods `now` advances over the
	// whole file, so that freezes both start and expire at any length.
	freezeSpans uint64
}{
	conns: stim.ConnMix{ActiveConns: 48, HotConns: 4, PSame: 0.4, PHot: 0.6, POutOfRange: 0.01, POpenNext: 0.25},
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

// vectorDraw draws the events of a vector file.
type vectorDraw struct {
	sh     stimShape
	r      *stim.Rand
	kinds  stim.Kinds
	conns  *stim.Conns
	evSpan uint64              // 2^width(s_event_ev)
	sent   map[uint32][]uint32 // recent send EVs per connection, oldest first

	now, nowMask uint64
	nowStep      uint64 // time advances uniformly by 0..nowStep per event
}

func newVectorDraw(sh stimShape, r *stim.Rand) *vectorDraw {
	d := &vectorDraw{sh: sh, r: r, kinds: stim.NewKinds(vectorMix.kindWeights),
		conns:  stim.NewConns(vectorMix.conns, r, sh.numConn, sh.connW),
		evSpan: uint64(1) << uint(sh.evW), sent: map[uint32][]uint32{}}
	d.length(1)
	return d
}

// length sets the clock for a file of n events: a mean step of
// freezeSpans*freezeTime/n, so the file spans freezeSpans freezes whatever
// its length; but at most one freeze per event, so short files keep time
// meaningful (a step of 2^(TimeW-1) or more would read as going back in
// time). Time starts just before the timestamp's wrap, so that wrapping
// is exercised within the first hundred events.
func (d *vectorDraw) length(n int) {
	if d.sh.timeW == 0 {
		return
	}
	ft := d.sh.freezeTime
	d.nowMask = uint64(1)<<uint(d.sh.timeW) - 1
	d.nowStep = max(2, min(ft, 2*vectorMix.freezeSpans*ft/uint64(max(n, 1))))
	d.now = (d.nowMask + 1 - 64*d.nowStep) & d.nowMask
}

// event draws the next event. Fields the kind does not use carry random
// values: the block must ignore them.
func (d *vectorDraw) event(f []uint64) {
	r := d.r
	if d.sh.timeW > 0 {
		d.now = (d.now + r.Below(d.nowStep+1)) & d.nowMask
	}
	ecn := r.Hit(stim.ThresholdOf(vectorMix.pECN))
	ev := r.Below(d.evSpan)
	var conn uint32
	var kind uint64
	if c, ok := d.conns.OpenNext(); ok {
		conn, kind = c, KindOpen
	} else {
		conn = d.conns.Pick()
		kind = d.kinds.Pick(r)
		if kind == KindAck || kind == KindNack {
			if evs := d.sent[conn]; len(evs) > 0 && r.Hit(stim.ThresholdOf(vectorMix.pEchoEV)) {
				ev = uint64(evs[r.Below(uint64(len(evs)))])
			}
		}
	}
	f[0], f[1], f[2], f[3], f[4] = uint64(conn), kind, block.Bit(ecn), ev, d.now
}

// observe remembers the EV a send got (a result in repsResult's order),
// for later acks to echo.
func (d *vectorDraw) observe(res []uint64) {
	if res[4] == 1 || res[1] != KindSend {
		return
	}
	conn := uint32(res[0])
	evs := append(d.sent[conn], uint32(res[2])&uint32(d.evSpan-1))
	if len(evs) > vectorMix.recentEVs {
		evs = evs[1:]
	}
	d.sent[conn] = evs
}

// observer is the coverage of a vector file: it shows the draw every
// result too.
type observer struct {
	*coverage
	d *vectorDraw
}

func (o observer) Count(res []uint64) {
	o.d.observe(res)
	o.coverage.Count(res)
}

// coverage counts the behaviours of reps or reps_conf a run reached, from
// the golden results (repsResult's order: conn, kind, ev, explored, error,
// frozen for reps).
type coverage struct {
	stim.Cases
	frozen     bool
	lastFrozen []bool // by connection id
}

// NewCoverage is the coverage of reps (frozen) or reps_conf, for a bench
// that builds its own stimulus (blockeq's typed REPS tests).
func NewCoverage(frozen bool) stim.Coverage { return newCoverage(frozen) }

func newCoverage(frozen bool) *coverage {
	names := []string{"open", "send explored", "send recycled", "ack", "nack", "timeout", "error"}
	if frozen {
		names = append(names, "send while frozen (no exploration)", "freeze entered", "freeze exited")
	}
	return &coverage{Cases: stim.NewCases(names...), frozen: frozen}
}

// Counts is every behaviour reached, with its count.
func (c *coverage) Counts() map[string]int64 {
	m := c.Cases.Counts()
	for n, v := range m {
		if v == 0 {
			delete(m, n)
		}
	}
	return m
}

func (c *coverage) Count(res []uint64) {
	if res[4] == 1 {
		c.Add("error")
		return
	}
	kind := res[1]
	frozen := c.frozen && res[5] == 1
	switch kind {
	case KindOpen:
		c.Add("open")
	case KindSend:
		switch {
		case res[3] == 1:
			c.Add("send explored")
		case frozen:
			c.Add("send while frozen (no exploration)")
		default:
			c.Add("send recycled")
		}
	case KindAck:
		c.Add("ack")
	case KindNack:
		c.Add("nack")
	case KindTimeout:
		c.Add("timeout")
	}
	if c.frozen {
		conn := int(res[0])
		for conn >= len(c.lastFrozen) {
			c.lastFrozen = append(c.lastFrozen, make([]bool, len(c.lastFrozen)+64)...)
		}
		was := c.lastFrozen[conn]
		if frozen && !was && kind == KindTimeout {
			c.Add("freeze entered")
		}
		if !frozen && was && kind != KindOpen {
			c.Add("freeze exited")
		}
		c.lastFrozen[conn] = frozen
	}
}
