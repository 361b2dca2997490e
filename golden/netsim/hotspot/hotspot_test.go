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
