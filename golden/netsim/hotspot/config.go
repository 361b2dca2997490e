package hotspot

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/nicgen/nicgen/golden/srp"
)

// CC is the congestion control of a run.
type CC uint8

// The three networks S2 compares (S2:L90).
const (
	None CC = iota // baseline: one data VC, no congestion control
	ECN            // InfiniBand-style ECN: marking at the root, IPD at the source
	SRP            // speculative reservations, TTW drop of speculative packets
)

func (c CC) String() string {
	switch c {
	case None:
		return "none"
	case ECN:
		return "ecn"
	case SRP:
		return "srp"
	}
	return fmt.Sprintf("cc%d", uint8(c))
}

// ParseCC reads a CC by its name.
func ParseCC(s string) (CC, error) {
	for _, c := range []CC{None, ECN, SRP} {
		if s == c.String() {
			return c, nil
		}
	}
	return 0, fmt.Errorf("congestion control %q: want none, ecn or srp", s)
}

// Config is one run of the hot-spot network.
type Config struct {
	CC CC
	// The two-level tree: Leaves first-level switches of HostsPerLeaf hosts
	// each and Spines up-links, one to each second-level switch (S2:L92:
	// 16 leaves of 16 hosts and 16 spines; the default is 8 x 8 x 8).
	Leaves, HostsPerLeaf, Spines int
	// HotspotSenders hosts, drawn at random, send only to host Hotspot
	// (S2:L140: 40:1); 0 runs uniform traffic alone. The other hosts are
	// the victims: they send uniform random traffic (to any host but
	// themselves and the hot spot) at VictimLoad of their link rate.
	HotspotSenders, Hotspot int
	VictimLoad              float64
	// HotspotIdle keeps the hot-spot senders silent: the same victims and
	// traffic without the hot spot, the reference of the victims' latency.
	HotspotIdle bool
	// HotspotPackets is the size of every hot-spot message (S2:L140: 8);
	// a hot-spot sender always has one more queued. Victim messages have
	// VictimPackets packets, except a share SmallShare that has
	// SmallPackets (below n_min, so SRP does not reserve for them).
	HotspotPackets, VictimPackets, SmallPackets int
	SmallShare                                  float64
	// The channels (S2:L92-94): LinkGbps, LinkNs of latency, RouterNs
	// through a router, packets of PacketBits and control packets of
	// ControlBits.
	LinkGbps                float64
	LinkNs, RouterNs        float64
	PacketBits, ControlBits int
	// BufferPackets is each input buffer per VC (S2:L98: 16); the ECN
	// threshold b_thres is ECNThreshold of it (Table 1: 90%).
	BufferPackets int
	ECNThreshold  float64
	// DurationNs is the run; statistics count from WarmupNs on. BinNs is
	// the width of a plotted time bin.
	DurationNs, WarmupNs, BinNs float64
	Seed                        uint64
	// The blocks' parameters; the tables are sized by the run
	// (NumConn, ConnW), the rest is taken as given.
	Tx  srp.TxParams
	Rx  srp.RxTableParams
	TTW srp.TTWParams
	IPD srp.IPDTableParams
	// Epsilon and TTWNs are what the Rx slot and the TTW were derived
	// from (for the report).
	Epsilon float64
}

// Hosts is the number of hosts.
func (c *Config) Hosts() int { return c.Leaves * c.HostsPerLeaf }

// PacketNs is tau_p, one data packet on a link.
func (c *Config) PacketNs() float64 { return float64(c.PacketBits) / c.LinkGbps }

// Default is S2's hot-spot experiment (S2:L90-116, L140) on a smaller
// tree: 64 hosts, 40 of them sending 8-packet messages to one, the other
// 23 sending uniform random traffic at 40% load, half of their messages
// small (2 packets). 10 Gb/s channels of 32 ns, 26 ns routers, 2048-bit
// packets, 16-packet buffers, Table 1 parameters.
func Default(cc CC) Config {
	c := Config{
		CC: cc, Leaves: 8, HostsPerLeaf: 8, Spines: 8,
		HotspotSenders: 40, Hotspot: 0, VictimLoad: 0.4,
		HotspotPackets: 8, VictimPackets: 8, SmallPackets: 2, SmallShare: 0.5,
		LinkGbps: 10, LinkNs: 32, RouterNs: 26, PacketBits: 2048, ControlBits: 64,
		BufferPackets: 16, ECNThreshold: 0.9,
		DurationNs: 1_000_000, WarmupNs: 200_000, BinNs: 10_000, Seed: 1,
		Epsilon: 0.05,
	}
	c.Tx = srp.TxParams{NMin: 4, NMax: 16, MW: 16, SeqW: 16, TimeW: 32, KindW: 3}
	c.Rx = srp.RxTableParams{RxParams: srp.RxParams{TimeW: 32, FracW: 16}, KindW: 2, NW: 5, NMax: 16}
	c.TTW = srp.TTWParams{Mode: srp.TTWAccumulated, TTW: 1300, TimeW: 32, HdrW: 16, KindW: 2}
	c.IPD = srp.IPDTableParams{IPDParams: srp.IPDParams{TimeW: 32, Inc: 800, Dec: 50, Period: 2000, Max: 100_000}, KindW: 2}
	c.Size()
	return c
}

// Size sets the blocks' tables to the run's: a send queue per host and
// destination (srp_tx, ecn_ipd: queue src*Hosts+dst), an endpoint per host
// (srp_rx), a slot per packet of every speculative input buffer (srp_ttw),
// each id as wide as its table needs; and the Rx slot from tau_p and
// Epsilon.
func (c *Config) Size() {
	n := c.Hosts()
	c.Tx.NumConn, c.Tx.ConnW = n*n, idWidth(n*n)
	c.IPD.NumConn, c.IPD.ConnW = n*n, idWidth(n*n)
	c.Rx.NumConn, c.Rx.ConnW = n, idWidth(n)
	c.TTW.NumConn = c.buffers() * c.BufferPackets
	c.TTW.ConnW = idWidth(c.TTW.NumConn)
	c.Rx.SlotFx = srp.SlotFixed(c.PacketNs(), c.Epsilon, c.Rx.FracW)
}

// buffers counts the switch input ports: every leaf has HostsPerLeaf+Spines,
// every spine Leaves.
func (c *Config) buffers() int {
	return c.Leaves*(c.HostsPerLeaf+c.Spines) + c.Spines*c.Leaves
}

func idWidth(n int) int { return max(1, bits.Len(uint(n-1))) }

// Validate reports a configuration the simulator cannot run.
func (c *Config) Validate() error {
	n := c.Hosts()
	finite := func(vs ...float64) bool {
		for _, v := range vs {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
		return true
	}
	switch {
	case c.CC > SRP:
		return fmt.Errorf("congestion control %d: want none, ecn or srp", c.CC)
	case c.Leaves < 1 || c.HostsPerLeaf < 1 || c.Spines < 1 || n < 3 || n > 1024:
		return fmt.Errorf("%d leaves of %d hosts, %d spines: want at least one of each and 3..1024 hosts", c.Leaves, c.HostsPerLeaf, c.Spines)
	case c.Hotspot < 0 || c.Hotspot >= n:
		return fmt.Errorf("hot spot host %d: want 0..%d", c.Hotspot, n-1)
	case c.HotspotSenders < 0 || c.HotspotSenders > n-1:
		return fmt.Errorf("%d hot-spot senders: want 0..%d", c.HotspotSenders, n-1)
	case !finite(c.VictimLoad, c.SmallShare, c.LinkGbps, c.LinkNs, c.RouterNs, c.ECNThreshold, c.DurationNs, c.WarmupNs, c.BinNs, c.Epsilon):
		return fmt.Errorf("every number must be finite")
	case c.VictimLoad < 0 || c.VictimLoad > 1:
		return fmt.Errorf("victim load %g: want 0..1 of the link rate", c.VictimLoad)
	case c.HotspotSenders > 0 && n-1-c.HotspotSenders == 1 && c.VictimLoad > 0:
		return fmt.Errorf("%d hot-spot senders of %d hosts leave one victim, with no destination but itself", c.HotspotSenders, n)
	case c.SmallShare < 0 || c.SmallShare > 1:
		return fmt.Errorf("small-message share %g: want 0..1", c.SmallShare)
	case c.HotspotPackets < 1 || c.VictimPackets < 1 || c.SmallPackets < 1 ||
		uint64(max(c.HotspotPackets, c.VictimPackets, c.SmallPackets))>>uint(c.Tx.MW) != 0:
		return fmt.Errorf("message sizes %d, %d and %d packets: want 1 .. 2^%d-1", c.HotspotPackets, c.VictimPackets, c.SmallPackets, c.Tx.MW)
	case c.LinkGbps <= 0 || c.LinkNs < 0 || c.RouterNs < 0 || c.PacketBits < 8 || c.ControlBits < 8:
		return fmt.Errorf("channels: %g Gb/s, %g ns, routers %g ns, %d-bit packets, %d-bit control packets", c.LinkGbps, c.LinkNs, c.RouterNs, c.PacketBits, c.ControlBits)
	case c.BufferPackets < 1 || c.ECNThreshold <= 0 || c.ECNThreshold > 1:
		return fmt.Errorf("%d-packet buffers, ECN threshold %g: want at least 1 packet and a threshold in (0, 1]", c.BufferPackets, c.ECNThreshold)
	case c.DurationNs <= 0 || c.WarmupNs < 0 || c.WarmupNs >= c.DurationNs || c.BinNs <= 0 || c.DurationNs/c.BinNs > 1e5:
		return fmt.Errorf("duration %g ns, warm-up %g ns, bins of %g ns: want 0 <= warm-up < duration and at most 100000 bins", c.DurationNs, c.WarmupNs, c.BinNs)
	case c.DurationNs > math.Ldexp(1, c.Tx.TimeW-2) || c.DurationNs > 1e12:
		return fmt.Errorf("duration %g ns: the blocks' %d-bit clock of 1 ns ticks wraps", c.DurationNs, c.Tx.TimeW)
	case c.Tx.NumConn < n*n || c.IPD.NumConn < n*n || c.Rx.NumConn < n || c.TTW.NumConn < c.buffers()*c.BufferPackets:
		return fmt.Errorf("the blocks' tables are smaller than the network (Config.Size sets them)")
	case c.Epsilon <= 0:
		return fmt.Errorf("epsilon %g: want > 0", c.Epsilon)
	}
	if err := srp.ValidateTx(c.Tx); err != nil {
		return err
	}
	if err := srp.ValidateTTW(c.TTW); err != nil {
		return err
	}
	if err := srp.ValidateIPD(c.IPD.IPDParams); err != nil {
		return err
	}
	if c.Rx.TimeW != c.Tx.TimeW || c.TTW.TimeW != c.Tx.TimeW || c.IPD.TimeW != c.Tx.TimeW {
		return fmt.Errorf("the blocks' clocks differ: %d, %d, %d and %d bits", c.Tx.TimeW, c.Rx.TimeW, c.TTW.TimeW, c.IPD.TimeW)
	}
	if uint64(c.Tx.NMax)>>uint(c.Rx.NW) != 0 || c.Rx.NMax < c.Tx.NMax {
		return fmt.Errorf("n_max %d does not fit the receiver's %d-bit n (n_max %d)", c.Tx.NMax, c.Rx.NW, c.Rx.NMax)
	}
	return nil
}
