package reps

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/connpipe"
)

// Event kinds of the REPS event stream.
const (
	KindOpen    = 0
	KindSend    = 1
	KindAck     = 2
	KindNack    = 3
	KindTimeout = 4
	NumKinds    = 5
	KindW       = 3
)

// KindNames documents the kind values in port comments and datasheets.
var KindNames = []string{"open", "send", "ack", "nack", "timeout"}

// Params are the generation-time parameters of the `reps` block (S4). The
// defaults are the widths of S4 Table 1, so the state budget reproduces the
// paper's 193 bits per connection with 8 entries.
type Params struct {
	connpipe.Core
	NumConn            int    // connections in the state table
	ConnW              int    // connection id width
	N                  int    // circular buffer entries (S4: 8)
	EVW                int    // entropy value width (S4 Table 1: 16)
	HeadW              int    // head pointer width (S4 Table 1: 8)
	CountW             int    // numberOfValidEVs width (S4 Table 1: 8)
	TimeW              int    // timestamp width (S4 Table 1: 32)
	ExploreW           int    // exploreCounter width (S4 Table 1: 8)
	ExploreInit        uint64 // explore counter after open: the BDP in packets
	ExploreAfterFreeze uint64 // explore counter after leaving freezing mode
	FreezeTime         uint64 // freezing duration in `now` ticks
	LFSRSeed           uint32 // nonzero
	ClearOnFreezeExit  bool   // htsim's resetBuffer on freeze exit
}

// DefaultDepth and DefaultConfDepth are the datapath stages of reps and
// reps_conf that close timing at the default clock (docs/benchmarks.md).
const (
	DefaultDepth     = 3
	DefaultConfDepth = 1
)

// DefaultParams is the configuration of docs/blocks/reps.md: 4096
// connections, S4 Table 1 widths, exploration for the 210 packets of the
// default BDP (800 Gb/s x 8.6 us / 4 KiB), a 10 ms freeze with 1 ns ticks.
func DefaultParams() Params {
	return Params{NumConn: 4096, ConnW: 16, N: 8, EVW: 16, HeadW: 8, CountW: 8, TimeW: 32, ExploreW: 8,
		ExploreInit: 210, ExploreAfterFreeze: 210, FreezeTime: 10_000_000, LFSRSeed: 0xACE12D3B,
		Core: connpipe.Core{Depth: DefaultDepth}}
}

func fits(v uint64, width int) bool { return width >= 64 || v>>uint(width) == 0 }

// Validate reports the first parameter that cannot be built, by field name.
func (p Params) Validate() error {
	switch {
	case p.N < 1 || p.N > 64:
		return fmt.Errorf("N = %d: the buffer holds 1 to 64 entries", p.N)
	case p.NumConn < 2:
		return fmt.Errorf("NumConn = %d: at least 2 connections", p.NumConn)
	case p.ConnW < 1 || p.ConnW > 32 || !fits(uint64(p.NumConn-1), p.ConnW):
		return fmt.Errorf("ConnW = %d: must be 1..32 and hold connection %d", p.ConnW, p.NumConn-1)
	case p.EVW < 1 || p.EVW > 32:
		return fmt.Errorf("EVW = %d: must be 1..32", p.EVW)
	case p.HeadW < 1 || p.HeadW > 32 || !fits(uint64(p.N-1), p.HeadW):
		return fmt.Errorf("HeadW = %d: must hold index %d", p.HeadW, p.N-1)
	case p.CountW < 1 || p.CountW > 32 || !fits(uint64(p.N), p.CountW):
		return fmt.Errorf("CountW = %d: must hold %d valid entries", p.CountW, p.N)
	case p.TimeW < 2 || p.TimeW > 63:
		return fmt.Errorf("TimeW = %d: must be 2..63", p.TimeW)
	case p.ExploreW < 1 || p.ExploreW > 32:
		return fmt.Errorf("ExploreW = %d: must be 1..32", p.ExploreW)
	case !fits(p.ExploreInit, p.ExploreW):
		return fmt.Errorf("ExploreInit = %d does not fit ExploreW = %d bits", p.ExploreInit, p.ExploreW)
	case !fits(p.ExploreAfterFreeze, p.ExploreW):
		return fmt.Errorf("ExploreAfterFreeze = %d does not fit ExploreW = %d bits", p.ExploreAfterFreeze, p.ExploreW)
	case p.FreezeTime >= uint64(1)<<uint(p.TimeW-1):
		return fmt.Errorf("FreezeTime = %d: must be below 2^(TimeW-1) = %d for wrap-safe comparison", p.FreezeTime, uint64(1)<<uint(p.TimeW-1))
	case p.LFSRSeed == 0:
		return fmt.Errorf("LFSRSeed must be nonzero (an LFSR in state 0 stays 0)")
	case p.Depth < 1 || p.Depth > connpipe.MaxDepth:
		return fmt.Errorf("Depth = %d: the datapath has 1 to %d stages", p.Depth, connpipe.MaxDepth)
	}
	return nil
}

// ConfParams are the generation-time parameters of `reps_conf` (S0 Alg. 4).
type ConfParams struct {
	connpipe.Core
	NumConn      int
	ConnW        int
	NumEntropies int    // S0: 256
	EVW          int    // width of the result EV (zero-extended entropy)
	ExploreInit  uint64 // sends explored after open: min(BDP packets, NumEntropies)
}

// DefaultConfParams is S0's setting with the default network.
func DefaultConfParams() ConfParams {
	return ConfParams{NumConn: 4096, ConnW: 16, NumEntropies: 256, EVW: 16, ExploreInit: 210, Core: connpipe.Core{Depth: DefaultConfDepth}}
}

// EntW is the width of an entropy index.
func (p ConfParams) EntW() int {
	w := 1
	for uint64(1)<<uint(w) < uint64(p.NumEntropies) {
		w++
	}
	return w
}

// ExploreW is the width of the exploration counter.
func (p ConfParams) ExploreW() int {
	w := 1
	for !fits(p.ExploreInit, w) {
		w++
	}
	return w
}

// Validate reports the first parameter that cannot be built.
func (p ConfParams) Validate() error {
	switch {
	case p.NumEntropies < 2:
		return fmt.Errorf("NumEntropies = %d: at least 2", p.NumEntropies)
	case p.NumConn < 2:
		return fmt.Errorf("NumConn = %d: at least 2 connections", p.NumConn)
	case p.ConnW < 1 || p.ConnW > 32 || !fits(uint64(p.NumConn-1), p.ConnW):
		return fmt.Errorf("ConnW = %d: must be 1..32 and hold connection %d", p.ConnW, p.NumConn-1)
	case p.EVW < p.EntW() || p.EVW > 32:
		return fmt.Errorf("EVW = %d: must be %d..32 to hold %d entropies", p.EVW, p.EntW(), p.NumEntropies)
	case p.ExploreInit > uint64(p.NumEntropies):
		return fmt.Errorf("ExploreInit = %d: exploration stops once all %d entropies are tried", p.ExploreInit, p.NumEntropies)
	case p.Depth < 1 || p.Depth > connpipe.MaxDepth:
		return fmt.Errorf("Depth = %d: the datapath has 1 to %d stages", p.Depth, connpipe.MaxDepth)
	}
	return nil
}

// DepthFor is the datapath depth of reps by default: the stages its two
// cuts reach. It does not depend on the clock (docs/pipeline.md).
func DepthFor(clockMHz float64) int { return DefaultDepth }

// ConfDepthFor is DepthFor for reps_conf, which has no cut.
func ConfDepthFor(clockMHz float64) int { return DefaultConfDepth }
