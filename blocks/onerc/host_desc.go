package onerc

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	gonerc "github.com/nicgen/nicgen/golden/onerc"
	"github.com/nicgen/nicgen/golden/pipe"
	"github.com/nicgen/nicgen/hdlgen"
)

// HostDescriptor is onerc_host to nicgen's tools (package blocks lists it).
func HostDescriptor() block.Block {
	return block.Define(block.Desc[HostParams]{
		Name:   "onerc_host",
		Title:  "1RC host side with flow weights (S3): connection count at the epoch's start, shared speculative numbers, let_through resume, b / weight",
		Cocotb: block.Replay{Icarus: 10000},
		Attrs: []block.Attr{
			{Name: "connections", Kind: block.Whole, Lo: 2, Hi: 1 << 20, Doc: "connections (flows) of the host"},
			{Name: "epoch_width", Kind: block.Whole, Lo: 2, Hi: 48, Unit: "bits", Doc: "bits of the epoch number (SSTS div epoch_length, one counter for the NIC); epochs compare for equality"},
			{Name: "weight_width", Kind: block.Whole, Lo: 2, Hi: 12, Unit: "bits", Doc: "bits of a weight and of the host's connection count (A-24); the count stops at the top; the division's table has 2^weight_width entries; at least 2 bits (a 1-bit weight could only be 1)"},
			{Name: "seq_width", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "bits", Doc: "bits of a shared speculative sequence number, of let_through and of a flow's speculative count (onerc_switch's seq_width)"},
			{Name: "rate_width", Kind: block.Whole, Lo: 1, Hi: 48, Unit: "bits", Doc: "bits of a rate (sperc_link's b, per unit of weight)"},
			block.DepthAttr,
		},
		Default: DefaultHostParams,
		Resolve: resolveHost,
		Build:   Host,
		Paper:   func(HostParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p HostParams) int { return p.NumConn },
		Kinds:   HostKindNames,
		Decode:  []block.Names{{Field: "status", Key: "status_name", Names: HostStatusNames}},
		Golden: func(p HostParams) (block.Golden, error) {
			m, err := gonerc.NewHostModel(p.HostParams)
			return hostGolden{m}, err
		},
		Cycler: func(p HostParams) (block.Cycler, error) {
			m, err := gonerc.NewHostModel(p.HostParams)
			if err != nil {
				return nil, err
			}
			return hostCycler{gonerc.NewHostPipeline(m, p.Depth)}, nil
		},
		Stimulus: hostStimulus,
		Formal:   hostFormalJobs,
	})
}

// HostEventFields and HostResultFields are onerc_host's stream fields in
// the golden model's order.
var (
	HostEventFields  = []string{"conn", "kind", "epoch", "b", "let_through", "weight", "bottleneck"}
	HostResultFields = []string{"conn", "kind", "status", "seq", "epoch", "old_weight", "new_weight", "ended", "resume", "rate", "conns", "error"}
)

// HostEventOf and HostResultValues convert between field values (in the
// order above) and the golden model's types.
func HostEventOf(in []uint64) gonerc.HostEvent {
	return gonerc.HostEvent{Conn: uint32(in[0]), Kind: gonerc.HostKind(in[1]), Epoch: in[2], B: in[3], LetThrough: in[4],
		Weight: in[5], Bottleneck: in[6]&1 == 1}
}

func HostResultValues(r *gonerc.HostResult, out []uint64) {
	out[0], out[1], out[2], out[3], out[4] = uint64(r.Conn), uint64(r.Kind), uint64(r.Status), r.Seq, r.Epoch
	out[5], out[6], out[7], out[8], out[9] = r.OldWeight, r.NewWeight, block.Bit(r.Ended), r.Resume, r.Rate
	out[10], out[11] = r.Conns, block.Bit(r.Error)
}

type hostGolden struct{ m *gonerc.HostModel }

func (hostGolden) Fields() ([]string, []string) { return HostEventFields, HostResultFields }

func (g hostGolden) Step(in, out []uint64) {
	e := HostEventOf(in)
	var r gonerc.HostResult
	g.m.StepTo(&e, &r)
	HostResultValues(&r, out)
}

func (g hostGolden) Reset() { g.m.Reset() }

// ClearTable clears the words and keeps the host's registers, which live
// outside the table (block.TableClearer).
func (g hostGolden) ClearTable() { g.m.ClearTable() }

type hostCycler struct{ p *gonerc.HostPipeline }

func (c hostCycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	out := c.p.Cycle(pipe.In[gonerc.HostEvent]{SValid: valid, MReady: ready, Event: gonerc.HostEvent{Conn: conn, Kind: gonerc.HostSend}})
	return out.SReady, out.MValid
}

// resolveHost reads block "onerc_host" of a configuration.
func resolveHost(s block.Section, env block.Env) HostParams {
	def := DefaultHostParams()
	g := def.HostParams
	g.ConnW = int(env.ConnW)
	g.NumConn = int(s.Whole("connections", 4096, block.Default, "4,096 flows per host"))
	g.EpochW = int(s.Whole("epoch_width", 16, block.Default, "epochs compare modulo 65,536"))
	g.WeightW = int(s.Whole("weight_width", 8, block.Default, "up to 255 connections per host, as sperc_link"))
	g.SeqW = int(s.Whole("seq_width", 16, block.Default, "16-bit speculative numbers, as onerc_switch"))
	g.RateW = int(s.Whole("rate_width", 28, block.Default, "sperc_link's 28-bit rates"))
	if !block.FitsConnID(s, "connections", g.NumConn, env) {
		return def
	}
	if err := gonerc.ValidateHost(g); err != nil {
		s.Errorf(block.FirstSet(s, "", "rate_width", "weight_width", "epoch_width", "seq_width"), "%v", err)
		return def
	}
	p := HostParams{HostParams: g}
	depth, ok := block.DerivedDepth(s, func() (int, error) { return NeededHostDepth(p) })
	if !ok {
		return def
	}
	p.Depth = depth
	return p
}

// HostOf is the parameters of block onerc_host in a configuration.
func HostOf(c block.Config) (HostParams, error) {
	return block.ParamsOf[HostParams](c, "onerc_host")
}

// SmallHostParams is onerc_host shrunk for the proofs: 2 connections,
// 2-bit epochs, weights and sequence numbers, 4-bit rates.
func SmallHostParams() HostParams {
	g := gonerc.HostParams{NumConn: 2, ConnW: 2, KindW: HostKindW, EpochW: 2, WeightW: 2, SeqW: 2, RateW: 4}
	p := HostParams{HostParams: g}
	p.Depth = connpipe.MustDepth(NeededHostDepth(p))
	return p
}

func hostFormalJob(name, doc string, p HostParams, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return Host(p)
	}}
	if breaks {
		j.OwnOnly = true
		j.Mutants = connpipe.WithShellMutants(p.Depth, "status", map[string][]hdlgen.Mutation{
			// a close forgets to end the speculation
			"spec_is_active": {{Node: "spec_clear", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return get("rx_active")
			}}},
			// the first weight forgets its floor of one
			"weights_nonzero": {{Node: "start_weight", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return hdlgen.Mux(get("new_epoch"), get("conns_reg"), get("snap_count_reg"))
			}}},
			// later weights count the other connections only
			"header_weights_nonzero": {{Node: "count_weight", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.Sub(hdlgen.Const(orig.Width(), 1))
			}}},
			// every send takes a shared number, scheduled ones too
			"seq_only_speculative": {{Node: "seq_out", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return get("slot_seq")
			}}},
		})
	}
	return j
}

// hostFormalJobs are onerc_host's proofs: the small configuration with
// its broken variants, and a wider one (8-bit epochs, 4-bit weights,
// 6-bit sequence numbers and rates).
func hostFormalJobs() []block.FormalJob {
	small := SmallHostParams()
	wide := small
	wide.EpochW, wide.WeightW, wide.SeqW, wide.RateW = 8, 4, 6, 6
	wide.Depth = connpipe.MustDepth(NeededHostDepth(wide))
	return []block.FormalJob{
		hostFormalJob("onerc_host", fmt.Sprintf("2 connections, EpochW 2, WeightW 2, SeqW 2, RateW 4, depth %d", small.Depth), small, true),
		hostFormalJob("onerc_host_wide", fmt.Sprintf("2 connections, EpochW 8, WeightW 4, SeqW 6, RateW 6, depth %d", wide.Depth), wide, false),
	}
}
