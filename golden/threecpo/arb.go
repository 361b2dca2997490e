package threecpo

// This file is the arbiter between a GPU's injection virtual channels
// (§7.11, S3:L1761-1769). The GPU injects read requests, write requests
// and responses on separate VCs (S3:L1570-1577); every cycle the arbiter
// picks one VC among those whose head packet may go. A request VC may go
// only while its IRL tokens allow (irl_tokens's may_send); a response VC
// always may. The thesis replaced round robin with least-recently-used
// arbitration because round robin "skips a VC if there is insufficient
// IRL tokens" and, "when enough IRL tokens existed for the skipped VC,
// often did not point to the starved VC".
//
// Choice (the thesis names the two policies, not their state): LRU keeps
// the order of the VCs' last grants as an age matrix, one bit per pair
// (i < j: i was granted longer ago than j), and grants the eligible VC
// older than every other eligible one. Round robin keeps a pointer and
// grants the first eligible VC at or after it, then points past the
// grant; it stays where it is when nothing is granted. A word that is no
// order (a power-on table read before its port's open: the pair bits may
// form a cycle) grants the lowest eligible VC, so the arbiter grants
// whenever a VC is eligible, from any state.

import (
	"fmt"
	"math/bits"

	"github.com/nicgen/nicgen/golden/pipe"
)

// ArbPolicy is an arbiter's policy.
type ArbPolicy uint8

const (
	ArbLRU        ArbPolicy = iota // least recently granted first (the thesis's fix)
	ArbRoundRobin                  // the first at or after a pointer (the thesis's former arbiter)
)

func (a ArbPolicy) String() string {
	if a == ArbRoundRobin {
		return "round_robin"
	}
	return "lru"
}

// ArbParams are an arbiter's VC count and policy.
type ArbParams struct {
	VCs    int
	Policy ArbPolicy
}

// MaxArbVCs is the most VCs an arbiter serves (an age matrix of 28 bits).
const MaxArbVCs = 8

// Validate reports what is out of range.
func (p ArbParams) Validate() error {
	if p.VCs < 2 || p.VCs > MaxArbVCs || p.Policy > ArbRoundRobin {
		return fmt.Errorf("lru_arb: %d VCs, policy %d: want 2..%d VCs, lru or round_robin", p.VCs, p.Policy, MaxArbVCs)
	}
	return nil
}

// Pairs is the number of bits of the age matrix: one per pair of VCs.
func (p ArbParams) Pairs() int { return p.VCs * (p.VCs - 1) / 2 }

// IndexW is the width of a VC's index.
func (p ArbParams) IndexW() int { return max(1, bits.Len(uint(p.VCs-1))) }

// StateW is the width of the state word: the age matrix or the pointer.
func (p ArbParams) StateW() int {
	if p.Policy == ArbRoundRobin {
		return p.IndexW()
	}
	return p.Pairs()
}

// PairBit is the age matrix's bit of the pair i < j, pairs numbered row
// by row: (0,1), (0,2), ..., (0,V-1), (1,2), ...
func (p ArbParams) PairBit(i, j int) int {
	return i*(2*p.VCs-i-1)/2 + (j - i - 1)
}

// ArbOpen is a port's state after its open: LRU, VC 0 the least recently
// granted, then 1, 2, ...; round robin, the pointer at VC 0.
func (p ArbParams) ArbOpen() uint64 {
	if p.Policy == ArbRoundRobin {
		return 0
	}
	return uint64(1)<<uint(p.Pairs()) - 1
}

// older reports whether VC i was granted longer ago than VC j (i != j)
// in an age matrix.
func (p ArbParams) older(m uint64, i, j int) bool {
	if i < j {
		return m>>uint(p.PairBit(i, j))&1 == 1
	}
	return m>>uint(p.PairBit(j, i))&1 == 0
}

// ArbStep is one arbitration: state s, eligible the VCs whose head packet
// may go (bit i: VC i). It returns the state after, whether a VC is
// granted and which.
func ArbStep(p ArbParams, s uint64, eligible uint32) (next uint64, granted bool, grant int) {
	eligible &= uint32(1)<<uint(p.VCs) - 1
	if eligible == 0 {
		return s, false, 0
	}
	lowest := bits.TrailingZeros32(eligible)
	if p.Policy == ArbRoundRobin {
		grant = lowest
		if at := eligible &^ (uint32(1)<<uint(min(s, 32)) - 1); at != 0 {
			grant = bits.TrailingZeros32(at)
		}
		if next = uint64(grant + 1); grant == p.VCs-1 {
			next = 0
		}
		return next, true, grant
	}
	grant = lowest
	for i := 0; i < p.VCs; i++ {
		if eligible>>uint(i)&1 == 0 {
			continue
		}
		oldest := true
		for j := 0; j < p.VCs; j++ {
			if j != i && eligible>>uint(j)&1 == 1 && !p.older(s, i, j) {
				oldest = false
			}
		}
		if oldest {
			grant = i
			break
		}
	}
	// the grant becomes the most recent: older than nobody
	next = s
	for j := 0; j < p.VCs; j++ {
		switch {
		case j < grant:
			next |= uint64(1) << uint(p.PairBit(j, grant))
		case j > grant:
			next &^= uint64(1) << uint(p.PairBit(grant, j))
		}
	}
	return next, true, grant
}

// ArbKind is the kind of an lru_arb event.
type ArbKind uint8

// The kinds, in the order of the block's s_event_kind.
const (
	ArbOpenKind  ArbKind = iota // reset the port's arbiter
	ArbCycleKind                // one arbitration cycle of the port
	ArbNumKinds
)

// ArbEvent is one event of a port.
type ArbEvent struct {
	Conn uint32 // the port
	Kind ArbKind
	Req  uint32 // cycle: the VCs with a packet at their head
	OK   uint32 // cycle: the VCs whose head packet may go (its tokens suffice)
}

// ArbResult answers an event.
type ArbResult struct {
	Conn    uint32
	Kind    ArbKind
	Granted bool // cycle: a VC was granted
	Grant   int  // the granted VC (0 when none)
	Error   bool
}

// ArbTableParams are the arbiter's parameters and the table's shape.
type ArbTableParams struct {
	ArbParams
	NumConn, ConnW, KindW int
}

// ValidateTable reports a table the model cannot run.
func (p ArbTableParams) ValidateTable() error {
	if err := p.ArbParams.Validate(); err != nil {
		return err
	}
	if p.NumConn < 1 || p.ConnW < 1 || p.ConnW > 32 || p.ConnW < bits.Len(uint(p.NumConn-1)) || p.KindW < 1 || p.KindW > 8 {
		return fmt.Errorf("lru_arb: %d ports behind a %d-bit id, %d-bit kinds: want at least 1 port the id holds, 1..8-bit kinds", p.NumConn, p.ConnW, p.KindW)
	}
	return nil
}

// ArbTable is lru_arb over its ports, one arbiter each. The table starts
// all-zero (for LRU a valid order, VC V-1 the oldest; a port is meant to
// be opened before use).
type ArbTable struct {
	p     ArbTableParams
	table []uint64
}

// NewArbTable checks the parameters and makes the table.
func NewArbTable(p ArbTableParams) (*ArbTable, error) {
	if err := p.ValidateTable(); err != nil {
		return nil, err
	}
	return &ArbTable{p: p, table: make([]uint64, p.NumConn)}, nil
}

// StepTo runs one event (pipe.Stepper).
func (t *ArbTable) StepTo(e *ArbEvent, r *ArbResult) {
	p := t.p
	conn, kind := uint32(mask64(uint64(e.Conn), p.ConnW)), ArbKind(mask64(uint64(e.Kind), p.KindW))
	*r = ArbResult{Conn: conn, Kind: kind}
	if int64(conn) >= int64(p.NumConn) || kind >= ArbNumKinds {
		r.Error = true
		return
	}
	switch kind {
	case ArbOpenKind:
		t.table[conn] = p.ArbOpen()
	case ArbCycleKind:
		vcs := uint32(mask64(uint64(e.Req&e.OK), p.VCs))
		t.table[conn], r.Granted, r.Grant = ArbStep(p.ArbParams, t.table[conn], vcs)
	}
}

// Reset does nothing: the table is all the state.
func (t *ArbTable) Reset() {}

// ConnKey is the event's port as the RTL's hazard unit compares it.
func (t *ArbTable) ConnKey(e *ArbEvent) uint64 { return mask64(uint64(e.Conn), t.p.ConnW) }

// State is port conn's state word (tests).
func (t *ArbTable) State(conn int) uint64 { return t.table[conn] }

// ArbPipeline is lru_arb in the cycle contract of the pipelined shell.
type ArbPipeline = pipe.Pipeline[ArbEvent, ArbResult]

// NewArbPipeline wraps t in the shell of a datapath of depth stages.
func NewArbPipeline(t *ArbTable, depth int) *ArbPipeline {
	return pipe.New[ArbEvent, ArbResult](t, depth)
}

// InjectionGrants is the thesis's situation at one GPU (S3:L1761-1769):
// three injection VCs, always backlogged: responses (VC 0, no tokens
// needed), read requests (VC 1: 1 request flit, a 9-flit response) and
// write requests (VC 2: 9 flits, a 1-flit response), the request VCs
// behind one IRL unit (DefaultIRLParams) at watermark wm for both its
// counters. Each cycle grant picks one VC among the eligible ones (bit i:
// VC i; the request VCs are eligible while the unit's may_send holds) and
// the unit takes the granted request's tokens. It returns the grants per
// VC over cycles cycles, counting from cycle warm (the open's full
// buckets pay for a few requests), or grant's error, or an error when
// grant picks a VC that is not eligible.
func InjectionGrants(wm uint32, cycles, warm int, grant func(eligible uint32) (int, error)) ([3]int, error) {
	var grants [3]int
	m, err := NewIRLModel(DefaultIRLParams())
	if err != nil {
		return grants, err
	}
	m.SetWatermarks(wm, wm)
	cost := [3][2]int32{{0, 0}, {1, 9}, {9, 1}}
	for c := 0; c < cycles; c++ {
		eligible := uint32(1)
		if m.State().MaySend() {
			eligible |= 6
		}
		v, err := grant(eligible)
		if err != nil {
			return grants, fmt.Errorf("cycle %d: %w", c, err)
		}
		if v < 0 || v > 2 || eligible>>uint(v)&1 == 0 {
			return grants, fmt.Errorf("cycle %d: VC %d granted, eligible %03b", c, v, eligible)
		}
		if c >= warm {
			grants[v]++
		}
		m.Cycle(v != 0, cost[v][0], cost[v][1])
	}
	return grants, nil
}
