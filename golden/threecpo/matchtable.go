package threecpo

// This file is mcast_match as a block sees it: a table of matchers (match.go),
// one per word (a GPU's traffic class on one multicast group), each event
// one of §7.9's four rules. The counters have widths: every word keeps
// outstanding <= 0, outstanding <= unmatched <= local for every member
// (the invariants of TestMatchInvariants), so local's range bounds them
// all, and an event that would take local or an outstanding count past
// its range is refused and changes nothing.
//
// Choice (the Remote-Op-Queue): the queue is a FIFO of the NIC's beside
// the block, not in the table word: a remote request's result gives its
// expiry (the event's arrival time plus its RTT and inter-send delay),
// and the NIC returns the entry as an expire event of its member and
// flits when the expiry passes. An expire for more flits than the member
// has outstanding is refused. The golden Matcher keeps the queue itself;
// TestMatchTableIsTheMatcher drives the table from such a FIFO and
// compares the two.

import (
	"fmt"
	"math/bits"

	"github.com/nicgen/nicgen/golden/pipe"
)

// MatchKind is the kind of an mcast_match event.
type MatchKind uint8

// The kinds, in the order of the block's s_event_kind.
const (
	MatchOpenKind     MatchKind = iota // reset the matcher: nothing sent, received or outstanding
	MatchSendKind                      // a local multicast request of Flits flits goes
	MatchRemoteKind                    // member Src's multicast request of Flits flits arrives
	MatchResponseKind                  // the response to a local request of Flits flits arrives
	MatchExpireKind                    // a queued remote request of member Src, Flits flits, expires
	MatchNumKinds
)

func (k MatchKind) String() string {
	switch k {
	case MatchOpenKind:
		return "open"
	case MatchSendKind:
		return "send"
	case MatchRemoteKind:
		return "remote"
	case MatchResponseKind:
		return "response"
	case MatchExpireKind:
		return "expire"
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// MatchEvent is one event of a matcher.
type MatchEvent struct {
	Conn  uint32 // the matcher
	Kind  MatchKind
	Src   uint32 // remote, expire: the member
	Flits uint32 // the request's flits
	Lat   uint32 // send, remote: the measured collective latency, cycles (the MI factor's)
	Now   uint64 // remote: the arrival time
	Wait  uint64 // remote: RTT plus inter-send delay, the entry's time in the queue
}

// MatchResult answers an event.
type MatchResult struct {
	Conn    uint32
	Kind    MatchKind
	Tokens  uint32 // send: flits + MI cost of the matched flits; remote: the MI cost
	Matched uint32 // send, remote: the flits matched
	Expiry  uint64 // remote, not refused: Now + Wait, when the NIC returns the entry (TimeW bits, wrapping)
	Refused bool   // a counter would leave its range: nothing changed
	Error   bool   // an unknown kind, a matcher past the table, a member past the group
}

// MatchTableParams are the matcher's parameters and the table's shape.
type MatchTableParams struct {
	MatchParams
	NumConn, ConnW, KindW int
	FlitW                 int // width of a request's flits
	CountW                int // width of the signed counters: local in [0, 2^(CountW-1) - 1], outstanding down to -2^(CountW-1)
	LatW                  int // width of the collective latency
	TimeW                 int // width of the arrival time, the wait and the expiry
}

// DefaultMatchTableParams: a GPU of an 8-GPU group (7 other members; the
// thesis's 64-GPU group is 63 and makes a 1,523-bit word), requests up to
// 15 flits (the thesis's 9-flit packets), counters of 12 bits (2,047
// local flits awaiting responses), 17-bit latencies (S3 Fig. 6.3's tails
// reach 70,000 cycles), 32-bit times, on 64 matchers.
func DefaultMatchTableParams() MatchTableParams {
	p := MatchTableParams{MatchParams: DefaultMatchParams(), NumConn: 64, ConnW: 16, KindW: 3, FlitW: 4, CountW: 12, LatW: 17, TimeW: 32}
	p.Members = 7
	return p
}

// LocalMax is the largest local count.
func (p MatchTableParams) LocalMax() int64 { return int64(1)<<uint(p.CountW-1) - 1 }

// OutMin is the smallest outstanding count.
func (p MatchTableParams) OutMin() int64 { return -(int64(1) << uint(p.CountW-1)) }

// SrcW is the width of a member's index.
func (p MatchTableParams) SrcW() int { return max(1, bits.Len(uint(p.Members-1))) }

// MatchedW is the width of a send's matched flits (every member's, up to
// the request's flits each).
func (p MatchTableParams) MatchedW() int {
	return bits.Len64(uint64(p.Members) * (uint64(1)<<uint(p.FlitW) - 1))
}

// TokensW is the width of the tokens a send pays: its flits plus the MI
// cost of at most every member's flits (a factor of at most 1).
func (p MatchTableParams) TokensW() int {
	return bits.Len64(uint64(p.Members+1) * (uint64(1)<<uint(p.FlitW) - 1))
}

// ValidateTable reports a table the model cannot run.
func (p MatchTableParams) ValidateTable() error {
	if err := p.MatchParams.Validate(); err != nil {
		return err
	}
	switch {
	case p.NumConn < 1 || p.ConnW < 1 || p.ConnW > 32 || p.ConnW < bits.Len(uint(p.NumConn-1)) || p.KindW < 3 || p.KindW > 8:
		return fmt.Errorf("mcast_match: %d matchers behind a %d-bit id, %d-bit kinds: want at least 1 matcher the id holds, 3..8-bit kinds", p.NumConn, p.ConnW, p.KindW)
	case p.Members > 63:
		return fmt.Errorf("mcast_match: %d members: want at most 63 (a 64-GPU group)", p.Members)
	case p.FlitW < 1 || p.FlitW > 10:
		return fmt.Errorf("mcast_match: flits of %d bits: want 1..10", p.FlitW)
	case p.CountW < p.FlitW+2 || p.CountW > 24:
		return fmt.Errorf("mcast_match: counters of %d bits: want %d..24 (a request's flits and a sign)", p.CountW, p.FlitW+2)
	case p.LatW < bits.Len32(p.MIHiLat) || p.LatW > 24:
		return fmt.Errorf("mcast_match: latencies of %d bits: want %d..24 (MI's %d cycles)", p.LatW, bits.Len32(p.MIHiLat), p.MIHiLat)
	case p.TimeW < 8 || p.TimeW > 48:
		return fmt.Errorf("mcast_match: times of %d bits: want 8..48", p.TimeW)
	}
	return nil
}

// matchWord is one matcher's state.
type matchWord struct {
	local    int64
	unm, out []int64
}

// MatchTable is mcast_match over its matchers. The table starts all-zero
// (a matcher is meaningful from its open on; zero is also the open's
// word).
type MatchTable struct {
	p     MatchTableParams
	table []matchWord
}

// NewMatchTable checks the parameters and makes the table.
func NewMatchTable(p MatchTableParams) (*MatchTable, error) {
	if err := p.ValidateTable(); err != nil {
		return nil, err
	}
	t := &MatchTable{p: p, table: make([]matchWord, p.NumConn)}
	for i := range t.table {
		t.table[i] = matchWord{unm: make([]int64, p.Members), out: make([]int64, p.Members)}
	}
	return t, nil
}

// StepTo runs one event (pipe.Stepper).
func (t *MatchTable) StepTo(e *MatchEvent, r *MatchResult) {
	p := t.p
	conn, kind := uint32(mask64(uint64(e.Conn), p.ConnW)), MatchKind(mask64(uint64(e.Kind), p.KindW))
	*r = MatchResult{Conn: conn, Kind: kind}
	src := int(mask64(uint64(e.Src), p.SrcW()))
	member := kind == MatchRemoteKind || kind == MatchExpireKind
	if int64(conn) >= int64(p.NumConn) || kind >= MatchNumKinds || member && src >= p.Members {
		r.Error = true
		return
	}
	f := int64(mask64(uint64(e.Flits), p.FlitW))
	lat := uint32(mask64(uint64(e.Lat), p.LatW))
	w := &t.table[conn]
	switch kind {
	case MatchOpenKind:
		w.local = 0
		clear(w.unm)
		clear(w.out)
	case MatchSendKind:
		if w.local+f > p.LocalMax() {
			r.Refused = true
			return
		}
		var matched int64
		for j := range w.unm {
			if w.unm[j] < 0 {
				matched += min(f, -w.unm[j])
			}
			w.unm[j] += f
		}
		w.local += f
		r.Matched = uint32(matched)
		r.Tokens = uint32(f) + p.MICost(uint32(matched), lat)
	case MatchRemoteKind:
		if w.out[src]-f < p.OutMin() {
			r.Refused = true
			return
		}
		r.Expiry = mask64(mask64(e.Now, p.TimeW)+mask64(e.Wait, p.TimeW), p.TimeW)
		matched := max(min(f, w.unm[src]), 0)
		w.unm[src] -= f
		w.out[src] -= f
		r.Matched = uint32(matched)
		r.Tokens = p.MICost(uint32(matched), lat)
	case MatchResponseKind:
		w.local = max(w.local-f, 0)
		for j := range w.unm {
			w.unm[j] = min(w.unm[j], w.local)
		}
	case MatchExpireKind:
		if w.out[src]+f > 0 {
			r.Refused = true
			return
		}
		w.out[src] += f
		w.unm[src] = max(w.unm[src], w.out[src])
	}
}

// Reset does nothing: the table is all the state.
func (t *MatchTable) Reset() {}

// ConnKey is the event's matcher as the RTL's hazard unit compares it.
func (t *MatchTable) ConnKey(e *MatchEvent) uint64 { return mask64(uint64(e.Conn), t.p.ConnW) }

// Counts is matcher conn's local count and its members' unmatched and
// outstanding counts (tests).
func (t *MatchTable) Counts(conn int) (local int64, unmatched, outstanding []int64) {
	w := t.table[conn]
	return w.local, append([]int64(nil), w.unm...), append([]int64(nil), w.out...)
}

// MatchPipeline is mcast_match in the cycle contract of the pipelined shell.
type MatchPipeline = pipe.Pipeline[MatchEvent, MatchResult]

// NewMatchPipeline wraps t in the shell of a datapath of depth stages.
func NewMatchPipeline(t *MatchTable, depth int) *MatchPipeline {
	return pipe.New[MatchEvent, MatchResult](t, depth)
}
