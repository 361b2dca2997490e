package netsim

import (
	"strings"
	"testing"

	"github.com/nicgen/nicgen/golden/smartt"
)

// fixedWindow is a controller whose window never moves: it isolates the
// network from congestion control.
type fixedWindow uint32

func (w fixedWindow) Step(e smartt.Event) smartt.Result {
	return smartt.Result{Conn: e.Conn, Kind: e.Kind, Cwnd: uint32(w)}
}

// recorder logs every event and result of the controller it wraps.
type recorder struct {
	inner Controller
	log   []step
}

type step struct {
	ev  smartt.Event
	res smartt.Result
}

func (r *recorder) Step(e smartt.Event) smartt.Result {
	res := r.inner.Step(e)
	r.log = append(r.log, step{e, res})
	return res
}

func fixed(n int, w uint32) []Controller {
	cs := make([]Controller, n)
	for i := range cs {
		cs[i] = fixedWindow(w)
	}
	return cs
}

// One full packet on an idle network comes back after exactly the base
// RTT, and the receiver has it after exactly the floor.
func TestUnloadedRTTIsBaseRTT(t *testing.T) {
	for _, gbps := range []float64{800, 400, 100, 12.5} {
		cfg := DefaultConfig()
		cfg.LinkGbps = gbps
		cfg.Senders = 1
		cfg.MessageBytes = int64(cfg.MTU)
		rec := &recorder{inner: fixedWindow(1 << 20)}
		r, err := Run(cfg, []Controller{rec})
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.log) != 2 || rec.log[0].ev.Kind != smartt.KindOpen || rec.log[1].ev.Kind != smartt.KindAck {
			t.Fatalf("%v Gb/s: events %+v, want open then ack", gbps, rec.log)
		}
		ack := rec.log[1].ev
		if ack.RTT != uint32(cfg.BaseRTTNs) || ack.Now != uint64(cfg.BaseRTTNs) || ack.Size != uint32(cfg.MTU) || ack.Unacked != 0 || ack.ECN {
			t.Errorf("%v Gb/s: ack %+v, want rtt = now = %d, size %d, nothing in flight, no ECN", gbps, ack, cfg.BaseRTTNs, cfg.MTU)
		}
		if r.CompletionNs != r.FloorNs {
			t.Errorf("%v Gb/s: completion %v ns, want the floor %v ns", gbps, r.CompletionNs, r.FloorNs)
		}
	}
}

// With fixed windows that overflow the queue, every packet is delivered
// exactly once, every trim is retransmitted, and the queue never exceeds
// its capacity.
func TestConservationUnderTrimming(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MessageBytes = 3<<20 + 1000 // a short last packet
	recs := make([]Controller, cfg.Senders)
	logs := make([]*recorder, cfg.Senders)
	for i := range recs {
		logs[i] = &recorder{inner: fixedWindow(cfg.BDP())}
		recs[i] = logs[i]
	}
	r, err := Run(cfg, recs)
	if err != nil {
		t.Fatal(err)
	}
	if r.Trims == 0 {
		t.Fatal("8 senders with a BDP each did not overflow a one-BDP queue")
	}
	if r.Delivered != int64(cfg.Senders)*cfg.MessageBytes {
		t.Errorf("delivered %d B, want %d", r.Delivered, int64(cfg.Senders)*cfg.MessageBytes)
	}
	if r.PeakQueueBytes > r.QueueCapBytes {
		t.Errorf("peak queue %d B above the capacity %d B", r.PeakQueueBytes, r.QueueCapBytes)
	}
	if r.CompletionNs < r.FloorNs {
		t.Errorf("completion %v ns beats the floor %v ns", r.CompletionNs, r.FloorNs)
	}
	var trims int64
	for i, s := range r.Senders {
		trims += s.Trims
		if s.Retransmits != s.Trims {
			t.Errorf("sender %d: %d retransmissions for %d trims", i, s.Retransmits, s.Trims)
		}
		var acked, nacked int64
		for _, st := range logs[i].log {
			switch st.ev.Kind {
			case smartt.KindAck:
				acked += int64(st.ev.Size)
				if st.ev.RTT < uint32(cfg.BaseRTTNs) {
					t.Fatalf("sender %d: rtt %d ns below the base RTT", i, st.ev.RTT)
				}
			case smartt.KindNack:
				nacked++
			}
			if st.ev.Unacked > uint32(cfg.BDP()) {
				t.Fatalf("sender %d: %d B in flight above its window %d", i, st.ev.Unacked, cfg.BDP())
			}
		}
		if acked != cfg.MessageBytes || nacked != s.Trims {
			t.Errorf("sender %d: acked %d B and %d nacks, want %d B and %d", i, acked, nacked, cfg.MessageBytes, s.Trims)
		}
	}
	if trims != r.Trims {
		t.Errorf("senders saw %d trims, the switch made %d", trims, r.Trims)
	}
}

// RED never marks at or below Kmin, always marks at or above Kmax, and in
// between marks in proportion. Fixed windows give a standing queue of
// sum(windows) - BDP once the initial burst (every sender at line rate
// for one RTT) has drained, so only ACKs after a few RTTs count.
func TestREDThresholds(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Senders = 4
	cfg.MessageBytes = 4 << 20
	bdp := cfg.BDP()
	for _, c := range []struct {
		queueFrac float64
		lo, hi    float64 // bounds on the marked fraction
		name      string
	}{
		{0.1, 0, 0, "below Kmin"},
		{0.9, 1, 1, "above Kmax"},
		{0.5, 0.4, 0.6, "halfway"},
	} {
		logs := make([]Controller, cfg.Senders)
		recs := make([]*recorder, cfg.Senders)
		for i := range logs {
			recs[i] = &recorder{inner: fixedWindow(uint32(float64(bdp) * (1 + c.queueFrac) / float64(cfg.Senders)))}
			logs[i] = recs[i]
		}
		r, err := Run(cfg, logs)
		if err != nil {
			t.Fatal(err)
		}
		var acks, marked int
		for _, rec := range recs {
			for _, st := range rec.log {
				if st.ev.Kind == smartt.KindAck && st.ev.Now > uint64(4*cfg.BaseRTTNs) && st.ev.Now < uint64(r.CompletionNs)-uint64(2*cfg.BaseRTTNs) {
					acks++
					if st.ev.ECN {
						marked++
					}
				}
			}
		}
		frac := float64(marked) / float64(acks)
		t.Logf("standing queue %.1f BDP: %d of %d steady-state acks marked (%.3f)", c.queueFrac, marked, acks, frac)
		if acks < 1000 || frac < c.lo || frac > c.hi {
			t.Errorf("standing queue %.1f BDP (%s): %d of %d steady-state acks marked (%.3f), want a fraction in [%v, %v]", c.queueFrac, c.name, marked, acks, frac, c.lo, c.hi)
		}
	}
}

func TestJain(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1, 1, 1, 1}, 1},
		{[]float64{1, 0, 0, 0}, 0.25},
		{[]float64{3, 1}, 0.8},
		{nil, 0},
	} {
		if got := Jain(c.xs); got != c.want {
			t.Errorf("Jain(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"senders", func(c *Config) { c.Senders = 0 }, "senders"},
		{"size", func(c *Config) { c.MessageBytes = 0 }, "message size"},
		{"mtu", func(c *Config) { c.MTU = 1 << 14 }, "MTU"},
		{"rate", func(c *Config) { c.LinkGbps = 0 }, "link rate"},
		{"rtt", func(c *Config) { c.BaseRTTNs = 50 }, "base RTT"},
		{"queue", func(c *Config) { c.QueueBytes = 100 }, "queue"},
		{"red", func(c *Config) { c.KminFrac, c.KmaxFrac = 0.8, 0.2 }, "RED"},
	} {
		cfg := DefaultConfig()
		c.mod(&cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v, want an error about %q", c.name, err, c.want)
		}
		if _, err := Run(cfg, fixed(max(cfg.Senders, 0), 1<<20)); err == nil {
			t.Errorf("%s: Run accepted an invalid config", c.name)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("DefaultConfig: %v", err)
	}
}

// A controller that answers with an error stops the run with an error.
func TestControllerErrorStopsRun(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Senders = 1
	_, err := Run(cfg, []Controller{errController{}})
	if err == nil || !strings.Contains(err.Error(), "rejected") {
		t.Fatalf("Run = %v, want a rejected-event error", err)
	}
}

type errController struct{}

func (errController) Step(e smartt.Event) smartt.Result {
	return smartt.Result{Conn: e.Conn, Kind: e.Kind, Error: true}
}
