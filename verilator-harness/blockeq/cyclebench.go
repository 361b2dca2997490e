package blockeq

import (
	"fmt"
	"slices"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/stim"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// A configuration whose results depend on timing (uet_cc's split engine:
// the window a send sees is the newest the window path wrote; hpcc's and
// swift's merging shells: the ACKs of a connection in flight fold
// together) has a golden model at cycle level on its fields
// (block.CycleModel), which the bench runs in place of the transaction
// model in golden/pipe's shell. A block with a stimulus of its own
// (block.Desc.Stimulus) is driven by it under the profile and counted by
// its own coverage, which gets the results in the golden transaction
// model's field order (with the member count of a merging shell last);
// the others get the generic bench's stimulus (on 16 connections) and
// coverage.

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
	cov      stim.Coverage
	// resAt, with the block's own coverage, is the positions in the
	// model's outputs of the result Count takes (nil: the outputs as they
	// are, for the generic coverage)
	resAt   []int
	res     []uint64
	generic *GenericCoverage // the generic coverage, or nil
	members int              // position of m_window_members in the model's outputs, or -1
	wValid  int              // position of m_window_valid, or -1
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
	out[r.sReady], out[r.mValid] = B2U(sReady), B2U(mValid)
	for k, j := range r.outIdx {
		out[j] = r.out[k]
	}
	if mValid && mReady && r.cov != nil {
		if r.resAt == nil {
			r.cov.Count(r.out)
		} else {
			for i, k := range r.resAt {
				r.res[i] = r.out[k]
			}
			r.cov.Count(r.res)
		}
	}
	if r.members >= 0 && r.out[r.wValid] == 1 && r.out[r.members] > 1 && r.generic != nil {
		r.generic.counts[mergedUpdate]++
	}
}

// mergedUpdate is the coverage point of a window update that stands for
// more than one event (a merging window path).
const mergedUpdate = "merged window update"

// cycleBench is the bench of a block configuration with a cycle model.
func cycleBench(cfg blocks.Config, b blocks.Block, hd harness.Design, profile string, seed uint64) (*Bench, error) {
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
	pm := NewPortMap(hd)
	ref := &cycleRef{p: gp, inIdx: make([]int, len(evNames)), outIdx: make([]int, len(outNames)),
		sReady: gp.sReady, mValid: gp.mValid, in: make([]uint64, len(evNames)), out: make([]uint64, len(outNames))}
	for i, n := range evNames {
		ref.inIdx[i] = pm.In("s_event_" + n)
	}
	covered := map[string]bool{"s_event_ready": true, "m_result_valid": true}
	for k, n := range outNames {
		ref.outIdx[k] = pm.Out(n)
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
	_, own, hasOwn, err := b.Stimulus(cfg, profile, stim.New(seed))
	if err != nil {
		return nil, err
	}
	var cov CoverageReport
	var gIn []string
	ref.members = -1
	if hasOwn {
		// the block's own coverage takes the golden transaction model's
		// result fields, read from the model's m_result_* outputs
		g, err := b.Golden(cfg)
		if err != nil {
			return nil, err
		}
		var gOut []string
		gIn, gOut = g.Fields()
		names := slices.Clone(gOut)
		if !slices.Contains(names, connpipe.MembersField) && pm.Out("m_result_"+connpipe.MembersField) >= 0 {
			names = append(names, connpipe.MembersField)
		}
		for _, n := range names {
			k := block.Bind([]string{"m_result_" + n}, outNames)[0]
			if k < 0 {
				return nil, fmt.Errorf("blockeq: block %s: the cycle model gives no m_result_%s, a result field of the golden model", b.Name, n)
			}
			ref.resAt = append(ref.resAt, k)
		}
		ref.res = make([]uint64, len(ref.resAt))
		ref.cov, cov = own, coverageReport{own}
	} else {
		gc := &GenericCoverage{kinds: b.Kinds, counts: map[string]int64{}, kindAt: ref.kindAt, errAt: ref.errAt}
		ref.cov, ref.generic, cov = gc, gc, gc
		members, wValid := block.Bind([]string{"m_window_members"}, outNames)[0], block.Bind([]string{"m_window_valid"}, outNames)[0]
		if members >= 0 && wValid >= 0 {
			ref.members, ref.wValid = members, wValid
			gc.extra = append(gc.extra, mergedUpdate)
		}
	}
	ref.newModel = func() block.CycleModel {
		m, _, _ := b.CycleModel(cfg) // accepted above
		return m
	}
	ref.m = ref.newModel()
	newStim := func() harness.Stimulus {
		r := newRNG(seed)
		// the block's own stimulus draws from the generator the handshake
		// uses, the source first
		if src, _, ok, _ := b.Stimulus(cfg, profile, r); ok {
			return newSourceStim(src, gp, gIn, r)
		}
		// a few connections, so that their events meet in the pipelines
		// (a merge needs two events of one connection close together)
		return &genericStim{p: gp, r: r, numConn: uint64(numConn), active: 16, numKinds: uint64(len(b.Kinds)),
			cur: make([]uint64, len(gp.inFields)), pValid: thresholdOf(0.9), pReady: thresholdOf(0.8)}
	}
	return &Bench{Ref: ref, Stim: newStim, Coverage: cov}, nil
}
