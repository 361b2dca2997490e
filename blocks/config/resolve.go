package config

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/block"
)

// network is the resolved network section and what derives from it.
type network struct {
	link    float64 // Gb/s
	mtu     uint64  // bytes
	rtt     uint64  // base RTT, ns
	factor  float64 // target RTT / base RTT
	bdp     uint64  // bytes: floor(link * rtt / 8)
	packets uint64  // BDP in packets: ceil(bdp / mtu)
	sec     *section
}

// hardware is the resolved hardware section.
type hardware struct {
	clock float64 // MHz
	conns uint64
	connW uint64
	timeW uint64
	ctl   bool // the control wrappers
	sec   *section
}

// bitsFor is the number of bits that hold v (at least 1).
func bitsFor(v uint64) uint64 { return uint64(max(1, bits.Len64(v))) }

// resolve walks the file: the top-level attributes, network, hardware and
// one block per generated block, in that order of dependence.
func (l *loader) resolve(body *hclsyntax.Body) *Resolved {
	r := &Resolved{}
	var netBody, hwBody *hclsyntax.Block
	var blockBodies []*hclsyntax.Block
	seen := map[string]hcl.Range{}
	suggested := map[string]bool{}
	for _, b := range body.Blocks {
		switch b.Type {
		case secNetwork, secHardware:
			if first, dup := seen[b.Type]; dup {
				l.errorf(b.TypeRange, "duplicate %s block (the first is at %s)", b.Type, posOf(first))
				continue
			}
			seen[b.Type] = b.TypeRange
			if len(b.Labels) > 0 {
				l.errorf(b.LabelRanges[0], "%s takes no label: write %s { ... }", b.Type, b.Type)
				continue
			}
			if b.Type == secNetwork {
				netBody = b
			} else {
				hwBody = b
			}
		case "block":
			if len(b.Labels) != 1 {
				l.errorf(b.TypeRange, "a block takes one label, its name: block \"reps\" { ... } (blocks: %s)", joinNames(BlockNames()))
				continue
			}
			name := b.Labels[0]
			if _, ok := sectionSchema(name); !ok || name == secTop || name == secNetwork || name == secHardware {
				msg := fmt.Sprintf("unknown block %q", name)
				if near := Nearest(name, BlockNames()); near != "" {
					msg += fmt.Sprintf("; did you mean %q?", near)
				}
				l.errorf(b.LabelRanges[0], "%s (blocks: %s)", msg, joinNames(BlockNames()))
				continue
			}
			key := "block " + name
			if first, dup := seen[key]; dup {
				l.errorf(b.LabelRanges[0], "duplicate block %q (the first is at %s)", name, posOf(first))
				continue
			}
			seen[key] = b.LabelRanges[0]
			blockBodies = append(blockBodies, b)
		default:
			msg := fmt.Sprintf("unknown block type %q", b.Type)
			if near := Nearest(b.Type, []string{secNetwork, secHardware, "block"}); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
				suggested[near] = true
			} else {
				msg += " (the file holds network { }, hardware { } and block \"NAME\" { })"
			}
			l.errorf(b.TypeRange, "%s", msg)
		}
		for _, inner := range b.Body.Blocks {
			where := b.Type
			if b.Type == "block" && len(b.Labels) == 1 {
				where = sectionTitle(b.Labels[0])
			}
			l.errorf(inner.TypeRange, "unexpected block %q inside %s: it takes attributes only", inner.Type, where)
		}
	}
	start := hcl.Range{Filename: l.file, Start: hcl.InitialPos, End: hcl.InitialPos}
	if _, ok := seen[secNetwork]; !ok && !suggested[secNetwork] {
		l.errorf(start, "missing network block: network { link_gbps = ..., mtu = ..., base_rtt_ns = ... }")
	}
	if _, ok := seen[secHardware]; !ok && !suggested[secHardware] {
		l.errorf(start, "missing hardware block: hardware { clock_mhz = ..., connections = ... }")
	}
	if len(blockBodies) == 0 && len(l.errs) == 0 && !suggested["block"] {
		l.errorf(start, "no block to generate: add one block \"NAME\" { } per block of the build (blocks: %s)", joinNames(BlockNames()))
	}

	top := newSection(secTop, start, body, Section{Type: ""})
	name := baseName(l.file)
	if v, ok := l.str(top, "name"); ok {
		name = v
		l.setting(top, "name", strconv.Quote(v))
		if !validName(v) {
			l.errorf(top.attrs["name"].Expr.Range(), "name %q: use 1 to 80 letters, digits, spaces and - _ . + / ( ), as it goes into every generated file header", v)
		}
	} else {
		if !validName(name) {
			name = "config"
		}
		top.record(Setting{Name: "name", Value: strconv.Quote(name), Source: SourceDefault, Why: "the file name"})
	}
	l.unknownAttrs(top, map[string]bool{"name": true})
	r.Sections = append(r.Sections, top.out)

	n := l.resolveNetwork(netBody)
	r.Sections = append(r.Sections, n.sec.out)
	h := l.resolveHardware(hwBody)
	r.Sections = append(r.Sections, h.sec.out)

	cfg := blocks.Config{Name: describe(name, n, h), ClockMHz: h.clock, Control: h.ctl, Params: map[string]any{}}
	env := block.Env{LinkGbps: n.link, MTU: n.mtu, BaseRTTNs: n.rtt, TargetFactor: n.factor, BDPBytes: n.bdp, BDPPackets: n.packets,
		ClockMHz: h.clock, Conns: h.conns, ConnW: h.connW, TimeW: h.timeW}
	l.blockRanges = map[string]hcl.Range{}
	bodies := map[string]*hclsyntax.Block{}
	for _, b := range blockBodies {
		bodies[b.Labels[0]] = b
	}
	// a block is resolved once, in the file's order or earlier when a
	// composed block asks for its parameters (env.Params); a block the
	// file does not name is resolved from its defaults for the asker alone
	resolved := map[string]bool{}
	unnamed := map[string]any{}
	var resolveBlock func(b *hclsyntax.Block)
	env.Params = func(name string) any {
		if b, ok := bodies[name]; ok {
			resolveBlock(b)
			return cfg.Params[name]
		}
		if v, ok := unnamed[name]; ok {
			return v
		}
		d, err := blocks.Lookup(name)
		if err != nil {
			return nil
		}
		s := newSection(name, start, nil, Section{Type: "block", Label: name})
		unnamed[name] = d.Resolve(&blockSection{l: l, s: s}, env)
		return unnamed[name]
	}
	resolveBlock = func(b *hclsyntax.Block) {
		name := b.Labels[0]
		if resolved[name] {
			return
		}
		resolved[name] = true
		s := newSection(name, b.LabelRanges[0], b.Body, Section{Type: "block", Label: name})
		l.blockRanges[name] = b.LabelRanges[0]
		d, err := blocks.Lookup(name)
		if err != nil { // checked above
			return
		}
		bs := &blockSection{l: l, s: s}
		before := len(l.errs)
		cfg = cfg.Set(name, d.Resolve(bs, env))
		schema, _ := sectionSchema(name)
		read := map[string]bool{}
		for _, a := range applicable(name, schema) {
			read[a] = true
		}
		l.unknownAttrs(s, read)
		if len(l.errs) == before {
			l.unusedAttrs(s, bs.read)
		}
		r.Sections = append(r.Sections, s.out)
		r.Blocks = append(r.Blocks, name)
	}
	for _, b := range blockBodies {
		resolveBlock(b)
	}
	sortSections(r)
	r.Config = cfg
	return r
}

// sortSections orders the blocks by name, as every command lists them,
// and each section's attributes as its schema declares them (the derived
// quantities last).
func sortSections(r *Resolved) {
	for i := range r.Sections {
		sec := r.Sections[i].Label
		if r.Sections[i].Type != "block" {
			sec = r.Sections[i].Type
		}
		schema, _ := sectionSchema(sec)
		rank := map[string]int{}
		for j, a := range schema {
			rank[a.Name] = j
		}
		st := r.Sections[i].Settings
		sort.SliceStable(st, func(a, b int) bool {
			if st[a].Info != st[b].Info {
				return !st[a].Info
			}
			return !st[a].Info && rank[st[a].Name] < rank[st[b].Name]
		})
	}
	const firstBlock = 3 // after the top level, network and hardware
	bs := r.Sections[firstBlock:]
	sort.SliceStable(bs, func(i, j int) bool { return bs[i].Label < bs[j].Label })
	sort.Strings(r.Blocks)
}

func joinNames(ns []string) string { return strings.Join(ns, ", ") }

// validName reports whether a build name can go into every generated
// header (Verilog block comments, XDC and SDC line comments) as it is.
func validName(n string) bool {
	if n == "" || len(n) > 80 {
		return false
	}
	for _, c := range n {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(" -_.+/()", c)
		if !ok {
			return false
		}
	}
	return true
}

func (l *loader) resolveNetwork(b *hclsyntax.Block) network {
	var body *hclsyntax.Body
	header := hcl.Range{Filename: l.file, Start: hcl.InitialPos, End: hcl.InitialPos}
	if b != nil {
		body, header = b.Body, b.TypeRange
	}
	s := newSection(secNetwork, header, body, Section{Type: secNetwork})
	n := network{sec: s}
	if b == nil {
		// reported as missing; the papers' network lets resolution go on
		n.link, n.mtu, n.rtt, n.factor = 800, 4096, 8600, 1.5
	} else {
		n.link = l.requiredNumber(s, "link_gbps", 800)
		n.mtu = l.requiredWhole(s, "mtu", 4096)
		n.rtt = l.requiredWhole(s, "base_rtt_ns", 8600)
		n.factor = l.numberOr(s, "target_rtt_factor", 1.5, "S0:L98; the only factor the blocks implement")
		l.unknownAttrs(s, map[string]bool{"link_gbps": true, "mtu": true, "base_rtt_ns": true, "target_rtt_factor": true})
	}
	n.bdp = uint64(math.Floor(n.link * float64(n.rtt) / 8))
	n.packets = (n.bdp + n.mtu - 1) / n.mtu
	s.info("bdp_bytes", strconv.FormatUint(n.bdp, 10), "floor(link_gbps * base_rtt_ns / 8)")
	s.info("bdp_packets", strconv.FormatUint(n.packets, 10), "ceil(bdp_bytes / mtu)")
	s.info("target_rtt_ns", strconv.FormatUint(uint64(math.Round(n.factor*float64(n.rtt))), 10), "round(target_rtt_factor * base_rtt_ns)")
	s.info("gamma", strconv.FormatFloat(float64(n.bdp)/150000, 'f', 4, 64), "bdp_bytes / 150000, the reference BDP of 100 Gb/s x 12 us (S0:L283, A-17)")
	return n
}

func (l *loader) resolveHardware(b *hclsyntax.Block) hardware {
	var body *hclsyntax.Body
	header := hcl.Range{Filename: l.file, Start: hcl.InitialPos, End: hcl.InitialPos}
	if b != nil {
		body, header = b.Body, b.TypeRange
	}
	s := newSection(secHardware, header, body, Section{Type: secHardware})
	h := hardware{sec: s}
	if b == nil {
		h.clock, h.conns = 250, 4096
	} else {
		h.clock = l.requiredNumber(s, "clock_mhz", 250)
		h.conns = l.requiredWhole(s, "connections", 4096)
	}
	need := bitsFor(h.conns - 1)
	h.connW = l.wholeOr(s, "conn_width", max(16, need), SourceDerived,
		fmt.Sprintf("max(16, bits to hold connection %d = %d)", h.conns-1, need))
	if h.connW < need {
		l.crossf(s.where("conn_width"), "conn_width = %d is too narrow: it must hold connection id %d (connections = %d), which needs %d bits", h.connW, h.conns-1, h.conns, need)
	}
	h.timeW = l.wholeOr(s, "time_width", 32, SourceDefault, "32-bit timestamps of 1 ns (S4 Table 1)")
	h.ctl = l.boolOr(s, "control", false, "the blocks alone, as measured in docs/benchmarks.md (docs/control.md)")
	if b != nil {
		l.unknownAttrs(s, map[string]bool{"clock_mhz": true, "connections": true, "conn_width": true, "time_width": true, "control": true})
	}
	s.info("clock_period_ns", strconv.FormatFloat(1000/h.clock, 'f', 3, 64), "1000 / clock_mhz")
	return h
}

// final runs the caller's check on a configuration whose every value is
// in range and consistent, and keeps the blocks' positions. Loading builds
// no hardware: that every configuration that loads also builds and lints is
// held by a test (cmd/nicgen's TestEveryRangeEdgeBuilds sweeps every
// attribute to the ends of its range), and a command that builds reports a
// block that does not at the block's line (Resolved.BlockPos).
func (l *loader) final(r *Resolved) {
	r.blockPos = map[string]Pos{}
	for _, name := range r.Blocks {
		if rg, ok := l.blockRanges[name]; ok {
			r.blockPos[name] = posOf(rg)
		}
		if _, err := blocks.Lookup(name); err != nil {
			l.crossf(l.blockRanges[name], "%v", err)
			continue
		}
		if l.check != nil {
			if err := l.check(name, r.Config); err != nil {
				l.crossf(l.blockRanges[name], "block %q: %v", name, err)
			}
		}
	}
}

// blockSection is a block's section as its Resolve reads it (block.Section).
type blockSection struct {
	l    *loader
	s    *section
	read map[string]bool // the attributes the block's Resolve read
}

func (b *blockSection) mark(name string) {
	if b.read == nil {
		b.read = map[string]bool{}
	}
	b.read[name] = true
}

func (b *blockSection) Name() string { return b.s.sec }

func (b *blockSection) Whole(name string, def uint64, src Source, why string) uint64 {
	b.mark(name)
	return b.l.wholeOr(b.s, name, def, src, why)
}

func (b *blockSection) Seed(name string, def uint64, why string) uint64 {
	b.mark(name)
	return b.l.seedOr(b.s, name, def, why)
}

func (b *blockSection) Number(name string, def float64, why string) float64 {
	b.mark(name)
	return b.l.numberOr(b.s, name, def, why)
}

func (b *blockSection) Bool(name string, def bool, why string) bool {
	b.mark(name)
	return b.l.boolOr(b.s, name, def, why)
}

func (b *blockSection) Choice(name string, def string, why string) string {
	b.mark(name)
	// recorded quoted, as HCL writes a string (config show reloads)
	v, ok := b.l.str(b.s, name)
	if !ok {
		b.s.record(Setting{Name: name, Value: strconv.Quote(def), Source: SourceDefault, Why: why})
		return def
	}
	spec := mustSpec(b.s.sec, name)
	if len(spec.Options) > 0 && !slices.Contains(spec.Options, v) {
		b.l.errorf(b.s.attrs[name].Expr.Range(), "%s = %q: want one of %s", name, v, strings.Join(spec.Options, ", "))
		return def
	}
	b.l.setting(b.s, name, strconv.Quote(v))
	return v
}

func (b *blockSection) WholeIfSet(name string) (uint64, bool) {
	b.mark(name)
	v, ok := b.l.whole(b.s, name)
	if ok {
		b.l.setting(b.s, name, strconv.FormatUint(v, 10))
	}
	return v, ok
}

func (b *blockSection) IsSet(name string) bool { _, ok := b.s.attrs[name]; return ok }

func (b *blockSection) Record(name, value string, src Source, why string) {
	b.s.record(Setting{Name: name, Value: value, Source: src, Why: why})
}

func (b *blockSection) Info(name, value, why string) { b.s.info(name, value, why) }

func (b *blockSection) Origin(name string) string { return b.s.origin(name) }

func (b *blockSection) Errorf(attr string, format string, a ...any) {
	at := b.s.header
	if attr != "" {
		at = b.s.where(attr)
	}
	b.l.crossf(at, format, a...)
}
