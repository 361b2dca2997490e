// Package blocks lists nicgen's generated blocks. Each block's own package
// describes it (package block's Desc: configuration section, module,
// golden model); this list is the one place a block is registered. The
// configuration loader, the commands and the equivalence tools iterate
// over it. It knows nothing of simulators.
package blocks

import (
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/onerc"
	"github.com/nicgen/nicgen/blocks/reps"
	"github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/blocks/snyder"
	"github.com/nicgen/nicgen/blocks/srp"
	"github.com/nicgen/nicgen/blocks/threecpo"
	"github.com/nicgen/nicgen/blocks/uet"
)

// registered is every block, one line each.
func registered() []block.Block {
	return []block.Block{
		reps.Descriptor(),
		reps.ConfDescriptor(),
		smartt.Descriptor(smartt.Conf),
		smartt.Descriptor(smartt.NSCC),
		onerc.SwitchDescriptor(),
		onerc.SPERCDescriptor(),
		onerc.HostDescriptor(),
		srp.IPDDescriptor(),
		srp.RxDescriptor(),
		srp.TTWDescriptor(),
		srp.TxDescriptor(),
		snyder.SwiftDescriptor(),
		snyder.HPCCDescriptor(),
		threecpo.IRLTokensDescriptor(),
		threecpo.WMCtrlDescriptor(),
		threecpo.LRUArbDescriptor(),
		threecpo.MCastMatchDescriptor(),
		uet.Descriptor(),
	}
}

// extra holds blocks registered at run time (a test's toy block).
var extra []block.Block

// Register adds a block to the list for the rest of the process (tests).
func Register(b block.Block) error {
	if err := b.Check(); err != nil {
		return err
	}
	for _, o := range All() {
		if o.Name == b.Name {
			return fmt.Errorf("block %q is registered twice", b.Name)
		}
	}
	extra = append(extra, b)
	return nil
}

// Config is a resolved configuration (package block).
type Config = block.Config

// Block is one generated top module (package block).
type Block = block.Block

// PaperFigure is a state size a seed gives (package block).
type PaperFigure = block.PaperFigure

// DefaultConfig is the embedded default: the papers' setting (800 Gb/s,
// 4 KiB MTU, 8.6 us base RTT, so a BDP of 210 packets) and 4096
// connections per block, with every block at its default.
func DefaultConfig() Config {
	c := Config{Name: "default (800 Gb/s, 4 KiB MTU, 8.6 us base RTT, 4096 connections, 250 MHz)", ClockMHz: 250}
	for _, b := range All() {
		c = c.Set(b.Name, b.Default())
	}
	return c
}

// descriptors are the registered blocks' descriptors, made once: a
// descriptor is a value of attribute tables and functions, the same on
// every call, and the configuration loader asks for them once per section.
var descriptors = sync.OnceValue(registered)

// All returns every block, sorted by name.
func All() []Block {
	bs := append(slices.Clone(descriptors()), extra...)
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
