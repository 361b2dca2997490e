package threecpo

import (
	"math/rand"
	"testing"
)

// listLRU is least-recently-used arbitration kept as a list, least
// recently granted first: the definition the age matrix must agree with.
type listLRU []int

func (l listLRU) grant(eligible uint32) (listLRU, bool, int) {
	for k, vc := range l {
		if eligible>>uint(vc)&1 == 1 {
			next := append(append(append(listLRU{}, l[:k]...), l[k+1:]...), vc)
			return next, true, vc
		}
	}
	return l, false, 0
}

// The age matrix grants what the list grants, from the open's order (0, 1,
// ..., V-1) over random eligibility, for every VC count.
func TestArbLRUIsTheList(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for vcs := 2; vcs <= MaxArbVCs; vcs++ {
		p := ArbParams{VCs: vcs, Policy: ArbLRU}
		s := p.ArbOpen()
		l := listLRU{}
		for i := 0; i < vcs; i++ {
			l = append(l, i)
		}
		for step := 0; step < 20000; step++ {
			e := r.Uint32() & r.Uint32() // often few eligible
			if step%7 == 0 {
				e = 0
			}
			var g1, g2 bool
			var v1, v2 int
			s, g1, v1 = ArbStep(p, s, e)
			l, g2, v2 = l.grant(e & (uint32(1)<<uint(vcs) - 1))
			if g1 != g2 || v1 != v2 {
				t.Fatalf("%d VCs, step %d, eligible %b: matrix granted %v %d, the list %v %d (list %v)", vcs, step, e, g1, v1, g2, v2, l)
			}
		}
	}
}

// Round robin grants the first eligible VC at or after the pointer,
// wrapping, and moves the pointer past the grant: checked against a scan.
func TestArbRoundRobin(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for vcs := 2; vcs <= MaxArbVCs; vcs++ {
		p := ArbParams{VCs: vcs, Policy: ArbRoundRobin}
		s := p.ArbOpen()
		ptr := 0
		for step := 0; step < 5000; step++ {
			e := r.Uint32() & r.Uint32() & (uint32(1)<<uint(vcs) - 1)
			want, any := 0, false
			for k := 0; k < vcs && !any; k++ {
				if vc := (ptr + k) % vcs; e>>uint(vc)&1 == 1 {
					want, any = vc, true
				}
			}
			var g bool
			var v int
			s, g, v = ArbStep(p, s, e)
			if g != any || v != want {
				t.Fatalf("%d VCs, pointer %d, eligible %b: granted %v %d, want %v %d", vcs, ptr, e, g, v, any, want)
			}
			if any {
				ptr = (want + 1) % vcs
			}
			if s != uint64(ptr) {
				t.Fatalf("%d VCs: pointer %d, want %d", vcs, s, ptr)
			}
		}
	}
}

// From any word, orders or not (a power-on table), a step grants whenever
// a VC is eligible, an eligible one, and leaves an order in which the
// grant is the most recent.
func TestArbAnyWordGrants(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, vcs := range []int{2, 3, 4, 7} {
		for _, pol := range []ArbPolicy{ArbLRU, ArbRoundRobin} {
			p := ArbParams{VCs: vcs, Policy: pol}
			for n := 0; n < 20000; n++ {
				s := r.Uint64() & (uint64(1)<<uint(p.StateW()) - 1)
				e := r.Uint32() & (uint32(1)<<uint(vcs) - 1)
				next, g, v := ArbStep(p, s, e)
				if g != (e != 0) || g && e>>uint(v)&1 == 0 {
					t.Fatalf("%v, %d VCs, word %b, eligible %b: granted %v %d", pol, vcs, s, e, g, v)
				}
				if g && pol == ArbLRU {
					for j := 0; j < vcs; j++ {
						if j != v && !p.older(next, j, v) {
							t.Fatalf("%d VCs, word %b: after granting %d, %d is not older", vcs, s, v, j)
						}
					}
				}
			}
		}
	}
}

// injection runs InjectionGrants with the golden arbiter of policy pol.
func injection(t *testing.T, pol ArbPolicy, wm uint32, n int) [3]int {
	p := ArbParams{VCs: 3, Policy: pol}
	s := p.ArbOpen()
	grants, err := InjectionGrants(wm, n, 100, func(eligible uint32) (int, error) {
		var v int
		s, _, v = ArbStep(p, s, eligible)
		return v, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return grants
}

// Round robin starves the write VC in the thesis's situation and LRU does
// not: the response VC, always eligible, takes the cycles in which the
// tokens are short and leaves the pointer at the read VC, which then takes
// every cycle in which they suffice. Under LRU the two request VCs share
// those cycles (within one grant of each other).
func TestArbStarvation(t *testing.T) {
	for _, wm := range []uint32{2468, 1234, 300} {
		rr := injection(t, ArbRoundRobin, wm, 100000)
		lru := injection(t, ArbLRU, wm, 100000)
		t.Logf("watermark %d: round robin %v, LRU %v (responses, reads, writes)", wm, rr, lru)
		if rr[1] < 1000 || rr[2] != 0 {
			t.Errorf("watermark %d: round robin granted reads %d and writes %d times; the thesis's starvation is writes never", wm, rr[1], rr[2])
		}
		if d := lru[1] - lru[2]; d < -1 || d > 1 || lru[2] < 1000 {
			t.Errorf("watermark %d: LRU granted reads %d and writes %d times, want equal shares", wm, lru[1], lru[2])
		}
	}
}
