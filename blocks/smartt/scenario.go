package smartt

import "github.com/nicgen/nicgen/golden/netsim"

// The scenarios of `nicgen scenario` that run this block's configured
// parameters (package scenario finds them through these methods).

// Incast is the N:1 incast of the window controller alone in every
// sender. It applies every event at once: merge slots are not modelled.
func (p Params) Incast() *netsim.Incast {
	g := p.Golden()
	notModelled := ""
	if p.MergeSlots > 0 {
		notModelled = "merge_slots"
	}
	return netsim.NewWindowIncast(g, g.Variant.String(), notModelled)
}

// DefaultMergeSlots is the number of merge slots a merge replay gives the
// block unless told: its merge_slots, at least 12.
func (p Params) DefaultMergeSlots() int { return max(p.MergeSlots, 12) }

// MergeReplay is the block behind a merging shell (docs/pipeline.md,
// "Merge stage") with slots slots, merging ACKs and NACKs of up to 32 KiB
// (its size port raised to 16 bits), at the pipeline depth it then needs.
func (p Params) MergeReplay(slots int) (*netsim.MergeReplay, error) {
	mp := p
	mp.MergeSlots, mp.MergeAcks, mp.MergeNacks = slots, true, true
	mp.SizeW = max(mp.SizeW, 16)
	depth, err := DepthFor(mp)
	if err != nil {
		return nil, err
	}
	return netsim.NewMergeReplay(mp.Golden(), depth, slots, mp.MergeNacks), nil
}
