// Package scenario finds in a configuration's blocks what the scenarios
// of `nicgen scenario` run: the incast of a window controller or of the
// uet_cc engine, the replays of the merging shell and of uet_cc's split
// engine, and SRP's hot spot with the configured protocol. Each block's
// package gives its part through methods of its parameters (the
// interfaces below); the scenes themselves are in golden/netsim and its
// packages. Nothing here knows a block's parameters.
package scenario

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/golden/netsim"
	"github.com/nicgen/nicgen/golden/netsim/hotspot"
)

// Incaster is a block that runs in the N:1 incast.
type Incaster interface {
	Incast() *netsim.Incast
}

// MergeReplayer is a window controller that runs behind a merging shell
// in the merge replay.
type MergeReplayer interface {
	DefaultMergeSlots() int
	MergeReplay(slots int) (*netsim.MergeReplay, error)
}

// SplitReplayer is an engine that runs split in the split replay.
type SplitReplayer interface {
	SplitSlots() (slots int, usesConf bool)
	SplitReplay(slots int) (*netsim.SplitReplay, error)
}

// HotspotPart is a block that gives the hot spot its part of the
// protocol.
type HotspotPart interface {
	Hotspot(cfg *hotspot.Config)
}

// The blocks the replays and the hot spot run.
const (
	mergeBlock = "nscc"
	splitBlock = "uet_cc"
)

// hotspotBlocks are the blocks whose parts make the hot spot's protocol.
var hotspotBlocks = []string{"srp_tx", "srp_rx", "srp_ttw", "ecn_ipd"}

// WindowVariants names the window controllers an incast runs alone,
// besides the uet_cc engine.
func WindowVariants() []string { return []string{"nscc", "smartt"} }

// part is the configuration's block name as an I, for the scenario what.
func part[I any](c block.Config, name, what string) (I, error) {
	var zero I
	v, ok := c.Params[name]
	if !ok {
		return zero, fmt.Errorf("the configuration has no parameters for block %q (%s runs it)", name, what)
	}
	p, ok := v.(I)
	if !ok {
		return zero, fmt.Errorf("block %q does not run in %s", name, what)
	}
	return p, nil
}

// NewIncast is the incast of the configuration's block name.
func NewIncast(c block.Config, name string) (*netsim.Incast, error) {
	p, err := part[Incaster](c, name, "the incast")
	if err != nil {
		return nil, err
	}
	return p.Incast(), nil
}

// DefaultMergeSlots is the number of merge slots a merge replay gives the
// configuration's nscc unless told.
func DefaultMergeSlots(c block.Config) (int, error) {
	p, err := part[MergeReplayer](c, mergeBlock, "the merge replay")
	if err != nil {
		return 0, err
	}
	return p.DefaultMergeSlots(), nil
}

// NewMergeReplay is the configuration's nscc behind a merging shell of
// slots slots.
func NewMergeReplay(c block.Config, slots int) (*netsim.MergeReplay, error) {
	p, err := part[MergeReplayer](c, mergeBlock, "the merge replay")
	if err != nil {
		return nil, err
	}
	return p.MergeReplay(slots)
}

// SplitSlots is the window path's merge slots a split replay gives the
// configuration's uet_cc unless told, and whether it uses reps_conf (the
// split engine is built with reps).
func SplitSlots(c block.Config) (slots int, usesConf bool, err error) {
	p, err := part[SplitReplayer](c, splitBlock, "the split replay")
	if err != nil {
		return 0, false, err
	}
	slots, usesConf = p.SplitSlots()
	return slots, usesConf, nil
}

// NewSplitReplay is the configuration's uet_cc split, with slots merge
// slots in its window path, beside it shared.
func NewSplitReplay(c block.Config, slots int) (*netsim.SplitReplay, error) {
	p, err := part[SplitReplayer](c, splitBlock, "the split replay")
	if err != nil {
		return nil, err
	}
	return p.SplitReplay(slots)
}

// HotspotProtocol is the SRP and ECN protocol of a configuration as the
// hot spot (golden/netsim/hotspot) runs it: the parts of its srp_tx,
// srp_rx, srp_ttw and ecn_ipd blocks.
type HotspotProtocol struct {
	parts []HotspotPart
}

// NewHotspotProtocol reads the protocol of the configuration's srp_tx,
// srp_rx, srp_ttw and ecn_ipd blocks.
func NewHotspotProtocol(c block.Config) (*HotspotProtocol, error) {
	var hp HotspotProtocol
	for _, name := range hotspotBlocks {
		p, err := part[HotspotPart](c, name, "the hot spot")
		if err != nil {
			return nil, err
		}
		hp.parts = append(hp.parts, p)
	}
	return &hp, nil
}

// Apply gives cfg the protocol, in tables sized for cfg's network
// (hotspot.Config.Size): set the network first.
func (hp *HotspotProtocol) Apply(cfg *hotspot.Config) {
	for _, p := range hp.parts {
		p.Hotspot(cfg)
	}
	cfg.Size()
}
