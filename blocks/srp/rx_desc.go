package srp

import (
	"fmt"
	"strconv"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/golden/pipe"
	gsrp "github.com/nicgen/nicgen/golden/srp"
	"github.com/nicgen/nicgen/hdlgen"
)

// RxDescriptor is srp_rx to nicgen's tools (package blocks lists it).
func RxDescriptor() block.Block {
	return block.Define(block.Desc[RxParams]{
		Name:   "srp_rx",
		Title:  "SRP reservation scheduler (S2): grants t_s = max(now, schedule) per receiving endpoint",
		Cocotb: block.Replay{Icarus: 10000},
		Attrs: []block.Attr{
			{Name: "endpoints", Kind: block.Whole, Lo: 2, Hi: 65536, Doc: "receiving endpoints, one schedule each (S2 gives a NIC one: use endpoint 0)"},
			{Name: "epsilon", Kind: block.Number, Min: 0.001, Max: 1, Doc: "the slot's margin over the packet time, eps (S2 Table 1: 0.05)", RangeWhy: "eps pays for the control packets on the link (S2:L74): at 0 or below the reservations overbook it"},
			{Name: "packet_time", Kind: block.Number, Min: 0.001, Max: 1e9, Unit: "ticks", Doc: "tau_p, one packet on the ejection link; by default network.mtu x 8 / network.link_gbps in 1 ns ticks"},
			{Name: "frac_width", Kind: block.Whole, Lo: 0, Hi: 16, Unit: "bits", Doc: "bits of the schedule below one tick (A-19; drift in docs/blocks/srp.md)"},
			{Name: "n_max", Kind: block.Whole, Lo: 1, Hi: 65535, Unit: "packets", Doc: "largest reservation, n_max (S2 Table 1: 16); a reservation of more is an error result"},
			{Name: "n_width", Kind: block.Whole, Lo: 1, Hi: 16, Unit: "bits", Doc: "width of n; by default the bits of n_max"},
			{Name: "time_width", Kind: block.Whole, Lo: 2, Hi: 63, Unit: "bits", Doc: "width of s_event_now and of the grant times"},
			block.DepthAttr,
		},
		Default: DefaultRxParams,
		Resolve: resolveRx,
		Build:   Rx,
		Paper:   func(RxParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p RxParams) int { return p.NumConn },
		Kinds:   RxKindNames,
		Golden: func(p RxParams) (block.Golden, error) {
			m, err := gsrp.NewRxModel(p.Golden())
			return rxGolden{m}, err
		},
		Cycler: func(p RxParams) (block.Cycler, error) {
			m, err := gsrp.NewRxModel(p.Golden())
			if err != nil {
				return nil, err
			}
			return rxCycler{gsrp.NewRxPipeline(m, p.Depth)}, nil
		},
		Formal: rxFormalJobs,
	})
}

// rxGolden drives the golden srp_rx model by field values (block.Golden).
type rxGolden struct{ m *gsrp.RxModel }

func (rxGolden) Fields() ([]string, []string) {
	return []string{"conn", "kind", "n", "now"}, []string{"conn", "kind", "ts", "delay", "ack", "error"}
}

func (g rxGolden) Step(in, out []uint64) {
	e := gsrp.RxEvent{Conn: uint32(in[0]), Kind: gsrp.RxKind(in[1]), N: in[2], Now: in[3]}
	var r gsrp.RxResult
	g.m.StepTo(&e, &r)
	out[0], out[1], out[2], out[3], out[4], out[5] = uint64(r.Conn), uint64(r.Kind), r.Ts, r.Delay, block.Bit(r.Ack), block.Bit(r.Error)
}

func (g rxGolden) Reset() { g.m.Reset() }

type rxCycler struct{ p *gsrp.RxPipeline }

func (c rxCycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	out := c.p.Cycle(pipe.In[gsrp.RxEvent]{SValid: valid, MReady: ready, Event: gsrp.RxEvent{Conn: conn, Kind: gsrp.RxOpen}})
	return out.SReady, out.MValid
}

// resolveRx reads block "srp_rx" of a configuration.
func resolveRx(s block.Section, env block.Env) RxParams {
	p := RxParams{ConnW: int(env.ConnW)}
	p.NumConn = int(s.Whole("endpoints", 4, block.Default, "a NIC of up to 4 ports or functions"))
	p.Epsilon = s.Number("epsilon", 0.05, "S2 Table 1")
	tau := float64(env.MTU) * 8 / env.LinkGbps
	p.PacketNs = s.Number("packet_time", tau, fmt.Sprintf("network.mtu x 8 / network.link_gbps = %g ns", tau))
	p.FracW = int(s.Whole("frac_width", 16, block.Default, "drift below 1e-6 of the schedule's span at 800 Gb/s (docs/blocks/srp.md)"))
	p.NMax = s.Whole("n_max", 16, block.Default, "S2 Table 1")
	p.NW = int(s.Whole("n_width", uint64(hdlgen.BitsFor(p.NMax)), block.Derived, fmt.Sprintf("bits to hold n_max = %d", p.NMax)))
	p.TimeW = int(s.Whole("time_width", env.TimeW, block.Derived, "hardware.time_width"))
	if !block.FitsConnID(s, "endpoints", p.NumConn, env) {
		return DefaultRxParams()
	}
	if err := p.Validate(); err != nil {
		s.Errorf(block.FirstSet(s, "time_width", "n_max", "frac_width", "n_width", "packet_time", "time_width"), "%v", err)
		return DefaultRxParams()
	}
	s.Info("slot", strconv.FormatUint(p.SlotFx(), 10), fmt.Sprintf("(1 + epsilon) x packet_time in 2^-%d ticks, rounded up", p.FracW))
	depth, ok := block.DerivedDepth(s, func() (int, error) { return NeededRxDepth(p) })
	if !ok {
		return DefaultRxParams()
	}
	p.Depth = depth
	return p
}

// RxOf is the parameters of block srp_rx in a configuration.
func RxOf(c block.Config) (RxParams, error) { return block.ParamsOf[RxParams](c, "srp_rx") }

// SmallRxParams is srp_rx shrunk for the proofs: 2 endpoints, 5-bit time
// with 2 fraction bits, a slot of 1.75 ticks, 2-bit n up to 2.
func SmallRxParams() RxParams {
	p := RxParams{NumConn: 2, ConnW: 2, TimeW: 5, FracW: 2, NW: 2, NMax: 2, PacketNs: 1.5, Epsilon: 0.1}
	p.Depth = connpipe.MustDepth(NeededRxDepth(p))
	return p
}

func rxFormalJob(name, doc string, p RxParams, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return Rx(p)
	}}
	if breaks {
		j.OwnOnly = true
		j.Mutants = connpipe.WithShellMutants(p.Depth, "ts", map[string][]hdlgen.Mutation{
			// a booked schedule that fell behind now is granted as it is,
			// in the past: t_s - now wraps to more than half the clock
			"delay_within_half_range": {{Node: "behind", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				d := get("now_minus_sched")
				return orig.And(get("cur_booked").Not().Or(d.Bit(d.Width() - 1)))
			}}},
		})
	}
	return j
}

// rxFormalJobs are srp_rx's proofs: the small configuration with its
// broken variants, and the default widths with 4 endpoints.
func rxFormalJobs() []block.FormalJob {
	small := SmallRxParams()
	return []block.FormalJob{
		rxFormalJob("srp_rx", fmt.Sprintf("NumConn 2, TimeW 5, FracW 2, NW 2, slot %d/4 ticks, depth %d", small.SlotFx(), small.Depth), small, true),
		rxFormalJob("srp_rx_default", "default widths (TimeW 32, FracW 16, NW 5), 4 endpoints", DefaultRxParams(), false),
	}
}
