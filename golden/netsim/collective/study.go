package collective

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/nicgen/nicgen/golden/netsim"
)

// Study is the thesis's experiment (S3:L1581-1590, Figs. 6.10-6.11): the
// all-reduce at each initiator count under each control.
type Study struct {
	Base       Config // everything but Initiators and Control
	Initiators []int
	Controls   []Control
}

// DefaultStudy is Table 6.1's initiator counts under the three controls.
func DefaultStudy() Study {
	return Study{Base: Default(), Initiators: []int{64, 32, 16, 8, 4, 2, 1}, Controls: Controls}
}

// Row is one initiator count's runs, one per control.
type Row struct {
	Initiators int       `json:"initiators"`
	Runs       []*Result `json:"runs"`
}

// StudyResult is a study's rows.
type StudyResult struct {
	Base Config `json:"-"`
	Rows []Row  `json:"rows"`
}

// Run runs the study with the golden units.
func (st Study) Run() (*StudyResult, error) {
	res := &StudyResult{Base: st.Base}
	for _, n := range st.Initiators {
		row := Row{Initiators: n}
		for _, ctl := range st.Controls {
			c := st.Base
			c.Initiators, c.Control = n, ctl
			if err := c.Validate(); err != nil {
				return nil, err
			}
			var u Units
			if ctl == ThreeCPO {
				var err error
				if u, err = GoldenUnits(c); err != nil {
					return nil, err
				}
			}
			r, err := Run(c, u)
			if err != nil {
				return nil, fmt.Errorf("%d initiators, %s: %w", n, ctl, err)
			}
			row.Runs = append(row.Runs, r)
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// WriteTable prints the study.
func (r *StudyResult) WriteTable(w io.Writer) error {
	c := r.Base
	var b bytes.Buffer
	fmt.Fprintf(&b, "all-reduce: %d GPUs in one multicast group behind one switch; paths of %d x %d cycles, memory %d cycles, %d-flit data packets, 1 flit per cycle per link, request queues of %d flits\n",
		c.GPUs, c.Hops, c.SwitchLatency, c.MemLatency, c.DataFlits, c.BufferFlits)
	fmt.Fprintf(&b, "each initiator: %d transactions (a read reduction, then its write multicast); window: S3 Table 6.1 per operation type\n", c.Transactions)
	fmt.Fprintf(&b, "effective bandwidth: %d x %d flits per completed read reduction and per completed write, over cycles x GPUs (thesis's maximum 2; bound = the links' with the 1-flit requests and acks)\n", c.GPUs, c.DataFlits)
	fmt.Fprintf(&b, "latency: packets delivered to GPUs, cycles, average / 99th percentile / maximum; spacing: cycles between an initiator's writes (middle half) against N x %d\n", c.DataFlits+1)
	fmt.Fprintf(&b, "watermark: 3CPO's request and response watermarks of every initiator after every probe, over the run, its second half, and after each initiator's last probe (WM_MIN %d, WM_MAX %d)\n", c.WM.WMMin, c.WM.WMMax)
	fmt.Fprintf(&b, "3CPO's matched tokens: paid with the next send of the VC their type gates; a send takes at most irl_tokens's max_cost (%d) of each type, its own flits included\n\n", c.IRL.MaxCost)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	hdr := []string{"initiators", "bound"}
	if len(r.Rows) > 0 {
		for _, run := range r.Rows[0].Runs {
			name := string(run.Control)
			hdr = append(hdr, name+" eff.bw", "latency")
			if run.Control == Window {
				hdr = append(hdr, "window")
			}
			if run.Control == ThreeCPO {
				hdr = append(hdr, "spacing", "watermark", "2nd half", "last")
			}
		}
	}
	fmt.Fprintln(tw, strings.Join(hdr, "\t"))
	for _, row := range r.Rows {
		cells := []string{fmt.Sprint(row.Initiators), fmt.Sprintf("%.3f", row.Runs[0].Bound)}
		for _, run := range row.Runs {
			cells = append(cells, fmt.Sprintf("%.3f", run.EffBW), fmt.Sprintf("%.0f/%d/%d", run.AvgLat, run.P99Lat, run.MaxLat))
			if run.Control == Window {
				cells = append(cells, fmt.Sprint(run.Window))
			}
			if run.Control == ThreeCPO {
				cells = append(cells, fmt.Sprintf("%.1f/%.0f", run.Spacing, run.SpacingIdeal),
					fmt.Sprintf("%.0f..%.0f", run.WMMin, run.WMMax), fmt.Sprintf("%.0f..%.0f", run.WMLateMin, run.WMLateMax),
					fmt.Sprintf("%.0f..%.0f", run.WMFinalMin, run.WMFinalMax))
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(&b, "\nS3 Table 6.1, hand-tuned windows: initiators 64/32/16/8/4/2/1 -> 3/5/12/24/48/128/128\n")
	_, err := w.Write(b.Bytes())
	return err
}

// Charts are the study's plots: effective bandwidth and latency per
// initiator count, and the watermark trace of 3CPO at the largest count.
func (r *StudyResult) Charts() (bw, lat netsim.BarChart, wm netsim.Chart) {
	c := r.Base
	bw = netsim.BarChart{Title: fmt.Sprintf("All-reduce effective bandwidth, %d GPUs, %d transactions per initiator", c.GPUs, c.Transactions),
		YLabel: "effective bandwidth (link rates)", Refs: []netsim.Ref{{Name: "thesis's maximum", Y: 2}}}
	lat = netsim.BarChart{Title: "Packet latency (average and maximum)", YLabel: "cycles"}
	bound := netsim.BarSeries{Name: "links' bound"}
	var runsOf [][]*Result
	for _, row := range r.Rows {
		bw.Groups = append(bw.Groups, fmt.Sprintf("%d initiators", row.Initiators))
		lat.Groups = append(lat.Groups, fmt.Sprintf("%d", row.Initiators))
		bound.Values = append(bound.Values, row.Runs[0].Bound)
		runsOf = append(runsOf, row.Runs)
	}
	if len(runsOf) > 0 {
		for j, run := range runsOf[0] {
			e := netsim.BarSeries{Name: string(run.Control)}
			a := netsim.BarSeries{Name: string(run.Control) + " average"}
			m := netsim.BarSeries{Name: string(run.Control) + " maximum"}
			for _, runs := range runsOf {
				e.Values = append(e.Values, runs[j].EffBW)
				a.Values = append(a.Values, runs[j].AvgLat)
				m.Values = append(m.Values, float64(runs[j].MaxLat))
			}
			bw.Series = append(bw.Series, e)
			lat.Series = append(lat.Series, a, m)
		}
	}
	bw.Series = append(bw.Series, bound)
	wm = netsim.Chart{XLabel: "cycle", YLabel: "watermark (tokens per WM_MAX cycles)",
		Refs: []netsim.Ref{{Name: "WM_MAX", Y: float64(c.WM.WMMax)}, {Name: "WM_MIN", Y: float64(c.WM.WMMin)}}}
	for _, row := range r.Rows {
		for _, run := range row.Runs {
			if run.Control != ThreeCPO || len(run.Trace) == 0 || len(wm.Series) > 0 {
				continue
			}
			wm.Title = fmt.Sprintf("3CPO watermarks of initiator 0, %d initiators", row.Initiators)
			q := netsim.Series{Name: "request", XEnd: float64(run.Cycles)}
			s := netsim.Series{Name: "response", XEnd: float64(run.Cycles)}
			for _, p := range run.Trace {
				q.X, q.Y = append(q.X, float64(p.At)), append(q.Y, p.Req)
				s.X, s.Y = append(s.X, float64(p.At)), append(s.Y, p.Rsp)
			}
			wm.Series = append(wm.Series, q, s)
		}
	}
	return bw, lat, wm
}

// Plots are the charts as the commands write them: bandwidth, latency and,
// when a run has watermarks, watermark.
func (r *StudyResult) Plots() []netsim.Plot {
	bw, lat, wm := r.Charts()
	out := []netsim.Plot{{Name: "bandwidth", Bars: &bw}, {Name: "latency", Bars: &lat}}
	if len(wm.Series) > 0 {
		out = append(out, netsim.Plot{Name: "watermark", Lines: &wm})
	}
	return out
}

// Find is the run of n initiators under ctl, or nil.
func (r *StudyResult) Find(n int, ctl Control) *Result {
	for _, row := range r.Rows {
		for _, run := range row.Runs {
			if row.Initiators == n && run.Control == ctl {
				return run
			}
		}
	}
	return nil
}
