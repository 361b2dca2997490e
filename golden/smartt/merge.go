package smartt

import "github.com/nicgen/nicgen/golden/pipe"

// MergeCapBytes is the most bytes a merged ACK stands for: 32 KiB, the
// largest ACK_Gen_Trigger of the UEC transport, so that every merged ACK
// is one a receiver with spec-legal coalescing could have sent.
const MergeCapBytes = 32 << 10

// MergeMembersW is the width of m_result_members: a group closes at
// 2^MergeMembersW - 1 ACKs.
const MergeMembersW = 8

// AckMerger is the merge rule of smartt and nscc (docs/blocks/smartt.md,
// "Merged ACKs"), applied by the merging shell (golden/pipe):
//   - an ACK folds into a pending ACK of the same connection whose ECN
//     echo it repeats: a change of ECN closes the group;
//   - with Nacks, a NACK folds into a pending NACK of the same
//     connection: a run of trimmed packets is answered as one trim of
//     their bytes;
//   - nothing else folds: open, timeout, and (without Nacks) NACK are
//     barriers, which never fold and which nothing folds into;
//   - the merged event's size is the members' sum, which stays within
//     MergeCapBytes (and the size port);
//   - its RTT sample, bytes in flight and timestamp are the last member's.
type AckMerger struct {
	p     Params
	Nacks bool
}

// Merger is the merge rule of m's block; nacks folds NACKs too.
func (m *Model) Merger(nacks bool) AckMerger { return AckMerger{m.p, nacks} }

// Fold merges the ACK e into the pending ACK q when the rule allows it.
func (a AckMerger) Fold(q *Event, members int, e *Event) bool {
	p := a.p
	k := q.Kind & kindMask
	if k != e.Kind&kindMask || k != KindAck && (k != KindNack || !a.Nacks) {
		return false
	}
	if uint64(e.Conn&mask32(p.ConnW)) >= uint64(p.NumConn) || k == KindAck && q.ECN != e.ECN {
		return false
	}
	sum := uint64(q.Size&mask32(p.SizeW)) + uint64(e.Size&mask32(p.SizeW))
	if sum > min(MergeCapBytes, mask64(p.SizeW)) {
		return false
	}
	q.Size, q.RTT, q.Unacked, q.Now = uint32(sum), e.RTT, e.Unacked, e.Now
	return true
}

// Members writes the ACKs a result stands for (0 on an error).
func (AckMerger) Members(r *Result, n int) {
	r.Members = uint8(n)
	if r.Error {
		r.Members = 0
	}
}

// NewMergingPipeline returns an empty merging pipeline of a datapath of
// depth stages with slots waiting slots around m, with its ACK merge rule.
func NewMergingPipeline(m *Model, depth, slots int, nacks bool) *Pipeline {
	return pipe.NewMerging[Event, Result](m, depth, slots, 1<<MergeMembersW-1, m.Merger(nacks))
}

// NewPlainSlotPipeline is the merging shell without a merge rule: events
// wait in slots, one result per event (smartt with merging off).
func NewPlainSlotPipeline(m *Model, depth, slots int) *Pipeline {
	return pipe.NewMerging[Event, Result](m, depth, slots, 1<<MergeMembersW-1, noMerge{})
}

type noMerge struct{}

func (noMerge) Fold(*Event, int, *Event) bool { return false }
func (noMerge) Members(r *Result, n int) {
	r.Members = uint8(n)
	if r.Error {
		r.Members = 0
	}
}
