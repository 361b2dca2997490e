package harness

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// WindowCycle is one cycle of the context shown around a mismatch.
type WindowCycle struct {
	Cycle            int64
	In               []uint64 // inputs, Design.Ports order
	Expected, Actual []uint64 // outputs, Design.Ports order
	Differs          []string // outputs that differ (and are compared) in this cycle
}

// Mismatch is the error Run returns when the model and the reference
// disagree. Cycles count from 0, the first cycle after reset.
type Mismatch struct {
	Label   string
	Top     string
	Cycle   int64 // first cycle where a compared output differs
	Inputs  []Port
	Outputs []Port
	// The inputs, expected and actual outputs at Cycle.
	In, Expected, Actual []uint64
	// Window holds the cycles Cycle-ContextBefore .. Cycle+ContextAfter,
	// from a replay of the run on a fresh model (empty if the replay
	// failed, see ReplayErr).
	Window []WindowCycle
	// WavePath is the VCD of the window (with RunOptions.WaveDir). Cycle c
	// is at VCD time 10*c, its rising edge at 10*c+5.
	WavePath           string
	WaveFirst, WaveEnd int64 // first and last cycle in the VCD
	// ReplayErr is set when the replay failed or did not reproduce the
	// mismatch (stimulus or reference not deterministic, or not reset).
	ReplayErr error

	cmp *comparer
}

func newMismatch(m *Model, o RunOptions, cycle int64, in, exp, act []uint64) *Mismatch {
	return &Mismatch{
		Label: o.Label, Top: m.design.Top, Cycle: cycle,
		Inputs: m.in, Outputs: m.out,
		In: in, Expected: exp, Actual: act,
		cmp: newComparer(m.out),
	}
}

func (e *Mismatch) diffNames(exp, act []uint64) []string {
	var d []string
	for j, p := range e.Outputs {
		if e.cmp.differs(exp, act, j) {
			d = append(d, p.Name)
		}
	}
	return d
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// replay runs the same stimulus again from reset on a fresh model (a trace
// build if o.WaveDir is set) up to the end of the window, tracing only the
// window, and fills Window and WavePath.
func (e *Mismatch) replay(ctx context.Context, m *Model, ref Reference, newStim func() Stimulus, o RunOptions) {
	lo := max(0, e.Cycle-int64(o.ContextBefore))
	hi := e.Cycle + int64(o.ContextAfter)
	tlo := lo
	if o.WaveDir != "" {
		tlo = max(0, lo-int64(o.WaveMargin))
	}
	var rm *Model
	var err error
	if o.WaveDir == "" || m.lib.trace {
		rm, err = m.fresh()
	} else {
		opts := m.opts
		opts.Trace = true
		rm, err = Build(ctx, m.design, opts)
	}
	if err != nil {
		e.ReplayErr = fmt.Errorf("replay model: %w", err)
		return
	}
	defer rm.Close()
	ref.Reset()
	rm.Reset(o.ResetCycles)
	d := newDriver(rm, ref, newStim(), o.Batch)
	first := int64(-1)
	consume := func(b *bufset) bool {
		// Batches may come out of order: keep the earliest mismatch.
		if first < 0 || b.start < first {
			if i := e.cmp.find(b.exp, b.act, b.n); i >= 0 && (first < 0 || b.start+int64(i) < first) {
				first = b.start + int64(i)
			}
		}
		for i := 0; i < b.n; i++ {
			c := b.start + int64(i)
			if c < lo || c > hi {
				continue
			}
			w := WindowCycle{Cycle: c, In: row(b.in, i, d.nIn), Expected: row(b.exp, i, d.nOut), Actual: row(b.act, i, d.nOut)}
			w.Differs = e.diffNames(w.Expected, w.Actual)
			e.Window = append(e.Window, w)
		}
		return false
	}
	if err := d.run(ctx, 0, tlo, consume); err != nil {
		e.ReplayErr = err
		return
	}
	if o.WaveDir != "" {
		name := e.Top
		if e.Label != "" {
			name += "_" + e.Label
		}
		name = unsafeName.ReplaceAllString(name, "_")
		path := filepath.Join(o.WaveDir, fmt.Sprintf("%s_mismatch_c%d.vcd", name, e.Cycle))
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		if err := rm.StartTrace(path); err != nil {
			e.ReplayErr = err
		} else {
			e.WavePath, e.WaveFirst, e.WaveEnd = path, tlo, hi
		}
	}
	err = d.run(ctx, tlo, hi+1, consume)
	if e.WavePath != "" {
		if terr := rm.StopTrace(); terr != nil && err == nil {
			err = terr
		}
	}
	sort.Slice(e.Window, func(i, j int) bool { return e.Window[i].Cycle < e.Window[j].Cycle })
	if err != nil {
		e.ReplayErr = err
		return
	}
	if first != e.Cycle {
		if first < 0 {
			e.ReplayErr = fmt.Errorf("the replay did not reproduce the mismatch at cycle %d (no mismatch in the replay): the stimulus or the reference is not deterministic, or Reference.Reset does not fully reset", e.Cycle)
		} else {
			e.ReplayErr = fmt.Errorf("the replay did not reproduce the mismatch at cycle %d (first replay mismatch at cycle %d): the stimulus or the reference is not deterministic, or Reference.Reset does not fully reset", e.Cycle, first)
		}
	}
}

func hexw(v uint64, width int) string {
	return fmt.Sprintf("0x%0*x", (width+3)/4, v)
}

// valueText is a value by its name when the port names it, else in hex.
func valueText(v uint64, p Port) string {
	if v < uint64(len(p.Names)) {
		return p.Names[v]
	}
	return hexw(v, p.Width)
}

// valueWidth is the widest text valueText gives for the port.
func valueWidth(p Port) int {
	w := 2 + (p.Width+3)/4
	for _, n := range p.Names {
		w = max(w, len(n))
	}
	return w
}

// Error renders the mismatch report.
func (e *Mismatch) Error() string {
	if e.cmp == nil {
		e.cmp = newComparer(e.Outputs)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "harness: %s: mismatch at cycle %d", e.Top, e.Cycle)
	if e.Label != "" {
		fmt.Fprintf(&b, " [%s]", e.Label)
	}
	b.WriteString("\n\noutputs at cycle ")
	fmt.Fprintf(&b, "%d, sampled before the rising edge (* differs, ~ not compared: qualifier low):\n", e.Cycle)
	nw := len("port")
	for _, p := range e.Outputs {
		nw = max(nw, len(p.Name))
	}
	vw := len("expected")
	for _, p := range e.Outputs {
		vw = max(vw, valueWidth(p))
	}
	fmt.Fprintf(&b, "    %-*s  %-*s  %-*s\n", nw, "port", vw, "expected", vw, "actual")
	for j, p := range e.Outputs {
		mark := " "
		switch {
		case e.cmp.differs(e.Expected, e.Actual, j):
			mark = "*"
		case !e.cmp.compared(e.Expected, j):
			mark = "~"
		}
		fmt.Fprintf(&b, "  %s %-*s  %-*s  %-*s\n", mark, nw, p.Name, vw, valueText(e.Expected[j], p), vw, valueText(e.Actual[j], p))
	}

	rows := e.Window
	if len(rows) == 0 {
		rows = []WindowCycle{{Cycle: e.Cycle, In: e.In, Expected: e.Expected, Actual: e.Actual, Differs: e.diffNames(e.Expected, e.Actual)}}
	}
	fmt.Fprintf(&b, "\ninputs around the mismatch (> marks cycle %d; last column: outputs that differ):\n", e.Cycle)
	cw := len("cycle")
	for _, r := range rows {
		cw = max(cw, len(fmt.Sprint(r.Cycle)))
	}
	widths := make([]int, len(e.Inputs))
	fmt.Fprintf(&b, "    %*s", cw, "cycle")
	for k, p := range e.Inputs {
		widths[k] = max(len(p.Name), valueWidth(p))
		fmt.Fprintf(&b, "  %-*s", widths[k], p.Name)
	}
	b.WriteString("  differs\n")
	for _, r := range rows {
		mark := " "
		if r.Cycle == e.Cycle {
			mark = ">"
		}
		fmt.Fprintf(&b, "  %s %*d", mark, cw, r.Cycle)
		for k, p := range e.Inputs {
			fmt.Fprintf(&b, "  %-*s", widths[k], valueText(r.In[k], p))
		}
		fmt.Fprintf(&b, "  %s\n", strings.Join(r.Differs, ","))
	}
	if e.WavePath != "" {
		fmt.Fprintf(&b, "\nwaveform: %s (cycles %d..%d; cycle c at time 10*c, its rising edge at 10*c+5)\n", e.WavePath, e.WaveFirst, e.WaveEnd)
	}
	if e.ReplayErr != nil {
		fmt.Fprintf(&b, "\nreplay: %v\n", e.ReplayErr)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}
