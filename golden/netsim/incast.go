package netsim

import (
	"fmt"

	"github.com/nicgen/nicgen/golden/smartt"
	"github.com/nicgen/nicgen/golden/uet"
)

// Incast is the N:1 incast of a block on the network model: a window controller alone (nscc or smartt) in
// every sender, or the uet_cc engine, which also chooses every packet's
// entropy.
type Incast struct {
	// Net is the model's network (ConfigFor); Run takes a copy
	// with its senders, message, seed and recording set.
	Net Config
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
	// Engine says whether the senders run the uet_cc engine (which also
	// chooses every packet's entropy) rather than a window controller.
	Engine bool

	p  smartt.Params
	up uet.Params
}

// NewWindowIncast is the incast of window controller p alone in every
// sender; name names the block, notModelled what of its configured shell
// the incast does not model ("" for nothing).
func NewWindowIncast(p smartt.Params, name, notModelled string) *Incast {
	in := &Incast{Name: name, NotModelled: notModelled, p: p}
	in.setNet()
	return in
}

// NewEngineIncast is the incast of the uet_cc engine up in every sender;
// notModelled as for NewWindowIncast.
func NewEngineIncast(up uet.Params, notModelled string) *Incast {
	lb := "reps"
	if up.UseConf {
		lb = "reps_conf"
	}
	in := &Incast{Name: fmt.Sprintf("uet_cc (%s and %s)", up.CC.Variant, lb), NotModelled: notModelled, Engine: true, p: up.CC, up: up}
	in.setNet()
	return in
}

func (in *Incast) setNet() {
	in.Net = ConfigFor(in.p)
	in.NumConn = in.p.NumConn
	in.LinkGbps, in.BaseRTTNs = in.p.Network.LinkGbps, in.p.Network.BrttNs
}

// IncastResult is an incast's outcome.
type IncastResult struct {
	*Result
	// Entropies is the uet_cc engines' account of the sends' entropies;
	// nil for a window controller alone.
	Entropies *Entropies
	// Engine is the clocked engines' account; nil unless clocked.
	Engine *IncastEngine
	// NotModelled is what of the configured shell the run did not model
	// (Incast.NotModelled, or "" when clocked).
	NotModelled string
}

// IncastEngine is the clocked uet_cc engines' account of an incast.
type IncastEngine struct {
	ClockMHz float64 `json:"clock_mhz"`
	Shell    string  `json:"shell"`
	EngineStats
}

// Run runs the incast on net (Net with the run's senders, message, seed
// and recording): every sender's window controller in fixed point, or
// (float) the float64 reference; the uet_cc engine applying every event
// at once, or (clockMHz above 0) its golden cycle model at that clock,
// shell, merge slots and split send path included.
func (in *Incast) Run(net Config, float bool, clockMHz float64) (*IncastResult, error) {
	ctrls, engines, clocked, err := in.senders(net.Senders, float, clockMHz)
	if err != nil {
		return nil, err
	}
	res, err := Run(net, ctrls)
	if err != nil {
		return nil, fmt.Errorf("incast: %w", err)
	}
	ents, err := EntropyTotals(engines)
	if err != nil {
		return nil, fmt.Errorf("incast: %w", err)
	}
	out := &IncastResult{Result: res, NotModelled: in.NotModelled}
	if in.Engine {
		out.Entropies = &ents
	}
	if clockMHz != 0 {
		out.NotModelled = "" // the clocked engine models the configured shell
		out.Engine = &IncastEngine{ClockMHz: clockMHz, Shell: engineShell(in.up), EngineStats: EngineTotals(clocked)}
	}
	return out, nil
}

// senders is every sender's controller: uet_cc clocked at clockMHz (its
// engines, clocked and as UETEngines), uet_cc answering at once, or the
// window controller alone (fixed point or float).
func (in *Incast) senders(n int, float bool, clockMHz float64) ([]Controller, []*UETEngine, []*ClockedUET, error) {
	switch {
	case clockMHz != 0:
		ctrls, clocked, err := ClockedEngines(in.up, n, clockMHz)
		var engines []*UETEngine
		for _, k := range clocked {
			engines = append(engines, k.UETEngine)
		}
		return ctrls, engines, clocked, err
	case in.Engine:
		ctrls, engines, err := GoldenEngines(in.up, n)
		return ctrls, engines, nil, err
	}
	ctrls, err := GoldenControllers(in.p, n, float)
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
