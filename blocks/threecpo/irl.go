package threecpo

import (
	"fmt"
	"github.com/nicgen/nicgen/blocks/block"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/golden/fixed"
	gthreecpo "github.com/nicgen/nicgen/golden/threecpo"
	"github.com/nicgen/nicgen/hdlgen"
)

// IRLTokensParams configure irl_tokens: the golden model's parameters
// (the unit's and the table's), the pipeline's depth and the proofs'
// properties.
type IRLTokensParams struct {
	gthreecpo.IRLTableParams
	connpipe.Core
	WaitSlots int // waiting slots in front of the datapath (block.WaitSlotsAttr); 0: the plain shell
}

// irl_tokens's event kinds (golden/threecpo IRLKind).
const (
	IRLKindW    = 2
	IRLNumKinds = int(gthreecpo.IRLNumKinds)
)

// IRLKindNames names the kinds.
var IRLKindNames = []string{"open", "cycle", "set_wm"}

// DefaultIRLTokensParams is the thesis's unit (golden/threecpo
// DefaultIRLParams: WM_MAX 2468, a bucket of one 9-flit packet, sends of
// up to 64 packets' flits) on 64 GPU ports behind a 16-bit id.
func DefaultIRLTokensParams() IRLTokensParams {
	p := IRLTokensParams{IRLTableParams: gthreecpo.IRLTableParams{IRLParams: gthreecpo.DefaultIRLParams(), NumConn: 64, ConnW: 16, KindW: IRLKindW}}
	p.Depth = connpipe.MustDepth(NeededIRLDepth(p))
	return p
}

// IRLWordLayout is the per-port word: the two counters in two's
// complement, the two watermarks and the port's LFSR.
func IRLWordLayout(p IRLTokensParams) *hdlgen.Layout {
	return hdlgen.NewLayout("irl_tokens_word").
		Field("req", p.TokW(), fmt.Sprintf("request tokens, two's complement, %d..%d", 1-p.MaxCost, p.Cap)).
		Field("rsp", p.TokW(), fmt.Sprintf("response tokens, two's complement, %d..%d", 1-p.MaxCost, p.Cap)).
		Field("req_wm", p.WMW(), fmt.Sprintf("request watermark, 0..%d", p.WMMax)).
		Field("rsp_wm", p.WMW(), fmt.Sprintf("response watermark, 0..%d", p.WMMax)).
		Field("lfsr", 32, "the port's Galois LFSR (x^32 + x^22 + x^2 + x + 1), 32 steps per cycle")
}

// NeededIRLDepth is the number of datapath stages irl_tokens's cuts reach.
func NeededIRLDepth(p IRLTokensParams) (int, error) {
	return connpipe.NeededDepth(p, connpipe.MaxDepth, IRLTokens)
}

// IRLTokens builds the irl_tokens top: per GPU port, a cycle draws two
// random numbers from the port's LFSR and adds a token to each counter
// whose draw is below its watermark; a request asked in the cycle goes if
// both counters hold a token and takes its costs, which may drive them
// negative (S3:L1536-1564; docs/blocks/3cpo.md).
func IRLTokens(p IRLTokensParams) (*hdlgen.Module, error) {
	if err := p.ValidateTable(); err != nil {
		return nil, err
	}
	m := hdlgen.NewModule("irl_tokens", "3CPO injection-rate-limit tokens (S3 Section 6.1.3) per GPU port in block RAM, each event one cycle\nof a port, pipelined shell (docs/pipeline.md). Behaviour: docs/blocks/3cpo.md.")
	m.Note("NumConn = %d ports, WM_MAX = %d, RandBits = %d, Cap = %d, MaxCost = %d", p.NumConn, p.WMMax, p.RandBits, p.Cap, p.MaxCost)
	word := IRLWordLayout(p)
	tw, cw, ww, k := p.TokW(), p.CostW(), p.WMW(), p.RandBits
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: IRLKindW, NumKinds: IRLNumKinds, KindNames: IRLKindNames,
		EventFields: []connpipe.Field{
			{Name: "seed", Width: 32, Doc: "open: the port's LFSR start; 0 is an error"},
			{Name: "send", Width: 1, Doc: "cycle: a request packet asks to go"},
			{Name: "req_cost", Width: cw, Doc: fmt.Sprintf("cycle: its request tokens (request flits, plus matched remote flits); above %d it may not go", p.MaxCost)},
			{Name: "rsp_cost", Width: cw, Doc: fmt.Sprintf("cycle: its response tokens (the flits of its response); above %d it may not go", p.MaxCost)},
			{Name: "req_wm", Width: ww, Doc: fmt.Sprintf("set_wm: the request watermark (above %d: %d)", p.WMMax, p.WMMax)},
			{Name: "rsp_wm", Width: ww, Doc: fmt.Sprintf("set_wm: the response watermark (above %d: %d)", p.WMMax, p.WMMax)},
		},
		ResultFields: []connpipe.Field{
			{Name: "sent", Width: 1, Doc: "cycle: the request went (both counters held a token before it)"},
			{Name: "refused", Width: 1, Doc: "cycle: a request asked and did not go (a counter below 1, or a cost out of range)"},
			{Name: "new_req", Width: 1, Doc: "cycle: a request token arrived (draw below the watermark)"},
			{Name: "new_rsp", Width: 1, Doc: "cycle: a response token arrived"},
			{Name: "req_tokens", Width: tw, Doc: "the request counter after the event, two's complement"},
			{Name: "rsp_tokens", Width: tw, Doc: "the response counter after the event, two's complement"},
			{Name: "may_send", Width: 1, Doc: "after the event: both counters hold a token, a request may go"},
		},
		Word: word, Core: p.Core, Merge: block.Waiting(p.WaitSlots),
		Refuse: func(kind hdlgen.Expr, f hdlgen.Record) hdlgen.Expr {
			return kind.EqC(uint64(gthreecpo.IRLOpen)).And(f.F("seed").IsZero())
		},
	}
	if p.Formal.Invariants {
		inRange := func(v hdlgen.Expr) hdlgen.Value {
			s := v.AsSigned()
			return s.Le(hdlgen.SConst(tw, int64(p.Cap))).And(s.Ge(hdlgen.SConst(tw, int64(1-p.MaxCost))))
		}
		spec.WordInvariants = []connpipe.Invariant{
			{Name: "tokens_in_range", Holds: func(f hdlgen.Record) hdlgen.Value { return hdlgen.Cat(inRange(f.F("req")), inRange(f.F("rsp"))).All() }},
			{Name: "wm_le_max", Holds: func(f hdlgen.Record) hdlgen.Value {
				top := hdlgen.Const(ww, uint64(p.WMMax))
				return f.F("req_wm").Le(top).And(f.F("rsp_wm").Le(top))
			}},
		}
		spec.ResultInvariants = []connpipe.Invariant{
			{Name: "sent_or_refused", Holds: func(f hdlgen.Record) hdlgen.Value { return f.F("sent").And(f.F("refused")).Not() }},
			{Name: "may_send_means_tokens", Holds: func(f hdlgen.Record) hdlgen.Value {
				one := hdlgen.SConst(tw, 1)
				return f.F("may_send").Eq(f.F("req_tokens").AsSigned().Ge(one).And(f.F("rsp_tokens").AsSigned().Ge(one)))
			}},
		}
	}
	err := connpipe.Build(m, spec, func(st connpipe.Step) connpipe.Outcome {
		ev, cur := st.Event, st.Cur
		isOpen, isTick, isSet := st.KindIs(int(gthreecpo.IRLOpen)), st.KindIs(int(gthreecpo.IRLTick)), st.KindIs(int(gthreecpo.IRLSetWM))
		c := func(w int, v uint64) hdlgen.Expr { return hdlgen.Const(w, v) }
		// the cycle's draws: 32 LFSR steps; rand = (r WM_MAX) >> k < wm
		// exactly when r WM_MAX < wm 2^k
		// (16 steps per stage: an output bit is the XOR of up to 12 state
		// bits, two LUT levels; 32 at once took up to 21)
		lfsrHalf := st.Cut("lfsr_half", hdlgen.GaloisXor(cur.F("lfsr"), fixed.LFSRTaps, 16).Named("lfsr_half"))
		lfsrNext := st.Cut("lfsr_next", hdlgen.GaloisXor(lfsrHalf, fixed.LFSRTaps, 16).Named("lfsr_next"))
		wmax := c(ww, uint64(p.WMMax))
		token := func(name string, r, wm hdlgen.Expr) hdlgen.Expr {
			x := hdlgen.MulPieces(st.Cut, name+"_x", r, wmax) // k + ww bits
			return st.Cut(name, x.Lt(hdlgen.Cat(wm, c(k, 0))).Named(name))
		}
		newReq := token("new_req", lfsrNext.Keep(k-1, 0), cur.F("req_wm"))
		newRsp := token("new_rsp", lfsrNext.Keep(16+k-1, 16), cur.F("rsp_wm"))

		// the gate, from the counters before the cycle
		one := hdlgen.SConst(tw, 1)
		may := st.Cut("may", cur.F("req").AsSigned().Ge(one).And(cur.F("rsp").AsSigned().Ge(one)).Named("may"))
		maxCost := c(cw, uint64(p.MaxCost))
		bad := ev.F("req_cost").Gt(maxCost).Or(ev.F("rsp_cost").Gt(maxCost)).Named("cost_bad")
		asks := isTick.And(ev.F("send"))
		sent := st.Cut("sent", asks.And(may).And(bad.Not()).Named("sent"))
		refused := st.Cut("refused", asks.And(may.And(bad.Not()).Not()).Named("refused"))

		// tokens(c+1) = min(tokens(c) - cost(sent) + new(c), Cap)
		// (the counter's "holds a token" is taken from the sum beside the
		// cap, so that may_send needs no comparison after the stage)
		count := func(name string, t, cost, arrived hdlgen.Expr) (next, holds hdlgen.Expr) {
			w := tw + 2
			v := t.AsSigned().SExt(w).AsUnsigned().
				Sub(hdlgen.Mux(sent, cost.ZExt(w), c(w, 0))).
				Add(arrived.ZExt(w)).Named(name + "_sum")
			v = st.Cut(name+"_sum", v)
			over := v.AsSigned().Gt(hdlgen.SConst(w, int64(p.Cap))).Named(name + "_over")
			next = st.Cut(name+"_next", hdlgen.Mux(over, c(tw, uint64(p.Cap)), v.Trunc(tw)).Named(name+"_next"))
			holds = st.Cut(name+"_holds", v.AsSigned().Ge(hdlgen.SConst(w, 1)).Named(name+"_holds"))
			return next, holds
		}
		req1, reqHolds := count("req", cur.F("req"), ev.F("req_cost"), newReq)
		rsp1, rspHolds := count("rsp", cur.F("rsp"), ev.F("rsp_cost"), newRsp)

		clampWM := func(name string, v hdlgen.Expr) hdlgen.Expr { return hdlgen.Mux(v.Gt(wmax), wmax, v).Named(name) }
		capT := c(tw, uint64(p.Cap))
		opened := word.Pack(map[string]hdlgen.Value{"req": capT, "rsp": capT, "req_wm": wmax, "rsp_wm": wmax, "lfsr": ev.F("seed")})
		ticked := word.Pack(map[string]hdlgen.Value{"req": req1, "rsp": rsp1, "req_wm": cur.F("req_wm"), "rsp_wm": cur.F("rsp_wm"), "lfsr": lfsrNext})
		set := word.Pack(map[string]hdlgen.Value{"req": cur.F("req"), "rsp": cur.F("rsp"),
			"req_wm": clampWM("set_wm_req", ev.F("req_wm")), "rsp_wm": clampWM("set_wm_rsp", ev.F("rsp_wm")), "lfsr": cur.F("lfsr")})
		next := hdlgen.Mux(isOpen, opened, hdlgen.Mux(isSet, set, ticked))
		after := word.Unpack(next, "after")
		return connpipe.Outcome{
			Word: next,
			Result: map[string]hdlgen.Value{
				"sent": sent, "refused": refused,
				"new_req": isTick.And(newReq), "new_rsp": isTick.And(newRsp),
				"req_tokens": after.F("req"), "rsp_tokens": after.F("rsp"),
				// open: full buckets; set_wm: the counters before; cycle: after
				"may_send": hdlgen.Mux(isOpen, hdlgen.True(), hdlgen.Mux(isSet, may,
					reqHolds.And(rspHolds))).Named("may_send"),
			},
		}
	})
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}
