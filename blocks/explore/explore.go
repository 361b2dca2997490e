// Package explore is the state explorer behind `nicgen budget --explore`
// (docs/explore.md), without any block in it: the points of a sweep, what
// each costs in bits, SRAM and block RAMs, their numbering and Pareto
// front, and the table that shows them. A block sweeps its own state in
// its own package and hands the points here (block.Desc.Explore).
package explore

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"

	"github.com/nicgen/nicgen/hdlgen"
)

// Setting is one explored attribute of the block's section and its value
// at a point.
type Setting struct {
	Attr  string `json:"attr"`
	Value int    `json:"value"`
}

// IncastDelta is a point's closed-loop incast of one message size against
// the float64 model's.
type IncastDelta struct {
	Size             string  `json:"size"`
	CompletionChange float64 `json:"completion_change"` // fixed / float - 1
	JainChange       float64 `json:"jain_change"`       // fixed - float
}

// TimingError is how much longer (above 0) or shorter than the
// reference's an interval that the block times with its own stamps lasts,
// over the start times within a stamp unit: the mean and the range, in ns.
type TimingError struct {
	Name   string  `json:"name"`
	MeanNs float64 `json:"mean_ns"`
	MinNs  float64 `json:"min_ns"`
	MaxNs  float64 `json:"max_ns"`
}

// Fidelity is what a point costs against the block's float64 reference:
// the error of one step from the same word, the timing of the intervals
// its stamps time, and the change of a closed-loop incast, with the
// bounds (Result.Bounds) each holds.
type Fidelity struct {
	StepP99     float64       `json:"step_error_p99"`
	StepMax     float64       `json:"step_error_max"`
	Timing      []TimingError `json:"timing,omitempty"`
	Incast      []IncastDelta `json:"incast"`
	WorstIncast float64       `json:"worst_incast_change"` // largest |completion change|
	StepOK      bool          `json:"step_bound_holds"`
	IncastOK    bool          `json:"incast_bound_holds"`
}

// Point is one setting of the explored attributes.
type Point struct {
	ID       int       `json:"id"`
	Settings []Setting `json:"settings"`
	Bits     int       `json:"per_connection_bits"`
	TableKiB float64   `json:"table_kib"`
	RAMB36   int       `json:"ramb36"`
	Error    *Fidelity `json:"error,omitempty"` // nil: the block has no float64 reference
	Default  bool      `json:"default"`
	Pareto   bool      `json:"pareto"`
	HCL      string    `json:"hcl"`
	// settingsKey is SettingsKey(Settings), kept by Dedup
	settingsKey string
}

// WorstIncast is the largest incast completion change of the point, 0
// without a reference: the error axis of the Pareto front.
func (p Point) WorstIncast() float64 {
	if p.Error == nil {
		return 0
	}
	return p.Error.WorstIncast
}

// Bounds are the fidelity bounds asserted at a block's default point:
// the explorer shows where each breaks.
type Bounds struct {
	StepP99 float64 // one-step error, p99
	Incast  float64 // incast completion change against float64
}

// Result is a block's sweep.
type Result struct {
	Block       string  `json:"block"`
	Connections int     `json:"connections"`
	Reference   string  `json:"reference"`
	Points      []Point `json:"points"`
	// Bounds are the bounds the points' Fidelity is checked against (nil
	// without a reference); the table prints them.
	Bounds *Bounds `json:"-"`
}

// Options are what the tools ask of a block's sweep.
type Options struct {
	// Measure runs the measurements; without it the points carry their
	// settings and cost only (what --select needs: the numbering does not
	// depend on the measurements).
	Measure bool
	// Only, when set, keeps just the points whose SettingsKey it accepts,
	// and measures only those: a campaign's shard.
	Only func(key string) bool
	// Progress receives a line before the measurements and one per
	// quarter of the points (nil: nowhere).
	Progress io.Writer
}

// Keeps reports whether the point of settings s is one Only keeps.
func (o Options) Keeps(s []Setting) bool { return o.Only == nil || o.Only(SettingsKey(s)) }

// MeasureAll measures points 0..n-1 of block's sweep, on every CPU:
// measure(i) gives point i. What each point's measurement is (each) goes
// into the first progress line; a line per quarter of the points follows,
// for a sweep takes seconds.
func (o Options) MeasureAll(block, each string, n int, measure func(i int) (Point, error)) ([]Point, error) {
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	points := make([]Point, n)
	errs := make([]error, n)
	var doneMu sync.Mutex
	done, quarter := 0, 0
	fmt.Fprintf(progress, "explore %s: %d points, each %s\n", block, n, each)
	var wg sync.WaitGroup
	work := make(chan int)
	for range max(1, runtime.NumCPU()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				points[i], errs[i] = measure(i)
				doneMu.Lock()
				if done++; 4*done >= (quarter+1)*n {
					quarter = 4 * done / n
					fmt.Fprintf(progress, "explore %s: %d of %d points\n", block, done, n)
				}
				doneMu.Unlock()
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return points, nil
}

// Bits is the per-connection state of a module as a block's build
// returns it (module and error).
func Bits(m *hdlgen.Module, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	return hdlgen.StateBudget(m).PerConnBits(), nil
}

// RAMB36 is the number of 7-series RAMB36E1 that hold depth words of
// width bits, in the best of its aspect ratios (512 x 72 .. 32K x 1).
func RAMB36(width, depth int) int {
	best := math.MaxInt
	for _, a := range [][2]int{{512, 72}, {1024, 36}, {2048, 18}, {4096, 9}, {8192, 4}, {16384, 2}, {32768, 1}} {
		n := ceilDiv(width, a[1]) * ceilDiv(depth, a[0])
		best = min(best, n)
	}
	return best
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
