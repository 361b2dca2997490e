package onerc_test

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/onerc"
	gonerc "github.com/nicgen/nicgen/golden/onerc"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// RTLHost is the Verilated onerc_host behind golden/onerc's StepTo (the
// host of golden/netsim/newflow).
type RTLHost struct {
	S       *blockeq.RTLStepper
	in, out []uint64
}

// NewRTLHost maps onerc_host's ports.
func NewRTLHost(b blockeq.Built) (*RTLHost, error) {
	s, err := blockeq.NewRTLStepper(b.Model, b.Design, onerc.HostEventFields, onerc.HostResultFields)
	if err != nil {
		return nil, err
	}
	return &RTLHost{S: s, in: make([]uint64, len(onerc.HostEventFields)), out: make([]uint64, len(onerc.HostResultFields))}, nil
}

// StepTo runs one event through the hardware.
func (h *RTLHost) StepTo(e *gonerc.HostEvent, r *gonerc.HostResult) {
	copy(h.in, []uint64{uint64(e.Conn), uint64(e.Kind), e.Epoch, e.B, e.LetThrough, e.Weight, block.Bit(e.Bottleneck)})
	h.S.Step(h.in, h.out)
	f := h.out
	*r = gonerc.HostResult{Conn: uint32(f[0]), Kind: gonerc.HostKind(f[1]), Status: gonerc.HostStatus(f[2]), Seq: f[3], Epoch: f[4],
		OldWeight: f[5], NewWeight: f[6], Ended: f[7] == 1, Resume: f[8], Rate: f[9], Conns: f[10], Error: f[11] == 1}
}

// RTLSwitch is the Verilated onerc_switch behind golden/netsim/newflow's
// Port (and golden/onerc's StepTo).
type RTLSwitch struct{ S *blockeq.RTLStepper }

// NewRTLSwitch maps onerc_switch's ports.
func NewRTLSwitch(b blockeq.Built) (RTLSwitch, error) {
	s, err := blockeq.NewRTLStepper(b.Model, b.Design, []string{"conn", "kind", "tag", "window", "weight", "let_through", "seq", "spec"},
		[]string{"conn", "kind", "hit", "filled", "thresh", "let_through", "drop", "spec", "error"})
	return RTLSwitch{s}, err
}

// StepTo runs one event through the hardware.
func (c RTLSwitch) StepTo(e *gonerc.SwitchEvent, r *gonerc.SwitchResult) {
	var f [9]uint64
	in := [8]uint64{uint64(e.Conn), uint64(e.Kind), e.Tag, e.Window, e.Weight, e.LetThrough, e.Seq, blockeq.B2U(e.Spec)}
	c.S.Step(in[:], f[:])
	*r = gonerc.SwitchResult{Conn: uint32(f[0]), Kind: gonerc.SwitchKind(f[1]), Hit: f[2] == 1, Filled: f[3] == 1, Thresh: f[4],
		LetThrough: f[5], Drop: f[6] == 1, Spec: f[7] == 1, Error: f[8] == 1}
}

// RTLSPERC is the Verilated sperc_link behind golden/onerc's StepTo.
type RTLSPERC struct {
	S       *blockeq.RTLStepper
	hops    int
	in, out []uint64
}

// NewRTLSPERC maps sperc_link's ports for a block of hops hops.
func NewRTLSPERC(b blockeq.Built, hops int) (*RTLSPERC, error) {
	if hops < 1 || hops > gonerc.MaxHops {
		return nil, fmt.Errorf("onerc: sperc_link with %d hops", hops)
	}
	in := []string{"conn", "kind", "round", "state", "xl", "old_weight", "new_weight", "leaving", "hop"}
	for j := 0; j < hops; j++ {
		in = append(in, fmt.Sprintf("b%d", j))
	}
	in = append(in, "ignore")
	out := []string{"conn", "kind", "b", "x", "ignore", "state", "error"}
	s, err := blockeq.NewRTLStepper(b.Model, b.Design, in, out)
	if err != nil {
		return nil, err
	}
	return &RTLSPERC{S: s, hops: hops, in: make([]uint64, len(in)), out: make([]uint64, len(out))}, nil
}

// StepTo runs one control packet (or open) through the hardware. The
// hardware does not report e (ignored: 0).
func (l *RTLSPERC) StepTo(e *gonerc.SPERCEvent, r *gonerc.SPERCResult) {
	v := l.in[:0]
	v = append(v, uint64(e.Conn), uint64(e.Kind), e.Round, uint64(e.State), e.XL, e.OldW, e.NewW, block.Bit(e.Leaving), uint64(e.Hop))
	v = append(v, e.B[:l.hops]...)
	v = append(v, uint64(e.Ignore))
	l.S.Step(v, l.out)
	f := l.out
	*r = gonerc.SPERCResult{Conn: uint32(f[0]), Kind: gonerc.SPERCKind(f[1]), B: f[2], X: f[3], Ignore: f[4] == 1,
		State: gonerc.FlowState(f[5]), Error: f[6] == 1}
}
