package hotspot

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/golden/srp"
)

// TestStudyClaims runs S2's comparison on the default network (64 hosts,
// 40:1 hot spot, 23 victims at 40% load, 1 ms) and requires S2's three
// claims within their margins.
func TestStudyClaims(t *testing.T) {
	st, err := RunStudy(Default(SRP), GoldenModels)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	st.WriteClaims(&b)
	WriteTable(&b, st.Runs)
	t.Log("\n" + b.String())
	if !st.Holds() {
		t.Fatal("a claim does not hold")
	}
}

// noSchedule is a reservation scheduler that grants every reservation at
// once: SRP without its schedule.
type noSchedule struct{ RxStepper }

func (n noSchedule) StepTo(e *srp.RxEvent, r *srp.RxResult) {
	n.RxStepper.StepTo(e, r)
	if e.Kind == srp.RxReserve {
		r.Ts, r.Delay = e.Now, 0
	}
}

// TestStudyCanFail breaks the receiver's schedule (every grant is "now")
// and requires the victim-latency and hot-spot-rate claims to fail: the
// claims measure the protocol, not the simulator.
func TestStudyCanFail(t *testing.T) {
	cfg := Default(SRP)
	cfg.DurationNs, cfg.WarmupNs = 400_000, 100_000
	st, err := RunStudy(cfg, func(c Config) (Models, error) {
		m, err := GoldenModels(c)
		m.Rx = noSchedule{m.Rx}
		return m, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Claims[0].Holds || st.Claims[1].Holds {
		var b strings.Builder
		st.WriteClaims(&b)
		t.Fatalf("SRP without its schedule still passes:\n%s", b.String())
	}
}

// TestZeroLoad has two victims send to each other at 30% load through an
// otherwise silent network: nothing contends with its packets, so every one must take
// exactly its zero-load latency (links, routers, one serialisation),
// computed from the topology, under every CC.
func TestZeroLoad(t *testing.T) {
	for _, cc := range []CC{None, ECN, SRP} {
		cfg := Default(cc)
		cfg.HotspotIdle, cfg.HotspotSenders, cfg.VictimLoad = true, cfg.Hosts()-3, 0.3
		cfg.DurationNs, cfg.WarmupNs = 500_000, 0
		m, err := GoldenModels(cfg)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(cfg, m)
		if err != nil {
			t.Fatal(err)
		}
		cross := 4*cfg.LinkNs + 3*cfg.RouterNs + cfg.PacketNs()
		local := 2*cfg.LinkNs + cfg.RouterNs + cfg.PacketNs()
		if r.Victims != 2 || r.VictimMsgs < 50 || math.Abs(r.VictimLatencyNs-r.VictimZeroLoadNs) > 0.5 || r.VictimLatencyMaxNs > cross+0.5 ||
			r.VictimZeroLoadNs < local || r.VictimZeroLoadNs > cross {
			t.Fatalf("%s: %d messages, in-flight %.1f ns (max %.1f), zero-load %.1f ns; paths take %.1f or %.1f ns", cc, r.VictimMsgs, r.VictimLatencyNs, r.VictimLatencyMaxNs, r.VictimZeroLoadNs, local, cross)
		}
		if cc == SRP && (r.SpecDropped != 0 || r.Reservations == 0) {
			t.Fatalf("srp at zero load: %d reservations, %d speculative drops", r.Reservations, r.SpecDropped)
		}
	}
}

// TestDeterministic: the same configuration gives the same run; another
// seed another one.
func TestDeterministic(t *testing.T) {
	cfg := Default(SRP)
	cfg.DurationNs, cfg.WarmupNs = 200_000, 50_000
	run := func(c Config) *Result {
		m, err := GoldenModels(c)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(c, m)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := run(cfg), run(cfg)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs of one configuration differ")
	}
	cfg.Seed++
	if c := run(cfg); reflect.DeepEqual(a, c) {
		t.Fatal("another seed gives the same run")
	}
}

// TestValidate: configurations the simulator cannot run are errors.
func TestValidate(t *testing.T) {
	for name, f := range map[string]func(c *Config){
		"no hosts":         func(c *Config) { c.Leaves = 0 },
		"hot spot outside": func(c *Config) { c.Hotspot = 64 },
		"too many senders": func(c *Config) { c.HotspotSenders = 64 },
		"load above 1":     func(c *Config) { c.VictimLoad = 1.5 },
		"NaN load":         func(c *Config) { c.VictimLoad = math.NaN() },
		"warm-up past end": func(c *Config) { c.WarmupNs = c.DurationNs },
		"zero buffers":     func(c *Config) { c.BufferPackets = 0 },
		"small tables":     func(c *Config) { c.Leaves = 9 },
		"epsilon 0":        func(c *Config) { c.Epsilon = 0 },
		"n_min > n_max":    func(c *Config) { c.Tx.NMin = 17 },
		"ttw 0":            func(c *Config) { c.TTW.TTW = 0 },
		"clock wraps":      func(c *Config) { c.DurationNs = 2e9 },
		"one lone victim":  func(c *Config) { c.HotspotSenders = 62 },
	} {
		cfg := Default(SRP)
		f(&cfg)
		if err := cfg.Validate(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	cfg := Default(SRP)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkHotspot runs the default network for 1 ms of simulated time per
// congestion control, golden models in the loop.
func BenchmarkHotspot(b *testing.B) {
	for _, cc := range []CC{None, ECN, SRP} {
		b.Run(cc.String(), func(b *testing.B) {
			cfg := Default(cc)
			var events int64
			for i := 0; i < b.N; i++ {
				m, err := GoldenModels(cfg)
				if err != nil {
					b.Fatal(err)
				}
				r, err := Run(cfg, m)
				if err != nil {
					b.Fatal(err)
				}
				events += r.Events
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// TestAcceptedWithinOfferedAndBacklog: in the window a source can deliver
// no more than it offered in it plus the backlog it had at the warm-up.
// The backlog is measured by a second run of the same network that stops
// just before the warm-up with statistics from the start (the simulator is
// deterministic, and the warm-up changes only what is counted): everything
// offered by then less everything delivered by then. For every source
// (the victims and the hot-spot senders) under every CC on the default
// network, the report must carry that backlog, split what it delivers into
// the window's own traffic (accepted <= offered) and the backlog drained
// (<= backlog), and the victims' totals must add up to the bins, which
// count every delivered packet on their own.
func TestAcceptedWithinOfferedAndBacklog(t *testing.T) {
	run := func(c Config) *Result {
		t.Helper()
		m, err := GoldenModels(c)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(c, m)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, cc := range []CC{None, ECN, SRP} {
		cfg := Default(cc)
		r := run(cfg)
		pre := cfg
		pre.DurationNs, pre.WarmupNs = cfg.WarmupNs-0.001, 0 // events up to 1 ps before the warm-up
		p := run(pre)
		if len(r.Sources) != len(p.Sources) || len(r.Sources) != r.Victims+r.HotspotSenders {
			t.Fatalf("%s: %d and %d sources, %d victims and %d hot-spot senders", cc, len(r.Sources), len(p.Sources), r.Victims, r.HotspotSenders)
		}
		var victims, hot struct{ offered, accepted, backlog, delivered, before int64 }
		for i, s := range r.Sources {
			b := p.Sources[i]
			if b.Host != s.Host || b.Backlog != 0 || b.Drained != 0 {
				t.Fatalf("%s: the run to the warm-up has source %+v for %+v", cc, b, s)
			}
			backlog := b.Offered - b.Accepted
			delivered := s.Accepted + s.Drained
			if s.Backlog != backlog || delivered > s.Offered+backlog || s.Accepted > s.Offered || s.Drained > backlog || s.Accepted < 0 || s.Drained < 0 {
				t.Errorf("%s: host %d (hot %v) delivers %d packets in the window (%d accepted, %d drained) of %d offered in it and a backlog of %d (reported %d) at the warm-up",
					cc, s.Host, s.Hot, delivered, s.Accepted, s.Drained, s.Offered, backlog, s.Backlog)
			}
			sum := &victims
			if s.Hot {
				sum = &hot
			}
			sum.offered += s.Offered
			sum.accepted += s.Accepted
			sum.backlog += backlog
			sum.delivered += delivered
			sum.before += b.Accepted
		}
		// the bins count every delivered packet, the warm-up included
		warmBins := int(math.Round(cfg.WarmupNs / cfg.BinNs))
		if math.Abs(float64(warmBins)*cfg.BinNs-cfg.WarmupNs) > 1e-9 {
			t.Fatalf("the warm-up %g ns is not a whole number of %g ns bins", cfg.WarmupNs, cfg.BinNs)
		}
		var binVictims, binHot [2]float64 // before the warm-up, in the window
		for i, bn := range r.Bins {
			k := 0
			if i >= warmBins {
				k = 1
			}
			binVictims[k] += bn.VictimRate * cfg.BinNs / r.PacketNs * float64(r.Victims)
			binHot[k] += bn.HotspotRate * cfg.BinNs / r.PacketNs
		}
		for _, c := range []struct {
			what      string
			bins, got float64
		}{
			{"victims before the warm-up", binVictims[0], float64(victims.before)},
			{"victims in the window", binVictims[1], float64(victims.delivered)},
			{"hot spot before the warm-up", binHot[0], float64(hot.before)},
			{"hot spot in the window", binHot[1], float64(hot.delivered)},
		} {
			if math.Abs(c.bins-c.got) > 1e-6*max(1, c.bins) {
				t.Errorf("%s: %s: the bins count %.3f packets delivered, the sources %.0f", cc, c.what, c.bins, c.got)
			}
		}
		// the victims' rates, per victim over the window
		per := func(n int64) float64 { return float64(n) * r.PacketNs / (r.WindowUs * 1000) / float64(r.Victims) }
		near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9 }
		if !near(r.VictimOffered, per(victims.offered)) || !near(r.VictimAccepted, per(victims.accepted)) ||
			!near(r.VictimBacklog, per(victims.backlog)) || !near(r.VictimDelivered, per(victims.delivered)) ||
			!near(r.VictimDrained, per(victims.delivered-victims.accepted)) {
			t.Errorf("%s: victims offered %.4f / accepted %.4f / backlog %.4f / drained %.4f / delivered %.4f; the sources give %.4f / %.4f / %.4f / %.4f / %.4f",
				cc, r.VictimOffered, r.VictimAccepted, r.VictimBacklog, r.VictimDrained, r.VictimDelivered,
				per(victims.offered), per(victims.accepted), per(victims.backlog), per(victims.delivered-victims.accepted), per(victims.delivered))
		}
		if r.VictimAccepted > r.VictimOffered+1e-12 || r.VictimDelivered > r.VictimOffered+r.VictimBacklog+1e-12 {
			t.Errorf("%s: the victims' accepted load %.2f%% (delivered %.2f%%) against %.2f%% offered and a backlog of %.2f%% at the warm-up",
				cc, 100*r.VictimAccepted, 100*r.VictimDelivered, 100*r.VictimOffered, 100*r.VictimBacklog)
		}
		t.Logf("%s: victims offered %.2f%%, accepted %.2f%%, backlog at the warm-up %.2f%%, drained %.2f%%, delivered %.2f%%",
			cc, 100*r.VictimOffered, 100*r.VictimAccepted, 100*r.VictimBacklog, 100*r.VictimDrained, 100*r.VictimDelivered)
	}
}
