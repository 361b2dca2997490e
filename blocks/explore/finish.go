package explore

import (
	"fmt"
	"sort"
	"strings"
)

// SettingsKey names a point by its settings: the key of Dedup and of
// Options.Only, and the order of points of the same bits.
func SettingsKey(s []Setting) string {
	var b strings.Builder
	for _, x := range s {
		fmt.Fprintf(&b, "%s=%d;", x.Attr, x.Value)
	}
	return b.String()
}

// Dedup drops repeated settings (a block's two ways to a word that reach
// the same widths), keeping the first; the kept point is the default when
// any of its copies is.
func Dedup(ps []Point) []Point {
	seen := map[string]bool{}
	var out []Point
	for _, p := range ps {
		k := SettingsKey(p.Settings)
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

// Finish sorts the points (bits, then settings: the numbering does not
// depend on the measurements), numbers them, fills in the SRAM, block
// RAMs and HCL, and marks the Pareto front of bits against the worst
// incast change (or, without a reference, the smallest word): a point is
// on it when no other point is as small and errs as little, and smaller
// or erring less or numbered first.
func Finish(r *Result) *Result {
	sort.SliceStable(r.Points, func(i, j int) bool {
		a, b := r.Points[i], r.Points[j]
		if a.Bits != b.Bits {
			return a.Bits < b.Bits
		}
		return SettingsKey(a.Settings) < SettingsKey(b.Settings)
	})
	for i := range r.Points {
		p := &r.Points[i]
		p.ID = i + 1
		p.TableKiB = float64(p.Bits) * float64(r.Connections) / 8 / 1024
		p.RAMB36 = RAMB36(p.Bits, r.Connections)
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
			if j != i && q.Bits <= p.Bits && q.WorstIncast() <= p.WorstIncast() && (q.Bits < p.Bits || q.WorstIncast() < p.WorstIncast() || j < i) {
				p.Pareto = false
				break
			}
		}
	}
	return r
}
