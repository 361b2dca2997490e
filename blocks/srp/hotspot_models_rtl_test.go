package srp_test

import (
	"github.com/nicgen/nicgen/golden/netsim/hotspot"
	gsrp "github.com/nicgen/nicgen/golden/srp"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// The four SRP blocks behind golden/netsim/hotspot's steppers.
type (
	rtlTx  struct{ s *blockeq.RTLStepper }
	rtlRx  struct{ s *blockeq.RTLStepper }
	rtlTTW struct{ s *blockeq.RTLStepper }
	rtlIPD struct{ s *blockeq.RTLStepper }
)

func (c rtlTx) StepTo(e *gsrp.TxEvent, r *gsrp.TxResult) {
	var o [11]uint64
	c.s.Step([]uint64{uint64(e.Conn), uint64(e.Kind), e.M, e.Seq, e.Ts, e.Now}, o[:])
	*r = gsrp.TxResult{Conn: uint32(o[0]), Kind: gsrp.TxKind(o[1]), Pkt: o[2] == 1, Seq: o[3], Spec: o[4] == 1, Res: o[5] == 1,
		ResN: o[6], Stale: o[7] == 1, Busy: o[8] == 1, MsgDone: o[9] == 1, Error: o[10] == 1}
}

func (c rtlRx) StepTo(e *gsrp.RxEvent, r *gsrp.RxResult) {
	var o [6]uint64
	c.s.Step([]uint64{uint64(e.Conn), uint64(e.Kind), e.N, e.Now}, o[:])
	*r = gsrp.RxResult{Conn: uint32(o[0]), Kind: gsrp.RxKind(o[1]), Ts: o[2], Delay: o[3], Ack: o[4] == 1, Error: o[5] == 1}
}

func (c rtlTTW) StepTo(e *gsrp.TTWEvent, r *gsrp.TTWResult) {
	var o [7]uint64
	c.s.Step([]uint64{uint64(e.Conn), uint64(e.Kind), e.Now, e.Hdr, blockeq.B2U(e.Spec)}, o[:])
	*r = gsrp.TTWResult{Conn: uint32(o[0]), Kind: gsrp.TTWKind(o[1]), Drop: o[2] == 1, Spec: o[3] == 1, Hdr: o[4], Empty: o[5] == 1, Error: o[6] == 1}
}

func (c rtlIPD) StepTo(e *gsrp.IPDEvent, r *gsrp.IPDResult) {
	var o [4]uint64
	c.s.Step([]uint64{uint64(e.Conn), uint64(e.Kind), e.Now}, o[:])
	*r = gsrp.IPDResult{Conn: uint32(o[0]), Kind: gsrp.IPDKind(o[1]), IPD: o[2], Error: o[3] == 1}
}

// hotspotModels puts the Verilated srp_tx, srp_rx, srp_ttw and ecn_ipd in
// the hot-spot simulator's loop, in place of the golden models. It returns
// the steppers too, for their cycle counts.
func hotspotModels(tx, rx, ttw, ipd blockeq.Built) (hotspot.Models, []*blockeq.RTLStepper, error) {
	type spec struct {
		b       blockeq.Built
		in, out []string
	}
	specs := []spec{
		{tx, []string{"conn", "kind", "m", "seq", "ts", "now"}, []string{"conn", "kind", "pkt", "seq", "spec", "res", "res_n", "stale", "busy", "msg_done", "error"}},
		{rx, []string{"conn", "kind", "n", "now"}, []string{"conn", "kind", "ts", "delay", "ack", "error"}},
		{ttw, []string{"conn", "kind", "now", "hdr", "spec"}, []string{"conn", "kind", "drop", "spec", "hdr", "empty", "error"}},
		{ipd, []string{"conn", "kind", "now"}, []string{"conn", "kind", "ipd", "error"}},
	}
	var ss []*blockeq.RTLStepper
	for _, sp := range specs {
		s, err := blockeq.NewRTLStepper(sp.b.Model, sp.b.Design, sp.in, sp.out)
		if err != nil {
			return hotspot.Models{}, nil, err
		}
		ss = append(ss, s)
	}
	return hotspot.Models{Tx: rtlTx{ss[0]}, Rx: rtlRx{ss[1]}, TTW: rtlTTW{ss[2]}, IPD: rtlIPD{ss[3]}}, ss, nil
}
