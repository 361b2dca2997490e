package netsim

import (
	"github.com/nicgen/nicgen/golden/smartt"
	"github.com/nicgen/nicgen/golden/uet"
)

// RecordIncast returns the event stream, in time order, of a closed-loop
// run of senders golden senders of p (fixed point), each sending one
// message of msg bytes to one receiver: an N:1 incast as the block sees
// it, a stimulus to replay.
func RecordIncast(p smartt.Params, senders int, msg int64) ([]smartt.Event, error) {
	cfg := ConfigFor(p)
	cfg.Senders, cfg.MessageBytes = senders, msg
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ctrls, err := GoldenControllers(p, senders, false)
	if err != nil {
		return nil, err
	}
	var evs []smartt.Event
	for i := range ctrls {
		ctrls[i] = eventRecorder{inner: ctrls[i], evs: &evs}
	}
	if _, err := Run(cfg, ctrls); err != nil {
		return nil, err
	}
	return evs, nil
}

// RecordUETIncast returns the event stream, in time order, of a
// closed-loop run of senders uet_cc golden engines of p, shared (its
// window path is ignored), each sending one message of msg bytes to one
// receiver; sender i's events are its connection i's.
func RecordUETIncast(p uet.Params, senders int, msg int64) ([]uet.Event, error) {
	p.Window = uet.WindowPath{}
	cfg := ConfigFor(p.CC)
	cfg.Senders, cfg.MessageBytes = senders, msg
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ctrls, engines, err := GoldenEngines(p, senders)
	if err != nil {
		return nil, err
	}
	var evs []uet.Event
	for i, e := range engines {
		e.M = uetEventRecorder{m: e.M, evs: &evs}
		ctrls[i] = e
	}
	if _, err := Run(cfg, ctrls); err != nil {
		return nil, err
	}
	if _, err := EntropyTotals(engines); err != nil {
		return nil, err
	}
	return evs, nil
}

// eventRecorder keeps every event a window controller sees.
type eventRecorder struct {
	inner Controller
	evs   *[]smartt.Event
}

func (r eventRecorder) Step(e smartt.Event) smartt.Result {
	*r.evs = append(*r.evs, e)
	return r.inner.Step(e)
}

// uetEventRecorder keeps every event a uet_cc model steps.
type uetEventRecorder struct {
	m   UETStepper
	evs *[]uet.Event
}

func (r uetEventRecorder) Step(e uet.Event) uet.Result {
	*r.evs = append(*r.evs, e)
	return r.m.Step(e)
}

// IncastConns is the connection of each event, in time order, of the N:1
// incast of msg-byte messages that RecordIncast records with the default
// nscc senders (smartt.DefaultParams(smartt.NSCC)): the load a block's
// incast throughput is measured under, whatever the block.
func IncastConns(senders int, msg int64) ([]uint32, error) {
	events, err := RecordIncast(smartt.DefaultParams(smartt.NSCC), senders, msg)
	if err != nil {
		return nil, err
	}
	conns := make([]uint32, len(events))
	for i, e := range events {
		conns[i] = e.Conn
	}
	return conns, nil
}
