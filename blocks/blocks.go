// Package blocks lists nicgen's generated blocks and the configuration they
// are built from. Each block is a Go function returning an hdlgen module;
// this package knows nothing of simulators.
package blocks

import (
	"fmt"
	"sort"

	"github.com/nicgen/nicgen/blocks/reps"
	"github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/hdlgen"
)

// Config holds the generation-time parameters of every block.
type Config struct {
	Name     string  // shown in file headers
	ClockMHz float64 // clock of every block, for the timing constraints
	Reps     reps.Params
	RepsConf reps.ConfParams
	Smartt   smartt.Params
	NSCC     smartt.Params
}

// DefaultConfig is the embedded default: the papers' setting (800 Gb/s,
// 4 KiB MTU, 8.6 us base RTT, so a BDP of 210 packets) and 4096
// connections per block.
func DefaultConfig() Config {
	c := Config{Name: "default (800 Gb/s, 4 KiB MTU, 8.6 us base RTT, 4096 connections, 250 MHz)", ClockMHz: 250, Reps: reps.DefaultParams(), RepsConf: reps.DefaultConfParams(),
		Smartt: smartt.DefaultParams(smartt.Conf), NSCC: smartt.DefaultParams(smartt.NSCC)}
	// the depth the blocks' cuts reach, as the configuration derives it
	if d, err := smartt.DepthFor(c.Smartt); err == nil {
		c.Smartt.Depth = d
	}
	if d, err := smartt.DepthFor(c.NSCC); err == nil {
		c.NSCC.Depth = d
	}
	return c
}

// PaperFigure is a state size a seed gives, to print beside ours.
type PaperFigure struct {
	PerConnBits  int    // 0 when the paper gives bytes only
	PerConnBytes int    // 0 when the paper gives bits
	GlobalBytes  int    // 0 when the paper gives none
	Source       string // seed and line
}

// Block is one generated top module.
type Block struct {
	Name  string
	Title string
	Build func(Config) (*hdlgen.Module, error)
	// Paper returns the seed's figure for this configuration, if it has one.
	Paper func(Config) (PaperFigure, bool)
}

// All returns every block, sorted by name.
func All() []Block {
	bs := []Block{
		{
			Name:  "reps",
			Title: "REPS, S4: circular buffer with validity bits and freezing mode",
			Build: func(c Config) (*hdlgen.Module, error) { return reps.Paper(c.Reps) },
			Paper: func(c Config) (PaperFigure, bool) {
				// S4 Table 1: 17 bits per entry plus 57 bits, with its widths
				p := c.Reps
				if p.EVW != 16 || p.HeadW != 8 || p.CountW != 8 || p.TimeW != 32 || p.ExploreW != 8 {
					return PaperFigure{}, false
				}
				return PaperFigure{PerConnBits: 17*p.N + 57, Source: "S4 Table 1 (S4:L74)"}, p.N == 1 || p.N == 8
			},
		},
		{
			Name:  "smartt",
			Title: "SMaRTT, S0: conference congestion control with QuickAdapt, FastIncrease, Wait-to-Decrease",
			Build: func(c Config) (*hdlgen.Module, error) { return smartt.Block(c.Smartt) },
			Paper: func(Config) (PaperFigure, bool) {
				return PaperFigure{PerConnBytes: 19, GlobalBytes: 28, Source: "S0:L167"}, true
			},
		},
		{
			Name:  "nscc",
			Title: "SMaRTT, S1: journal / UEC NSCC congestion control",
			Build: func(c Config) (*hdlgen.Module, error) { return smartt.Block(c.NSCC) },
			Paper: func(Config) (PaperFigure, bool) {
				return PaperFigure{PerConnBytes: 19, GlobalBytes: 28, Source: "S1:L861-862"}, true
			},
		},
		{
			Name:  "reps_conf",
			Title: "REPS, S0 Algorithm 4: sequential exploration, one cached entropy",
			Build: func(c Config) (*hdlgen.Module, error) { return reps.Conf(c.RepsConf) },
			Paper: func(Config) (PaperFigure, bool) { return PaperFigure{}, false },
		},
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].Name < bs[j].Name })
	return bs
}

// Names lists the block names.
func Names() []string {
	var n []string
	for _, b := range All() {
		n = append(n, b.Name)
	}
	return n
}

// Lookup finds a block by name.
func Lookup(name string) (Block, error) {
	for _, b := range All() {
		if b.Name == name {
			return b, nil
		}
	}
	return Block{}, fmt.Errorf("unknown block %q (blocks: %v)", name, Names())
}

// Elaborate builds and checks a block.
func (b Block) Elaborate(c Config) (*hdlgen.Design, error) {
	m, err := b.Build(c)
	if err != nil {
		return nil, err
	}
	return hdlgen.Elaborate(m)
}
