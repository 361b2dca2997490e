package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/blocks/reps"
	"github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/plot"
	"github.com/nicgen/nicgen/golden/netsim"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
	"github.com/nicgen/nicgen/hdlgen"
)

// The state explorer (nicgen budget --explore): it sweeps the widths and
// units of a block's state fields, within what the block declares valid,
// and reports for each point the bits per connection, the SRAM of the
// configured table, its 7-series block RAMs and, where the block has a
// float64 reference, what the point costs in fidelity.

// exploreBounds are the fidelity bounds asserted at the default point of
// every SMaRTT variant (golden/smartt TestLockedAccuracy, golden/netsim
// TestIncast8to1): the explorer shows where each breaks.
const (
	stepBound   = 1e-3 // one-step cwnd error against float64, p99, cwnd > 8 MTU
	incastBound = 0.01 // 8:1 incast completion against float64
)

type setting struct {
	Attr  string `json:"attr"`
	Value int    `json:"value"`
}

type incastDelta struct {
	Size             string  `json:"size"`
	CompletionChange float64 `json:"completion_change"` // fixed / float - 1
	JainChange       float64 `json:"jain_change"`       // fixed - float
}

type pointError struct {
	StepP99     float64       `json:"step_error_p99"`
	StepMax     float64       `json:"step_error_max"`
	Incast      []incastDelta `json:"incast"`
	WorstIncast float64       `json:"worst_incast_change"` // largest |completion change|
	StepOK      bool          `json:"step_bound_holds"`
	IncastOK    bool          `json:"incast_bound_holds"`
}

type explorePoint struct {
	ID          int         `json:"id"`
	Settings    []setting   `json:"settings"`
	Bits        int         `json:"per_connection_bits"`
	TableKiB    float64     `json:"table_kib"`
	RAMB36      int         `json:"ramb36"`
	Error       *pointError `json:"error,omitempty"` // nil: the block has no float64 reference
	Default     bool        `json:"default"`
	Pareto      bool        `json:"pareto"`
	HCL         string      `json:"hcl"`
	settingsKey string
}

type exploreResult struct {
	configArg   string         // " -c FILE" of the command, for its hints
	Block       string         `json:"block"`
	Connections int            `json:"connections"`
	Reference   string         `json:"reference"`
	Points      []explorePoint `json:"points"`
}

// ramb36 is the number of 7-series RAMB36E1 that hold depth words of
// width bits, in the best of its aspect ratios (512 x 72 .. 32K x 1).
func ramb36(width, depth int) int {
	best := math.MaxInt
	for _, a := range [][2]int{{512, 72}, {1024, 36}, {2048, 18}, {4096, 9}, {8192, 4}, {16384, 2}, {32768, 1}} {
		n := ceilDiv(width, a[1]) * ceilDiv(depth, a[0])
		best = min(best, n)
	}
	return best
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// explore sweeps a block of the configuration.
// Without measure, the points carry their settings and cost only (what
// --select needs: the numbering does not depend on the measurements).
// With only set, just the points whose settingsKey it accepts are kept
// (and measured): a campaign's shard.
func explore(cfg blocks.Config, block string, progress io.Writer, measure bool, only func(key string) bool) (*exploreResult, error) {
	switch block {
	case "smartt", "nscc":
		v := smartt.Conf
		if block == "nscc" {
			v = smartt.NSCC
		}
		base, err := smartt.Of(cfg, v)
		if err != nil {
			return nil, err
		}
		return exploreSmartt(block, base, progress, measure, only)
	case "reps":
		base, err := reps.Of(cfg)
		if err != nil {
			return nil, err
		}
		r, err := exploreReps(base)
		if err == nil && only != nil {
			r.Points = slices.DeleteFunc(r.Points, func(p explorePoint) bool { return !only(settingsKey(p.Settings)) })
		}
		return r, err
	}
	if _, err := blocks.Lookup(block); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("block %q declares no state to explore (--explore knows smartt, nscc and reps)", block)
}

func perConnBits(m *hdlgen.Module, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	return hdlgen.StateBudget(m).PerConnBits(), nil
}

// exploreSmartt sweeps the fraction bits of the window (f), the stored
// timestamps (stamp_shift, stamp_width) and the unit of the byte counters
// (byte_shift) of smartt or nscc, measuring each point against the
// float64 reference: one step from the same word on three seeded random
// traces, and the closed-loop 8:1 incast at 1 MiB and 8 MiB.
func exploreSmartt(block string, base smartt.Params, progress io.Writer, measure bool, only func(key string) bool) (*exploreResult, error) {
	fs := []int{2, 3, 4, 6}
	stamps := [][2]int{{4, 24}, {6, 16}, {7, 14}, {8, 12}, {8, 11}, {9, 10}}
	units := []int{0, 4, 6, 8}
	if !slices.Contains(fs, base.F) {
		fs = append(fs, base.F)
	}
	if !slices.ContainsFunc(stamps, func(s [2]int) bool { return s == [2]int{base.StampShift, base.StampW} }) {
		stamps = append(stamps, [2]int{base.StampShift, base.StampW})
	}
	if !slices.Contains(units, base.ByteShift) {
		units = append(units, base.ByteShift)
	}
	var cands []smartt.Params
	for _, f := range fs {
		for _, st := range stamps {
			for _, u := range units {
				q := base
				q.F, q.StampShift, q.StampW, q.ByteShift = f, st[0], st[1], u
				if q.IncW > 0 {
					q.IncW = smartt.DefaultIncW(q) // what the period can accumulate depends on f and the unit
				}
				q.Depth = 1 // the word does not depend on the depth
				if q.Validate() != nil {
					continue
				}
				if _, err := gsmartt.NewModel(q.Golden()); err != nil {
					continue
				}
				if only == nil || only(settingsKey(smarttSettings(q))) {
					cands = append(cands, q)
				}
			}
		}
	}
	if !measure {
		points := make([]explorePoint, len(cands))
		for i, q := range cands {
			var err error
			if points[i], err = smarttCost(base, q); err != nil {
				return nil, err
			}
		}
		return finishExplore(&exploreResult{Block: block, Connections: base.NumConn, Points: points}), nil
	}
	// the float64 reference does not depend on the widths: one run per size
	sizes := []int64{1 << 20, 8 << 20}
	floats := make([]*netsim.Result, len(sizes))
	for i, size := range sizes {
		r, err := incast(base.Golden(), size, true)
		if err != nil {
			return nil, err
		}
		floats[i] = r
	}
	traces := make([][]gsmartt.Event, 3)
	for i := range traces {
		traces[i] = gsmartt.RandomTrace(base.Golden(), 3, 120_000, uint64(i+1))
	}
	points := make([]explorePoint, len(cands))
	errs := make([]error, len(cands))
	// a line per quarter of the points: the sweep takes seconds
	var doneMu sync.Mutex
	done, quarter := 0, 0
	fmt.Fprintf(progress, "explore %s: %d points, each a closed-loop incast and three random traces\n", block, len(cands))
	var wg sync.WaitGroup
	work := make(chan int)
	for range max(1, runtime.NumCPU()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				points[i], errs[i] = smarttPoint(block, base, cands[i], sizes, floats, traces)
				doneMu.Lock()
				if done++; 4*done >= (quarter+1)*len(cands) {
					quarter = 4 * done / len(cands)
					fmt.Fprintf(progress, "explore %s: %d of %d points\n", block, done, len(cands))
				}
				doneMu.Unlock()
			}
		}()
	}
	for i := range cands {
		work <- i
	}
	close(work)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return finishExplore(&exploreResult{Block: block, Connections: base.NumConn,
		Reference: "float64 reference of docs/blocks/smartt.md Section 7 (golden/smartt FloatModel)", Points: points}), nil
}

func incast(p gsmartt.Params, size int64, float bool) (*netsim.Result, error) {
	cfg := netsim.ConfigFor(p)
	cfg.MessageBytes = size
	cs, err := netsim.GoldenControllers(p, cfg.Senders, float)
	if err != nil {
		return nil, err
	}
	return netsim.Run(cfg, cs)
}

// smarttSettings are the explored settings of a point.
func smarttSettings(q smartt.Params) []setting {
	return []setting{{"f", q.F}, {"stamp_shift", q.StampShift}, {"stamp_width", q.StampW}, {"byte_shift", q.ByteShift}}
}

// smarttCost is a point's settings and cost, unmeasured.
func smarttCost(base, q smartt.Params) (explorePoint, error) {
	bits, err := perConnBits(smartt.Block(q))
	if err != nil {
		return explorePoint{}, err
	}
	return explorePoint{
		Settings: smarttSettings(q),
		Bits:     bits,
		Default:  q.F == base.F && q.StampShift == base.StampShift && q.StampW == base.StampW && q.ByteShift == base.ByteShift,
	}, nil
}

func smarttPoint(block string, base, q smartt.Params, sizes []int64, floats []*netsim.Result, traces [][]gsmartt.Event) (explorePoint, error) {
	pt, err := smarttCost(base, q)
	if err != nil {
		return explorePoint{}, err
	}
	gp := q.Golden()
	var rels []float64
	for _, tr := range traces {
		_, _, _, _, _, _, r := gsmartt.LockedErrors(gp, tr)
		rels = append(rels, r...)
	}
	e := &pointError{}
	if len(rels) > 0 {
		slices.Sort(rels)
		e.StepP99, e.StepMax = rels[len(rels)*99/100], rels[len(rels)-1]
	}
	for i, size := range sizes {
		r, err := incast(gp, size, false)
		if err != nil {
			return explorePoint{}, err
		}
		d := incastDelta{Size: netsim.FormatBytes(size), CompletionChange: r.CompletionNs/floats[i].CompletionNs - 1, JainChange: r.Jain - floats[i].Jain}
		e.Incast = append(e.Incast, d)
		e.WorstIncast = max(e.WorstIncast, math.Abs(d.CompletionChange))
	}
	e.StepOK, e.IncastOK = e.StepP99 <= stepBound, e.WorstIncast <= incastBound
	pt.Error = e
	return pt, nil
}

// exploreReps sweeps the buffer entries and the EV width of reps, with
// the counters either as wide as S4 Table 1 (8 bits) or as narrow as the
// values need. REPS is discrete: there is no float64 reference to err
// from, so the points carry their cost only.
func exploreReps(base reps.Params) (*exploreResult, error) {
	var points []explorePoint
	for _, n := range []int{4, 8, 16} {
		for _, evw := range []int{8, 12, 16} {
			for _, minimal := range []bool{false, true} {
				q := base
				q.N, q.EVW = n, evw
				q.HeadW, q.CountW, q.ExploreW = max(8, hdlgen.BitsFor(uint64(n-1))), max(8, hdlgen.BitsFor(uint64(n))), max(8, hdlgen.BitsFor(q.ExploreInit))
				if minimal {
					q.HeadW, q.CountW = hdlgen.BitsFor(uint64(n-1)), hdlgen.BitsFor(uint64(n))
					q.ExploreW = hdlgen.BitsFor(max(q.ExploreInit, q.ExploreAfterFreeze))
				}
				bits, err := perConnBits(reps.Paper(q))
				if err != nil {
					continue // a combination the block rejects
				}
				points = append(points, explorePoint{
					Settings: []setting{{"entries", n}, {"ev_width", evw}, {"head_width", q.HeadW}, {"count_width", q.CountW}, {"explore_width", q.ExploreW}},
					Bits:     bits,
					Default:  n == base.N && evw == base.EVW && q.HeadW == base.HeadW && q.CountW == base.CountW && q.ExploreW == base.ExploreW,
				})
			}
		}
	}
	return finishExplore(&exploreResult{Block: "reps", Connections: base.NumConn,
		Reference: "none: REPS is discrete, with no float64 reference to err from", Points: dedupPoints(points)}), nil
}

// dedupPoints drops repeated settings (a minimal width that equals S4's).
func dedupPoints(ps []explorePoint) []explorePoint {
	seen := map[string]bool{}
	var out []explorePoint
	for _, p := range ps {
		k := settingsKey(p.Settings)
		if seen[k] {
			for i := range out {
				if out[i].settingsKey == k {
					out[i].Default = out[i].Default || p.Default
				}
			}
			continue
		}
		seen[k] = true
		p.settingsKey = k
		out = append(out, p)
	}
	return out
}

func settingsKey(s []setting) string {
	var b strings.Builder
	for _, x := range s {
		fmt.Fprintf(&b, "%s=%d;", x.Attr, x.Value)
	}
	return b.String()
}

// finishExplore sorts the points (bits, then settings: the numbering does
// not depend on the measurements), numbers them, fills in the SRAM, block
// RAMs and HCL, and marks the Pareto front of bits against the worst
// incast change (or, without a reference, the smallest word): a point is
// on it when no other point is as small and errs as little, and smaller
// or erring less or numbered first.
func finishExplore(r *exploreResult) *exploreResult {
	worst := func(p explorePoint) float64 {
		if p.Error == nil {
			return 0
		}
		return p.Error.WorstIncast
	}
	sort.SliceStable(r.Points, func(i, j int) bool {
		a, b := r.Points[i], r.Points[j]
		if a.Bits != b.Bits {
			return a.Bits < b.Bits
		}
		return settingsKey(a.Settings) < settingsKey(b.Settings)
	})
	for i := range r.Points {
		p := &r.Points[i]
		p.ID = i + 1
		p.TableKiB = float64(p.Bits) * float64(r.Connections) / 8 / 1024
		p.RAMB36 = ramb36(p.Bits, r.Connections)
		var b strings.Builder
		fmt.Fprintf(&b, "block %q {\n", r.Block)
		for _, s := range p.Settings {
			fmt.Fprintf(&b, "  %s = %d\n", s.Attr, s.Value)
		}
		b.WriteString("}\n")
		p.HCL = b.String()
	}
	for i := range r.Points {
		p := &r.Points[i]
		p.Pareto = true
		for j, q := range r.Points {
			if j != i && q.Bits <= p.Bits && worst(q) <= worst(*p) && (q.Bits < p.Bits || worst(q) < worst(*p) || j < i) {
				p.Pareto = false
				break
			}
		}
	}
	return r
}

func printExplore(w io.Writer, r *exploreResult) {
	fmt.Fprintf(w, "%s: %d points, %d connections; reference: %s\n", r.Block, len(r.Points), r.Connections, r.Reference)
	if r.Points[0].Error != nil {
		fmt.Fprintf(w, "bounds: one-step error p99 <= %g; 8:1 incast completion within %g%% of float64\n", stepBound, 100*incastBound)
	}
	sw := len("settings")
	for _, p := range r.Points {
		sw = max(sw, len(settingsText(p.Settings)))
	}
	fmt.Fprintf(w, "%4s  %-*s %5s %8s %6s", "id", sw, "settings", "bits", "KiB", "RAMB36")
	if r.Points[0].Error != nil {
		fmt.Fprintf(w, "  %9s %9s %8s %8s %7s %7s", "step p99", "step max", "1 MiB", "8 MiB", "p99<=", "incast")
	}
	fmt.Fprintln(w, "  marks")
	for _, p := range r.Points {
		fmt.Fprintf(w, "%4d  %-*s %5d %8.1f %6d", p.ID, sw, settingsText(p.Settings), p.Bits, p.TableKiB, p.RAMB36)
		if e := p.Error; e != nil {
			fmt.Fprintf(w, "  %9.2g %9.2g %+7.2f%% %+7.2f%% %7s %7s", e.StepP99, e.StepMax, 100*e.Incast[0].CompletionChange, 100*e.Incast[1].CompletionChange, holds(e.StepOK), holds(e.IncastOK))
		}
		var marks []string
		if p.Default {
			marks = append(marks, "default")
		}
		if p.Pareto {
			marks = append(marks, "pareto")
		}
		fmt.Fprintf(w, "  %s\n", strings.Join(marks, ","))
	}
	fmt.Fprintf(w, "nicgen budget --explore %s%s --select ID prints the block's section with a point's settings\n", r.Block, r.configArg)
}

func settingsText(s []setting) string {
	var set []string
	for _, x := range s {
		set = append(set, fmt.Sprintf("%s=%d", x.Attr, x.Value))
	}
	return strings.Join(set, " ")
}

func holds(ok bool) string {
	if ok {
		return "holds"
	}
	return "BREAKS"
}

// explorePlot is bits per connection against the worst incast change:
// the Pareto front joined, the default ringed and the 1 % bound dashed.
func explorePlot(r *exploreResult) plot.Scatter {
	s := plot.Scatter{
		Title:     fmt.Sprintf("%s: bits per connection against the 8:1 incast completion change from float64 (%d points)", r.Block, len(r.Points)),
		XLabel:    "state per connection (bits)",
		YLabel:    "worst 8:1 incast completion change from float64 (%)",
		FrontName: "Pareto front",
		RingName:  "default",
		Bound:     &netsim.Ref{Name: fmt.Sprintf("bound: %g %%", 100*incastBound), Y: 100 * incastBound},
	}
	for _, p := range r.Points {
		e := 0.0
		if p.Error != nil {
			e = p.Error.WorstIncast
		}
		s.Points = append(s.Points, plot.ScatterPoint{X: float64(p.Bits), Y: 100 * e, Front: p.Pareto, Ring: p.Default})
	}
	return s
}

func runExplore(cmd *cobra.Command, r *config.Resolved, block string, args []string, asJSON bool, pl plotFlags, selectID int) error {
	if len(args) > 0 {
		return usageErr("--explore takes its block as its value; drop the arguments %v", args)
	}
	if !r.Has(block) {
		if _, err := blocks.Lookup(block); err != nil {
			return usageErr("--explore: %v", err)
		}
		return usageErr("--explore: block %q is not in the configuration", block)
	}
	if err := pl.check(); err != nil {
		return err
	}
	res, err := explore(r.Config, block, cmd.ErrOrStderr(), selectID == 0, nil)
	if err != nil {
		return usageErr("--explore: %v", err)
	}
	if !r.Embedded {
		res.configArg = " -c " + r.File
	}
	if selectID != 0 {
		if selectID < 1 || selectID > len(res.Points) {
			return usageErr("--select %d: %s has points 1..%d", selectID, block, len(res.Points))
		}
		_, err := io.WriteString(cmd.OutOrStdout(), selectSection(r, block, res.Points[selectID-1]))
		return err
	}
	if pl.any() {
		if res.Points[0].Error == nil {
			return usageErr("--%s: %s has no float64 reference, so no error to plot", pl.outputs()[0].f, block)
		}
		for _, x := range pl.outputs() {
			data, err := plot.Points(explorePlot(res), x.f)
			if err != nil {
				return err
			}
			if err := writeAtomic(x.path, data); err != nil {
				return err
			}
		}
	}
	if asJSON {
		return writeJSON(cmd.OutOrStdout(), res)
	}
	printExplore(cmd.OutOrStdout(), res)
	return nil
}

// selectSection is block's section of the configuration with a point's
// settings: the values the file sets, the point's in place of its own
// (a pasted section keeps the user's other options).
func selectSection(r *config.Resolved, block string, p explorePoint) string {
	mine := map[string]bool{}
	for _, x := range p.Settings {
		mine[x.Attr] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "block %q {\n", block)
	for _, s := range r.Sections {
		if s.Type != "block" || s.Label != block {
			continue
		}
		for _, st := range s.Settings {
			if st.Source == config.SourceSet && !st.Info && !mine[st.Name] {
				fmt.Fprintf(&b, "  %s = %s\n", st.Name, st.Value)
			}
		}
	}
	for _, x := range p.Settings {
		fmt.Fprintf(&b, "  %s = %d\n", x.Attr, x.Value)
	}
	b.WriteString("}\n")
	return b.String()
}
