// Package harness runs a Verilog design under Verilator in lock step with a
// Go reference model and compares their outputs cycle by cycle.
//
// The package knows nothing about any particular block: a Design is a set of
// Verilog sources, the name of the top module and its port list. Build
// verilates the design into a shared object (cached on disk), loads it with
// dlopen and returns a Model; Run drives the Model and a Reference with the
// same stimulus and reports the first mismatch.
//
// # Cycle contract
//
// A cycle i consists of: drive the inputs of cycle i (clock low), settle the
// combinational logic, sample every output, then a rising clock edge. Outputs
// are therefore sampled before the edge: a combinational output that depends
// on an input of the same cycle (a ready computed from a valid, say) is seen
// as it is in that cycle. Reset is synchronous and active high.
package harness

import (
	"fmt"
	"regexp"
)

// Dir is the direction of a port.
type Dir int

const (
	In  Dir = iota // input of the design
	Out            // output of the design
)

func (d Dir) String() string {
	switch d {
	case In:
		return "input"
	case Out:
		return "output"
	}
	return fmt.Sprintf("Dir(%d)", int(d))
}

// MaxWidth is the widest port the harness carries (one uint64 per port).
const MaxWidth = 64

// Port is one port of the top module, other than the clock and the reset.
type Port struct {
	Name  string
	Width int // 1..64 bits
	Dir   Dir
	// QualifiedBy names a 1-bit output port. When set (outputs only), this
	// output is compared only in cycles where the expected value of that
	// port is 1; e.g. the data of a stream is compared only while its valid
	// is high.
	QualifiedBy string
	// Names, when set, names the port's values (an event kind): mismatch
	// reports print a value by its name.
	Names []string
}

// Design is a generic description of a Verilog design to simulate.
type Design struct {
	Top     string            // name of the top module
	Sources map[string][]byte // file name -> Verilog text; all modules and include files
	Ports   []Port            // every port of Top except Clock and Reset
	Clock   string            // default "clk"
	Reset   string            // default "rst"; synchronous, active high
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
var fileRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`)

// normalize fills in the defaults and checks the description.
func (d Design) normalize() (Design, error) {
	if d.Clock == "" {
		d.Clock = "clk"
	}
	if d.Reset == "" {
		d.Reset = "rst"
	}
	if !identRE.MatchString(d.Top) {
		return d, fmt.Errorf("harness: design top module name %q is not a simple identifier", d.Top)
	}
	if len(d.Sources) == 0 {
		return d, fmt.Errorf("harness: design %s has no sources", d.Top)
	}
	nv := 0
	for name := range d.Sources {
		if !fileRE.MatchString(name) || name == "." || name == ".." {
			return d, fmt.Errorf("harness: source file name %q must be a plain file name (letters, digits, _ . + -)", name)
		}
		if isVerilogFile(name) {
			nv++
		}
	}
	if nv == 0 {
		return d, fmt.Errorf("harness: design %s has no .v or .sv source", d.Top)
	}
	for _, n := range []string{d.Clock, d.Reset} {
		if !identRE.MatchString(n) {
			return d, fmt.Errorf("harness: clock/reset name %q is not a simple identifier", n)
		}
	}
	if d.Clock == d.Reset {
		return d, fmt.Errorf("harness: clock and reset are both %q", d.Clock)
	}
	seen := map[string]int{d.Clock: -1, d.Reset: -1}
	ports := make([]Port, len(d.Ports))
	copy(ports, d.Ports)
	d.Ports = ports
	for i, p := range d.Ports {
		if !identRE.MatchString(p.Name) {
			return d, fmt.Errorf("harness: port name %q is not a simple identifier", p.Name)
		}
		if j, dup := seen[p.Name]; dup {
			if j < 0 {
				return d, fmt.Errorf("harness: port %q is the clock or the reset; leave it out of Design.Ports", p.Name)
			}
			return d, fmt.Errorf("harness: port %q listed twice", p.Name)
		}
		seen[p.Name] = i
		if p.Dir != In && p.Dir != Out {
			return d, fmt.Errorf("harness: port %q has invalid direction %d", p.Name, int(p.Dir))
		}
		if p.Width < 1 || p.Width > MaxWidth {
			return d, fmt.Errorf("harness: port %q is %d bits wide; the harness supports 1..%d-bit ports (split wider ports into 64-bit slices in a wrapper module)", p.Name, p.Width, MaxWidth)
		}
	}
	for _, p := range d.Ports {
		if p.QualifiedBy == "" {
			continue
		}
		if p.Dir != Out {
			return d, fmt.Errorf("harness: input port %q has QualifiedBy; only outputs are qualified", p.Name)
		}
		j, ok := seen[p.QualifiedBy]
		if !ok || j < 0 {
			return d, fmt.Errorf("harness: port %q is qualified by %q, which is not a port", p.Name, p.QualifiedBy)
		}
		q := d.Ports[j]
		if q.Dir != Out || q.Width != 1 {
			return d, fmt.Errorf("harness: port %q is qualified by %q, which must be a 1-bit output", p.Name, q.Name)
		}
		if q.Name == p.Name {
			return d, fmt.Errorf("harness: port %q is qualified by itself", p.Name)
		}
	}
	return d, nil
}

func isVerilogFile(name string) bool {
	for _, ext := range []string{".v", ".sv"} {
		if len(name) > len(ext) && name[len(name)-len(ext):] == ext {
			return true
		}
	}
	return false
}

// split returns the inputs and the outputs, each in Design.Ports order.
func (d Design) split() (in, out []Port) {
	for _, p := range d.Ports {
		if p.Dir == In {
			in = append(in, p)
		} else {
			out = append(out, p)
		}
	}
	return in, out
}

func widthMask(w int) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(w) - 1
}
