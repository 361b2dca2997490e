package onerc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// testSPERC is the default parameters on 8 links.
func testSPERC(t *testing.T) (*SPERCModel, SPERCParams) {
	t.Helper()
	p := DefaultSPERCParams()
	p.NumConn, p.ConnW = 8, 3
	m, err := NewSPERCModel(p)
	if err != nil {
		t.Fatal(err)
	}
	return m, p
}

func ctrl(conn uint32, st FlowState, xl, oldW, newW uint64, hop uint32, b []uint64, ign uint32) SPERCEvent {
	e := SPERCEvent{Conn: conn, Kind: SpCtrl, State: st, XL: xl, OldW: oldW, NewW: newW, Hop: hop, Ignore: ign}
	copy(e.B[:], b)
	return e
}

// bWithin checks b against (c - sumE)/numB in reals, from the raw state:
// the divider's bound (2^-(K-1) relative) plus the final floor.
func bWithin(t *testing.T, p SPERCParams, got uint64, w SPERCWord) {
	t.Helper()
	want := (float64(p.CapRate)*math.Ldexp(1, p.InvF) - float64(w.SumE)) / float64(w.NumB)
	if err := math.Abs(float64(got) - want); err > want*math.Ldexp(1, 1-p.K)+1 {
		t.Fatalf("b %d, want %.3f (SumE %d, NumB %d): error %.3f", got, want, w.SumE, w.NumB, err)
	}
}

// TestSPERCLines walks Algorithm 4 on one link, with NumB and SumE
// checked exactly against 1/w tables written out here.
func TestSPERCLines(t *testing.T) {
	m, p := testSPERC(t)
	inf := p.Inf()
	one, half, third := uint64(65536), uint64(32768), uint64(21845) // round(2^16/w), w = 1, 2, 3
	var r SPERCResult
	step := func(e SPERCEvent) SPERCResult {
		m.StepTo(&e, &r)
		if r.Error {
			t.Fatalf("%+v: error", e)
		}
		return r
	}
	others := []uint64{inf, inf, inf, inf}
	// a new flow of weight 1 joins B: NumB 1, b = c, nothing else bounds it
	r = step(ctrl(2, StateNew, 0, 0, 1, 0, others, 0))
	if w := m.Word(2); w.NumB != one || w.SumE != 0 || r.State != StateB || r.E != inf || r.X != r.B || r.Ignore {
		t.Fatalf("new flow: word %+v result %+v", w, r)
	}
	bWithin(t, p, r.B, m.Word(2))
	// a second new flow of weight 2 (its host has 2 connections): NumB 1.5
	r = step(ctrl(2, StateNew, 0, 0, 2, 1, others, 0))
	if w := m.Word(2); w.NumB != one+half {
		t.Fatalf("second flow: NumB %d, want %d", w.NumB, one+half)
	}
	bWithin(t, p, r.B, m.Word(2))
	// the second flow is bottlenecked elsewhere at 100,000 (hop 3, not
	// ignored; hop 2 is ignored and lower): it moves to E with x = e,
	// SumE += x/2, NumB -= 1/2, MaxE = x
	bs := []uint64{inf, 0, 50000, 100000}
	r = step(ctrl(2, StateB, 0, 2, 2, 1, bs, 1<<2))
	if r.E != 100000 || r.X != 100000 || r.State != StateE {
		t.Fatalf("bottlenecked elsewhere: %+v", r)
	}
	if w := m.Word(2); w.SumE != 100000*half || w.NumB != one || w.MaxE != 100000 || w.MaxE2 != 100000 {
		t.Fatalf("after E: %+v", w)
	}
	// the first flow's weight goes 1 -> 3: NumB - 1 + 1/3; b = (c - SumE) / (1/3)
	r = step(ctrl(2, StateB, 0, 1, 3, 0, others, 0))
	if w := m.Word(2); w.NumB != third {
		t.Fatalf("weight change: NumB %d, want %d", w.NumB, third)
	}
	// b per unit of weight, (800000 - 50000) x 3: above c
	if r.B <= p.CapRate {
		t.Fatalf("b %d: want about 2,250,000", r.B)
	}
	bWithin(t, p, r.B, m.Word(2))
	// the E flow comes back: SumE - x/2 = 0, NumB + 1/2; the ignore bit
	// says b is below MaxE
	r = step(ctrl(2, StateE, 100000, 2, 2, 1, others, 0))
	if w := m.Word(2); w.SumE != 0 || w.NumB != third+half {
		t.Fatalf("back to B: %+v", w)
	}
	bWithin(t, p, r.B, m.Word(2))
	if r.Ignore != (r.B < 100000) {
		t.Fatalf("ignore %v with b %d and MaxE 100000", r.Ignore, r.B)
	}
	// both leave: the link is empty again, exactly
	step(SPERCEvent{Conn: 2, Kind: SpCtrl, State: StateB, OldW: 2, NewW: 2, Hop: 1, Leaving: true, B: [MaxHops]uint64{inf, inf, inf, inf}})
	step(SPERCEvent{Conn: 2, Kind: SpCtrl, State: StateB, OldW: 3, NewW: 3, Hop: 0, Leaving: true, B: [MaxHops]uint64{inf, inf, inf, inf}})
	if w := m.Word(2); w.SumE != 0 || w.NumB != 0 {
		t.Fatalf("after both left: %+v", w)
	}
	// other links were never touched
	for l := 0; l < p.NumConn; l++ {
		if l != 2 && m.Word(l) != (SPERCWord{}) {
			t.Fatalf("link %d: %+v", l, m.Word(l))
		}
	}
}

// TestSPERCRounds: MaxE' becomes MaxE after one round; a round with no
// packet clears both; open clears the link.
func TestSPERCRounds(t *testing.T) {
	m, p := testSPERC(t)
	inf := p.Inf()
	var r SPERCResult
	e := ctrl(0, StateNew, 0, 0, 1, 0, []uint64{inf, 1000, inf, inf}, 0)
	e.Round = 5
	m.StepTo(&e, &r) // e = 1000 < b: E, MaxE = MaxE' = 1000
	if w := m.Word(0); w.MaxE != 1000 || w.MaxE2 != 1000 || w.Round != 5 {
		t.Fatalf("round 5: %+v", w)
	}
	probe := func(round uint64) SPERCWord {
		e := ctrl(0, StateE, r.X, 1, 1, 0, []uint64{inf, inf, inf, inf}, 0)
		e.Round = round
		m.StepTo(&e, &r)
		e = ctrl(0, StateB, 0, 1, 1, 0, []uint64{inf, 2000, inf, inf}, 0) // back to E at 2000
		e.Round = round
		m.StepTo(&e, &r)
		return m.Word(0)
	}
	if w := probe(6); w.MaxE != 2000 || w.MaxE2 != 2000 {
		t.Fatalf("round 6: %+v", w) // MaxE' 1000 moved to MaxE, then both raised to 2000
	}
	e = ctrl(0, StateE, 2000, 1, 1, 0, []uint64{inf, 500, inf, inf}, 0)
	e.Round = 7
	m.StepTo(&e, &r) // E again at 500: MaxE = max(500, 2000 from round 6), MaxE' = 500
	if w := m.Word(0); w.MaxE != 2000 || w.MaxE2 != 500 {
		t.Fatalf("round 7: %+v", w)
	}
	e = ctrl(0, StateE, 500, 1, 1, 0, []uint64{inf, inf, inf, inf}, 0)
	e.Round = 9 // round 8 had no packet
	m.StepTo(&e, &r)
	if w := m.Word(0); w.MaxE != 0 || w.MaxE2 != 0 {
		t.Fatalf("round 9: %+v", w)
	}
	e.Round = 9 + 255 // wraps to 8: a step back reads as many rounds
	m.StepTo(&e, &r)
	if w := m.Word(0); w.Round != 8 {
		t.Fatalf("wrapped round: %+v", w)
	}
	m.StepTo(&SPERCEvent{Conn: 0, Kind: SpOpen, Round: 3}, &r)
	if w := m.Word(0); w != (SPERCWord{Round: 3}) || r.Error {
		t.Fatalf("open: %+v %+v", w, r)
	}
}

// TestSPERCErrors: every malformed event is an error result that changes
// nothing.
func TestSPERCErrors(t *testing.T) {
	m, p := testSPERC(t)
	inf := p.Inf()
	var r SPERCResult
	good := ctrl(1, StateNew, 0, 0, 1, 0, []uint64{inf, inf, inf, inf}, 0)
	m.StepTo(&good, &r)
	before := m.Word(1)
	bad := []SPERCEvent{
		{Conn: 8, Kind: SpCtrl, NewW: 1},                    // no such link
		{Conn: 1, Kind: 1 << 1, NewW: 1},                    // kind 2 masks to 0 with KindW 1: an open, not an error
		ctrl(1, StateB, 0, 1, 0, 0, nil, 0),                 // new_weight 0
		ctrl(1, StateB, 0, 0, 1, 0, nil, 0),                 // old_weight 0 in B
		ctrl(1, StateE, 5, 0, 1, 0, nil, 0),                 // old_weight 0 in E
		ctrl(1, 3, 0, 1, 1, 0, nil, 0),                      // state 3
		{Conn: 1 | 8, Kind: SpCtrl, NewW: 1, State: StateB}, // conn masks to 1 with ConnW 3... and is fine
	}
	for i, e := range bad {
		if i == 1 || i == 6 {
			continue // not errors: kept to document the masking
		}
		m.StepTo(&e, &r)
		if !r.Error || r.B != 0 || r.X != 0 || r.Ignore || r.State != 0 {
			t.Errorf("event %d %+v: result %+v, want an error with every field 0", i, e, r)
		}
		if m.Word(1) != before {
			t.Errorf("event %d changed the link: %+v", i, m.Word(1))
		}
	}
	// a hop beyond the vectors, when the port can hold one
	q := p
	q.Hops = 3
	m3, err := NewSPERCModel(q)
	if err != nil {
		t.Fatal(err)
	}
	e := ctrl(1, StateNew, 0, 0, 1, 3, nil, 0)
	if m3.StepTo(&e, &r); !r.Error || m3.Word(1) != (SPERCWord{}) {
		t.Errorf("hop 3 of 3: result %+v, word %+v", r, m3.Word(1))
	}
	// an old_weight of 0 on a new flow is fine (lines 8-13 do not use it)
	m.StepTo(&good, &r)
	if r.Error {
		t.Error("new flow with old_weight 0: error")
	}
}

// flowSpec is a flow of the max-min test: the links it crosses, in order,
// and its weight (its host's connection count).
type flowSpec struct {
	links  []int
	weight int
}

// waterFill is the weighted max-min fair allocation, computed apart from
// s-PERC: raise a common level t, each unfrozen flow taking t/weight,
// until a link fills; freeze its flows; repeat. It returns each flow's
// level (rate x weight), which is what s-PERC's b counts.
func waterFill(caps []float64, flows []flowSpec) []float64 {
	level := make([]float64, len(flows))
	frozen := make([]bool, len(flows))
	left := append([]float64(nil), caps...)
	for {
		best, bl := math.Inf(1), -1
		for l := range caps {
			s := 0.0
			for k, f := range flows {
				if !frozen[k] && contains(f.links, l) {
					s += 1 / float64(f.weight)
				}
			}
			if s > 0 && left[l]/s < best {
				best, bl = left[l]/s, l
			}
		}
		if bl < 0 {
			return level
		}
		for k, f := range flows {
			if !frozen[k] && contains(f.links, bl) {
				frozen[k], level[k] = true, best
				for _, l := range f.links {
					left[l] -= best / float64(f.weight)
				}
			}
		}
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// packet is a flow's control packet between rounds: its vectors.
type packet struct {
	b, x []float64
	s    []FlowState
	i    []bool
}

// runSPERC sends every flow's control packet through its links once per
// round, in flow order, for rounds rounds, on the fixed-point model (fx;
// one model per link, as each has its own capacity) or the float64
// reference, and returns each flow's level: the least b of its path.
func runSPERC(t *testing.T, p SPERCParams, caps []float64, flows []flowSpec, rounds int, fx bool) []float64 {
	t.Helper()
	models := make([]*SPERCModel, len(caps))
	floats := make([]*SPERCFloat, len(caps))
	for l, c := range caps {
		q := p
		q.CapRate = uint64(c)
		var err error
		if models[l], err = NewSPERCModel(q); err != nil {
			t.Fatal(err)
		}
		floats[l] = NewSPERCFloat(1, c)
	}
	inf := math.Inf(1)
	pk := make([]packet, len(flows))
	for k, fl := range flows {
		n := len(fl.links)
		pk[k] = packet{b: make([]float64, n), x: make([]float64, n), s: make([]FlowState, n), i: make([]bool, n)}
		for h := range fl.links {
			pk[k].b[h], pk[k].s[h], pk[k].i[h] = inf, StateNew, true
		}
	}
	fromFx := func(v uint64) float64 {
		if v == p.Inf() {
			return inf
		}
		return float64(v)
	}
	for round := 0; round < rounds; round++ {
		for k, fl := range flows {
			q := &pk[k]
			w := uint64(fl.weight)
			for h, l := range fl.links {
				if !fx {
					b, x, _, ign, st := floats[l].Step(0, FloatPacket{Round: uint64(round), State: q.s[h], XL: q.x[h],
						OldW: float64(w), NewW: float64(w), Hop: h, B: q.b, Ignore: q.i})
					q.b[h], q.x[h], q.i[h], q.s[h] = b, x, ign, st
					continue
				}
				e := SPERCEvent{Kind: SpCtrl, Round: uint64(round), State: q.s[h], XL: uint64(q.x[h]), OldW: w, NewW: w, Hop: uint32(h)}
				for j := 0; j < p.Hops; j++ {
					e.B[j] = p.Inf()
					if j < len(fl.links) && !math.IsInf(q.b[j], 1) {
						e.B[j] = uint64(q.b[j])
					}
					if j >= len(fl.links) || q.i[j] {
						e.Ignore |= 1 << uint(j)
					}
				}
				var r SPERCResult
				models[l].StepTo(&e, &r)
				if r.Error {
					t.Fatalf("flow %d at link %d: error", k, l)
				}
				q.b[h], q.x[h], q.i[h], q.s[h] = fromFx(r.B), fromFx(r.X), r.Ignore, r.State
			}
		}
	}
	out := make([]float64, len(flows))
	for k := range flows {
		out[k] = inf
		for _, b := range pk[k].b {
			out[k] = math.Min(out[k], b)
		}
	}
	return out
}

// TestSPERCMaxMin: s-PERC's levels reach the weighted max-min fair
// allocation, computed by water-filling, on the textbook example and on
// random networks: the float64 reference to 1e-9, the fixed-point model
// within its table and divider error.
func TestSPERCMaxMin(t *testing.T) {
	p := DefaultSPERCParams()
	check := func(name string, caps []float64, flows []flowSpec, rounds int) {
		t.Helper()
		want := waterFill(caps, flows)
		fl := runSPERC(t, p, caps, flows, rounds, false)
		fx := runSPERC(t, p, caps, flows, rounds, true)
		for k := range flows {
			if math.Abs(fl[k]-want[k]) > 1e-9*want[k] {
				t.Fatalf("%s: float64 flow %d level %.6f, water-filling %.6f", name, k, fl[k], want[k])
			}
			// 1/w rounds to 2^-InvF (w/2^(InvF+1) relative, at most
			// 0.2% at w = 255), the divider 2^-(K-1), and each hop's
			// floor 1 unit: 1% of the level and 4 units are far above them
			if math.Abs(fx[k]-want[k]) > 0.01*want[k]+4 {
				t.Fatalf("%s: fixed point flow %d level %.1f, water-filling %.3f", name, k, fx[k], want[k])
			}
		}
	}
	// three flows on link 1 (capacity 10 Gb/s in Mb/s), one of which also
	// crosses link 0 with a fourth: link 1 gives 3333 each, link 0 the rest
	check("textbook", []float64{10000, 10000}, []flowSpec{{[]int{0}, 1}, {[]int{0, 1}, 1}, {[]int{1}, 1}, {[]int{1}, 1}}, 10)
	// weights: a host with 3 connections counts 1/3
	check("weighted", []float64{10000, 10000}, []flowSpec{{[]int{0}, 1}, {[]int{0, 1}, 3}, {[]int{1}, 1}, {[]int{1}, 2}}, 10)
	rng := rand.New(rand.NewPCG(7, 11))
	for n := 0; n < 300; n++ {
		nl := 2 + rng.IntN(5)
		caps := make([]float64, nl)
		for l := range caps {
			caps[l] = float64(1000 + rng.IntN(400000))
		}
		flows := make([]flowSpec, 1+rng.IntN(10))
		for k := range flows {
			perm := rng.Perm(nl)
			flows[k] = flowSpec{links: perm[:1+rng.IntN(min(nl, p.Hops))], weight: 1 + rng.IntN(8)}
		}
		check(fmt.Sprintf("random %d", n), caps, flows, 30)
	}
}
