package explore

import (
	"fmt"
	"io"
	"strings"
)

// WriteText prints a sweep as a table: a line per point, its settings,
// its cost, its error against the reference where there is one, and its
// marks (default, pareto).
func WriteText(w io.Writer, r *Result) {
	fmt.Fprintf(w, "%s: %d points, %d connections; reference: %s\n", r.Block, len(r.Points), r.Connections, r.Reference)
	if r.Bounds != nil {
		fmt.Fprintf(w, "bounds: one-step error p99 <= %g; 8:1 incast completion within %g%% of float64\n", r.Bounds.StepP99, 100*r.Bounds.Incast)
	}
	sw := len("settings")
	for _, p := range r.Points {
		sw = max(sw, len(settingsText(p.Settings)))
	}
	fmt.Fprintf(w, "%4s  %-*s %5s %8s %6s", "id", sw, "settings", "bits", "KiB", "RAMB36")
	if len(r.Points) > 0 && r.Points[0].Error != nil {
		fmt.Fprintf(w, "  %9s %9s", "step p99", "step max")
		for _, x := range r.Points[0].Error.Timing {
			fmt.Fprintf(w, " %18s", x.Name+" ns")
		}
		for _, d := range r.Points[0].Error.Incast {
			fmt.Fprintf(w, " %8s", d.Size)
		}
		fmt.Fprintf(w, " %7s %7s", "p99<=", "incast")
	}
	fmt.Fprintln(w, "  marks")
	for _, p := range r.Points {
		fmt.Fprintf(w, "%4d  %-*s %5d %8.1f %6d", p.ID, sw, settingsText(p.Settings), p.Bits, p.TableKiB, p.RAMB36)
		if e := p.Error; e != nil {
			fmt.Fprintf(w, "  %9.2g %9.2g", e.StepP99, e.StepMax)
			for _, x := range e.Timing {
				fmt.Fprintf(w, " %18s", fmt.Sprintf("%+.1f (%+.0f..%+.0f)", x.MeanNs, x.MinNs, x.MaxNs))
			}
			for _, d := range e.Incast {
				fmt.Fprintf(w, " %+7.2f%%", 100*d.CompletionChange)
			}
			fmt.Fprintf(w, " %7s %7s", holds(e.StepOK), holds(e.IncastOK))
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
}

func settingsText(s []Setting) string {
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
