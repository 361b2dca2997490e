package netsim

import (
	"fmt"

	"github.com/nicgen/nicgen/golden/smartt"
)

// ConfigFor is DefaultConfig on the network the SMaRTT parameters are
// tuned for (link rate, MTU, base RTT), so that the controller's BDP and
// target RTT are those of the simulated network.
func ConfigFor(p smartt.Params) Config {
	c := DefaultConfig()
	c.LinkGbps = p.Network.LinkGbps
	c.MTU = int(p.Network.MTU)
	c.BaseRTTNs = int64(p.Network.BrttNs)
	return c
}

// GoldenControllers returns one SMaRTT golden model per sender, as each
// sender has a NIC of its own: the fixed-point model, or with float the
// float64 reference.
func GoldenControllers(p smartt.Params, senders int, float bool) ([]Controller, error) {
	if senders > p.NumConn {
		return nil, fmt.Errorf("%d senders: the model has %d connections", senders, p.NumConn)
	}
	cs := make([]Controller, senders)
	for i := range cs {
		if float {
			m, err := smartt.NewFloatModel(p)
			if err != nil {
				return nil, fmt.Errorf("%s float model: %w", p.Variant, err)
			}
			cs[i] = floatController{m: m, numConn: uint32(p.NumConn)}
			continue
		}
		m, err := smartt.NewModel(p)
		if err != nil {
			return nil, fmt.Errorf("%s model: %w", p.Variant, err)
		}
		cs[i] = m
	}
	return cs, nil
}

// floatController puts the float64 reference behind Controller. The
// reference returns the window as a float64 and keeps the case aside; the
// sender works in whole bytes, so the window is floored as the fixed-point
// result port floors c >> F. Fast is reported only on the acks where
// FastIncrease fired (the reference does not expose its increase flag).
type floatController struct {
	m       *smartt.FloatModel
	numConn uint32
}

func (f floatController) Step(e smartt.Event) smartt.Result {
	cwnd := f.m.Step(e)
	kase := f.m.LastCase()
	return smartt.Result{
		Conn:  e.Conn,
		Kind:  e.Kind,
		Cwnd:  uint32(min(cwnd, float64(^uint32(0)))),
		Case:  kase,
		QA:    kase == smartt.CaseQA,
		Fast:  kase == smartt.CaseFast,
		Error: e.Conn >= f.numConn || e.Kind > smartt.KindTimeout,
	}
}
