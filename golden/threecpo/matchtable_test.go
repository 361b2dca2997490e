package threecpo

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The table, driven as a NIC drives mcast_match (its Remote-Op-Queue a
// FIFO beside it, in expiry order, returning entries as expire events:
// here the entries the Matcher's own queue expires), pays the tokens and
// keeps the counts of the golden Matcher, over random sends, arrivals
// with varying waits, responses and expiries; nothing is refused while
// the counts stay in range.
func TestMatchTableIsTheMatcher(t *testing.T) {
	for _, members := range []int{1, 3, 7} {
		p := DefaultMatchTableParams()
		p.Members, p.NumConn, p.ConnW, p.CountW = members, 1, 1, 20
		tab, err := NewMatchTable(p)
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewMatcher(p.MatchParams)
		if err != nil {
			t.Fatal(err)
		}
		var sent []uint32 // local requests awaiting responses, in order
		r := rand.New(rand.NewPCG(uint64(members), 9))
		step := func(e MatchEvent) MatchResult {
			var res MatchResult
			tab.StepTo(&e, &res)
			if res.Refused || res.Error {
				t.Fatalf("%d members: %+v refused or an error: %+v", members, e, res)
			}
			return res
		}
		step(MatchEvent{Kind: MatchOpenKind})
		for now := uint64(0); now < 200000; now++ {
			for _, x := range m.Expire(now) { // the NIC's FIFO returns what the Matcher's queue expires
				step(MatchEvent{Kind: MatchExpireKind, Src: uint32(x.Src), Flits: uint32(x.Flits)})
			}
			f := uint32(1 + r.IntN(9))
			lat := uint32(r.IntN(3000))
			switch r.IntN(4) {
			case 0:
				tok, matched := m.SendLocal(f, lat)
				res := step(MatchEvent{Kind: MatchSendKind, Flits: f, Lat: lat})
				if res.Tokens != tok || res.Matched != matched {
					t.Fatalf("send at %d: the table paid %d for %d matched, the Matcher %d for %d", now, res.Tokens, res.Matched, tok, matched)
				}
				sent = append(sent, f)
			case 1:
				src, wait := r.IntN(members), uint64(50+r.IntN(400))
				tok, matched := m.ReceiveRemote(src, f, now, wait, 0, lat)
				res := step(MatchEvent{Kind: MatchRemoteKind, Src: uint32(src), Flits: f, Lat: lat, Now: now, Wait: wait})
				if res.Tokens != tok || res.Matched != matched || res.Expiry != now+wait {
					t.Fatalf("remote at %d: the table paid %d for %d matched (expiry %d), the Matcher %d for %d", now, res.Tokens, res.Matched, res.Expiry, tok, matched)
				}
			case 2:
				if len(sent) > 0 {
					m.Response(sent[0])
					step(MatchEvent{Kind: MatchResponseKind, Flits: sent[0]})
					sent = sent[1:]
				}
			}
			local, unm, out := tab.Counts(0)
			if local != m.LocalFlits || !slices.Equal(unm, m.Unmatched) || !slices.Equal(out, m.Outstanding) {
				t.Fatalf("%d members, cycle %d: table local %d unmatched %v outstanding %v; Matcher %d %v %v", members, now, local, unm, out, m.LocalFlits, m.Unmatched, m.Outstanding)
			}
		}
	}
}

// At narrow counters an event that would take local or an outstanding
// count out of range is refused and changes nothing, and every word keeps
// outstanding <= 0 and outstanding <= unmatched <= local, from which the
// ranges follow.
func TestMatchTableRefusesAndBounds(t *testing.T) {
	p := DefaultMatchTableParams()
	p.Members, p.NumConn, p.ConnW, p.CountW, p.FlitW = 3, 2, 1, 6, 4
	tab, err := NewMatchTable(p)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	refused := map[MatchKind]int{}
	for i := 0; i < 300000; i++ {
		e := MatchEvent{Conn: uint32(r.IntN(2)), Kind: MatchKind(1 + r.IntN(4)), Src: uint32(r.IntN(4)), Flits: uint32(r.IntN(16)), Lat: uint32(r.IntN(4000))}
		if r.IntN(200) == 0 {
			e.Kind = MatchOpenKind
		}
		l0, u0, o0 := tab.Counts(int(e.Conn))
		var res MatchResult
		tab.StepTo(&e, &res)
		l1, u1, o1 := tab.Counts(int(e.Conn))
		if res.Error != (e.Src >= 3 && (e.Kind == MatchRemoteKind || e.Kind == MatchExpireKind)) {
			t.Fatalf("%+v: error %v", e, res.Error)
		}
		if res.Refused || res.Error {
			refused[e.Kind] += map[bool]int{true: 1}[res.Refused]
			if l0 != l1 || !slices.Equal(u0, u1) || !slices.Equal(o0, o1) || res.Tokens != 0 || res.Matched != 0 || res.Expiry != 0 {
				t.Fatalf("%+v refused or an error, but changed the word or paid: %+v", e, res)
			}
		}
		if l1 < 0 || l1 > p.LocalMax() {
			t.Fatalf("local %d out of [0, %d]", l1, p.LocalMax())
		}
		for j := range u1 {
			if o1[j] > 0 || o1[j] < p.OutMin() || u1[j] < o1[j] || u1[j] > l1 {
				t.Fatalf("after %+v, member %d: outstanding %d, unmatched %d, local %d", e, j, o1[j], u1[j], l1)
			}
		}
		if res.Kind == MatchSendKind && !res.Refused && res.Tokens > uint32(1)<<uint(p.TokensW())-1 || res.Matched > uint32(1)<<uint(p.MatchedW())-1 {
			t.Fatalf("%+v: tokens %d, matched %d past their widths", e, res.Tokens, res.Matched)
		}
	}
	for _, k := range []MatchKind{MatchSendKind, MatchRemoteKind, MatchExpireKind} {
		if refused[k] == 0 {
			t.Errorf("no %v was refused", k)
		}
	}
	t.Logf("refused: %v", refused)
}
