package blockeq

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/block"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// A configuration whose results depend on timing (uet_cc's split engine:
// the window a send sees is the newest the window path wrote) has a
// golden model at cycle level on its fields (block.CycleModel), which the
// bench runs in place of the transaction model in golden/pipe's shell.
// The stimulus (on 16 connections) and the coverage are the generic
// bench's.

// cycleRef is the harness reference of a block.CycleModel.
type cycleRef struct {
	p        genericPorts
	inIdx    []int // model event field i <- harness input inIdx[i] (-1: 0)
	outIdx   []int // model output k -> harness output outIdx[k]
	sReady   int
	mValid   int
	kindAt   int // positions of m_result_kind and m_result_error in the model's outputs
	errAt    int
	newModel func() block.CycleModel
	m        block.CycleModel
	in, out  []uint64
	cov      *GenericCoverage
	members  int // position of m_window_members in the model's outputs, or -1
	wValid   int // position of m_window_valid, or -1
}

func (r *cycleRef) Reset() { r.m = r.newModel() }

func (r *cycleRef) Cycle(in, out []uint64) {
	for i, j := range r.inIdx {
		r.in[i] = 0
		if j >= 0 {
			r.in[i] = in[j]
		}
	}
	mReady := in[r.p.mReady] == 1
	sReady, mValid := r.m.Cycle(in[r.p.sValid] == 1, mReady, r.in, r.out)
	out[r.sReady], out[r.mValid] = b2u(sReady), b2u(mValid)
	for k, j := range r.outIdx {
		out[j] = r.out[k]
	}
	if mValid && mReady && r.cov != nil {
		r.cov.Count(r.out)
	}
	if r.members >= 0 && r.out[r.wValid] == 1 && r.out[r.members] > 1 && r.cov != nil {
		r.cov.counts[mergedUpdate]++
	}
}

// mergedUpdate is the coverage point of a window update that stands for
// more than one event (a merging window path).
const mergedUpdate = "merged window update"

// cycleBench is the bench of a block configuration with a cycle model.
func cycleBench(cfg blocks.Config, b blocks.Block, hd harness.Design, seed uint64) (*Bench, error) {
	gp, err := newGenericPorts(hd)
	if err != nil {
		return nil, err
	}
	numConn, err := b.NumConn(cfg)
	if err != nil {
		return nil, err
	}
	m0, _, err := b.CycleModel(cfg)
	if err != nil {
		return nil, err
	}
	evNames, outNames := m0.Fields()
	pm := newPortMap(hd)
	ref := &cycleRef{p: gp, inIdx: make([]int, len(evNames)), outIdx: make([]int, len(outNames)),
		sReady: gp.sReady, mValid: gp.mValid, in: make([]uint64, len(evNames)), out: make([]uint64, len(outNames))}
	for i, n := range evNames {
		ref.inIdx[i] = pm.inIdx("s_event_" + n)
	}
	covered := map[string]bool{"s_event_ready": true, "m_result_valid": true}
	for k, n := range outNames {
		ref.outIdx[k] = pm.outIdx(n)
		if ref.outIdx[k] < 0 {
			return nil, fmt.Errorf("blockeq: block %s: the cycle model gives output %q, which the design does not have", b.Name, n)
		}
		covered[n] = true
	}
	for _, p := range hd.Ports {
		if p.Dir == harness.Out && !covered[p.Name] {
			return nil, fmt.Errorf("blockeq: block %s: the cycle model does not give output %s", b.Name, p.Name)
		}
	}
	ref.kindAt, ref.errAt = block.Bind([]string{"m_result_kind"}, outNames)[0], block.Bind([]string{"m_result_error"}, outNames)[0]
	if ref.kindAt < 0 {
		return nil, fmt.Errorf("blockeq: block %s: the cycle model gives no m_result_kind", b.Name)
	}
	cov := &GenericCoverage{kinds: b.Kinds, counts: map[string]int64{}, kindAt: ref.kindAt, errAt: ref.errAt}
	ref.cov = cov
	ref.members, ref.wValid = block.Bind([]string{"m_window_members"}, outNames)[0], block.Bind([]string{"m_window_valid"}, outNames)[0]
	if ref.members >= 0 && ref.wValid >= 0 {
		cov.extra = append(cov.extra, mergedUpdate)
	} else {
		ref.members = -1
	}
	ref.newModel = func() block.CycleModel {
		m, _, _ := b.CycleModel(cfg) // accepted above
		return m
	}
	ref.m = ref.newModel()
	stim := func() harness.Stimulus {
		// a few connections, so that their events meet in the pipelines
		// (a merge needs two events of one connection close together)
		return &genericStim{p: gp, r: newRNG(seed), numConn: uint64(numConn), active: 16, numKinds: uint64(len(b.Kinds)),
			cur: make([]uint64, len(gp.inFields)), pValid: thresholdOf(0.9), pReady: thresholdOf(0.8)}
	}
	return &Bench{Ref: ref, Stim: stim, Coverage: cov}, nil
}
