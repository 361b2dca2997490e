package scenario

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	buet "github.com/nicgen/nicgen/blocks/uet"
	"github.com/nicgen/nicgen/golden/netsim"
	"github.com/nicgen/nicgen/golden/uet"
)

// SplitSlots is what a split replay takes from the configuration's uet_cc
// before it builds the split engine: the window path's merge slots unless
// told (its nscc merge_slots, at least 8), and whether it uses reps_conf
// (the split engine is built with reps).
func SplitSlots(c block.Config) (slots int, usesConf bool, err error) {
	bp, err := block.ParamsOf[buet.Params](c, "uet_cc")
	if err != nil {
		return 0, false, err
	}
	return max(bp.CC.MergeSlots, 8), bp.UseConf, nil
}

// SplitReplay is the configuration's uet_cc engine split (docs/blocks/
// uet_cc.md, "Split send path"), its window path merging ACKs and NACKs
// of up to 32 KiB in Slots slots, beside the same engine shared (one
// shell).
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

// NewSplitReplay builds the configuration's uet_cc split, with slots merge
// slots in its window path, and shared.
func NewSplitReplay(c block.Config, slots int) (*SplitReplay, error) {
	bp, err := block.ParamsOf[buet.Params](c, "uet_cc")
	if err != nil {
		return nil, err
	}
	sp := bp
	sp.Split = true
	sp.CC.MergeSlots, sp.CC.MergeAcks, sp.CC.MergeNacks = slots, true, true
	sp.CC.SizeW = max(sp.CC.SizeW, 16)
	if sp.CC.Depth, err = bsmartt.DepthFor(sp.CC); err != nil {
		return nil, err
	}
	if sp.Depth, err = buet.NeededDepth(sp); err != nil {
		return nil, err
	}
	shared := bp
	shared.Split = false
	if shared.Depth, err = buet.NeededDepth(shared); err != nil {
		return nil, err
	}
	s := &SplitReplay{Slots: slots, SendDepth: sp.Depth, SharedDepth: shared.Depth, split: sp.Golden(), shared: shared.Golden()}
	s.WindowDepth, s.WindowVariant = s.split.Window.Depth, s.split.CC.Variant.String()
	return s, nil
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
	one, err := netsim.RecordUETIncast(s.split, 1, msg)
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
