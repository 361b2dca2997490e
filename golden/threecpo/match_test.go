package threecpo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The multicast MI factor (S3:L1661-1663): 0.8 below 1,000 cycles, 1.0
// above 2,000, linear between; matched flits times it, rounded up.
func TestMICost(t *testing.T) {
	p := DefaultMatchParams()
	for _, c := range []struct{ matched, lat, want uint32 }{
		{10, 500, 8}, {10, 1000, 8}, {5, 500, 4}, {1, 500, 1},
		{10, 1500, 9}, {10, 1250, 9}, {100, 1250, 85}, {100, 1750, 95},
		{10, 2000, 10}, {10, 9000, 10}, {0, 1500, 0},
	} {
		if got := p.MICost(c.matched, c.lat); got != c.want {
			t.Errorf("MICost(%d flits, latency %d) = %d, want %d", c.matched, c.lat, got, c.want)
		}
	}
	// never below the exact product, and less than one token above it
	for lat := uint32(0); lat <= 3000; lat += 7 {
		f := 0.8
		if lat >= 2000 {
			f = 1
		} else if lat > 1000 {
			f = 0.8 + 0.2*float64(lat-1000)/1000
		}
		for matched := uint32(0); matched < 600; matched += 13 {
			exact := float64(matched) * f
			if got := float64(p.MICost(matched, lat)); got < exact-1e-9 || got >= exact+1 {
				t.Fatalf("MICost(%d, %d) = %g, exact %g", matched, lat, got, exact)
			}
		}
	}
}

// collective runs n GPUs that each always have a multicast request of
// flits flits to send on the group, each behind its own IRL unit at
// WM_MAX (a token every cycle) and its own matcher, with packets reaching
// the other members hop cycles after they go and responses coming back
// after 2 hop. It returns the mean cycles between one GPU's sends.
func collective(t *testing.T, n int, flits uint32, hop uint64, cycles int) float64 {
	t.Helper()
	mp := MatchParams{Members: n - 1, MILoLat: 1000, MIHiLat: 2000, MILowNum: 4, MIDen: 5}
	const lat = 3000 // MI factor 1: each matched flit costs a token
	type arrival struct {
		at  uint64
		src int
	}
	type gpu struct {
		tokens  int32
		m       *Matcher
		inbox   []arrival
		resp    []uint64
		sends   []uint64
		members []int // member index of GPU g at this GPU
	}
	gpus := make([]*gpu, n)
	for g := range gpus {
		m, err := NewMatcher(mp)
		if err != nil {
			t.Fatal(err)
		}
		gpus[g] = &gpu{tokens: 1, m: m}
	}
	member := func(at, g int) int { // the others, in order, skipping at
		if g > at {
			return g - 1
		}
		return g
	}
	for now := uint64(0); now < uint64(cycles); now++ {
		for g, x := range gpus {
			x.m.Expire(now)
			for len(x.resp) > 0 && x.resp[0] <= now {
				x.m.Response(flits)
				x.resp = x.resp[1:]
			}
			kept := x.inbox[:0]
			for _, a := range x.inbox {
				if a.at <= now {
					tok, _ := x.m.ReceiveRemote(member(g, a.src), flits, now, 2*hop, 0, lat)
					x.tokens -= int32(tok)
				} else {
					kept = append(kept, a)
				}
			}
			x.inbox = kept
			if x.tokens >= 1 {
				tok, _ := x.m.SendLocal(flits, lat)
				x.tokens -= int32(tok)
				x.sends = append(x.sends, now)
				x.resp = append(x.resp, now+2*hop)
				for h, y := range gpus {
					if h != g {
						y.inbox = append(y.inbox, arrival{now + hop, g})
					}
				}
			}
			x.tokens++ // WM = WM_MAX: a token every cycle
		}
	}
	var mean float64
	for _, x := range gpus {
		s := x.sends[len(x.sends)/2:] // steady state: the second half
		mean += float64(s[len(s)-1]-s[0]) / float64(len(s)-1)
	}
	return mean / float64(n)
}

// Matching spaces each sender's multicast injection to about N x flits
// cycles with N concurrent senders (S3:L1611, Fig. 6.4): within 10%.
func TestMatchingSpacesSenders(t *testing.T) {
	for _, c := range []struct {
		n     int
		flits uint32
	}{{2, 5}, {4, 5}, {8, 9}, {16, 9}} {
		got := collective(t, c.n, c.flits, 30, 40_000)
		want := float64(c.n) * float64(c.flits)
		if math.Abs(got-want) > 0.1*want {
			t.Errorf("%d senders of %d-flit packets: one send every %.1f cycles, want about %g", c.n, c.flits, got, want)
		}
		t.Logf("%d senders of %d-flit packets: one send every %.2f cycles (N x flits = %g)", c.n, c.flits, got, want)
	}
}

// Under random sends, arrivals, responses and expiries the rules keep
// unmatched >= outstanding for every member, unmatched <= LocalFlits
// after every response, outstanding <= 0, and the queue holding exactly
// the flits outstanding counts.
func TestMatchInvariants(t *testing.T) {
	p := DefaultMatchParams()
	p.Members = 7
	m, err := NewMatcher(p)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	var due []uint32 // flits of local requests awaiting responses
	now := uint64(0)
	for i := range 300_000 {
		now += uint64(rng.IntN(4))
		f := uint32(1 + rng.IntN(9))
		switch rng.IntN(4) {
		case 0:
			tok, matched := m.SendLocal(f, uint32(rng.IntN(3000)))
			if tok < f || matched > f*uint32(p.Members) {
				t.Fatalf("event %d: send of %d flits paid %d tokens for %d matched", i, f, tok, matched)
			}
			due = append(due, f)
		case 1:
			_, matched := m.ReceiveRemote(rng.IntN(p.Members), f, now, uint64(50+rng.IntN(200)), uint64(rng.IntN(40)), 1500)
			if matched > f {
				t.Fatalf("event %d: %d flits matched of %d", i, matched, f)
			}
		case 2:
			if len(due) > 0 {
				m.Response(due[0])
				due = due[1:]
				for j, u := range m.Unmatched {
					if u > m.LocalFlits {
						t.Fatalf("event %d: unmatched[%d] %d above the local flits %d after a response", i, j, u, m.LocalFlits)
					}
				}
			}
		case 3:
			m.Expire(now)
		}
		var queued int64
		for _, e := range m.queue {
			queued += e.Flits
		}
		var out int64
		for j := range m.Unmatched {
			if m.Unmatched[j] < m.Outstanding[j] {
				t.Fatalf("event %d: unmatched[%d] %d below outstanding %d", i, j, m.Unmatched[j], m.Outstanding[j])
			}
			if m.Outstanding[j] > 0 {
				t.Fatalf("event %d: outstanding[%d] %d > 0", i, j, m.Outstanding[j])
			}
			out += m.Outstanding[j]
		}
		if queued != -out {
			t.Fatalf("event %d: queue holds %d flits, outstanding sums to %d", i, queued, out)
		}
	}
}
