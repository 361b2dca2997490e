package blockeq

import (
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// RTLController puts a Verilated SMaRTT block in a closed loop: each event
// is offered on s_event_*, and the model is clocked until its result comes
// out of m_result_*. It implements golden/netsim's Controller, so the
// incast simulator can run the generated hardware instead of the golden
// model. All senders may share one controller: connection ids keep them
// apart in the block's state table, as in a NIC.
type RTLController struct {
	m       *harness.Model
	p       smarttPorts
	in, out []uint64
	Cycles  int64
}

// NewRTLController resets the model and returns the controller.
func NewRTLController(m *harness.Model, d harness.Design) *RTLController {
	c := &RTLController{m: m, p: newSmarttPorts(newPortMap(d)), in: make([]uint64, len(m.Inputs())), out: make([]uint64, len(m.Outputs()))}
	m.Reset(2)
	return c
}

// Step executes one event in the hardware and returns its result.
func (c *RTLController) Step(e gsmartt.Event) gsmartt.Result {
	p := c.p
	for i := range c.in {
		c.in[i] = 0
	}
	c.in[p.sValid], c.in[p.mReady] = 1, 1
	c.in[p.sConn], c.in[p.sKind], c.in[p.sSize] = uint64(e.Conn), uint64(e.Kind), uint64(e.Size)
	c.in[p.sECN], c.in[p.sRTT], c.in[p.sUnacked], c.in[p.sNow] = b2u(e.ECN), uint64(e.RTT), uint64(e.Unacked), e.Now
	for {
		c.m.Step(c.in, c.out, 1)
		c.Cycles++
		if c.out[p.sReady] == 1 {
			c.in[p.sValid] = 0 // accepted
		}
		if c.out[p.mValid] == 1 {
			return gsmartt.Result{
				Conn: uint32(c.out[p.mConn]), Kind: gsmartt.Kind(c.out[p.mKind]), Cwnd: uint32(c.out[p.mCwnd]),
				Case: uint8(c.out[p.mCase]), QA: c.out[p.mQA] == 1, Fast: c.out[p.mFast] == 1, Error: c.out[p.mErr] == 1,
			}
		}
	}
}
