package reps_test

import (
	"github.com/nicgen/nicgen/blocks/stim"
	goldenreps "github.com/nicgen/nicgen/golden/reps"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// streamPorts are the positions of the event and result stream ports shared
// by the REPS blocks; -1 marks a port the block does not have.
type streamPorts struct {
	sValid, sConn, sKind, sECN, sEV, sNow, mReady           int
	sReady, mValid, mConn, mKind, mEV, mExpl, mFrozen, mErr int
}

func newStreamPorts(pm blockeq.PortMap) streamPorts {
	return streamPorts{
		sValid: pm.In("s_event_valid"), sConn: pm.In("s_event_conn"), sKind: pm.In("s_event_kind"),
		sECN: pm.In("s_event_ecn"), sEV: pm.In("s_event_ev"), sNow: pm.In("s_event_now"),
		mReady: pm.In("m_result_ready"),
		sReady: pm.Out("s_event_ready"), mValid: pm.Out("m_result_valid"), mConn: pm.Out("m_result_conn"),
		mKind: pm.Out("m_result_kind"), mEV: pm.Out("m_result_ev"), mExpl: pm.Out("m_result_explored"),
		mFrozen: pm.Out("m_result_frozen"), mErr: pm.Out("m_result_error"),
	}
}

// repsRef drives a golden REPS pipeline (either version) from port vectors.
type repsRef struct {
	p       streamPorts
	pipe    *goldenreps.Pipeline
	cov     stim.Coverage
	newPipe func() *goldenreps.Pipeline
}

// Reset starts from a fresh golden model, as the harness starts from a fresh
// Verilated model whose state table is all zero.
func (r *repsRef) Reset() { r.pipe = r.newPipe() }

func (r *repsRef) Cycle(in, out []uint64) {
	p := r.p
	// the event is written in place, field by field (pipe.Pipeline.Input)
	e := r.pipe.Input()
	e.Conn, e.Kind, e.ECN, e.EV, e.Now = uint32(in[p.sConn]), goldenreps.Kind(in[p.sKind]), in[p.sECN] == 1, uint32(in[p.sEV]), 0
	if p.sNow >= 0 {
		e.Now = in[p.sNow]
	}
	mReady := in[p.mReady] == 1
	sReady, mValid, res := r.pipe.CyclePorts(in[p.sValid] == 1, mReady)
	out[p.sReady] = blockeq.B2U(sReady)
	out[p.mValid] = blockeq.B2U(mValid)
	out[p.mConn] = uint64(res.Conn)
	out[p.mKind] = uint64(res.Kind)
	out[p.mEV] = uint64(res.EV)
	out[p.mExpl] = blockeq.B2U(res.Explored)
	if p.mFrozen >= 0 {
		out[p.mFrozen] = blockeq.B2U(res.Frozen)
	}
	out[p.mErr] = blockeq.B2U(res.Error)
	if mValid && mReady && r.cov != nil {
		// the golden result's fields, in the order of the block's golden
		// model (blocks/reps: conn, kind, ev, explored, error, frozen)
		f := [6]uint64{uint64(res.Conn), uint64(res.Kind), uint64(res.EV), blockeq.B2U(res.Explored), blockeq.B2U(res.Error), blockeq.B2U(res.Frozen)}
		r.cov.Count(f[:])
	}
}

// RepsReference wraps the golden `reps` model (S4) for the harness.
func RepsReference(d harness.Design, p goldenreps.Params, cov stim.Coverage) (harness.Reference, error) {
	pm := blockeq.NewPortMap(d)
	if err := pm.Must("s_event_now", "m_result_frozen"); err != nil {
		return nil, err
	}
	if _, err := goldenreps.NewModel(p); err != nil {
		return nil, err
	}
	newPipe := func() *goldenreps.Pipeline {
		m, _ := goldenreps.NewModel(p)
		return goldenreps.NewPipeline(m, p.Depth)
	}
	return &repsRef{p: newStreamPorts(pm), pipe: newPipe(), cov: cov, newPipe: newPipe}, nil
}

// RepsConfReference wraps the golden `reps_conf` model (S0 Alg. 4).
func RepsConfReference(d harness.Design, p goldenreps.ConfParams, cov stim.Coverage) (harness.Reference, error) {
	pm := blockeq.NewPortMap(d)
	if err := pm.Must("s_event_ev", "m_result_explored"); err != nil {
		return nil, err
	}
	if _, err := goldenreps.NewConfModel(p); err != nil {
		return nil, err
	}
	newPipe := func() *goldenreps.Pipeline {
		m, _ := goldenreps.NewConfModel(p)
		return goldenreps.NewPipeline(m, p.Depth)
	}
	return &repsRef{p: newStreamPorts(pm), pipe: newPipe(), cov: cov, newPipe: newPipe}, nil
}
