package blockeq

import (
	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// SmarttCoverage counts the rules a run exercised, from the golden results.
type SmarttCoverage struct {
	cases     [8]int64
	qa        int64
	errors    int64
	fastExits int64
	lastFast  []bool
	hasFD     bool
	merged    int64 // results standing for more than one ACK
	hasMerge  bool  // the shell merges ACKs: a merged result must come
	mergedN   int64 // results standing for more than one NACK
	hasMergeN bool  // the shell merges NACKs too
}

// NewSmarttCoverage starts empty counters; Fair Decrease exists only in smartt.
func NewSmarttCoverage(v bsmartt.Variant) *SmarttCoverage {
	return &SmarttCoverage{hasFD: v == bsmartt.Conf}
}

// NewSmarttCoverageOf is NewSmarttCoverage for p, which with MergeAcks
// must also produce merged ACKs (and with MergeNacks merged NACKs).
func NewSmarttCoverageOf(p bsmartt.Params) *SmarttCoverage {
	c := NewSmarttCoverage(p.Variant)
	c.hasMerge = p.MergeSlots > 0 && p.MergeAcks
	c.hasMergeN = c.hasMerge && p.MergeNacks
	return c
}

var smarttCaseNames = [8]string{"no window rule", "fair decrease", "multiplicative decrease", "fair increase",
	"multiplicative/proportional increase", "quickadapt", "fastincrease", "loss"}

func (c *SmarttCoverage) count(r *gsmartt.Result) {
	if r.Error {
		c.errors++
		return
	}
	c.cases[r.Case&7]++
	if r.Members > 1 {
		if r.Kind == gsmartt.KindNack {
			c.mergedN++
		} else {
			c.merged++
		}
	}
	if r.QA {
		c.qa++
	}
	for int(r.Conn) >= len(c.lastFast) {
		c.lastFast = append(c.lastFast, make([]bool, len(c.lastFast)+64)...)
	}
	if c.lastFast[r.Conn] && !r.Fast && r.Kind != gsmartt.KindOpen {
		c.fastExits++
	}
	c.lastFast[r.Conn] = r.Fast
}

// Counts returns the counters by name.
func (c *SmarttCoverage) Counts() map[string]int64 {
	m := map[string]int64{"error": c.errors, "quickadapt fired": c.qa, "fastincrease exit": c.fastExits}
	if c.hasMerge {
		m["merged ack"] = c.merged
	}
	if c.hasMergeN {
		m["merged nack"] = c.mergedN
	}
	for i, name := range smarttCaseNames {
		m[name] = c.cases[i]
	}
	return m
}

// Missing lists the rules the run never reached.
func (c *SmarttCoverage) Missing() []string {
	var miss []string
	counts := c.Counts()
	for _, name := range append(smarttCaseNames[:], "error", "quickadapt fired", "fastincrease exit", "merged ack", "merged nack") {
		if name == "merged ack" && !c.hasMerge || name == "merged nack" && !c.hasMergeN {
			continue
		}
		if name == "fair decrease" && !c.hasFD {
			continue
		}
		if counts[name] == 0 {
			miss = append(miss, name)
		}
	}
	return miss
}

func (c *SmarttCoverage) String() string { return FormatCounts(c.Counts()) }

// smarttRef drives a golden SMaRTT pipeline from port vectors.
type smarttRef struct {
	p       smarttPorts
	pipe    *gsmartt.Pipeline
	cov     *SmarttCoverage
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
	out[p.sReady] = b2u(sReady)
	out[p.mValid] = b2u(mValid)
	out[p.mConn], out[p.mKind], out[p.mCwnd], out[p.mCase] = uint64(res.Conn), uint64(res.Kind), uint64(res.Cwnd), uint64(res.Case)
	out[p.mQA], out[p.mFast], out[p.mErr] = b2u(res.QA), b2u(res.Fast), b2u(res.Error)
	if p.mMembers >= 0 {
		out[p.mMembers] = uint64(res.Members)
	}
	if mValid && mReady && r.cov != nil {
		r.cov.count(res)
	}
}

// SmarttReference wraps the golden SMaRTT model of a block configuration.
func SmarttReference(d harness.Design, p bsmartt.Params, cov *SmarttCoverage) (harness.Reference, error) {
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
func SmarttReferenceTuned(d harness.Design, p bsmartt.Params, cov *SmarttCoverage, tune []Tuned) (harness.Reference, error) {
	pm := newPortMap(d)
	if err := pm.must("s_event_rtt", "m_result_cwnd"); err != nil {
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
