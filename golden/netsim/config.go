package netsim

import (
	"fmt"
	"math"
)

// Config describes one incast: the network and the traffic.
type Config struct {
	// Senders is the incast degree N.
	Senders int
	// MessageBytes is what each sender sends, in MTU packets (the last one
	// may be shorter).
	MessageBytes int64
	// MTU is the data packet size on the wire. Header overhead is not
	// modelled: a data packet carries MTU bytes of message.
	MTU int
	// HeaderBytes is the size of a trimmed header, an ACK and a NACK.
	HeaderBytes int
	// LinkGbps is the rate of every link, host links included.
	LinkGbps float64
	// BaseRTTNs is the unloaded RTT of a full-size packet; the propagation
	// delays are derived from it.
	BaseRTTNs int64
	// QueueBytes is the capacity of the egress data queue; 0 means one BDP
	// (S0:L106).
	QueueBytes int64
	// KminFrac and KmaxFrac place the RED thresholds as fractions of
	// QueueBytes (S0:L267: 20% and 80%).
	KminFrac, KmaxFrac float64
	// Seed seeds the RED marking draws.
	Seed uint64
	// RecordCwnd keeps every change of every sender's window.
	RecordCwnd bool
	// MaxSimNs stops a run that has not finished by then (a stalled or
	// livelocked controller); 0 means one second.
	MaxSimNs int64
}

// DefaultConfig is the papers' setting (S0:L377, docs/blocks/smartt.md
// Section 2): 800 Gb/s, 4096 B MTU, 8.6 us base RTT, a one-BDP queue with
// RED at 20%/80%, and an 8:1 incast of 8 MiB messages.
func DefaultConfig() Config {
	return Config{
		Senders:      8,
		MessageBytes: 8 << 20,
		MTU:          4096,
		HeaderBytes:  64,
		LinkGbps:     800,
		BaseRTTNs:    8600,
		KminFrac:     0.2,
		KmaxFrac:     0.8,
		Seed:         1,
	}
}

// BDP is floor(LinkGbps * BaseRTTNs / 8) bytes, the contract's formula.
func (c Config) BDP() int64 {
	return int64(math.Floor(c.LinkGbps * float64(c.BaseRTTNs) / 8))
}

// queueCap is the data queue capacity in bytes.
func (c Config) queueCap() int64 {
	if c.QueueBytes > 0 {
		return c.QueueBytes
	}
	return c.BDP()
}

// Field widths of the controller's event port (docs/blocks/smartt.md
// Section 1): a configuration whose values do not fit would be silently
// truncated by the hardware, so it is refused instead.
const (
	sizeW = 14
	rttW  = 20
)

// Validate reports the first setting the simulator cannot run.
func (c Config) Validate() error {
	switch {
	case c.Senders < 1:
		return fmt.Errorf("senders %d: need at least one", c.Senders)
	case c.MessageBytes < 1:
		return fmt.Errorf("message size %d B: need at least one byte", c.MessageBytes)
	case c.MTU < 1 || c.MTU >= 1<<sizeW:
		return fmt.Errorf("MTU %d B: must be in [1, %d] (the controller's size port is %d bits)", c.MTU, 1<<sizeW-1, sizeW)
	case c.HeaderBytes < 1 || c.HeaderBytes > c.MTU:
		return fmt.Errorf("header %d B: must be in [1, MTU]", c.HeaderBytes)
	case !(c.LinkGbps > 0) || math.IsInf(c.LinkGbps, 0):
		return fmt.Errorf("link rate %v Gb/s: must be positive", c.LinkGbps)
	case c.BaseRTTNs < 1 || c.BaseRTTNs >= 1<<rttW:
		return fmt.Errorf("base RTT %d ns: must be in [1, %d]", c.BaseRTTNs, 1<<rttW-1)
	case c.QueueBytes < 0:
		return fmt.Errorf("queue %d B: must not be negative", c.QueueBytes)
	case c.queueCap() < int64(c.MTU):
		return fmt.Errorf("queue %d B: smaller than one MTU (%d B), nothing could ever be queued", c.queueCap(), c.MTU)
	case !(c.KminFrac >= 0 && c.KminFrac < c.KmaxFrac && c.KmaxFrac <= 1):
		return fmt.Errorf("RED thresholds %v/%v: need 0 <= Kmin < Kmax <= 1", c.KminFrac, c.KmaxFrac)
	case c.MaxSimNs < 0:
		return fmt.Errorf("time limit %d ns: must not be negative", c.MaxSimNs)
	}
	if _, err := c.timing(); err != nil {
		return err
	}
	return nil
}

// timing holds the derived constants of a run, in picoseconds.
type timing struct {
	serPerByte float64 // ps per byte on every link
	mtuPs      int64   // serialisation of a full data packet
	hdrPs      int64   // serialisation of a header, ACK or NACK
	// Propagation of the four hops: sender to switch, switch to receiver,
	// receiver to switch, switch to sender.
	propUp, propDown, propBack, propHome int64
	kmin, kmax                           int64 // RED thresholds, bytes
	queueCap                             int64
	maxPs                                int64
}

func (c Config) timing() (timing, error) {
	t := timing{serPerByte: 8000 / c.LinkGbps}
	t.mtuPs = t.ser(c.MTU)
	t.hdrPs = t.ser(c.HeaderBytes)
	// Unloaded RTT of a full packet: serialised by the sender and by the
	// egress port, its ACK by the receiver and by the switch port toward the
	// sender, plus the four propagation delays.
	prop := c.BaseRTTNs*1000 - 2*t.mtuPs - 2*t.hdrPs
	if prop < 0 {
		return t, fmt.Errorf("base RTT %d ns is shorter than the serialisation of a packet and its ACK at %v Gb/s", c.BaseRTTNs, c.LinkGbps)
	}
	t.propUp, t.propDown, t.propBack = prop/4, prop/4, prop/4
	t.propHome = prop - 3*(prop/4)
	t.queueCap = c.queueCap()
	t.kmin = int64(math.Round(c.KminFrac * float64(t.queueCap)))
	t.kmax = int64(math.Round(c.KmaxFrac * float64(t.queueCap)))
	t.maxPs = c.MaxSimNs * 1000
	if t.maxPs == 0 {
		t.maxPs = 1e12
	}
	return t, nil
}

// ser is the serialisation time of n bytes, rounded to the picosecond.
func (t timing) ser(n int) int64 {
	return int64(math.Round(float64(n) * t.serPerByte))
}
