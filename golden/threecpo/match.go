package threecpo

import (
	"fmt"
	"slices"
)

// This file is multicast matching at one GPU (§7.9, S3:L1607-1663): a GPU
// that sends multicast requests on a group and receives the other
// members' requests on it infers N concurrent senders and pays, for each
// packet, the flits of the remote packets it matches, so that each sender
// injects about once every N x flits cycles (Fig. 6.4). One Matcher is one
// traffic class (request or response); the GPU runs one of each.
//
// Units: the thesis keeps unmatched in flits and compares it with
// LocalOps and outstanding, which count operations; that is consistent
// only for 1-flit requests. Here all three are in flits (LocalFlits:
// flits of the local requests whose responses are due; outstanding:
// flits), and the expiry rule "unmatched += 1 while below outstanding"
// becomes unmatched = max(unmatched, outstanding), the same for 1-flit
// requests. The remote matching tokens are paid when the local request
// is sent (for remote flits already received) and when a remote request
// arrives (for local flits already sent), both as S3:L1641 describes.

// MatchParams configures a matcher.
type MatchParams struct {
	Members int // other GPUs of the multicast group (N - 1)
	// MI: the remote-op token cost factor from the measured collective
	// latency (S3:L1661-1663): MILow below MILoLat cycles, linear to 1 at
	// MIHiLat, 1 above. The factor is applied to the matched flits and
	// the product rounded up, so that a matched flit is never free.
	MILoLat, MIHiLat uint32
	MILowNum, MIDen  uint32 // MILow = MILowNum / MIDen (0.8 = 4/5)
}

// DefaultMatchParams: a 64-GPU group (§7.8) and the thesis's three
// parameters 1,000, 2,000 and 0.8 (S3:L1784).
func DefaultMatchParams() MatchParams {
	return MatchParams{Members: 63, MILoLat: 1000, MIHiLat: 2000, MILowNum: 4, MIDen: 5}
}

// Validate reports what is out of range.
func (p MatchParams) Validate() error {
	switch {
	case p.Members < 1:
		return fmt.Errorf("threecpo: %d members: want at least 1", p.Members)
	case p.MILoLat >= p.MIHiLat:
		return fmt.Errorf("threecpo: the MI ramp's low latency %d is not below its high latency %d", p.MILoLat, p.MIHiLat)
	case p.MIDen == 0 || p.MILowNum > p.MIDen:
		return fmt.Errorf("threecpo: the MI factor below the ramp, %d/%d: want a fraction of 0 to 1", p.MILowNum, p.MIDen)
	}
	return nil
}

// MICost is the tokens paid for matched flits at collective latency lat:
// ceil(matched * factor(lat)), factor = MILow below MILoLat, 1 above
// MIHiLat, linear between, computed exactly in integers.
func (p MatchParams) MICost(matched, lat uint32) uint32 {
	lo, span := uint64(p.MILowNum), uint64(p.MIDen)
	// factor = (lo*(hi-l) + den*(l-lo_lat)) / (den*(hi-lo_lat)) on the ramp
	switch {
	case lat <= p.MILoLat:
		return uint32(ceilDiv(uint64(matched)*lo, span))
	case lat >= p.MIHiLat:
		return matched
	}
	w := uint64(p.MIHiLat - p.MILoLat)
	num := lo*uint64(p.MIHiLat-lat) + span*uint64(lat-p.MILoLat)
	return uint32(ceilDiv(uint64(matched)*num, span*w))
}

func ceilDiv(a, b uint64) uint64 { return (a + b - 1) / b }

// RemoteOp is a Remote-Op-Queue entry.
type RemoteOp struct {
	Src    int // the member
	Flits  int64
	Expiry uint64
}

// Matcher is one traffic class's matching state.
type Matcher struct {
	p           MatchParams
	Unmatched   []int64 // per member, flits: sent minus received, bounded as below
	Outstanding []int64 // per member, flits of its requests in the queue, negated
	LocalFlits  int64   // flits of local requests awaiting their responses
	queue       []RemoteOp
}

// NewMatcher is a matcher with nothing sent or received.
func NewMatcher(p MatchParams) (*Matcher, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Matcher{p: p, Unmatched: make([]int64, p.Members), Outstanding: make([]int64, p.Members)}, nil
}

// SendLocal is a local multicast request of f flits: every member's
// remote flits not yet matched (a negative unmatched) match it, up to f
// each. It returns the tokens to pay: f plus MICost of the matched flits.
func (m *Matcher) SendLocal(f uint32, lat uint32) (tokens uint32, matched uint32) {
	for j := range m.Unmatched {
		if u := m.Unmatched[j]; u < 0 {
			matched += uint32(min(int64(f), -u))
		}
		m.Unmatched[j] += int64(f)
	}
	m.LocalFlits += int64(f)
	return f + m.p.MICost(matched, lat), matched
}

// ReceiveRemote is member src's multicast request of f flits arriving at
// cycle now: local flits not yet matched (a positive unmatched) match
// it, up to f; it is queued until now + rtt + delay. It returns the
// tokens to pay for the match.
func (m *Matcher) ReceiveRemote(src int, f uint32, now, rtt, delay uint64, lat uint32) (tokens uint32, matched uint32) {
	if u := m.Unmatched[src]; u > 0 {
		matched = uint32(min(int64(f), u))
	}
	m.Unmatched[src] -= int64(f)
	m.Outstanding[src] -= int64(f)
	// keep the queue in expiry order, arrivals of one expiry in arrival
	// order: an entry usually expires after every queued one, so the
	// search from the back is short
	e := RemoteOp{Src: src, Flits: int64(f), Expiry: now + rtt + delay}
	i := len(m.queue)
	for i > 0 && m.queue[i-1].Expiry > e.Expiry {
		i--
	}
	m.queue = slices.Insert(m.queue, i, e)
	return m.p.MICost(matched, lat), matched
}

// Response is the response to a local request of f flits: the local
// flits awaiting responses fall, and no member's unmatched may exceed
// them ("elements in the unmatched array cannot exceed the number of
// outstanding operations").
func (m *Matcher) Response(f uint32) {
	m.LocalFlits = max(m.LocalFlits-int64(f), 0)
	for j := range m.Unmatched {
		m.Unmatched[j] = min(m.Unmatched[j], m.LocalFlits)
	}
}

// Expire retires every queue entry whose expiry is at or before now, in
// expiry order: its member's outstanding rises by its flits, and its
// unmatched is raised to outstanding if below (S3:L1652-1659). It
// returns the entries expired, in that order (what a NIC whose queue is
// beside the mcast_match block returns to it as expire events), valid
// until the next call.
func (m *Matcher) Expire(now uint64) []RemoteOp {
	n := 0
	for n < len(m.queue) && m.queue[n].Expiry <= now {
		e := m.queue[n]
		m.Outstanding[e.Src] += e.Flits
		m.Unmatched[e.Src] = max(m.Unmatched[e.Src], m.Outstanding[e.Src])
		n++
	}
	done := m.queue[:n:n]
	m.queue = m.queue[n:]
	return done
}

// Queued is the number of entries in the Remote-Op-Queue.
func (m *Matcher) Queued() int { return len(m.queue) }
