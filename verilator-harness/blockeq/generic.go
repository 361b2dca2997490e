package blockeq

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/stim"
	"github.com/nicgen/nicgen/golden/pipe"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// The generic bench serves every block whose results do not depend on
// timing (the others have a cycle model, cyclebench.go): it needs nothing
// but the block's description (package block). The reference is the
// description's golden model inside the shell's cycle contract
// (golden/pipe); the stimulus and coverage are the block's own
// (block.Desc.Stimulus) or, for a block without them (a new block, a
// test's toy block), random events over the block's s_event_* ports and
// the kinds and errors of the results. Kind 0 opens a connection on every block of the pipelined shell
// (docs/adding-a-block.md): the stimulus uses a connection only once it
// opened it, as the RTL's table starts from random contents.

// fieldEvent is an event's fields in the golden model's order: a value
// (an array, not a slice), since the merging shell's model copies events
// from the input buffer into its arrival register and slots.
type fieldEvent struct {
	f [maxEventFields]uint64
	n int
}

// maxEventFields is the most event fields the generic bench takes.
const maxEventFields = 16

// goldenStepper runs a description's golden model in golden/pipe.
type goldenStepper struct {
	g        block.Golden
	nOut     int // the result's fields: the golden model's, and the member count of a shell with wait slots
	nGold    int // the golden model's
	connAt   int // position of conn in the golden event
	connMask uint64
}

func (s goldenStepper) StepTo(e *fieldEvent, r *[]uint64) {
	// a result slot of the pipeline keeps its slice from one use to the next
	if cap(*r) < s.nOut {
		*r = make([]uint64, s.nOut)
	}
	*r = (*r)[:s.nOut]
	s.g.Step(e.f[:e.n], (*r)[:s.nGold])
}
func (s goldenStepper) Reset() { s.g.Reset() }
func (s goldenStepper) ConnKey(e *fieldEvent) uint64 {
	if s.connAt < 0 {
		return 0
	}
	return e.f[s.connAt] & s.connMask
}

type genericPorts struct {
	sValid, mReady, sReady, mValid int
	inFields                       []string // field name by s_event_* input, -1 gaps never occur
	inIdx                          []int
	outFields                      []string
	outIdx                         []int
	widths                         map[string]int
}

func newGenericPorts(d harness.Design) (genericPorts, error) {
	pm := NewPortMap(d)
	g := genericPorts{sValid: pm.In("s_event_valid"), mReady: pm.In("m_result_ready"),
		sReady: pm.Out("s_event_ready"), mValid: pm.Out("m_result_valid"), widths: map[string]int{}}
	if g.sValid < 0 || g.mReady < 0 || g.sReady < 0 || g.mValid < 0 {
		return g, fmt.Errorf("blockeq: %s has no event/result stream handshake (s_event_valid/ready, m_result_valid/ready)", d.Top)
	}
	for _, p := range d.Ports {
		if name, ok := strings.CutPrefix(p.Name, "s_event_"); ok && p.Dir == harness.In && name != "valid" {
			g.inFields, g.inIdx = append(g.inFields, name), append(g.inIdx, pm.In(p.Name))
			g.widths[name] = p.Width
		}
		if name, ok := strings.CutPrefix(p.Name, "m_result_"); ok && p.Dir == harness.Out && name != "valid" {
			g.outFields, g.outIdx = append(g.outFields, name), append(g.outIdx, pm.Out(p.Name))
		}
	}
	if _, ok := g.widths["conn"]; !ok {
		return g, fmt.Errorf("blockeq: %s has no s_event_conn", d.Top)
	}
	if _, ok := g.widths["kind"]; !ok {
		return g, fmt.Errorf("blockeq: %s has no s_event_kind", d.Top)
	}
	return g, nil
}

// genericRef is the harness reference of a described block.
type genericRef struct {
	p       genericPorts
	inIdx   []int // golden event field i <- harness input inIdx[i] (-1: 0)
	outIdx  []int // harness output p.outIdx[k] <- golden result outIdx[k]
	kindAt  int   // positions of kind and error in the golden result
	errAt   int
	newPipe func() *pipe.Pipeline[fieldEvent, []uint64]
	pipe    *pipe.Pipeline[fieldEvent, []uint64]
	cov     stim.Coverage
}

func (r *genericRef) Reset() { r.pipe = r.newPipe() }

func (r *genericRef) Cycle(in, out []uint64) {
	p := r.p
	// the event is written in place; an event slot of the pipeline keeps
	// its slice from one use to the next
	ev := r.pipe.Input()
	ev.n = len(r.inIdx)
	for i, j := range r.inIdx {
		ev.f[i] = 0
		if j >= 0 {
			ev.f[i] = in[j]
		}
	}
	mReady := in[p.mReady] == 1
	sReady, mValid, res := r.pipe.CyclePorts(in[p.sValid] == 1, mReady)
	out[p.sReady], out[p.mValid] = B2U(sReady), B2U(mValid)
	for k, j := range r.outIdx {
		v := uint64(0)
		if *res != nil {
			v = (*res)[j]
		}
		out[p.outIdx[k]] = v
	}
	if mValid && mReady && r.cov != nil {
		r.cov.Count(*res)
	}
}

// GenericCoverage counts the kinds of the results and the errors.
type GenericCoverage struct {
	kinds         []string
	extra         []string // further points a bench counts itself
	counts        map[string]int64
	kindAt, errAt int // positions of kind and error in a result (errAt -1: none)
}

// Count counts one result by its kind, or as an error.
func (c *GenericCoverage) Count(res []uint64) {
	if c.errAt >= 0 && res[c.errAt] == 1 {
		c.counts["error"]++
		return
	}
	if kind := res[c.kindAt]; kind < uint64(len(c.kinds)) {
		c.counts[c.kinds[kind]]++
	}
}

// coverageReport is a block's own coverage (package stim) as the harness
// prints it.
type coverageReport struct{ stim.Coverage }

func (c coverageReport) String() string { return FormatCounts(c.Counts()) }

// Counts is every case with its count.
func (c *GenericCoverage) Counts() map[string]int64 {
	out := map[string]int64{"error": c.counts["error"]}
	for _, k := range append(c.extra, c.kinds...) {
		out[k] = c.counts[k]
	}
	return out
}

// Missing lists the cases never reached.
func (c *GenericCoverage) Missing() []string {
	var miss []string
	for n, v := range c.Counts() {
		if v == 0 {
			miss = append(miss, n)
		}
	}
	sort.Strings(miss)
	return miss
}

func (c *GenericCoverage) String() string { return FormatCounts(c.Counts()) }

// genericStim draws events over a block's fields: kind 0 opens the next
// connection, other kinds use an opened one (or, rarely, one past the
// table, for the error path); other fields are uniform over their width.
type genericStim struct {
	p        genericPorts
	r        *rng
	numConn  uint64
	active   uint64 // connections the stimulus opens and uses (0: numConn)
	numKinds uint64
	opened   uint64
	valid    bool
	cur      []uint64 // by inFields
	pValid   threshold
	pReady   threshold
}

func (s *genericStim) Next(prevOut, in []uint64) {
	accepted := prevOut != nil && s.valid && prevOut[s.p.sReady] == 1
	if !s.valid || accepted {
		s.valid = s.r.Hit(s.pValid)
		if s.valid {
			s.draw()
		}
	}
	in[s.p.sValid] = B2U(s.valid)
	for i, idx := range s.p.inIdx {
		in[idx] = s.cur[i]
	}
	in[s.p.mReady] = B2U(s.r.Hit(s.pReady))
}

func (s *genericStim) draw() {
	var kind, conn uint64
	switch {
	case s.opened < s.activeConns() && (s.opened == 0 || s.r.Below(8) == 0):
		kind, conn = 0, s.opened
		s.opened++
	case s.r.Below(64) == 0:
		kind, conn = s.r.Below(1<<min(s.p.widths["kind"], 32)), s.numConn+s.r.Below(4) // an error
	default:
		kind, conn = 1+s.r.Below(s.numKinds-1), s.r.Below(s.opened)
	}
	for i, f := range s.p.inFields {
		switch f {
		case "conn":
			s.cur[i] = conn
		case "kind":
			s.cur[i] = kind
		default:
			w := s.p.widths[f]
			v := s.r.Next()
			if w < 64 {
				v &= 1<<uint(w) - 1
			}
			s.cur[i] = v
		}
	}
}

// activeConns is the connections the stimulus opens and uses.
func (s *genericStim) activeConns() uint64 {
	if s.active == 0 || s.active > s.numConn {
		return s.numConn
	}
	return s.active
}

// genericBench is the bench of a block from its description alone.
func genericBench(cfg blocks.Config, b blocks.Block, hd harness.Design, profile string, seed uint64) (*Bench, error) {
	gp, err := newGenericPorts(hd)
	if err != nil {
		return nil, err
	}
	depth, err := b.Depth(cfg)
	if err != nil {
		return nil, err
	}
	numConn, err := b.NumConn(cfg)
	if err != nil {
		return nil, err
	}
	if len(b.Kinds) < 2 {
		return nil, fmt.Errorf("blockeq: block %s has %d kinds; the generic stimulus needs open and one more", b.Name, len(b.Kinds))
	}
	g0, err := b.Golden(cfg)
	if err != nil {
		return nil, err
	}
	slots, err := b.WaitSlots(cfg)
	if err != nil {
		return nil, err
	}
	gIn, gOut := g0.Fields()
	if len(gIn) > maxEventFields {
		return nil, fmt.Errorf("blockeq: block %s has %d event fields; the generic bench takes at most %d", b.Name, len(gIn), maxEventFields)
	}
	nGold := len(gOut)
	if slots > 0 { // the shell's member count, after the golden model's fields
		gOut = append(slices.Clone(gOut), connpipe.MembersField)
	}
	portIn := make([]string, len(gp.inFields))
	copy(portIn, gp.inFields)
	ref := &genericRef{p: gp, inIdx: make([]int, len(gIn)), outIdx: block.Bind(gp.outFields, gOut)}
	for i, j := range block.Bind(gIn, portIn) {
		ref.inIdx[i] = -1
		if j >= 0 {
			ref.inIdx[i] = gp.inIdx[j]
		}
	}
	for k, j := range ref.outIdx {
		if j < 0 {
			return nil, fmt.Errorf("blockeq: block %s: the golden model gives no result field %q", b.Name, gp.outFields[k])
		}
	}
	ref.kindAt, ref.errAt = block.Bind([]string{"kind"}, gOut)[0], block.Bind([]string{"error"}, gOut)[0]
	if ref.kindAt < 0 {
		return nil, fmt.Errorf("blockeq: block %s: the golden model gives no result kind", b.Name)
	}
	connAt := block.Bind([]string{"conn"}, gIn)[0]
	connMask := uint64(1)<<uint(gp.widths["conn"]) - 1
	var cov CoverageReport
	if _, own, ok, err := b.Stimulus(cfg, profile, stim.New(seed)); err != nil {
		return nil, err
	} else if ok {
		ref.cov, cov = own, coverageReport{own}
	} else {
		gc := &GenericCoverage{kinds: b.Kinds, counts: map[string]int64{}, kindAt: ref.kindAt, errAt: ref.errAt}
		ref.cov, cov = gc, gc
	}
	ref.newPipe = func() *pipe.Pipeline[fieldEvent, []uint64] {
		g, _ := b.Golden(cfg) // accepted above
		st := goldenStepper{g: g, nOut: len(gOut), nGold: nGold, connAt: connAt, connMask: connMask}
		errAt := ref.errAt
		return pipe.NewShell[fieldEvent, []uint64](st, depth, slots, func(r *[]uint64, n int) {
			if errAt >= 0 && (*r)[errAt] == 1 {
				n = 0 // an error result's fields are all 0
			}
			(*r)[nGold] = uint64(n)
		})
	}
	ref.pipe = ref.newPipe()
	newStim := func() harness.Stimulus {
		r := newRNG(seed)
		// the block's own stimulus draws from the generator the handshake
		// uses, in the order it always did: the source first
		if src, _, ok, _ := b.Stimulus(cfg, profile, r); ok {
			return newSourceStim(src, gp, gIn, r)
		}
		return &genericStim{p: gp, r: r, numConn: uint64(numConn), numKinds: uint64(len(b.Kinds)),
			cur: make([]uint64, len(gp.inFields)), pValid: thresholdOf(0.9), pReady: thresholdOf(0.8)}
	}
	return &Bench{Ref: ref, Stim: newStim, Coverage: cov}, nil
}

// sourceStim drives the event ports from a block's own stimulus (package
// stim): its clock ticks every cycle, and a fresh event is drawn whenever
// the handshake offers one.
type sourceStim struct {
	src stim.Source
	h   handshake
	at  []int    // harness input of golden event field i (-1: none)
	cur []uint64 // the offered event, in the golden model's field order
}

// newSourceStim drives gp's ports from src, whose events are in the order
// of the golden model's event fields gIn, with a handshake that draws
// from r (the generator src draws from, made before the handshake).
func newSourceStim(src stim.Source, gp genericPorts, gIn []string, r *rng) *sourceStim {
	s := &sourceStim{src: src, at: make([]int, len(gIn)), cur: make([]uint64, len(gIn)),
		h: newHandshake(gp.sValid, gp.mReady, gp.sReady, r, src.PValid, src.PReady)}
	for i, j := range block.Bind(gIn, gp.inFields) {
		s.at[i] = -1
		if j >= 0 {
			s.at[i] = gp.inIdx[j]
		}
	}
	return s
}

func (s *sourceStim) Next(prevOut, in []uint64) {
	if s.src.Tick != nil {
		s.src.Tick()
	}
	if s.h.step(prevOut, in) {
		s.src.Event(s.cur)
	}
	for i, j := range s.at {
		if j >= 0 {
			in[j] = s.cur[i]
		}
	}
}

// FieldVector is one event line of a vector file: its s_event_* fields by name in port order, then "expect", its
// m_result_* fields in port order (1-bit ones as JSON booleans).
type FieldVector struct {
	In     []NamedValue
	Expect []NamedValue
}

// NamedValue is one field of a FieldVector.
type NamedValue struct {
	Name  string
	Value uint64
	Flag  bool // a 1-bit result: written as a boolean
}

func (*FieldVector) vectorLine() {}

// MarshalJSON writes the fields in port order.
func (v *FieldVector) MarshalJSON() ([]byte, error) {
	var b []byte
	write := func(list []NamedValue) {
		for i, f := range list {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = append(b, f.Name...)
			b = append(b, '"', ':')
			switch {
			case f.Flag && f.Value == 1:
				b = append(b, "true"...)
			case f.Flag:
				b = append(b, "false"...)
			default:
				b = fmt.Appendf(b, "%d", f.Value)
			}
		}
	}
	b = append(b, '{')
	write(v.In)
	if len(v.In) > 0 {
		b = append(b, ',')
	}
	b = append(b, `"expect":{`...)
	write(v.Expect)
	b = append(b, '}', '}')
	return b, nil
}

// genericVectors draws n events with the generic stimulus's rules (kind 0
// opens the next connection before any other kind uses it) and records the
// description's golden answers.
func genericVectors(cfg blocks.Config, b blocks.Block, ports map[string]int, inOrder, outOrder []string, n int, seed uint64) (*VectorSet, error) {
	numConn, err := b.NumConn(cfg)
	if err != nil {
		return nil, err
	}
	depth, err := b.Depth(cfg)
	if err != nil {
		return nil, err
	}
	slots, err := b.WaitSlots(cfg)
	if err != nil {
		return nil, err
	}
	if err := vectorsTakeNoSlots(b.Name, slots); err != nil {
		return nil, err
	}
	g, err := b.Golden(cfg)
	if err != nil {
		return nil, err
	}
	gIn, gOut := g.Fields()
	inIdx := block.Bind(gIn, inOrder)
	outIdx := block.Bind(outOrder, gOut)
	for k, j := range outIdx {
		if j < 0 && outOrder[k] == connpipe.MembersField {
			// smartt's, nscc's, hpcc's and swift's merging shells
			return nil, fmt.Errorf("blockeq: block %s has a merging shell (m_result_%s): which events fold together or pass a waiting one depends on their timing, which a vector file does not state; use nicgen equiv", b.Name, connpipe.MembersField)
		}
		if j < 0 {
			return nil, fmt.Errorf("blockeq: block %s: the golden model gives no result field %q", b.Name, outOrder[k])
		}
	}
	kindAt, errAt := block.Bind([]string{"kind"}, gOut)[0], block.Bind([]string{"error"}, gOut)[0]
	widths := map[string]int{}
	for _, f := range inOrder {
		widths[f] = ports["s_event_"+f]
	}
	// draw writes the next event in port order; the block's own stimulus
	// (profile stim.Vectors) where it has one, else the generic draw
	var draw func(vals []uint64)
	var count func(res []uint64)
	var cov CoverageReport
	r := newRNG(seed)
	if src, own, ok, err := b.Stimulus(cfg, stim.Vectors, r); err != nil {
		return nil, err
	} else if ok {
		cur, fromGolden := make([]uint64, len(gIn)), block.Bind(inOrder, gIn)
		if src.Length != nil {
			src.Length(n)
		}
		draw = func(vals []uint64) {
			src.Event(cur)
			for j, k := range fromGolden {
				vals[j] = 0
				if k >= 0 {
					vals[j] = cur[k]
				}
			}
		}
		count, cov = own.Count, coverageReport{own}
	} else {
		if len(b.Kinds) < 2 {
			return nil, fmt.Errorf("blockeq: block %s has %d kinds; the generic stimulus needs open and one more", b.Name, len(b.Kinds))
		}
		gp := genericPorts{inFields: inOrder, widths: widths}
		st := &genericStim{p: gp, r: r, numConn: uint64(numConn), numKinds: uint64(len(b.Kinds)), cur: make([]uint64, len(inOrder))}
		draw = func(vals []uint64) {
			st.draw()
			copy(vals, st.cur)
		}
		gc := &GenericCoverage{kinds: b.Kinds, counts: map[string]int64{}, kindAt: kindAt, errAt: errAt}
		count, cov = func(res []uint64) {
			if kindAt >= 0 {
				gc.Count(res)
			}
		}, gc
	}
	vs := &VectorSet{
		Header: VectorHeader{Block: b.Name, Seed: seed, Events: n, Params: cfg.Params[b.Name], Depth: depth,
			Latency: pipe.Latency(depth), Credits: pipe.Credits(depth), Ports: ports, Kinds: b.Kinds, Cases: caseNames(b),
			Replay: map[string]int{"icarus": b.Cocotb.Icarus, "verilator": b.Cocotb.Verilator}},
		Events:   make([]VectorLine, 0, n),
		Coverage: cov,
	}
	g.Reset()
	in, res := make([]uint64, len(gIn)), make([]uint64, len(gOut))
	for i := 0; i < n; i++ {
		line := &FieldVector{}
		vals := make([]uint64, len(inOrder))
		draw(vals)
		for j, f := range inOrder {
			if w := widths[f]; w < 64 {
				vals[j] &= 1<<uint(w) - 1
			}
			line.In = append(line.In, NamedValue{Name: f, Value: vals[j]})
		}
		for k, j := range inIdx {
			in[k] = 0
			if j >= 0 {
				in[k] = vals[j]
			}
		}
		g.Step(in, res)
		for k, f := range outOrder {
			line.Expect = append(line.Expect, NamedValue{Name: f, Value: res[outIdx[k]], Flag: ports["m_result_"+f] == 1 && f != "kind" && f != "conn"})
		}
		count(res)
		vs.Events = append(vs.Events, line)
	}
	return vs, nil
}

// caseNames is the names of m_result_case's values, where the block names
// them (block.Names of field "case"), for a vector file's header.
func caseNames(b blocks.Block) []string {
	for _, d := range b.Decode {
		if d.Field == "case" {
			return d.Names
		}
	}
	return nil
}
