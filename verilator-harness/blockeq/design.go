// Package blockeq connects nicgen's blocks to the Verilator harness: it
// turns a generated block into a harness.Design, wraps the block's golden
// model as a harness.Reference and provides the block's stimulus
// generators. It is the only place where blocks, golden models and the
// harness meet.
package blockeq

import (
	"fmt"

	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// DesignOf describes a checked hdlgen design for the harness. The port list,
// widths and stream qualifiers all come from the block's declaration.
func DesignOf(d *hdlgen.Design) harness.Design {
	files := hdlgen.Emit(d, hdlgen.EmitOptions{Command: "nicgen equiv"})
	hd := harness.Design{Top: d.Top.Name(), Sources: files}
	for _, p := range d.Top.Ports() {
		dir := harness.Out
		if p.IsInput() {
			dir = harness.In
		}
		hd.Ports = append(hd.Ports, harness.Port{Name: p.Name(), Width: p.Width(), Dir: dir, QualifiedBy: p.QualifiedBy()})
	}
	return hd
}

// PortMap gives the position of each port in the harness's input and output
// vectors (Design.Ports order, split by direction): what a block's own
// bench uses to read and drive its ports by name.
type PortMap struct {
	in, out map[string]int
	width   map[string]int
}

// NewPortMap maps the ports of d.
func NewPortMap(d harness.Design) PortMap {
	pm := PortMap{in: map[string]int{}, out: map[string]int{}, width: map[string]int{}}
	for _, p := range d.Ports {
		pm.width[p.Name] = p.Width
		if p.Dir == harness.In {
			pm.in[p.Name] = len(pm.in)
		} else {
			pm.out[p.Name] = len(pm.out)
		}
	}
	return pm
}

// In and Out return the position of a port, or -1 if the design does
// not have it (an optional field such as s_event_now).
func (pm PortMap) In(name string) int {
	if i, ok := pm.in[name]; ok {
		return i
	}
	return -1
}

// Out is In for an output port.
func (pm PortMap) Out(name string) int {
	if i, ok := pm.out[name]; ok {
		return i
	}
	return -1
}

// Must reports the first of names that is neither an input nor an output.
func (pm PortMap) Must(names ...string) error {
	for _, n := range names {
		if pm.In(n) < 0 && pm.Out(n) < 0 {
			return fmt.Errorf("blockeq: design has no port %s", n)
		}
	}
	return nil
}

// B2U is 1 for true, 0 for false: a port bit.
func B2U(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
