package uet

import (
	"github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/golden/netsim"
)

// The scenarios of `nicgen scenario` that run this block's configured
// parameters (package scenario finds them through these methods).

// Incast is the N:1 incast of the engine in every sender. It applies
// every event at once (clocked, Incast.Run models the configured shell):
// merge slots and the split send path are not modelled then.
func (p Params) Incast() *netsim.Incast {
	notModelled := ""
	if p.Split {
		notModelled = "uet_cc's split send path"
	} else if p.CC.MergeSlots > 0 {
		notModelled = "merge_slots"
	}
	return netsim.NewEngineIncast(p.Golden(), notModelled)
}

// SplitSlots is what a split replay takes from the block before it builds
// the split engine: the window path's merge slots unless told (its window
// controller's merge_slots, at least 8), and whether it uses reps_conf
// (the split engine is built with reps).
func (p Params) SplitSlots() (slots int, usesConf bool) { return max(p.CC.MergeSlots, 8), p.UseConf }

// SplitReplay is the engine split, its window path merging ACKs and NACKs
// of up to 32 KiB in slots slots, beside the same engine shared.
func (p Params) SplitReplay(slots int) (*netsim.SplitReplay, error) {
	sp := p
	sp.Split = true
	sp.CC.MergeSlots, sp.CC.MergeAcks, sp.CC.MergeNacks = slots, true, true
	sp.CC.SizeW = max(sp.CC.SizeW, 16)
	var err error
	if sp.CC.Depth, err = smartt.DepthFor(sp.CC); err != nil {
		return nil, err
	}
	if sp.Depth, err = NeededDepth(sp); err != nil {
		return nil, err
	}
	shared := p
	shared.Split = false
	if shared.Depth, err = NeededDepth(shared); err != nil {
		return nil, err
	}
	return netsim.NewSplitReplay(sp.Golden(), shared.Golden(), slots, sp.Depth, shared.Depth), nil
}
