package smartt_test

import (
	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/blocks/stim"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// smarttRef drives a golden SMaRTT pipeline from port vectors.
type smarttRef struct {
	p       smarttPorts
	pipe    *gsmartt.Pipeline
	cov     stim.Coverage
	newPipe func() *gsmartt.Pipeline
}

func (r *smarttRef) Reset() { r.pipe = r.newPipe() }

func (r *smarttRef) Cycle(in, out []uint64) {
	p := r.p
	// the event is written in place, field by field (pipe.Pipeline.Input)
	e := r.pipe.Input()
	e.Conn, e.Kind, e.Size, e.ECN = uint32(in[p.sConn]), gsmartt.Kind(in[p.sKind]), uint32(in[p.sSize]), in[p.sECN] == 1
	e.RTT, e.Unacked, e.Now = uint32(in[p.sRTT]), uint32(in[p.sUnacked]), in[p.sNow]
	mReady := in[p.mReady] == 1
	sReady, mValid, res := r.pipe.CyclePorts(in[p.sValid] == 1, mReady)
	out[p.sReady] = blockeq.B2U(sReady)
	out[p.mValid] = blockeq.B2U(mValid)
	out[p.mConn], out[p.mKind], out[p.mCwnd], out[p.mCase] = uint64(res.Conn), uint64(res.Kind), uint64(res.Cwnd), uint64(res.Case)
	out[p.mQA], out[p.mFast], out[p.mErr] = blockeq.B2U(res.QA), blockeq.B2U(res.Fast), blockeq.B2U(res.Error)
	if p.mMembers >= 0 {
		out[p.mMembers] = uint64(res.Members)
	}
	if mValid && mReady && r.cov != nil {
		// the golden result's fields, in the order of the block's golden
		// model (blocks/smartt: conn, kind, cwnd, case, qa, fast, error),
		// and the member count of a merging shell
		f := [8]uint64{uint64(res.Conn), uint64(res.Kind), uint64(res.Cwnd), uint64(res.Case),
			blockeq.B2U(res.QA), blockeq.B2U(res.Fast), blockeq.B2U(res.Error), uint64(res.Members)}
		n := 7
		if p.mMembers >= 0 {
			n = 8
		}
		r.cov.Count(f[:n])
	}
}

// SmarttReference wraps the golden SMaRTT model of a block configuration
// in its shell (bsmartt.GoldenPipeline), for the tests that drive smartt
// and nscc with the typed stimulus (NewSmarttStimulus) or a recorded trace
// (NewSmarttTraceStimulus); cov, when set, is the block's coverage
// (bsmartt.NewCoverage). The equivalence bench runs the block's own
// description instead (blocks/smartt/stim.go).
func SmarttReference(d harness.Design, p bsmartt.Params, cov stim.Coverage) (harness.Reference, error) {
	return SmarttReferenceTuned(d, p, cov, nil)
}

// Tuned is a run-time setting or parameter of a block given a value
// other than the configuration's (block.Tuner).
type Tuned struct {
	Name  string
	Value uint64
}

// SmarttReferenceTuned is SmarttReference with the golden model's
// settings changed, in order, as the RTL's parameters are overridden at
// instantiation (Verilator -G).
func SmarttReferenceTuned(d harness.Design, p bsmartt.Params, cov stim.Coverage, tune []Tuned) (harness.Reference, error) {
	pm := blockeq.NewPortMap(d)
	if err := pm.Must("s_event_rtt", "m_result_cwnd"); err != nil {
		return nil, err
	}
	gp := p.Golden()
	model := func() (*gsmartt.Model, error) {
		m, err := gsmartt.NewModel(gp)
		if err != nil {
			return nil, err
		}
		for _, st := range tune {
			if err := bsmartt.TuneGolden(m, st.Name, st.Value); err != nil {
				return nil, err
			}
		}
		return m, nil
	}
	if _, err := model(); err != nil {
		return nil, err
	}
	newPipe := func() *gsmartt.Pipeline {
		m, _ := model() // accepted above
		return bsmartt.GoldenPipeline(p, m)
	}
	return &smarttRef{p: newSmarttPorts(pm), pipe: newPipe(), cov: cov, newPipe: newPipe}, nil
}
