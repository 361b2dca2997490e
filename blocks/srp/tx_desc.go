package srp

import (
	"fmt"
	"math/bits"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/golden/pipe"
	gsrp "github.com/nicgen/nicgen/golden/srp"
	"github.com/nicgen/nicgen/hdlgen"
)

// TxDescriptor is srp_tx to nicgen's tools (package blocks lists it).
func TxDescriptor() block.Block {
	return block.Define(block.Desc[TxParams]{
		Name:   "srp_tx",
		Title:  "SRP sender (S2): reservations, speculative transmission until the grant, NACKed packets resent from t_s",
		Cocotb: block.Replay{Icarus: 10000},
		Attrs: []block.Attr{
			{Name: "n_min", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "packets", Doc: "messages shorter than this bypass SRP (S2 Table 1: 4)"},
			{Name: "n_max", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "packets", Doc: "reservation granularity: a chunk's packets (S2 Table 1: 16); one bit per packet in the word"},
			{Name: "message_width", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "bits", Doc: "width of a message's length in packets"},
			{Name: "seq_width", Kind: block.Whole, Lo: 1, Hi: 32, Unit: "bits", Doc: "width of a sequence number; at least two chunks' worth"},
			{Name: "time_width", Kind: block.Whole, Lo: 2, Hi: 63, Unit: "bits", Doc: "width of s_event_now and t_s"},
			{Name: "next_chunk", Kind: block.String, Options: txNextChunk, Doc: "when the next chunk's reservation goes out (A-37, S2:L76): after_sent, at the first send once every packet of the chunk is delivered; after_grant, not before the chunk's grant has also arrived"},
			block.DepthAttr,
			block.WaitSlotsAttr,
		},
		Default: DefaultTxParams,
		Resolve: resolveTx,
		Build:   Tx,
		Paper:   func(TxParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p TxParams) int { return p.NumConn },
		Slots:   func(p TxParams) int { return p.WaitSlots },
		Kinds:   TxKindNames,
		Golden: func(p TxParams) (block.Golden, error) {
			m, err := gsrp.NewTxModel(p.Golden())
			return txGolden{m}, err
		},
		Cycler: func(p TxParams) (block.Cycler, error) {
			m, err := gsrp.NewTxModel(p.Golden())
			if err != nil {
				return nil, err
			}
			return txCycler{pipe.NewShell[gsrp.TxEvent, gsrp.TxResult](m, p.Depth, p.WaitSlots, nil)}, nil
		},
		Stimulus: txStimulus,
		Formal:   txFormalJobs,
	})
}

type txGolden struct{ m *gsrp.TxModel }

func (txGolden) Fields() ([]string, []string) {
	return []string{"conn", "kind", "m", "seq", "ts", "now"},
		[]string{"conn", "kind", "pkt", "seq", "spec", "res", "res_n", "stale", "busy", "msg_done", "error"}
}

func (g txGolden) Step(in, out []uint64) {
	e := gsrp.TxEvent{Conn: uint32(in[0]), Kind: gsrp.TxKind(in[1]), M: in[2], Seq: in[3], Ts: in[4], Now: in[5]}
	var r gsrp.TxResult
	g.m.StepTo(&e, &r)
	out[0], out[1], out[2], out[3], out[4], out[5] = uint64(r.Conn), uint64(r.Kind), block.Bit(r.Pkt), r.Seq, block.Bit(r.Spec), block.Bit(r.Res)
	out[6], out[7], out[8], out[9], out[10] = r.ResN, block.Bit(r.Stale), block.Bit(r.Busy), block.Bit(r.MsgDone), block.Bit(r.Error)
}

func (g txGolden) Reset() { g.m.Reset() }

type txCycler struct{ p *gsrp.TxPipeline }

func (c txCycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	out := c.p.Cycle(pipe.In[gsrp.TxEvent]{SValid: valid, MReady: ready, Event: gsrp.TxEvent{Conn: conn, Kind: gsrp.TxOpen}})
	return out.SReady, out.MValid
}

// resolveTx reads block "srp_tx" of a configuration.
func resolveTx(s block.Section, env block.Env) TxParams {
	p := TxParams{NumConn: int(env.Conns), ConnW: int(env.ConnW), WaitSlots: block.WaitSlots(s)}
	p.NMin = s.Whole("n_min", 4, block.Default, "S2 Table 1")
	p.NMax = s.Whole("n_max", 16, block.Default, "S2 Table 1")
	p.MW = int(s.Whole("message_width", 16, block.Default, "messages of up to 65,535 packets"))
	if need := bits.Len64(p.NMax); p.MW < need {
		s.Errorf("message_width", "message_width = %d cannot hold a chunk of n_max = %d packets: want at least %d bits", p.MW, p.NMax, need)
	}
	p.SeqW = int(s.Whole("seq_width", 16, block.Default, "16-bit sequence numbers"))
	p.TimeW = int(s.Whole("time_width", env.TimeW, block.Derived, "hardware.time_width"))
	p.WaitGrant = s.Choice("next_chunk", txNextChunk[0], "A-37: \"after S has transmitted all n packets successfully\" (S2:L76), grant or not") == txNextChunk[1]
	if err := gsrp.ValidateTx(p.Golden()); err != nil {
		s.Errorf(block.FirstSet(s, "n_min", "n_min", "n_max", "seq_width", "message_width", "time_width"), "%v", err)
		return DefaultTxParams()
	}
	depth, ok := block.DerivedDepth(s, func() (int, error) { return NeededTxDepth(p) })
	if !ok {
		return DefaultTxParams()
	}
	p.Depth = depth
	return p
}

// txNextChunk are next_chunk's values, the default first.
var txNextChunk = []string{"after_sent", "after_grant"}

// TxOf is the parameters of block srp_tx in a configuration.
func TxOf(c block.Config) (TxParams, error) { return block.ParamsOf[TxParams](c, "srp_tx") }

// SmallTxParams is srp_tx shrunk for the proofs: 2 queues, n_min and
// n_max 2 (a 2-bit count that can pass it), 3-bit lengths and sequence
// numbers, 4-bit time.
func SmallTxParams() TxParams {
	p := TxParams{NumConn: 2, ConnW: 2, NMin: 2, NMax: 2, MW: 3, SeqW: 3, TimeW: 4}
	p.Depth = connpipe.MustDepth(NeededTxDepth(p))
	return p
}

func txFormalJob(name, doc string, p TxParams, breaks bool) block.FormalJob {
	// a broken variant may need a message, a send and an answer on one
	// queue, each Depth cycles after the last, before a word shows it
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 16 + 3*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return Tx(p)
	}}
	if breaks {
		// each mutation uses its node's own value or values of its stage
		nm := int(p.NMax)
		top := hdlgen.Const(nm, uint64(1)<<uint(nm-1))
		j.OwnOnly = true
		j.Mutants = connpipe.WithShellMutants(p.Depth, "pkt", map[string][]hdlgen.Mutation{
			// a chunk of n_max + 1
			"n_le_nmax": {{Node: "chunk_n", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.Add(get("chunk_start").ZExt(orig.Width()))
			}}},
			// the speculative count moves on every event
			"next_le_n": {{Node: "new_next", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.Add(hdlgen.Const(orig.Width(), 1))
			}}},
			// an ACK leaves its packet outstanding (packets sent only, so
			// that out_were_sent still holds and the counterexample is
			// this assertion's: with every delivered packet, the solver
			// may return one that fails out_were_sent at the same step)
			"out_done_disjoint": {{Node: "new_out", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.Or(get("new_done").And(thermo(get("new_next"), nm, "")))
			}}},
			// the last packet counted outstanding before it is sent
			"out_were_sent": {{Node: "new_out", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.Or(top)
			}}},
			// the last packet counted delivered, in a chunk or not
			"done_within_chunk": {{Node: "new_done", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.Or(top)
			}}},
			// the chunk's last packet counted delivered before it is sent
			"done_before_grant_were_sent": {{Node: "new_done", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.Or(top.And(get("new_chunk_mask")))
			}}},
		})
	}
	return j
}

// txFormalJobs are srp_tx's proofs: the small configuration with its
// broken variants, and S2's n_min and n_max with narrow counters.
func txFormalJobs() []block.FormalJob {
	mid := TxParams{NumConn: 2, ConnW: 2, NMin: 4, NMax: 16, MW: 6, SeqW: 6, TimeW: 6}
	mid.Depth = connpipe.MustDepth(NeededTxDepth(mid))
	small := SmallTxParams()
	// A-37's after_grant: the grant of a complete chunk is taken, and the
	// next chunk waits for it
	wait := small
	wait.WaitGrant = true
	return []block.FormalJob{
		txFormalJob("srp_tx", fmt.Sprintf("NumConn 2, n_min 2, n_max 2, MW 3, SeqW 3, TimeW 4, depth %d", small.Depth), small, true),
		txFormalJob("srp_tx_s2", "S2's n_min 4 and n_max 16, 6-bit lengths, sequence numbers and time", mid, false),
		txFormalJob("srp_tx_after_grant", fmt.Sprintf("next_chunk after_grant (A-37), NumConn 2, n_min 2, n_max 2, MW 3, SeqW 3, TimeW 4, depth %d", wait.Depth), wait, false),
	}
}
