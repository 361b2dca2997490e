package isolation

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/nicgen/nicgen/golden/netsim"
)

// Cell is one attack under one control and granularity.
type Cell struct {
	Attack Attack `json:"attack"`
	// VictimShare is the victim's share of the bytes the bottleneck
	// delivered in the window (0.5 is fair).
	VictimShare float64 `json:"victim_share"`
	// Utilisation is the bottleneck's delivered bytes over its capacity in
	// the window.
	Utilisation float64 `json:"utilisation"`
	// Slowdown is the victim message's FCT over its ideal, propagation and
	// serialisation at line rate (S3:L538, L827). Without MessageDone the
	// message had not arrived by the end of the window and Slowdown is a
	// lower bound.
	Slowdown     float64 `json:"slowdown"`
	MessageDone  bool    `json:"message_done"`
	MessageBytes int64   `json:"message_bytes"`
	FCTUs        float64 `json:"fct_us"`
	IdealUs      float64 `json:"ideal_us"`
	// Verdict is "vulnerable" or "secure" by Config.VulnerableBelow;
	// Thesis is what S3 Table 3.2 (or chapter 5 for 1RC) says.
	Verdict string `json:"verdict"`
	Thesis  string `json:"thesis"`
	// AttackerQPs is how many QPs the attacker opened in the run.
	AttackerQPs   int     `json:"attacker_qps"`
	MaxQueueBytes int64   `json:"max_queue_bytes"`
	MaxQueueBDP   float64 `json:"max_queue_bdp"`
	// OutOfOrder counts packets the receiver got out of sequence, and
	// Duplicates the copies it discarded (1RC's resends).
	OutOfOrder int64 `json:"out_of_order"`
	Duplicates int64 `json:"duplicates,omitempty"`
	// 1RC: speculative packets sent and dropped, and whether every flow's
	// drops were a run of its last speculative packets.
	SpecSent     int64 `json:"spec_sent,omitempty"`
	SpecDropped  int64 `json:"spec_dropped,omitempty"`
	DropsInOrder bool  `json:"drops_in_order,omitempty"`
	// 1RC: the flows whose first control packet returned (Resumed), and
	// how onerc_host's resume point compared with the exact one, the
	// flow's speculative packets numbered below let_through: equal
	// (ResumeExact), beyond it (ResumeOver: it would skip a dropped
	// packet; never) or short of it by Resent packets in all, which got
	// through and are sent again.
	Resumed     int64 `json:"resumed,omitempty"`
	ResumeExact int64 `json:"resume_exact,omitempty"`
	ResumeOver  int64 `json:"resume_over,omitempty"`
	Resent      int64 `json:"resent,omitempty"`
	// Events is the simulator's event count (benchmarks).
	Events int64 `json:"-"`
}

// Row is one control at one granularity.
type Row struct {
	Control     Control     `json:"control"`
	Granularity Granularity `json:"granularity"`
	Network     network     `json:"network"`
	Cells       []Cell      `json:"cells"`
}

// Result is a study.
type Result struct {
	Config Config `json:"config"`
	Rows   []Row  `json:"rows"`
}

// Verdicts.
const (
	Vulnerable = "vulnerable"
	Secure     = "secure"
)

func verdict(share, below float64) string {
	if share < below {
		return Vulnerable
	}
	return Secure
}

// thesis is S3's verdict for an attack at a granularity: Table 3.2's "IB
// Spec." column for per-connection state, its "Per-src/dst CC" column for
// per-src/dst, and chapter 5 for 1RC with weights (weights defeat the
// parallel attack; the staggered and shuffled ones are limited to the
// speculative window, which S3:L1324 calls mitigated). The reference row
// has no entry: "-".
func thesis(g Granularity, a Attack) string {
	if a == None {
		return "-"
	}
	switch g {
	case PerConnection:
		return Vulnerable
	case PerSrcDst:
		if a == Shuffled {
			return Vulnerable
		}
	}
	return Secure
}

// Run runs every attack of cfg under every control and granularity.
func Run(cfg Config) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("isolation: %w", err)
	}
	res := &Result{Config: cfg}
	for _, k := range cfg.Controls {
		for _, g := range k.Granularities() {
			row := Row{Control: k, Granularity: g}
			for _, a := range cfg.Attacks {
				c, n, err := runCell(cfg, k, g, a)
				if err != nil {
					return nil, fmt.Errorf("isolation: %w", err)
				}
				row.Network = n
				row.Cells = append(row.Cells, *c)
			}
			res.Rows = append(res.Rows, row)
		}
	}
	return res, nil
}

// Cell returns the cell of control k at granularity g under attack a.
func (r *Result) Cell(k Control, g Granularity, a Attack) (Cell, bool) {
	for _, row := range r.Rows {
		if row.Control != k || row.Granularity != g {
			continue
		}
		for _, c := range row.Cells {
			if c.Attack == a {
				return c, true
			}
		}
	}
	return Cell{}, false
}

// WriteTable prints the measured table, one row per control and
// granularity, each attack's victim share, slowdown and verdict with the
// thesis's beside it (an asterisk where they differ), then Table 3.2.
func (r *Result) WriteTable(w io.Writer) error {
	c := r.Config
	fmt.Fprintf(w, "victim: 1 long-lived QP; attacker: none = 1 long-lived QP, parallel = %d, staggered = a new QP of one BDP every base RTT, shuffled = the same to the next of %d destinations\n",
		c.Parallel, c.Destinations)
	fmt.Fprintf(w, "window: %d base RTTs after %d of warm-up; share = the victim's bytes over the bottleneck's; slowdown = FCT of a %g-BDP victim message / (propagation + serialisation)\n",
		c.WindowRTTs, c.WarmupRTTs, c.MessageBDPs)
	fmt.Fprintf(w, "verdict: vulnerable when the victim's share is below %g (0.5 is fair), else secure; (thesis: S3 Table 3.2, chapter 5 for 1rc; * where they differ)\n\n", c.VulnerableBelow)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"control", "state"}
	for _, a := range c.Attacks {
		head = append(head, string(a)+" share", "slowdown", "verdict")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, row := range r.Rows {
		f := []string{string(row.Control), string(row.Granularity)}
		for _, x := range row.Cells {
			f = append(f, fmt.Sprintf("%.3f", x.VictimShare), slowdownText(x), verdictText(x))
		}
		fmt.Fprintln(tw, strings.Join(f, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for i, row := range r.Rows {
		if i == 0 || r.Rows[i-1].Control != row.Control {
			fmt.Fprintf(w, "%s: %s, BDP %d B\n", row.Control, row.Network.Name, row.Network.BDP)
		}
		if row.Control == OneRC {
			writeResumes(w, row)
		}
	}
	fmt.Fprintln(w)
	return WriteTable32(w)
}

// writeResumes prints, per attack, how often onerc_host's resume point
// was exact and how many packets that got through were sent again.
func writeResumes(w io.Writer, row Row) {
	var fs []string
	for _, c := range row.Cells {
		fs = append(fs, fmt.Sprintf("%s %d/%d, %d", c.Attack, c.ResumeExact, c.Resumed, c.Resent))
	}
	fmt.Fprintf(w, "  onerc_host: flows resumed exactly / flows, packets resent: %s\n", strings.Join(fs, "; "))
}

// slowdownText is the slowdown, ">x" when the message was not complete.
func slowdownText(c Cell) string {
	if !c.MessageDone {
		return fmt.Sprintf(">%.1f", c.Slowdown)
	}
	return fmt.Sprintf("%.1f", c.Slowdown)
}

func verdictText(c Cell) string {
	s := c.Verdict
	if c.Thesis != "-" && c.Thesis != c.Verdict {
		s += "*"
	}
	return s + " (" + c.Thesis + ")"
}

// WriteTable32 prints S3 Table 3.2 (S3:L833-839).
func WriteTable32(w io.Writer) error {
	fmt.Fprintln(w, "S3 Table 3.2, various environments' susceptibility to attack:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, l := range [][]string{
		{"", "IB Spec.", "CTX-5", "Per-src/dst CC"},
		{"Parallel", "Vulnerable", "Vulnerable", "Secure"},
		{"Staggered", "Vulnerable", "Secure", "Secure"},
		{"Shuffled Overlay", "Vulnerable", "Vulnerable", "Vulnerable"},
		{"Short Flow Penalty?", "No", "Yes", "Yes"},
	} {
		fmt.Fprintln(tw, "  "+strings.Join(l, "\t"))
	}
	return tw.Flush()
}

// Charts are two bar charts: the victim's share and its slowdown, one
// group per attack and one bar per control and granularity.
func (r *Result) Charts() (share, slowdown netsim.BarChart) {
	var groups []string
	for _, a := range r.Config.Attacks {
		groups = append(groups, string(a))
	}
	share = netsim.BarChart{Title: "Victim's share of the bottleneck under each attack", YLabel: "victim's share of delivered bytes",
		Groups: groups, Refs: []netsim.Ref{{Name: "fair 0.5", Y: 0.5}, {Name: fmt.Sprintf("vulnerable below %g", r.Config.VulnerableBelow), Y: r.Config.VulnerableBelow}}}
	slowdown = netsim.BarChart{Title: fmt.Sprintf("Victim's FCT slowdown (%g-BDP message)", r.Config.MessageBDPs), YLabel: "FCT / (propagation + serialisation)",
		Groups: groups, Refs: []netsim.Ref{{Name: "fair 2", Y: 2}}}
	for _, row := range r.Rows {
		name := fmt.Sprintf("%s %s", row.Control, row.Granularity)
		sh, sl := netsim.BarSeries{Name: name}, netsim.BarSeries{Name: name}
		for _, c := range row.Cells {
			sh.Values = append(sh.Values, c.VictimShare)
			v := c.Slowdown
			if math.IsInf(v, 0) {
				v = math.NaN()
			}
			sl.Values = append(sl.Values, v)
		}
		share.Series = append(share.Series, sh)
		slowdown.Series = append(slowdown.Series, sl)
	}
	return share, slowdown
}

// Plots are the charts as the commands write them: share and slowdown.
func (r *Result) Plots() []netsim.Plot {
	share, slow := r.Charts()
	return []netsim.Plot{{Name: "share", Bars: &share}, {Name: "slowdown", Bars: &slow}}
}
