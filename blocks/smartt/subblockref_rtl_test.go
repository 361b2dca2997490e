package smartt_test

import (
	"math/bits"

	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/blocks/stim"
	"github.com/nicgen/nicgen/golden/fixed"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// CombWrapper puts a combinational module in a clocked shell so the
// harness can drive it: every port of sub becomes a port of <sub>_wrap, and
// a reset register `alive` gives the shell its clock and reset. The outputs
// are sampled in the cycle their inputs are driven.
func CombWrapper(sub *hdlgen.Module) *hdlgen.Module {
	m := hdlgen.NewModule(sub.Name()+"_wrap", "Test shell of "+sub.Name()+" for the Verilator harness.")
	u := m.Instantiate("u_dut", sub)
	for _, p := range sub.Ports() {
		if p.IsInput() {
			u.In(p.Name(), m.Input(p.Name(), p.Width(), p.Doc()))
		}
	}
	for _, p := range sub.Ports() {
		if !p.IsInput() {
			m.Assign(m.Output(p.Name(), p.Width(), p.Doc()), u.Out(p.Name()))
		}
	}
	alive := m.Reg("alive", 1, "1 from the first cycle after reset", hdlgen.ResetTo(0))
	m.Assign(alive.Next, hdlgen.True())
	m.Assign(m.Output("alive", 1, "out of reset"), alive)
	return m
}

// funcRef is the reference of a combinational module: a golden function of
// the inputs, plus the wrapper's alive bit.
type funcRef struct {
	pm    blockeq.PortMap
	alive bool
	f     func(get func(string) uint64, set func(string, uint64))
	in    []uint64
	out   []uint64
}

func (r *funcRef) Reset() { r.alive = false }

func (r *funcRef) Cycle(in, out []uint64) {
	r.in, r.out = in, out
	r.f(r.get, r.set)
	out[r.pm.Out("alive")] = blockeq.B2U(r.alive)
	r.alive = true
}

func (r *funcRef) get(name string) uint64    { return r.in[r.pm.In(name)] }
func (r *funcRef) set(name string, v uint64) { r.out[r.pm.Out(name)] = v }

// randomInputs drives every input with a value drawn, per port, from its
// corners (0, 1, all ones, all ones - 1), from small values, or uniformly.
type randomInputs struct {
	widths []int
	r      *stim.Rand
}

func (s *randomInputs) Next(_ []uint64, in []uint64) {
	for i, w := range s.widths {
		max := uint64(1)<<uint(w) - 1
		switch s.r.Below(8) {
		case 0:
			in[i] = []uint64{0, 1, max, max - 1}[s.r.Below(4)] & max
		case 1, 2:
			in[i] = s.r.Next() & (uint64(1)<<uint((w+1)/2) - 1)
		default:
			in[i] = s.r.Next() & max
		}
	}
}

// SubBlock is a combinational SMaRTT module with its golden function.
type SubBlock struct {
	Name   string
	Module *hdlgen.Module
	Ref    func(d harness.Design) harness.Reference
}

// SmarttSubBlocks lists QuickAdapt, FastIncrease, Wait-to-Decrease (smartt
// only) and the reciprocal of a variant, each with its golden function.
func SmarttSubBlocks(p bsmartt.Params) []SubBlock {
	gp := p.Golden()
	gd := gp.Derive()
	d := &gd
	b2 := func(v uint64) bool { return v == 1 }
	subs := []SubBlock{
		{Name: "qa", Module: bsmartt.QuickAdapt(p), Ref: func(des harness.Design) harness.Reference {
			return &funcRef{pm: blockeq.NewPortMap(des), f: func(get func(string) uint64, set func(string, uint64)) {
				// the module keeps no ignored / to_ignore: it gives the bytes
				// to ignore when it fires (the word keeps to_ignore - ignored)
				in := gsmartt.QAIn{C: get("c"), Acked: uint32(get("acked")),
					Trigger: b2(get("trigger")), End: uint32(get("win_end")), NowQ: uint32(get("nowq")), EndNext: uint32(get("win_end_next")), Unacked: uint32(get("unacked"))}
				if p.Variant == bsmartt.NSCC {
					in.ExtraTrigger = b2(get("extra_trigger"))
				}
				o := gsmartt.QuickAdapt(d, in)
				set("fired", blockeq.B2U(o.Fired))
				set("c_out", o.C)
				set("acked_out", uint64(o.Acked))
				if o.Fired {
					set("ignore_out", uint64(o.ToIgnore-o.Ignored))
				} else {
					// read only when it fires: the units in flight
					set("ignore_out", uint64(min(d.Units(uint32(get("unacked"))), d.CountMax)))
				}
				set("trigger_out", blockeq.B2U(o.Trigger))
				set("win_end_out", uint64(o.End))
			}}
		}},
		{Name: "fastinc", Module: bsmartt.FastIncrease(p), Ref: func(des harness.Design) harness.Reference {
			return &funcRef{pm: blockeq.NewPortMap(des), f: func(get func(string) uint64, set func(string, uint64)) {
				o := gsmartt.FastIncrease(d, gsmartt.FastIn{C: get("c"), Count: uint32(get("count")), Increase: b2(get("increase")),
					Size: uint32(get("size")), RTT: uint32(get("rtt")), ECN: b2(get("ecn"))})
				set("fired", blockeq.B2U(o.Fired))
				set("c_out", o.C)
				set("count_out", uint64(o.Count))
				set("increase_out", blockeq.B2U(o.Increase))
			}}
		}},
	}
	if p.Variant == bsmartt.Conf {
		subs = append(subs, SubBlock{Name: "wtd", Module: bsmartt.WaitToDecrease(p), Ref: func(des harness.Design) harness.Reference {
			return &funcRef{pm: blockeq.NewPortMap(des), f: func(get func(string) uint64, set func(string, uint64)) {
				avg, can := gsmartt.WTD(d, uint16(get("avg")), b2(get("ecn")))
				set("avg_out", uint64(avg))
				set("can_decrease", blockeq.B2U(can))
			}}
		}})
	}
	table := fixed.RecipTable(p.K)
	for _, w := range []int{p.RttW, gd.CwndW + p.F} {
		subs = append(subs, SubBlock{Name: "recip", Module: bsmartt.Recip(w, p.K), Ref: func(des harness.Design) harness.Reference {
			return &funcRef{pm: blockeq.NewPortMap(des), f: func(get func(string) uint64, set func(string, uint64)) {
				x := max(get("x"), 1)
				e := bits.Len64(x) - 1
				var m uint64
				if e >= p.K {
					m = x >> uint(e-p.K)
				} else {
					m = x << uint(p.K-e)
				}
				set("e", uint64(e))
				set("t", uint64(table[m-(1<<uint(p.K))]))
			}}
		}})
	}
	return subs
}

// SubBlockStimulus drives the inputs of a wrapped sub-block at random.
func SubBlockStimulus(d harness.Design, seed uint64) func() harness.Stimulus {
	var widths []int
	for _, p := range d.Ports {
		if p.Dir == harness.In {
			widths = append(widths, p.Width)
		}
	}
	return func() harness.Stimulus { return &randomInputs{widths: widths, r: stim.New(seed)} }
}
