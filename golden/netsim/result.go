package netsim

import (
	"fmt"
	"io"
)

// Sample is one point of a window trajectory: the window after an event
// that changed it (or the first window, at open).
type Sample struct {
	AtNs float64
	Cwnd uint32 // bytes
}

// SenderStats are one sender's measurements.
type SenderStats struct {
	Conn uint32
	// Delivered is the message bytes that reached the receiver whole.
	Delivered int64
	// CompletionNs is when the receiver got the sender's last byte;
	// DoneNs when the sender got its last ACK.
	CompletionNs, DoneNs float64
	// ThroughputGbps is Delivered over CompletionNs.
	ThroughputGbps float64
	// Packets counts transmissions (retransmissions included).
	Packets, Retransmits int64
	// Trims counts NACKs, Marks ECN-marked ACKs.
	Trims, Marks int64
	// QuickAdapts and FastAcks count results with QA and Fast set.
	QuickAdapts, FastAcks int64
	// Events is the number of controller events (open included).
	Events             int64
	MaxCwnd, FinalCwnd uint32
	// Cwnd is the window trajectory, kept with Config.RecordCwnd.
	Cwnd []Sample

	lastDeliveryPs int64
}

// Result is the outcome of one run.
type Result struct {
	Config        Config
	BDPBytes      int64
	QueueCapBytes int64
	// IdealNs is the total bytes at link rate; FloorNs adds what no
	// schedule avoids (the first packet's serialisation at its sender and
	// the forward propagation).
	IdealNs, FloorNs float64
	// CompletionNs is when the receiver got the last byte of the incast.
	CompletionNs float64
	// Slowdown is CompletionNs / IdealNs.
	Slowdown float64
	// Jain is Jain's fairness index of the senders' throughputs.
	Jain float64
	// PeakQueueBytes is the most data the egress queue held (packets on
	// the wire excluded); PeakQueueBDP the same in BDPs.
	PeakQueueBytes int64
	PeakQueueBDP   float64
	// Trims counts trimmed packets, Marks ECN marks, over all senders.
	Trims, Marks int64
	// Delivered and Packets sum the senders'.
	Delivered, Packets int64
	// Events counts simulator events.
	Events  int64
	Senders []SenderStats
}

// Jain is Jain's fairness index (sum x)^2 / (n * sum x^2): 1 when every x is
// equal, 1/n when one takes everything. It is 0 for no values or all zero.
func Jain(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	if sq == 0 {
		return 0
	}
	return sum * sum / (float64(len(xs)) * sq)
}

// WriteSummary prints the run's numbers, one sender per line.
func (r *Result) WriteSummary(w io.Writer) error {
	c := r.Config
	_, err := fmt.Fprintf(w, `incast %d:1, %s per sender, %v Gb/s, base RTT %d ns, BDP %d B, queue %d B, seed %d
completion   %.1f ns
ideal        %.1f ns  (total bytes at link rate)   completion/ideal %.4f
floor        %.1f ns  (ideal + first packet's latency)  completion/floor %.4f
fairness     %.4f (Jain, per-sender throughput)
peak queue   %d B = %.3f BDP
trims        %d   ECN marks %d   packets %d (delivered %d B)
`, c.Senders, FormatBytes(c.MessageBytes), c.LinkGbps, c.BaseRTTNs, r.BDPBytes, r.QueueCapBytes, c.Seed,
		r.CompletionNs, r.IdealNs, r.Slowdown, r.FloorNs, r.CompletionNs/r.FloorNs,
		r.Jain, r.PeakQueueBytes, r.PeakQueueBDP, r.Trims, r.Marks, r.Packets, r.Delivered)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%6s %12s %10s %8s %6s %6s %5s %5s %9s %9s\n", "sender", "done_ns", "Gb/s", "packets", "trims", "marks", "qa", "fast", "max_cwnd", "end_cwnd")
	for _, s := range r.Senders {
		_, err = fmt.Fprintf(w, "%6d %12.1f %10.2f %8d %6d %6d %5d %5d %9d %9d\n", s.Conn, s.CompletionNs, s.ThroughputGbps, s.Packets, s.Trims, s.Marks, s.QuickAdapts, s.FastAcks, s.MaxCwnd, s.FinalCwnd)
		if err != nil {
			return err
		}
	}
	return nil
}

// FormatBytes prints a size with the largest binary unit that divides it.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
