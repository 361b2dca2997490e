package config

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/reps"
	"github.com/nicgen/nicgen/blocks/smartt"
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

	cfg := blocks.DefaultConfig()
	cfg.Name = describe(name, n, h)
	cfg.ClockMHz = h.clock
	l.blockRanges = map[string]hcl.Range{}
	for _, b := range blockBodies {
		name := b.Labels[0]
		s := newSection(name, b.LabelRanges[0], b.Body, Section{Type: "block", Label: name})
		l.blockRanges[name] = b.LabelRanges[0]
		var read map[string]bool
		switch name {
		case "reps":
			cfg.Reps, read = l.resolveReps(s, n, h)
		case "reps_conf":
			cfg.RepsConf, read = l.resolveRepsConf(s, n, h)
		case "smartt":
			cfg.Smartt, read = l.resolveSmartt(s, smartt.Conf, n, h)
		case "nscc":
			cfg.NSCC, read = l.resolveSmartt(s, smartt.NSCC, n, h)
		}
		if read != nil {
			l.resolveDepth(s, &cfg, name, h)
			read["pipeline_depth"] = true
		}
		l.unknownAttrs(s, read)
		r.Sections = append(r.Sections, s.out)
		r.Blocks = append(r.Blocks, name)
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
	if b != nil {
		l.unknownAttrs(s, map[string]bool{"clock_mhz": true, "connections": true, "conn_width": true, "time_width": true})
	}
	s.info("clock_period_ns", strconv.FormatFloat(1000/h.clock, 'f', 3, 64), "1000 / clock_mhz")
	return h
}

func (l *loader) resolveReps(s *section, n network, h hardware) (reps.Params, map[string]bool) {
	p := reps.DefaultParams()
	p.NumConn, p.ConnW = int(h.conns), int(h.connW)
	entries := l.wholeOr(s, "entries", 8, SourceDefault, "S4:L74 and the htsim default")
	evW := l.wholeOr(s, "ev_width", 16, SourceDefault, "S4 Table 1")
	headNeed, countNeed := bitsFor(entries-1), bitsFor(entries)
	headW := l.wholeOr(s, "head_width", max(8, headNeed), SourceDerived,
		fmt.Sprintf("max(8 as S4 Table 1, bits to hold index entries - 1 = %d)", entries-1))
	countW := l.wholeOr(s, "count_width", max(8, countNeed), SourceDerived,
		fmt.Sprintf("max(8 as S4 Table 1, bits to hold entries = %d)", entries))
	timeW := l.wholeOr(s, "time_width", h.timeW, SourceDerived, "hardware.time_width")
	exploreInit := l.wholeOr(s, "explore_init", n.packets, SourceDerived,
		fmt.Sprintf("network.bdp_packets = ceil(%d B / %d B)", n.bdp, n.mtu))
	exploreAfter := l.wholeOr(s, "explore_after_freeze", exploreInit, SourceDerived, "explore_init, as the REPS artifact reloads the BDP in packets")
	exploreNeed := bitsFor(max(exploreInit, exploreAfter))
	exploreW := l.wholeOr(s, "explore_width", max(8, exploreNeed), SourceDerived,
		fmt.Sprintf("max(8 as S4 Table 1, bits to hold %d)", max(exploreInit, exploreAfter)))
	freeze := l.wholeOr(s, "freeze_time", 10_000_000, SourceDefault, "10 ms in 1 ns ticks")
	seed := l.seedOr(s, "lfsr_seed", 0xACE12D3B, "docs/blocks/reps.md")
	clear := l.boolOr(s, "clear_on_freeze_exit", false, "keep the buffer on freeze exit, as the ns-3 reconstruction (A-13)")

	if headW < headNeed {
		l.crossf(s.where("head_width"), "head_width = %d is too narrow: it must hold index entries - 1 = %d, which needs %d bits", headW, entries-1, headNeed)
	}
	if countW < countNeed {
		l.crossf(s.where("count_width"), "count_width = %d is too narrow: it must hold entries = %d, which needs %d bits", countW, entries, countNeed)
	}
	for _, e := range []struct {
		name string
		v    uint64
	}{{"explore_init", exploreInit}, {"explore_after_freeze", exploreAfter}} {
		if _, set := s.attrs[e.name]; e.name == "explore_after_freeze" && !set && exploreAfter == exploreInit {
			continue // the same value, already reported
		}
		if need := bitsFor(e.v); exploreW < need {
			at := "explore_width"
			if _, set := s.attrs[at]; !set {
				at = e.name
			}
			l.crossf(s.where(at), "explore_width = %d is too narrow: %s = %d (%s) needs %d bits", exploreW, e.name, e.v, s.origin(e.name), need)
		}
	}
	if timeW < 64 && freeze >= uint64(1)<<(timeW-1) {
		at := "freeze_time"
		if _, set := s.attrs[at]; !set {
			at = "time_width"
		}
		l.crossf(s.where(at), "freeze_time = %d must be below 2^(time_width-1) = %d for wrap-safe time comparison (time_width = %d, %s)", freeze, uint64(1)<<(timeW-1), timeW, s.origin("time_width"))
	}

	p.N, p.EVW, p.HeadW, p.CountW, p.TimeW, p.ExploreW = int(entries), int(evW), int(headW), int(countW), int(timeW), int(exploreW)
	p.ExploreInit, p.ExploreAfterFreeze, p.FreezeTime, p.LFSRSeed, p.ClearOnFreezeExit = exploreInit, exploreAfter, freeze, uint32(seed), clear
	return p, readAll(repsSchema)
}

func (l *loader) resolveRepsConf(s *section, n network, h hardware) (reps.ConfParams, map[string]bool) {
	p := reps.DefaultConfParams()
	p.NumConn, p.ConnW = int(h.conns), int(h.connW)
	ents := l.wholeOr(s, "num_entropies", 256, SourceDefault, "S0:L292")
	need := bitsFor(ents - 1)
	evW := l.wholeOr(s, "ev_width", max(16, need), SourceDerived, fmt.Sprintf("max(16, bits to hold entropy %d)", ents-1))
	init := l.wholeOr(s, "explore_init", min(n.packets, ents), SourceDerived,
		fmt.Sprintf("min(network.bdp_packets = %d, num_entropies = %d) (A-12)", n.packets, ents))
	if evW < need {
		l.crossf(s.where("ev_width"), "ev_width = %d is too narrow: it must hold entropy num_entropies - 1 = %d, which needs %d bits", evW, ents-1, need)
	}
	if init > ents {
		l.crossf(s.where("explore_init"), "explore_init = %d is above num_entropies = %d: exploration stops once every entropy is tried (A-12); must be 0..%d", init, ents, ents)
	}
	p.NumEntropies, p.EVW, p.ExploreInit = int(ents), int(evW), init
	s.info("entropy_width", strconv.Itoa(p.EntW()), "bits to hold num_entropies - 1")
	s.info("explore_counter_width", strconv.Itoa(p.ExploreW()), "bits to hold explore_init")
	return p, readAll(repsConfSchema)
}

func (l *loader) resolveSmartt(s *section, v smartt.Variant, n network, h hardware) (smartt.Params, map[string]bool) {
	p := smartt.DefaultParams(v)
	p.Net = smartt.Network{LinkGbps: n.link, MTU: uint32(n.mtu), BrttNs: uint32(n.rtt)}
	p.NumConn, p.ConnW = int(h.conns), int(h.connW)
	d := p.Derive() // the network's constants do not depend on the widths
	ratio, ratioSrc := "1.25", "S0:L263"
	if v == smartt.NSCC {
		ratio, ratioSrc = "1.5", "S1:L1024"
	}
	s.info("max_window_bytes", strconv.FormatUint(d.MaxCwnd, 10), fmt.Sprintf("floor(%s x bdp_bytes = %d) (%s)", ratio, d.BDP, ratioSrc))
	s.info("cwnd_width", strconv.Itoa(d.CwndW), "bits to hold max_window_bytes")
	s.info("qa_rtt_ns", strconv.FormatUint(d.QaRttNs, 10), "base_rtt_ns + 4 x (target_rtt_ns - base_rtt_ns), the QuickAdapt delay threshold (A-10)")

	if d.MaxCwnd < n.mtu {
		// nothing below makes sense for a window smaller than a packet
		l.crossf(s.header, "block %q: max_window_bytes = %d (%s x bdp_bytes = %d) is below one mtu = %d: the network is too small for SMaRTT", s.sec, d.MaxCwnd, ratio, d.BDP, n.mtu)
	}
	sizeNeed := bitsFor(n.mtu)
	sizeW := l.wholeOr(s, "size_width", min(max(14, sizeNeed), max(sizeNeed, uint64(d.CwndW))), SourceDerived,
		fmt.Sprintf("max(14, bits to hold mtu = %d), at most cwnd_width = %d", n.mtu, d.CwndW))
	fiTol := l.wholeOr(s, "fi_tol_ns", 1000, SourceDefault, "htsim's 1 us of queuing delay (A-9)")
	// the RTT port carries every RTT the datapath compares with
	rttMax, rttWhat := d.QaRttNs, fmt.Sprintf("qa_rtt_ns = %d", d.QaRttNs)
	if fiMax := n.rtt + fiTol; fiMax > rttMax {
		rttMax, rttWhat = fiMax, fmt.Sprintf("base_rtt_ns + fi_tol_ns = %d", fiMax)
	}
	rttNeed := bitsFor(rttMax)
	rttW := l.wholeOr(s, "rtt_width", max(20, rttNeed), SourceDerived, fmt.Sprintf("max(20, bits to hold %s)", rttWhat))
	timeW := l.wholeOr(s, "time_width", h.timeW, SourceDerived, "hardware.time_width")
	read := readAll(smarttSchema)
	adjust := false
	if v == smartt.Conf {
		p.WtdShift = int(l.wholeOr(s, "wtd_shift", 4, SourceDefault, "alpha = 1/16 (A-8)"))
		p.TimeoutsReplaceTrims = l.boolOr(s, "timeouts_replace_trims", false, "trims are available (S0:L234)")
		delete(read, "avg_shift")
		delete(read, "adjust_period")
		delete(read, "delay_qa")
	} else {
		p.AvgShift = int(l.wholeOr(s, "avg_shift", 3, SourceDefault, "gain 1/8 (A-11)"))
		p.AdjustPeriod = l.boolOr(s, "adjust_period", true, "S1 III-G")
		p.DelayQA = l.boolOr(s, "delay_qa", false, "the network trims (A-10)")
		adjust = p.AdjustPeriod
		delete(read, "wtd_shift")
		delete(read, "timeouts_replace_trims")
	}
	byteNeed, byteWhy := bitsFor(d.MaxCwnd), fmt.Sprintf("bits to hold max_window_bytes = %d", d.MaxCwnd)
	if adjust {
		// the adjustment period ends after 8 MTU of acked bytes (S1:L853)
		byteNeed = max(byteNeed, bitsFor(8*n.mtu))
		byteWhy = fmt.Sprintf("bits to hold max_window_bytes = %d and 8 x mtu = %d (S1:L853)", d.MaxCwnd, 8*n.mtu)
	}
	byteW := l.wholeOr(s, "byte_width", byteNeed, SourceDerived, byteWhy)

	// f: the widest window fraction that keeps the window register within
	// 32 bits and every product of the datapath within 64 (contract
	// Section 3); the contract's 6 when the network allows it.
	fits := func(f uint64) string {
		q := p
		q.F = int(f)
		dd := q.Derive()
		if cw := uint64(dd.CwndW) + f; cw > 32 {
			return fmt.Sprintf("the window register c takes cwnd_width + f = %d + %d = %d bits, above 32", dd.CwndW, f, cw)
		}
		if b := sizeW + bitsFor(dd.KFi) + 2; b > 64 {
			return fmt.Sprintf("the Fair Increase product size x KFi takes size_width + bits of KFi + 2 = %d + %d + 2 = %d bits, above 64", sizeW, bitsFor(dd.KFi), b)
		}
		if b := sizeW + bitsFor(dd.KMi) + rttW; b > 64 {
			return fmt.Sprintf("the Multiplicative Increase product size x KMi x (target_rtt - rtt) takes size_width + bits of KMi + rtt_width = %d + %d + %d = %d bits, above 64", sizeW, bitsFor(dd.KMi), rttW, b)
		}
		if b := rttW + sizeW + bitsFor(dd.KMd); v == smartt.Conf && b > 64 {
			return fmt.Sprintf("the Multiplicative Decrease product (rtt - target_rtt) x size x KMd takes rtt_width + size_width + bits of KMd = %d + %d + %d = %d bits, above 64", rttW, sizeW, bitsFor(dd.KMd), b)
		}
		return ""
	}
	var f uint64
	if fv, ok := l.whole(s, "f"); ok {
		f = fv
		l.setting(s, "f", strconv.FormatUint(fv, 10))
		if why := fits(f); why != "" {
			hi := int64(-1)
			for g := int64(f) - 1; g >= 0 && hi < 0; g-- {
				if fits(uint64(g)) == "" {
					hi = g
				}
			}
			if hi >= 0 {
				l.crossf(s.where("f"), "f = %d: %s; with these widths and this network f must be 0..%d", f, why, hi)
			} else {
				l.crossf(s.where("f"), "f = %d: %s; no f fits: narrow size_width or rtt_width, or lower network.link_gbps or base_rtt_ns", f, why)
			}
		}
	} else {
		f = 6
		why, src := "docs/blocks/smartt.md Section 3; lowered when the network needs it", SourceDefault
		if first := fits(6); first != "" {
			src = SourceDerived
			for f > 0 && fits(f) != "" {
				f--
			}
			why = "lowered from 6: " + first
			if last := fits(f); last != "" {
				l.crossf(s.header, "block %q: %s even with f = 0: narrow size_width or rtt_width, or lower network.link_gbps or base_rtt_ns", s.sec, last)
			}
		}
		s.record(Setting{Name: "f", Value: strconv.FormatUint(f, 10), Source: src, Why: why})
	}
	k := l.wholeOr(s, "k", 10, SourceDefault, "docs/blocks/smartt.md Section 3")
	var initCwnd uint64
	if iv, ok := l.whole(s, "init_cwnd"); ok {
		initCwnd = iv
		l.setting(s, "init_cwnd", strconv.FormatUint(iv, 10))
		if iv < n.mtu || iv > d.MaxCwnd {
			l.crossf(s.where("init_cwnd"), "init_cwnd = %d is out of range: must be mtu..max_window_bytes = %d..%d (A-15)", iv, n.mtu, d.MaxCwnd)
		}
		if iv == d.MaxCwnd {
			initCwnd = 0 // the blocks' spelling of "the max window"
		}
	} else {
		s.record(Setting{Name: "init_cwnd", Value: strconv.FormatUint(d.MaxCwnd, 10), Source: SourceDerived, Why: "max_window_bytes (A-15)"})
	}
	p.ClampOnEarlyReturn = l.boolOr(s, "clamp_on_early_return", true, "A-2")
	p.TrimsCountAsAcked = l.boolOr(s, "trims_count_as_acked", false, "QuickAdapt counts delivered bytes (A-7)")
	p.ZeroStampExpired = l.boolOr(s, "zero_stamp_expired", true, "docs/blocks/smartt.md Section 3")

	if sizeW < sizeNeed {
		l.crossf(s.where("size_width"), "size_width = %d is too narrow: it must hold mtu = %d, which needs %d bits", sizeW, n.mtu, sizeNeed)
	} else if sizeW > uint64(d.CwndW) && d.MaxCwnd >= n.mtu {
		l.crossf(s.where("size_width"), "size_width = %d is wider than the window (cwnd_width = %d bits): no packet is larger than the max window; must be %d..%d", sizeW, d.CwndW, sizeNeed, d.CwndW)
	}
	if rttW < rttNeed {
		l.crossf(s.where("rtt_width"), "rtt_width = %d is too narrow: it must hold %s, which needs %d bits", rttW, rttWhat, rttNeed)
	}
	if byteW < byteNeed {
		l.crossf(s.where("byte_width"), "byte_width = %d is too narrow: it must hold %s, which needs %d bits", byteW, strings.TrimPrefix(byteWhy, "bits to hold "), byteNeed)
	}
	if timeW < smartt.QW+smartt.QShift {
		l.crossf(s.where("time_width"), "time_width = %d (%s) is too narrow for block %q: the 24-bit stamps in 16 ns units need %d bits; set time_width in this block", timeW, s.origin("time_width"), s.sec, smartt.QW+smartt.QShift)
	}

	p.SizeW, p.RttW, p.ByteW, p.TimeW, p.F, p.K = int(sizeW), int(rttW), int(byteW), int(timeW), int(f), int(k)
	p.FiTolNs, p.InitCwnd = uint32(fiTol), uint32(initCwnd)
	return p, read
}

func readAll(schema []attrSpec) map[string]bool {
	m := map[string]bool{}
	for _, a := range schema {
		m[a.Name] = true
	}
	return m
}

// final runs the blocks' own validation and the caller's check on a
// configuration whose every value is in range and consistent. Both should
// be redundant with the checks above; they are the net under them.
func (l *loader) final(r *Resolved) {
	for _, name := range r.Blocks {
		b, err := blocks.Lookup(name)
		if err != nil {
			l.crossf(l.blockRanges[name], "%v", err)
			continue
		}
		if _, err := b.Elaborate(r.Config); err != nil {
			l.crossf(l.blockRanges[name], "block %q cannot be built: %v", name, err)
			continue
		}
		if l.check != nil {
			if err := l.check(name, r.Config); err != nil {
				l.crossf(l.blockRanges[name], "block %q: %v", name, err)
			}
		}
	}
}

// resolveDepth reads a block's pipeline_depth: by default the depth the
// block declares for the configured clock (measured on ECP5, docs/pipeline.md).
func (l *loader) resolveDepth(s *section, cfg *blocks.Config, name string, h hardware) {
	var def int
	var dst *int
	switch name {
	case "reps":
		def, dst = reps.DepthFor(h.clock), &cfg.Reps.Depth
	case "reps_conf":
		def, dst = reps.ConfDepthFor(h.clock), &cfg.RepsConf.Depth
	case "smartt", "nscc":
		dst = &cfg.Smartt.Depth
		if name == "nscc" {
			dst = &cfg.NSCC.Depth
		}
		p := cfg.Smartt
		if name == "nscc" {
			p = cfg.NSCC
		}
		var err error
		if def, err = smartt.DepthFor(p); err != nil {
			def = 1 // the block's own validation reports the configuration
		}
	default:
		return
	}
	*dst = int(l.wholeOr(s, "pipeline_depth", uint64(def), SourceDerived,
		"the stages the block's cuts reach (docs/pipeline.md)"))
}
