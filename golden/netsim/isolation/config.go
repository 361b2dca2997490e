package isolation

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Attack is what the attacker host does (S3 Section 3.5).
type Attack string

// The attacks, in the order of the table.
const (
	// None is the reference: the attacker has one long-lived QP.
	None Attack = "none"
	// Parallel opens Config.Parallel long-lived QPs to one destination at
	// once (S3 Section 3.5.1).
	Parallel Attack = "parallel"
	// Staggered opens a QP to one destination every base RTT; each sends
	// one BDP and closes (S3 Section 3.5.2).
	Staggered Attack = "staggered"
	// Shuffled opens a QP every base RTT to the next of
	// Config.Destinations destinations in turn; each sends one BDP and
	// closes: "sending across a new src/dst pair each RTT" (S3:L786).
	Shuffled Attack = "shuffled"
)

// Attacks are every attack, in table order.
var Attacks = []Attack{None, Parallel, Staggered, Shuffled}

// Control names a congestion control.
type Control string

// The controls, in table order.
const (
	SMaRTT Control = "smartt" // golden/smartt, conference variant (S0)
	NSCC   Control = "nscc"   // golden/smartt, journal variant (S1, UEC NSCC)
	Swift  Control = "swift"  // golden/snyder float64 reference (S3 Section 3.2.2)
	HPCC   Control = "hpcc"   // golden/snyder float64 reference (S3 Section 3.2.1)
	OneRC  Control = "1rc"    // golden/onerc: s-PERC with 1RC and weights (S3 chapter 5)
)

// Controls are every control, in table order.
var Controls = []Control{SMaRTT, NSCC, Swift, HPCC, OneRC}

// Granularity is what one congestion-control state serves.
type Granularity string

// The granularities.
const (
	// PerConnection gives each QP a state of its own, created at the
	// QP's open at one BDP (the IB/RoCE specification, S3:L757).
	PerConnection Granularity = "per-connection"
	// PerSrcDst gives all QPs of one (source host, destination) pair one
	// state and one window; the state lives while the pair has an open QP.
	PerSrcDst Granularity = "per-src/dst"
	// Weighted is 1RC's only granularity: per-connection rates scaled by
	// the host's connection count (S3 Section 5.3).
	Weighted Granularity = "per-connection, weighted"
)

// Config is one study: which controls and attacks, and the run's shape.
// Times are in base RTTs of each control's network.
type Config struct {
	Controls []Control
	Attacks  []Attack
	// Parallel is K, the QPs of the parallel attack.
	Parallel int
	// Destinations is D, the destinations the shuffled overlay rotates
	// among (all behind the bottleneck).
	Destinations int
	// WarmupRTTs run before the measurement window, WindowRTTs long.
	WarmupRTTs, WindowRTTs int
	// MessageBDPs is the size M of the victim's message, in BDPs of the
	// control's network; it starts with the victim's first packet sent
	// after the warm-up.
	MessageBDPs float64
	// VulnerableBelow is the verdict's rule: an attack is "vulnerable"
	// when the victim's share of the bottleneck's delivered bytes over
	// the window is below it (0.5 is fair), "secure" otherwise.
	VulnerableBelow float64
	// Seed seeds the ECN marking draws.
	Seed uint64
	// NoSharing, a test switch, gives per-src/dst rows per-connection
	// state (the rows keep their name): it shows the assertions on the
	// per-src/dst rows can fail.
	NoSharing bool
}

// DefaultConfig is the study of docs/sim.md: every control and attack,
// K = 4, D = 7, 100 base RTTs of warm-up and 400 of measurement, a
// victim message of 4 BDPs, vulnerable below a share of 0.4.
func DefaultConfig() Config {
	return Config{
		Controls:        slices.Clone(Controls),
		Attacks:         slices.Clone(Attacks),
		Parallel:        4,
		Destinations:    7,
		WarmupRTTs:      100,
		WindowRTTs:      400,
		MessageBDPs:     4,
		VulnerableBelow: 0.4,
		Seed:            1,
	}
}

// Validate reports the first setting Run cannot use.
func (c Config) Validate() error {
	if len(c.Controls) == 0 {
		return fmt.Errorf("no control: want some of %s", joinNames(Controls))
	}
	for i, k := range c.Controls {
		if !slices.Contains(Controls, k) {
			return fmt.Errorf("control %q: want one of %s", k, joinNames(Controls))
		}
		if slices.Contains(c.Controls[:i], k) {
			return fmt.Errorf("control %q named twice", k)
		}
	}
	if len(c.Attacks) == 0 {
		return fmt.Errorf("no attack: want some of %s", joinNames(Attacks))
	}
	for i, a := range c.Attacks {
		if !slices.Contains(Attacks, a) {
			return fmt.Errorf("attack %q: want one of %s", a, joinNames(Attacks))
		}
		if slices.Contains(c.Attacks[:i], a) {
			return fmt.Errorf("attack %q named twice", a)
		}
	}
	switch {
	case c.Parallel < 2 || c.Parallel > 64:
		return fmt.Errorf("parallel QPs %d: want 2..64", c.Parallel)
	case c.Destinations < 2 || c.Destinations > 64:
		return fmt.Errorf("destinations %d: want 2..64", c.Destinations)
	case c.WarmupRTTs < 0 || c.WarmupRTTs > 100_000:
		return fmt.Errorf("warm-up %d RTTs: want 0..100000", c.WarmupRTTs)
	case c.WindowRTTs < 10 || c.WindowRTTs > 100_000:
		return fmt.Errorf("window %d RTTs: want 10..100000", c.WindowRTTs)
	case !(c.MessageBDPs > 0 && c.MessageBDPs <= 1000):
		return fmt.Errorf("victim message %v BDPs: want more than 0, at most 1000", c.MessageBDPs)
	case !(c.VulnerableBelow > 0 && c.VulnerableBelow <= 0.5) || math.IsNaN(c.VulnerableBelow):
		return fmt.Errorf("vulnerable below a share of %v: want more than 0, at most 0.5 (the fair share)", c.VulnerableBelow)
	}
	return nil
}

// ParseControls reads a comma-separated list of controls.
func ParseControls(s string) ([]Control, error) {
	var cs []Control
	for _, f := range splitList(s) {
		cs = append(cs, Control(f))
	}
	return cs, Config{Controls: cs, Attacks: Attacks, Parallel: 2, Destinations: 2, WindowRTTs: 10, MessageBDPs: 1, VulnerableBelow: 0.4}.Validate()
}

// ParseAttacks reads a comma-separated list of attacks.
func ParseAttacks(s string) ([]Attack, error) {
	var as []Attack
	for _, f := range splitList(s) {
		as = append(as, Attack(f))
	}
	return as, Config{Controls: Controls, Attacks: as, Parallel: 2, Destinations: 2, WindowRTTs: 10, MessageBDPs: 1, VulnerableBelow: 0.4}.Validate()
}

func splitList(s string) []string {
	var fs []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			fs = append(fs, f)
		}
	}
	return fs
}

func joinNames[T ~string](xs []T) string {
	ss := make([]string, len(xs))
	for i, x := range xs {
		ss[i] = string(x)
	}
	return strings.Join(ss, ", ")
}

// Granularities are the state granularities a control runs with.
func (k Control) Granularities() []Granularity {
	if k == OneRC {
		return []Granularity{Weighted}
	}
	return []Granularity{PerConnection, PerSrcDst}
}
