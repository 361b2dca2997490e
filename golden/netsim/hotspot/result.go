package hotspot

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/nicgen/nicgen/golden/netsim"
)

// Result is what one run measured. Rates are shares of one link's rate;
// every statistic but the bins and the backlog counts from the warm-up on.
type Result struct {
	CC             string  `json:"cc"`
	Hosts          int     `json:"hosts"`
	HotspotSenders int     `json:"hotspot_senders"`
	Victims        int     `json:"victims"`
	WindowUs       float64 `json:"window_us"`
	PacketNs       float64 `json:"packet_ns"`
	// HotspotRate is the data delivered to the hot spot, HotspotGranted
	// the non-speculative part of it.
	HotspotRate    float64 `json:"hotspot_rate"`
	HotspotGranted float64 `json:"hotspot_granted"`
	// HotspotReserved is the data the hot spot's srp_rx granted (packets
	// reserved times tau_p over the window): 1/(1+eps) while its schedule
	// is never idle.
	HotspotReserved float64 `json:"hotspot_reserved"`
	// SenderMin, SenderMax and SenderJain are over the hot-spot senders'
	// shares of the link.
	SenderMin  float64 `json:"sender_min"`
	SenderMax  float64 `json:"sender_max"`
	SenderJain float64 `json:"sender_jain"`
	// The victims' load, per victim (Source, summed over the victims):
	// VictimOffered is the data of the messages created in the window and
	// VictimAccepted the part of it delivered by the end, so accepted
	// never exceeds offered; VictimBacklog is the data offered before the
	// warm-up and not yet delivered at it, VictimDrained the part of the
	// backlog delivered in the window. VictimDelivered, accepted plus
	// drained, is all the victims' data delivered in the window (the
	// bins' rate).
	VictimOffered   float64 `json:"victim_offered"`
	VictimAccepted  float64 `json:"victim_accepted"`
	VictimBacklog   float64 `json:"victim_backlog"`
	VictimDrained   float64 `json:"victim_drained"`
	VictimDelivered float64 `json:"victim_delivered"`
	// Sources are the hosts that send (victims and hot-spot senders), in
	// host order, in packets.
	Sources []Source `json:"sources"`
	// VictimLatencyNs is the mean in-flight latency of the victims'
	// packets (from the NIC's transmission of the delivered copy to its
	// tail's arrival, S2:L146), VictimZeroLoadNs the mean the same packets
	// take through an empty network; VictimLatencyMaxNs the largest.
	VictimLatencyNs    float64 `json:"victim_latency_ns"`
	VictimZeroLoadNs   float64 `json:"victim_zero_load_ns"`
	VictimLatencyMaxNs float64 `json:"victim_latency_max_ns"`
	// Victim message latencies (creation to the last packet's arrival,
	// source queueing included) of the messages created after the
	// warm-up and delivered by the end, and the same through an empty
	// network: small messages (below n_min) and the others.
	SmallMsgs      int64   `json:"small_msgs"`
	LargeMsgs      int64   `json:"large_msgs"`
	SmallMsgNs     float64 `json:"small_msg_ns"`
	SmallMsgZeroNs float64 `json:"small_msg_zero_ns"`
	LargeMsgNs     float64 `json:"large_msg_ns"`
	LargeMsgZeroNs float64 `json:"large_msg_zero_ns"`
	VictimMsgs     int64   `json:"victim_msgs"`
	Reservations   int64   `json:"reservations"`
	Grants         int64   `json:"grants"`
	SpecSent       int64   `json:"spec_sent"`
	SpecDropped    int64   `json:"spec_dropped"`
	Stale          int64   `json:"stale"`
	Marks          int64   `json:"marks"`
	CNs            int64   `json:"cns"`
	PeakVOQ        int     `json:"peak_voq"`
	Events         int64   `json:"events"`
	BlockEvents    int64   `json:"block_events"`
	Bins           []Bin   `json:"bins"`
}

// Source is one sending host's data in packets: Offered the packets of
// its messages created in the window and Accepted the part of them
// delivered by the end of the run; Backlog the packets of its messages
// created before the warm-up and not delivered at it, Drained the part of
// them delivered in the window. Accepted <= Offered and Drained <= Backlog:
// a source delivers at most Offered + Backlog in the window.
type Source struct {
	Host     int   `json:"host"`
	Hot      bool  `json:"hot"` // a hot-spot sender; else a victim
	Offered  int64 `json:"offered"`
	Accepted int64 `json:"accepted"`
	Backlog  int64 `json:"backlog"`
	Drained  int64 `json:"drained"`
}

// Bin is one time bin of the whole run (warm-up included): the rate
// delivered to the hot spot, the victims' rate (per victim) and their
// mean in-flight latency.
type Bin struct {
	StartUs         float64 `json:"start_us"`
	HotspotRate     float64 `json:"hotspot_rate"`
	VictimRate      float64 `json:"victim_rate"`
	VictimLatencyNs float64 `json:"victim_latency_ns"`
}

func (s *sim) result() *Result {
	st := &s.st
	c := &s.cfg
	win := float64(s.endPs - s.warmPs)
	pkt := float64(s.pktPs)
	r := &Result{CC: c.CC.String(), Hosts: c.Hosts(), HotspotSenders: c.HotspotSenders,
		WindowUs: win / 1e6, PacketNs: pkt / 1000,
		HotspotRate: float64(st.hotDelivered) * pkt / win, HotspotGranted: float64(st.hotDelivered-st.hotSpec) * pkt / win,
		HotspotReserved: float64(st.hotReserved) * pkt / win,
		VictimMsgs:      st.victimMsgs, Reservations: st.reservations, Grants: st.grants, SpecSent: st.specSent,
		SpecDropped: st.specDropped, Stale: st.stale, Marks: st.marks, CNs: st.cns, PeakVOQ: st.peakVOQ,
		Events: st.events, BlockEvents: st.blockEvents}
	var shares []float64
	var victims Source
	for _, h := range s.hosts {
		if !h.victim && !h.hot {
			continue
		}
		l := st.load[h.id]
		src := Source{Host: h.id, Hot: h.hot, Offered: l.offered, Accepted: l.accepted,
			Backlog: l.preOffered - l.preDelivered, Drained: l.drained}
		r.Sources = append(r.Sources, src)
		if h.victim {
			r.Victims++
			victims.Offered += src.Offered
			victims.Accepted += src.Accepted
			victims.Backlog += src.Backlog
			victims.Drained += src.Drained
		}
		if h.hot {
			shares = append(shares, float64(st.perSender[h.id])*pkt/win)
		}
	}
	if len(shares) > 0 {
		sort.Float64s(shares)
		r.SenderMin, r.SenderMax, r.SenderJain = shares[0], shares[len(shares)-1], netsim.Jain(shares)
	}
	if r.Victims > 0 {
		per := func(n int64) float64 { return float64(n) * pkt / win / float64(r.Victims) }
		r.VictimOffered, r.VictimAccepted = per(victims.Offered), per(victims.Accepted)
		r.VictimBacklog, r.VictimDrained = per(victims.Backlog), per(victims.Drained)
		r.VictimDelivered = per(victims.Accepted + victims.Drained)
	}
	if st.victimDelivered > 0 {
		r.VictimLatencyNs = st.victimLat / float64(st.victimDelivered) / 1000
		r.VictimZeroLoadNs = st.victimZero / float64(st.victimDelivered) / 1000
		r.VictimLatencyMaxNs = float64(st.victimLatMax) / 1000
	}
	mean := func(m msgStats) (float64, float64) {
		if m.n == 0 {
			return 0, 0
		}
		return m.sum / float64(m.n) / 1000, m.zero / float64(m.n) / 1000
	}
	r.SmallMsgs, r.LargeMsgs = st.small.n, st.large.n
	r.SmallMsgNs, r.SmallMsgZeroNs = mean(st.small)
	r.LargeMsgNs, r.LargeMsgZeroNs = mean(st.large)
	binPs := float64(s.binPs)
	for i, b := range st.bins {
		bin := Bin{StartUs: float64(int64(i)*s.binPs) / 1e6, HotspotRate: float64(b.hot) * pkt / binPs}
		if r.Victims > 0 {
			bin.VictimRate = float64(b.victim) * pkt / binPs / float64(r.Victims)
		}
		if b.victim > 0 {
			bin.VictimLatencyNs = b.victimLat / float64(b.victim) / 1000
		}
		r.Bins = append(r.Bins, bin)
	}
	return r
}

// WriteTable prints runs side by side, one column each.
func WriteTable(w io.Writer, rs []*Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(name string, f func(r *Result) string) {
		fmt.Fprintf(tw, "%s\t", name)
		for _, r := range rs {
			fmt.Fprintf(tw, "%s\t", f(r))
		}
		fmt.Fprintln(tw)
	}
	pct := func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }
	ns := func(v float64) string { return fmt.Sprintf("%.0f ns", v) }
	row("congestion control", func(r *Result) string { return r.CC })
	row("hot-spot senders : victims", func(r *Result) string { return fmt.Sprintf("%d : %d", r.HotspotSenders, r.Victims) })
	row("hot-spot receiver rate", func(r *Result) string { return pct(r.HotspotRate) })
	row("  of which non-speculative", func(r *Result) string { return pct(r.HotspotGranted) })
	row("hot-spot receiver reserved", func(r *Result) string { return pct(r.HotspotReserved) })
	row("hot-spot sender min / max", func(r *Result) string { return pct(r.SenderMin) + " / " + pct(r.SenderMax) })
	row("hot-spot sender fairness (Jain)", func(r *Result) string { return fmt.Sprintf("%.3f", r.SenderJain) })
	row("victim offered / accepted", func(r *Result) string { return pct(r.VictimOffered) + " / " + pct(r.VictimAccepted) })
	row("  backlog at warm-up / drained", func(r *Result) string { return pct(r.VictimBacklog) + " / " + pct(r.VictimDrained) })
	row("  delivered (accepted + drained)", func(r *Result) string { return pct(r.VictimDelivered) })
	row("victim in-flight latency", func(r *Result) string { return ns(r.VictimLatencyNs) })
	row("  zero-load / max", func(r *Result) string { return ns(r.VictimZeroLoadNs) + " / " + ns(r.VictimLatencyMaxNs) })
	row("  x zero-load", func(r *Result) string { return fmt.Sprintf("%.2f", ratio(r.VictimLatencyNs, r.VictimZeroLoadNs)) })
	row("small victim messages", func(r *Result) string { return fmt.Sprintf("%d", r.SmallMsgs) })
	row("  latency (zero-load)", func(r *Result) string { return ns(r.SmallMsgNs) + " (" + ns(r.SmallMsgZeroNs) + ")" })
	row("other victim messages", func(r *Result) string { return fmt.Sprintf("%d", r.LargeMsgs) })
	row("  latency (zero-load)", func(r *Result) string { return ns(r.LargeMsgNs) + " (" + ns(r.LargeMsgZeroNs) + ")" })
	row("victim messages unfinished", func(r *Result) string { return fmt.Sprintf("%d", r.VictimMsgs-r.SmallMsgs-r.LargeMsgs) })
	row("peak VOQ (packets)", func(r *Result) string { return fmt.Sprintf("%d", r.PeakVOQ) })
	row("reservations / grants", func(r *Result) string { return fmt.Sprintf("%d / %d", r.Reservations, r.Grants) })
	row("speculative sent / dropped", func(r *Result) string { return fmt.Sprintf("%d / %d", r.SpecSent, r.SpecDropped) })
	row("ECN marks / notifications", func(r *Result) string { return fmt.Sprintf("%d / %d", r.Marks, r.CNs) })
	row("block events", func(r *Result) string { return fmt.Sprintf("%d", r.BlockEvents) })
	return tw.Flush()
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Charts are the runs' hot-spot rate, victim rate and victim latency over
// time, one series per run.
func Charts(rs []*Result, title string) []netsim.Chart {
	mk := func(what, unit string, y func(b Bin) float64) netsim.Chart {
		c := netsim.Chart{Title: title + ": " + what, XLabel: "time (µs)", YLabel: unit}
		for _, r := range rs {
			ser := netsim.Series{Name: r.CC}
			for _, b := range r.Bins {
				ser.X = append(ser.X, b.StartUs)
				ser.Y = append(ser.Y, y(b))
			}
			if n := len(r.Bins); n > 0 {
				ser.XEnd = r.Bins[n-1].StartUs + (r.Bins[n-1].StartUs-r.Bins[0].StartUs)/float64(max(1, n-1))
			}
			c.Series = append(c.Series, ser)
		}
		return c
	}
	return []netsim.Chart{
		mk("hot-spot receiver throughput", "share of the link (%)", func(b Bin) float64 { return 100 * b.HotspotRate }),
		mk("victim throughput", "per victim, share of the link (%)", func(b Bin) float64 { return 100 * b.VictimRate }),
		mk("victim in-flight latency", "mean (µs)", func(b Bin) float64 { return b.VictimLatencyNs / 1000 }),
	}
}

// Plots are Charts as the commands write them: throughput, victims and
// latency.
func Plots(rs []*Result, title string) []netsim.Plot {
	var out []netsim.Plot
	for i, c := range Charts(rs, title) {
		c := c
		out = append(out, netsim.Plot{Name: []string{"throughput", "victims", "latency"}[i], Lines: &c})
	}
	return out
}
