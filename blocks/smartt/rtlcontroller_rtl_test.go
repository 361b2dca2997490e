package smartt_test

import (
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// RTLController puts a Verilated SMaRTT block in a closed loop: each event
// is offered on s_event_*, and the model is clocked until its result comes
// out of m_result_*. It implements golden/netsim's Controller, so the
// incast simulator can run the generated hardware instead of the golden
// model. All senders may share one controller: connection ids keep them
// apart in the block's state table, as in a NIC.
type RTLController struct {
	*blockeq.RTLStepper
}

// NewRTLController resets the model and returns the controller.
func NewRTLController(m *harness.Model, d harness.Design) (*RTLController, error) {
	s, err := blockeq.NewRTLStepper(m, d, []string{"conn", "kind", "size", "ecn", "rtt", "unacked", "now"},
		[]string{"conn", "kind", "cwnd", "case", "qa", "fast", "error"})
	return &RTLController{s}, err
}

// Step executes one event in the hardware and returns its result.
func (c *RTLController) Step(e gsmartt.Event) gsmartt.Result {
	var o [7]uint64
	c.RTLStepper.Step([]uint64{uint64(e.Conn), uint64(e.Kind), uint64(e.Size), blockeq.B2U(e.ECN), uint64(e.RTT), uint64(e.Unacked), e.Now}, o[:])
	return gsmartt.Result{Conn: uint32(o[0]), Kind: gsmartt.Kind(o[1]), Cwnd: uint32(o[2]), Case: uint8(o[3]),
		QA: o[4] == 1, Fast: o[5] == 1, Error: o[6] == 1}
}
