package scenario

import (
	"github.com/nicgen/nicgen/blocks/block"
	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/golden/netsim"
	"github.com/nicgen/nicgen/golden/smartt"
)

// DefaultMergeSlots is the number of merge slots a merge replay gives the
// configuration's nscc unless told: its merge_slots, at least 12.
func DefaultMergeSlots(c block.Config) (int, error) {
	bp, err := block.ParamsOf[bsmartt.Params](c, "nscc")
	if err != nil {
		return 0, err
	}
	return max(bp.MergeSlots, 12), nil
}

// MergeReplay is the configuration's nscc behind a merging shell
// (docs/pipeline.md, "Merge stage"): merged ACKs and NACKs of up to 32 KiB
// in Slots slots, at the pipeline depth the block needs.
type MergeReplay struct {
	Slots, Depth int

	p     smartt.Params
	nacks bool
}

// NewMergeReplay is the merging configuration of the configuration's nscc
// with slots merge slots.
func NewMergeReplay(c block.Config, slots int) (*MergeReplay, error) {
	bp, err := block.ParamsOf[bsmartt.Params](c, "nscc")
	if err != nil {
		return nil, err
	}
	mp := bp
	mp.MergeSlots, mp.MergeAcks, mp.MergeNacks = slots, true, true
	mp.SizeW = max(mp.SizeW, 16)
	depth, err := bsmartt.DepthFor(mp)
	if err != nil {
		return nil, err
	}
	return &MergeReplay{Slots: slots, Depth: depth, p: mp.Golden(), nacks: mp.MergeNacks}, nil
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
	evs, err := netsim.RecordIncast(m.p, tr.Senders, msg)
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
