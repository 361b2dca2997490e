package netsim

import (
	"fmt"

	"github.com/nicgen/nicgen/golden/smartt"
	"github.com/nicgen/nicgen/golden/uet"
)

// The replays of `nicgen scenario merge` and `nicgen scenario split`:
// closed-loop runs recorded on the network model and replayed, each event
// at its time on a clock, through the golden cycle models of the merging
// shell and of uet_cc's split engine.

// MergeReplay is a window controller (nscc) behind a merging shell
// (docs/pipeline.md, "Merge stage"): merged ACKs and NACKs in Slots
// slots, at pipeline depth Depth.
type MergeReplay struct {
	Slots, Depth int

	p     smartt.Params
	nacks bool
}

// NewMergeReplay is window controller p (nscc) behind a merging shell of
// slots slots at pipeline depth depth, merging NACKs too when nacks is set.
func NewMergeReplay(p smartt.Params, depth, slots int, nacks bool) *MergeReplay {
	return &MergeReplay{Slots: slots, Depth: depth, p: p, nacks: nacks}
}

// MergeTrace is a closed-loop run of golden nscc senders that a merge
// replay records.
type MergeTrace struct {
	Name    string
	Senders int
	// AllCE marks every ACK and raises its RTT to at least two target
	// RTTs (a marked ACK at the base RTT is nscc's no-op, S1 Algorithm 1).
	AllCE bool
}

// MergeTraces are the runs a merge replay measures: one connection, the
// same with every ACK marked, and 8:1 and 64:1 incasts.
func MergeTraces() []MergeTrace {
	return []MergeTrace{{"one connection", 1, false}, {"one connection, CE", 1, true}, {"8:1 incast", 8, false}, {"64:1 incast", 64, false}}
}

// Measure records tr with messages of msg bytes, lets each event arrive
// at the block at its time on a clock of clockMHz (an event at t ns in
// cycle t x clock), and returns how far the merged results' windows are
// from the per-ACK model's (smartt.MeasureMergeDivergence).
func (m *MergeReplay) Measure(tr MergeTrace, msg int64, clockMHz float64) (smartt.MergeDivergence, error) {
	trtt := uint32(2 * m.p.Derive().TrttNs)
	evs, err := RecordIncast(m.p, tr.Senders, msg)
	if err != nil {
		return smartt.MergeDivergence{}, err
	}
	arrive := make([]int64, len(evs))
	for i := range evs {
		if tr.AllCE && evs[i].Kind == smartt.KindAck {
			evs[i].ECN, evs[i].RTT = true, max(evs[i].RTT, trtt)
		}
		arrive[i] = int64(float64(evs[i].Now-evs[0].Now) * clockMHz / 1000)
	}
	return smartt.MeasureMergeDivergence(m.p, m.Depth, m.Slots, m.nacks, evs, arrive)
}

// SplitReplay is the uet_cc engine split (docs/blocks/uet_cc.md, "Split
// send path"), its window path merging ACKs and NACKs in Slots slots,
// beside the same engine shared (one shell).
type SplitReplay struct {
	Slots int
	// SendDepth and WindowDepth are the split engine's pipeline depths,
	// WindowVariant its window path's controller.
	SendDepth, WindowDepth int
	WindowVariant          string
	// SharedDepth is the shared engine's shell's depth.
	SharedDepth int

	split, shared uet.Params
}

// NewSplitReplay is the uet_cc engine split, with its window path's
// merge slots (split.Window), beside the same engine shared (one shell);
// sendDepth and sharedDepth are the two engines' shell depths.
func NewSplitReplay(split, shared uet.Params, slots, sendDepth, sharedDepth int) *SplitReplay {
	s := &SplitReplay{Slots: slots, SendDepth: sendDepth, SharedDepth: sharedDepth, split: split, shared: shared}
	s.WindowDepth, s.WindowVariant = split.Window.Depth, split.CC.Variant.String()
	return s
}

// SplitTrace is a recorded event stream a split replay measures.
type SplitTrace struct {
	Name   string
	Events []uet.Event
}

// Traces records one connection of the shared golden engine sending msg
// bytes at the link rate, an ACK per packet, and returns it three ways:
// as recorded; with each run of unmarked ACKs coalesced up to 16 KiB (a
// marked ACK goes alone, as a UEC receiver's ACK_Gen_Trigger does); and
// with every ACK ECN-marked and its RTT raised to two target RTTs.
func (s *SplitReplay) Traces(msg int64) ([]SplitTrace, error) {
	trtt := uint32(2 * s.split.CC.Derive().TrttNs)
	one, err := RecordUETIncast(s.split, 1, msg)
	if err != nil {
		return nil, err
	}
	return []SplitTrace{
		{"one connection", one},
		{"one connection, 16 KiB ACKs", coalesceACKs(one, 16<<10)},
		{"one connection, CE", markACKs(one, trtt)},
	}, nil
}

// SplitRow is a trace through the split engine (uet.MeasureSplit) and the
// shared engine's input waits on the same arrivals (uet.SharedWaits).
type SplitRow struct {
	uet.SplitFidelity
	SharedWaited  int
	SharedMaxWait int64
}

// Measure lets each event of tr arrive at the block at its time on a
// clock of clockMHz (an event at t ns in cycle t x clock) and runs it
// through the split engine's golden cycle model and the shared engine.
func (s *SplitReplay) Measure(tr SplitTrace, clockMHz float64) (SplitRow, error) {
	arrive := make([]int64, len(tr.Events))
	for i := range tr.Events {
		arrive[i] = int64(float64(tr.Events[i].Now-tr.Events[0].Now) * clockMHz / 1000)
	}
	f, err := uet.MeasureSplit(s.split, tr.Events, arrive)
	if err != nil {
		return SplitRow{}, fmt.Errorf("%s: %w", tr.Name, err)
	}
	sw, smax, err := uet.SharedWaits(s.shared, tr.Events, arrive)
	if err != nil {
		return SplitRow{}, fmt.Errorf("%s: %w", tr.Name, err)
	}
	return SplitRow{SplitFidelity: f, SharedWaited: sw, SharedMaxWait: smax}, nil
}

// coalesceACKs replaces a connection's unmarked ACKs, in runs broken by
// a marked ACK, a NACK, a timeout or an open (not by its sends), by ACKs
// of up to limit bytes, each at the place and with the RTT, entropy and
// time of its last member: a receiver that ACKs every limit bytes and a
// marked packet at once.
func coalesceACKs(evs []uet.Event, limit uint32) []uet.Event {
	var out []uet.Event
	pending := map[uint32]int{} // connection -> index in out of its open ACK
	for _, e := range evs {
		if e.Kind == uet.KindSend {
			out = append(out, e)
			continue
		}
		if e.Kind != uet.KindAck || e.ECN {
			delete(pending, e.Conn)
			out = append(out, e)
			continue
		}
		if i, ok := pending[e.Conn]; ok && out[i].Size+e.Size <= limit {
			size := out[i].Size + e.Size
			out = append(out[:i], out[i+1:]...) // the ACK goes out when its last member arrives
			for c, j := range pending {
				if j > i {
					pending[c] = j - 1
				}
			}
			e.Size = size
		}
		pending[e.Conn] = len(out)
		out = append(out, e)
	}
	return out
}

// markACKs marks every ACK and raises its RTT to at least rtt.
func markACKs(evs []uet.Event, rtt uint32) []uet.Event {
	out := append([]uet.Event(nil), evs...)
	for i := range out {
		if out[i].Kind == uet.KindAck {
			out[i].ECN, out[i].RTT = true, max(out[i].RTT, rtt)
		}
	}
	return out
}
