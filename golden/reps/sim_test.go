package reps

import "testing"

// Balls-into-bins style sanity tests (S4 Section 5.1, S4:L178-190): a
// closed loop where each EV maps to a path (bin) by ev mod paths, a window
// of packets is in flight, and every acked packet's EV comes back to the
// sender. They check the behaviour the paper claims for the whole
// algorithm, not single rules: recycling concentrates traffic on good
// paths where oblivious spraying (OPS) keeps hitting bad ones, and
// freezing stops the losses on failed paths. The loops are deterministic
// (the LFSR is), so the thresholds are not flaky; the comments give the
// measured values.

const (
	simPaths  = 16
	simBad    = 4 // paths 0..3 are congested or failed: 25% of the EVS
	simWindow = 24
	simSends  = 40_000
)

func badPath(ev uint32) bool { return ev%simPaths < simBad }

// simLoop describes one closed-loop run on connection 0.
type simLoop struct {
	ecnBad   bool                       // acks from bad paths are ECN-marked
	fail     func(i int, v uint32) bool // packet i sent on EV v is lost
	lossKind Kind                       // how a loss is reported: timeout, or nack to hide it from freezing
	growth   int                        // if > 0, one extra send every growth sends: the window grows, the buffer runs dry
	from     int                        // count sends from this send index on
}

// run returns the number of sends on bad paths and of frozen sends from
// send index l.from on.
func (l simLoop) run(s Stepper) (bad, frozen int) {
	type pkt struct {
		ev   uint32
		lost bool
	}
	stepVia(s, ev(0, KindOpen, 0))
	var fifo []pkt
	for i := range simSends {
		now := uint64(i)
		grow := l.growth > 0 && i%l.growth == 0
		if len(fifo) >= simWindow && !grow {
			p := fifo[0]
			fifo = fifo[1:]
			if p.lost {
				stepVia(s, ev(0, l.lossKind, now))
			} else {
				stepVia(s, Event{Conn: 0, Kind: KindAck, EV: p.ev, ECN: l.ecnBad && badPath(p.ev), Now: now})
			}
		}
		r := stepVia(s, ev(0, KindSend, now))
		if i >= l.from {
			if badPath(r.EV) {
				bad++
			}
			if r.Frozen {
				frozen++
			}
		}
		fifo = append(fifo, pkt{ev: r.EV, lost: l.fail != nil && l.fail(i, r.EV)})
	}
	return bad, frozen
}

// opsBad is the OPS baseline: every EV drawn at random from the same LFSR.
func opsBad() int {
	l := LFSR(defaultSeed)
	bad := 0
	for i := range simSends {
		if v := l.Draw(16); i >= simSends/2 && badPath(v) {
			bad++
		}
	}
	return bad
}

// S4:L51 and L163: with ECN on congested paths, REPS stops using them once
// it has recycled good EVs; OPS keeps spraying 25% of packets onto them.
func TestSimRecyclingAvoidsCongestedPaths(t *testing.T) {
	ops := opsBad()
	m := newModel(t, nil)
	reps, _ := simLoop{ecnBad: true, from: simSends / 2}.run(m)
	c := newConf(t, nil)
	conf, _ := simLoop{ecnBad: true, from: simSends / 2}.run(c)
	t.Logf("bad sends in the second half of %d: OPS %d, reps %d, reps_conf %d", simSends, ops, reps, conf)
	half := simSends / 2
	if ops < half*20/100 || ops > half*30/100 {
		t.Fatalf("OPS baseline %d bad of %d, want about 25%%", ops, half)
	}
	if reps > half/100 {
		t.Fatalf("reps sent %d of %d on congested paths, want < 1%%", reps, half)
	}
	if conf > half/100 {
		t.Fatalf("reps_conf sent %d of %d on congested paths, want < 1%%", conf, half)
	}
}

// S4:L53-L64 and L165: a failure makes 25% of paths drop everything from
// send failAt on. Counting the sends on failed paths from the failure to
// the end: OPS loses about 25% throughout; reps recovers either way, as
// lost EVs drop out of circulation, but with freezing (losses reported as
// timeouts) it never explores while recovering, so it loses far fewer
// packets than with freezing defeated (losses reported as nacks), and none
// at all once its buffer holds only good EVs. The window grows by one every
// 16 sends so that the buffer runs dry, which is when an unfrozen REPS
// explores (S4:L55). Measured: reps 170 lost, unfrozen reps 876, late 0.
func TestSimFreezingStopsLosses(t *testing.T) {
	const failAt = 10_000
	fail := func(i int, v uint32) bool { return i >= failAt && badPath(v) }
	mod := func(p *Params) { p.FreezeTime = 1 << 30 } // stays frozen
	ops := opsBad()
	l := simLoop{fail: fail, lossKind: KindTimeout, growth: 16, from: failAt}
	lost, frozen := l.run(newModel(t, mod))
	unfrozen := l
	unfrozen.lossKind = KindNack
	lostUnfrozen, _ := unfrozen.run(newModel(t, mod))
	late := l
	late.from = failAt + simSends/4
	lostLate, frozenLate := late.run(newModel(t, mod))
	t.Logf("sends on failed paths after the failure: OPS (second half) %d, reps %d (frozen sends %d), reps without freezing %d; late reps %d",
		ops, lost, frozen, lostUnfrozen, lostLate)
	if frozenLate != simSends-failAt-simSends/4 {
		t.Fatalf("reps frozen for %d late sends, want all %d", frozenLate, simSends-failAt-simSends/4)
	}
	if lostLate != 0 {
		t.Fatalf("frozen reps still sent %d late packets on failed paths", lostLate)
	}
	if 3*lost >= lostUnfrozen {
		t.Fatalf("freezing did not reduce losses: %d frozen, %d unfrozen", lost, lostUnfrozen)
	}
	if ops < simSends/2*20/100 {
		t.Fatalf("OPS baseline %d", ops)
	}
}
