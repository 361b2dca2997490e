// Package scenario runs the blocks of a configuration in the scenarios of
// `nicgen scenario` that need the blocks' parameters, not only their
// golden models: the incast of a window controller or of the uet_cc
// engine, the replays that measure the merging shell and uet_cc's split
// engine on recorded traces, and SRP's hot spot with the configured
// protocol. The scenes themselves are in golden/netsim and its packages.
package scenario

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	buet "github.com/nicgen/nicgen/blocks/uet"
	"github.com/nicgen/nicgen/golden/netsim"
	"github.com/nicgen/nicgen/golden/smartt"
	"github.com/nicgen/nicgen/golden/uet"
)

// engineBlock is the uet_cc engine's block name; any other block an
// incast runs is a window controller alone.
const engineBlock = "uet_cc"

// WindowVariants names the window controllers an incast runs alone,
// besides the uet_cc engine: nscc and smartt.
func WindowVariants() []string { return []string{smartt.NSCC.String(), smartt.Conf.String()} }

// Incast is the N:1 incast of a configuration's block on the network
// model of golden/netsim: a window controller alone (nscc or smartt) in
// every sender, or the uet_cc engine, which also chooses every packet's
// entropy.
type Incast struct {
	// Net is the model's network (netsim.ConfigFor); Run takes a copy
	// with its senders, message, seed and recording set.
	Net netsim.Config
	// Name names the block as the incast runs it, such as "nscc" or
	// "uet_cc (nscc and reps)".
	Name string
	// NumConn is the model's connections: the most senders.
	NumConn int
	// LinkGbps and BaseRTTNs are the model's network.
	LinkGbps  float64
	BaseRTTNs uint32
	// NotModelled names what of the configured shell an incast that
	// applies every event at once does not model: "merge_slots", "uet_cc's
	// split send path", or "" for nothing.
	NotModelled string

	p      smartt.Params
	up     uet.Params
	engine bool
}

// NewIncast reads the incast of the configuration's block variant: one of
// WindowVariants, or "uet_cc".
func NewIncast(c block.Config, variant string) (*Incast, error) {
	in := &Incast{engine: variant == engineBlock}
	if in.engine {
		bp, err := block.ParamsOf[buet.Params](c, variant)
		if err != nil {
			return nil, err
		}
		in.up = bp.Golden()
		in.p = in.up.CC
		if bp.Split {
			in.NotModelled = "uet_cc's split send path"
		} else if bp.CC.MergeSlots > 0 {
			in.NotModelled = "merge_slots"
		}
		lb := "reps"
		if in.up.UseConf {
			lb = "reps_conf"
		}
		in.Name = fmt.Sprintf("uet_cc (%s and %s)", in.p.Variant, lb)
	} else {
		bp, err := block.ParamsOf[bsmartt.Params](c, variant)
		if err != nil {
			return nil, err
		}
		in.p = bp.Golden()
		if bp.MergeSlots > 0 {
			in.NotModelled = "merge_slots"
		}
		in.Name = variant
	}
	in.Net = netsim.ConfigFor(in.p)
	in.NumConn = in.p.NumConn
	in.LinkGbps, in.BaseRTTNs = in.p.Network.LinkGbps, in.p.Network.BrttNs
	return in, nil
}

// IncastResult is an incast's outcome.
type IncastResult struct {
	*netsim.Result
	// Entropies is the uet_cc engines' account of the sends' entropies;
	// nil for a window controller alone.
	Entropies *netsim.Entropies
	// Engine is the clocked engines' account; nil unless clocked.
	Engine *Engine
	// NotModelled is what of the configured shell the run did not model
	// (Incast.NotModelled, or "" when clocked).
	NotModelled string
}

// Engine is the clocked uet_cc engines' account of an incast.
type Engine struct {
	ClockMHz float64 `json:"clock_mhz"`
	Shell    string  `json:"shell"`
	netsim.EngineStats
}

// Run runs the incast on net (Net with the run's senders, message, seed
// and recording): every sender's window controller in fixed point, or
// (float) the float64 reference; the uet_cc engine applying every event
// at once, or (clockMHz above 0) its golden cycle model at that clock,
// shell, merge slots and split send path included.
func (in *Incast) Run(net netsim.Config, float bool, clockMHz float64) (*IncastResult, error) {
	ctrls, engines, clocked, err := in.senders(net.Senders, float, clockMHz)
	if err != nil {
		return nil, err
	}
	res, err := netsim.Run(net, ctrls)
	if err != nil {
		return nil, fmt.Errorf("incast: %w", err)
	}
	ents, err := netsim.EntropyTotals(engines)
	if err != nil {
		return nil, fmt.Errorf("incast: %w", err)
	}
	out := &IncastResult{Result: res, NotModelled: in.NotModelled}
	if in.engine {
		out.Entropies = &ents
	}
	if clockMHz != 0 {
		out.NotModelled = "" // the clocked engine models the configured shell
		out.Engine = &Engine{ClockMHz: clockMHz, Shell: engineShell(in.up), EngineStats: netsim.EngineTotals(clocked)}
	}
	return out, nil
}

// senders is every sender's controller: uet_cc clocked at clockMHz (its
// engines, clocked and as UETEngines), uet_cc answering at once, or the
// window controller alone (fixed point or float).
func (in *Incast) senders(n int, float bool, clockMHz float64) ([]netsim.Controller, []*netsim.UETEngine, []*netsim.ClockedUET, error) {
	switch {
	case clockMHz != 0:
		ctrls, clocked, err := netsim.ClockedEngines(in.up, n, clockMHz)
		var engines []*netsim.UETEngine
		for _, k := range clocked {
			engines = append(engines, k.UETEngine)
		}
		return ctrls, engines, clocked, err
	case in.engine:
		ctrls, engines, err := netsim.GoldenEngines(in.up, n)
		return ctrls, engines, nil, err
	}
	ctrls, err := netsim.GoldenControllers(in.p, n, float)
	return ctrls, nil, nil, err
}

// engineShell names uet_cc's shell as the clocked incast runs it.
func engineShell(p uet.Params) string {
	w := p.Window
	if w.Depth == 0 {
		return fmt.Sprintf("uet_cc (shared shell, depth %d)", p.Depth)
	}
	merge := "no merge slots"
	if w.Slots > 0 {
		merge = fmt.Sprintf("%d merge slots", w.Slots)
		if !w.MergeAcks {
			merge = fmt.Sprintf("%d waiting slots", w.Slots)
		}
	}
	return fmt.Sprintf("uet_cc (split: send path depth %d, window path depth %d, %s)", p.Depth, w.Depth, merge)
}
