package threecpo_test

import (
	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/threecpo"
	gthreecpo "github.com/nicgen/nicgen/golden/threecpo"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// RTLIRL is the Verilated irl_tokens behind golden/threecpo's StepTo (the
// irl_tokens unit of golden/netsim/collective).
type RTLIRL struct {
	S       *blockeq.RTLStepper
	tokW    int
	in, out []uint64
}

// NewRTLIRL maps irl_tokens's ports for a block of parameters p.
func NewRTLIRL(b blockeq.Built, p threecpo.IRLTokensParams) (*RTLIRL, error) {
	s, err := blockeq.NewRTLStepper(b.Model, b.Design, threecpo.IRLEventFields, threecpo.IRLResultFields)
	if err != nil {
		return nil, err
	}
	return &RTLIRL{S: s, tokW: p.TokW(), in: make([]uint64, len(threecpo.IRLEventFields)), out: make([]uint64, len(threecpo.IRLResultFields))}, nil
}

// StepTo runs one event through the hardware; the counters come back in
// two's complement.
func (u *RTLIRL) StepTo(e *gthreecpo.IRLEvent, r *gthreecpo.IRLEventResult) {
	in := u.in // threecpo.IRLEventFields's order
	in[0], in[1], in[2], in[3] = uint64(e.Conn), uint64(e.Kind), uint64(e.Seed), block.Bit(e.Send)
	in[4], in[5], in[6], in[7] = uint64(e.ReqCost), uint64(e.RspCost), uint64(e.ReqWM), uint64(e.RspWM)
	u.S.Step(u.in, u.out)
	f := u.out
	sh := uint(64 - u.tokW)
	tok := func(v uint64) int32 { return int32(int64(v<<sh) >> sh) }
	*r = gthreecpo.IRLEventResult{Conn: uint32(f[0]), Kind: gthreecpo.IRLKind(f[1]), Sent: f[2] == 1, Refused: f[3] == 1, NewReq: f[4] == 1,
		NewRsp: f[5] == 1, Req: tok(f[6]), Rsp: tok(f[7]), MaySend: f[8] == 1, Error: f[9] == 1}
}

// RTLWM is the Verilated wm_ctrl behind golden/threecpo's StepTo.
type RTLWM struct {
	S       *blockeq.RTLStepper
	in, out []uint64
}

// NewRTLWM maps wm_ctrl's ports.
func NewRTLWM(b blockeq.Built) (*RTLWM, error) {
	s, err := blockeq.NewRTLStepper(b.Model, b.Design, threecpo.WMEventFields, threecpo.WMResultFields)
	if err != nil {
		return nil, err
	}
	return &RTLWM{S: s, in: make([]uint64, len(threecpo.WMEventFields)), out: make([]uint64, len(threecpo.WMResultFields))}, nil
}

// StepTo runs one event through the hardware.
func (u *RTLWM) StepTo(e *gthreecpo.WMEvent, r *gthreecpo.WMResult) {
	in := u.in // threecpo.WMEventFields's order
	in[0], in[1], in[2], in[3], in[4] = uint64(e.Conn), uint64(e.Kind), uint64(e.Lat), block.Bit(e.RTTEnd), uint64(e.Tokens)
	u.S.Step(u.in, u.out)
	f := u.out
	*r = gthreecpo.WMResult{Conn: uint32(f[0]), Kind: gthreecpo.WMKind(f[1]), WM: uint32(f[2]), Eq: uint32(f[3]), Decreased: f[4] == 1, Error: f[5] == 1}
}
