package threecpo

import (
	"fmt"
	"github.com/nicgen/nicgen/blocks/block"

	"github.com/nicgen/nicgen/blocks/connpipe"
	gthreecpo "github.com/nicgen/nicgen/golden/threecpo"
	"github.com/nicgen/nicgen/hdlgen"
)

// MCastMatchParams configure mcast_match: the golden model's parameters
// (the matcher's and the table's), the pipeline's depth and the proofs'
// properties.
type MCastMatchParams struct {
	gthreecpo.MatchTableParams
	connpipe.Core
	// WaitSlots is the waiting slots in front of the datapath
	// (block.WaitSlotsAttr); 0: the plain shell.
	WaitSlots int
}

// mcast_match's event kinds (golden/threecpo MatchKind).
const (
	MatchKindW    = 3
	MatchNumKinds = int(gthreecpo.MatchNumKinds)
)

// MatchKindNames names the kinds.
var MatchKindNames = []string{"open", "send", "remote", "response", "expire"}

// DefaultMCastMatchParams is golden/threecpo's DefaultMatchTableParams
// (7 other members, 4-bit flits, 12-bit counters, the thesis's MI factor)
// behind a 16-bit id.
func DefaultMCastMatchParams() MCastMatchParams {
	p := MCastMatchParams{MatchTableParams: gthreecpo.DefaultMatchTableParams()}
	p.Depth = connpipe.MustDepth(NeededMatchDepth(p))
	return p
}

// MatchWordLayout is the per-matcher word: the local flits awaiting
// responses, then each member's unmatched and outstanding flits.
func MatchWordLayout(p MCastMatchParams) *hdlgen.Layout {
	l := hdlgen.NewLayout("mcast_match_word").
		Field("local", p.CountW-1, fmt.Sprintf("flits of local requests awaiting their responses, 0..%d", p.LocalMax()))
	for j := 0; j < p.Members; j++ {
		l = l.Field(fmt.Sprintf("unm%d", j), p.CountW, fmt.Sprintf("member %d: flits sent minus received, two's complement, outstanding..local", j)).
			Field(fmt.Sprintf("out%d", j), p.CountW, fmt.Sprintf("member %d: minus its queued flits, two's complement, %d..0", j, p.OutMin()))
	}
	return l
}

// NeededMatchDepth is the number of datapath stages mcast_match's cuts reach.
func NeededMatchDepth(p MCastMatchParams) (int, error) {
	return connpipe.NeededDepth(p, connpipe.MaxDepth, MCastMatch)
}

// sumTree adds values pairwise, each level ending a stage (cut), widening
// by a bit per level up to maxW bits, the width of their whole sum.
func sumTree(cut func(string, hdlgen.Value) hdlgen.Expr, name string, vals []hdlgen.Expr, maxW int) hdlgen.Expr {
	for level := 0; len(vals) > 1; level++ {
		var next []hdlgen.Expr
		for i := 0; i < len(vals); i += 2 {
			if i+1 == len(vals) {
				next = append(next, vals[i].ZExt(min(vals[i].Width()+1, maxW)))
				continue
			}
			w := min(max(vals[i].Width(), vals[i+1].Width())+1, maxW)
			s := vals[i].ZExt(w).Add(vals[i+1].ZExt(w)).Named(fmt.Sprintf("%s_l%d_%d", name, level, i/2))
			next = append(next, cut(fmt.Sprintf("%s_l%d_%d", name, level, i/2), s))
		}
		vals = next
	}
	return vals[0]
}

// matchEventFields are the event's fields; a factor of 1 at every
// latency (mi_low = 1) needs no latency.
func matchEventFields(p MCastMatchParams) []connpipe.Field {
	f := []connpipe.Field{
		{Name: "src", Width: p.SrcW(), Doc: fmt.Sprintf("remote, expire: the member (0..%d; others are errors)", p.Members-1)},
		{Name: "flits", Width: p.FlitW, Doc: "send, remote, response, expire: the request's flits"},
	}
	if p.MILowNum < p.MIDen {
		f = append(f, connpipe.Field{Name: "lat", Width: p.LatW, Doc: "send, remote: the measured collective latency in cycles (the MI factor's)"})
	}
	return append(f,
		connpipe.Field{Name: "now", Width: p.TimeW, Doc: "remote: the arrival time"},
		connpipe.Field{Name: "wait", Width: p.TimeW, Doc: "remote: RTT plus inter-send delay, the entry's time in the Remote-Op-Queue"})
}

// addConstSplit is x + k, one bit wider than x, in two stages: the bits
// of k's width with their carry, then the rest with it (a short carry
// chain per stage).
func addConstSplit(cut func(string, hdlgen.Value) hdlgen.Expr, name string, x hdlgen.Expr, k uint64) hdlgen.Expr {
	lo := hdlgen.BitsFor(k)
	if lo >= x.Width() {
		return cut(name, x.ZExt(x.Width()+1).Add(hdlgen.Const(x.Width()+1, k)).Named(name))
	}
	low := cut(name+"_lo", x.Slice(lo-1, 0).ZExt(lo+1).Add(hdlgen.Const(lo+1, k)).Named(name+"_lo"))
	hw := x.Width() - lo + 1
	high := x.Slice(x.Width()-1, lo).ZExt(hw).Add(low.Bit(lo).ZExt(hw)).Named(name + "_hi")
	return cut(name, hdlgen.Cat(high, low.Slice(lo-1, 0)).Named(name))
}

// MCastMatch builds the mcast_match top: per matcher (a GPU's traffic
// class on one multicast group), §7.9's rules for a local send, a remote
// request, a response and an expiry, each event paying the tokens of its
// matched flits times the MI factor (S3:L1607-1663; docs/blocks/3cpo.md).
func MCastMatch(p MCastMatchParams) (*hdlgen.Module, error) {
	if err := p.ValidateTable(); err != nil {
		return nil, err
	}
	m := hdlgen.NewModule("mcast_match", "3CPO multicast matching (S3 Section 6.2.2) per matcher in block RAM, the Remote-Op-Queue a FIFO\nbeside it, pipelined shell (docs/pipeline.md). Behaviour: docs/blocks/3cpo.md.")
	m.Note("NumConn = %d matchers, Members = %d, FlitW = %d, CountW = %d, MI %d/%d below %d cycles, 1 from %d", p.NumConn, p.Members, p.FlitW, p.CountW, p.MILowNum, p.MIDen, p.MILoLat, p.MIHiLat)
	word := MatchWordLayout(p)
	cw, fw, sw, mw, tw := p.CountW, p.FlitW, p.SrcW(), p.MatchedW(), p.TokensW()
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: MatchKindW, NumKinds: MatchNumKinds, KindNames: MatchKindNames,
		EventFields: matchEventFields(p),
		ResultFields: []connpipe.Field{
			{Name: "tokens", Width: tw, Doc: "send: its flits plus the MI cost of the matched flits; remote: the MI cost"},
			{Name: "matched", Width: mw, Doc: "send, remote: the flits matched"},
			{Name: "expiry", Width: p.TimeW, Doc: "remote, not refused: now + wait, when the NIC's FIFO returns the entry as an expire event"},
			{Name: "refused", Width: 1, Doc: "a counter would leave its range (local past its top, a member's queued flits past theirs, an expire for more than is queued): nothing changed"},
		},
		Word: word, Core: p.Core, Merge: block.Waiting(p.WaitSlots),
		Refuse: func(kind hdlgen.Expr, f hdlgen.Record) hdlgen.Expr {
			member := kind.EqC(uint64(gthreecpo.MatchRemoteKind)).Or(kind.EqC(uint64(gthreecpo.MatchExpireKind)))
			if p.Members == 1<<uint(sw) {
				return hdlgen.False().And(member)
			}
			return member.And(f.F("src").Ge(hdlgen.Const(sw, uint64(p.Members))))
		},
	}
	if p.Formal.Invariants {
		spec.WordInvariants = []connpipe.Invariant{
			{Name: "counts_ordered", Holds: func(f hdlgen.Record) hdlgen.Value {
				local := f.F("local").ZExt(cw).AsSigned()
				ok := hdlgen.True()
				for j := 0; j < p.Members; j++ {
					u, o := f.F(fmt.Sprintf("unm%d", j)).AsSigned(), f.F(fmt.Sprintf("out%d", j)).AsSigned()
					ok = ok.And(o.Le(hdlgen.SConst(cw, 0))).And(o.Le(u)).And(u.Le(local))
				}
				return ok
			}},
		}
		spec.ResultInvariants = []connpipe.Invariant{
			{Name: "refused_pays_nothing", Holds: func(f hdlgen.Record) hdlgen.Value {
				return f.F("refused").Not().Or(f.F("tokens").IsZero().And(f.F("matched").IsZero()).And(f.F("expiry").IsZero()))
			}},
			{Name: "cost_within_matched", Holds: func(f hdlgen.Record) hdlgen.Value {
				// tokens <= flits + matched for a send, <= matched for a remote;
				// both below (members + 1) x the largest request
				return f.F("tokens").ZExt(tw + 1).Le(f.F("matched").ZExt(tw + 1).Add(hdlgen.Const(tw+1, uint64(1)<<uint(fw)-1)))
			}},
		}
	}
	err := connpipe.Build(m, spec, func(st connpipe.Step) connpipe.Outcome {
		ev, cur := st.Event, st.Cur
		isOpen := st.KindIs(int(gthreecpo.MatchOpenKind))
		isSend, isRemote := st.KindIs(int(gthreecpo.MatchSendKind)), st.KindIs(int(gthreecpo.MatchRemoteKind))
		isRsp, isExp := st.KindIs(int(gthreecpo.MatchResponseKind)), st.KindIs(int(gthreecpo.MatchExpireKind))
		c := hdlgen.Const
		f := ev.F("flits")
		fS := f.ZExt(cw).AsSigned() // the flits as a signed count

		// event-only, while the word is read: the member's one-hot, the MI
		// numerator num(lat) = lo w + (den - lo)(clamp(lat) - lo_lat) over
		// D = den w, and the expiry
		srcOH := make([]hdlgen.Expr, p.Members)
		for j := range srcOH {
			srcOH[j] = ev.F("src").EqC(uint64(j)).Named(fmt.Sprintf("src_is%d", j))
		}
		span := uint64(p.MIHiLat - p.MILoLat)
		dd := uint64(p.MIDen) * span
		numW := hdlgen.BitsFor(dd)
		num := c(numW, uint64(p.MILowNum)*span) // a factor of 1 at every latency: no lat field
		if slope := uint64(p.MIDen - p.MILowNum); slope > 0 {
			lat := ev.F("lat")
			lw := p.LatW
			loLat, hiLat := c(lw, uint64(p.MILoLat)), c(lw, uint64(p.MIHiLat))
			cl := st.Cut("lat_clamped", hdlgen.Mux(lat.Lt(loLat), loLat, hdlgen.Mux(lat.Gt(hiLat), hiLat, lat)).Named("lat_clamped"))
			rise := cl.Sub(loLat).Keep(hdlgen.BitsFor(span)-1, 0).Named("lat_over_lo") // 0..span: the upper bits are 0
			prod := rise.ZExt(numW).Mul(c(numW, slope))
			num = st.Cut("mi_num", num.Add(prod).Named("mi_num"))
		}
		expiry := ev.F("now").Add(ev.F("wait")).Named("expiry_sum") // wraps at TimeW bits

		// the word
		local := cur.F("local").ZExt(cw).AsSigned()
		unm := make([]hdlgen.Expr, p.Members)
		out := make([]hdlgen.Expr, p.Members)
		for j := range unm {
			unm[j] = cur.F(fmt.Sprintf("unm%d", j)).AsSigned()
			out[j] = cur.F(fmt.Sprintf("out%d", j)).AsSigned()
		}
		zero := hdlgen.SConst(cw, 0)
		negF := zero.Sub(fS).Named("flits_neg") // event-only: -f

		// send: every member's remote flits not yet matched (a negative
		// unmatched) match up to f; local + f must stay in range
		localSum := st.Cut("local_sum", cur.F("local").ZExt(cw).Add(f.ZExt(cw)).Named("local_sum"))
		sendOver := localSum.Bit(cw - 1).Named("send_over") // past 2^(cw-1) - 1
		takes := make([]hdlgen.Expr, p.Members)
		for j := range unm {
			// -u < f exactly when -f < u (one comparison with an event-only
			// -f); -u's low bits are those of 0 - u's low bits. The flags end
			// a stage, the selection is in the next
			ul := unm[j].AsUnsigned()
			neg := st.Cut(fmt.Sprintf("send_neg%d", j), ul.Bit(cw-1))
			small := st.Cut(fmt.Sprintf("send_small%d", j), negF.Lt(unm[j]).Named(fmt.Sprintf("send_small%d", j)))
			owed := st.Cut(fmt.Sprintf("send_owed%d", j), c(fw, 0).Sub(ul.Slice(fw-1, 0)).Named(fmt.Sprintf("send_owed%d", j)))
			t := hdlgen.Mux(small, owed, f)
			takes[j] = st.Cut(fmt.Sprintf("send_take%d", j), hdlgen.Mux(neg, t, c(fw, 0)).Named(fmt.Sprintf("send_take%d", j)))
		}
		sendMatched := sumTree(st.Cut, "send_matched", takes, mw)

		// remote and expire on member src, computed by every member and
		// selected by the one-hot: remote, up to f of the local flits not
		// yet matched (a positive unmatched) match; its outstanding must
		// stay in range. expire: outstanding rises by f, at most to 0, and
		// unmatched is raised to it
		var rmtOver, expOver, rmtTakeAny []hdlgen.Value
		rmtU, rmtO, expO, expU := make([]hdlgen.Expr, p.Members), make([]hdlgen.Expr, p.Members), make([]hdlgen.Expr, p.Members), make([]hdlgen.Expr, p.Members)
		for j := range unm {
			oMinus := out[j].Sub(fS).Named(fmt.Sprintf("rmt_out%d", j)) // in range unless refused
			// out - f < -2^(cw-1) exactly when out + 2^(cw-1) (out with its
			// sign bit flipped, unsigned) < f: one comparison, no difference
			biased := hdlgen.Cat(out[j].AsUnsigned().Bit(cw-1).Not(), out[j].AsUnsigned().Slice(cw-2, 0))
			rmtOver = append(rmtOver, st.Cut(fmt.Sprintf("rmt_over%d", j), srcOH[j].And(biased.Lt(f.ZExt(cw))).Named(fmt.Sprintf("rmt_over%d", j))))
			rmtO[j] = st.Cut(fmt.Sprintf("rmt_out%d", j), oMinus)
			rmtU[j] = st.Cut(fmt.Sprintf("rmt_unm%d", j), unm[j].Sub(fS).Named(fmt.Sprintf("rmt_unm%d", j)))
			ul := unm[j].AsUnsigned()
			pos := st.Cut(fmt.Sprintf("rmt_pos%d", j), ul.Bit(cw-1).Not().And(ul.Any()).Named(fmt.Sprintf("rmt_pos%d", j)))
			small := st.Cut(fmt.Sprintf("rmt_small%d", j), ul.Lt(f.ZExt(cw)).Named(fmt.Sprintf("rmt_small%d", j)))
			t := hdlgen.Mux(small, st.Cut(fmt.Sprintf("rmt_low%d", j), ul.Slice(fw-1, 0)), f)
			rmtTakeAny = append(rmtTakeAny, st.Cut(fmt.Sprintf("rmt_take%d", j), hdlgen.Mux(srcOH[j].And(pos), t, c(fw, 0)).Named(fmt.Sprintf("rmt_take%d", j))))
			oPlus := out[j].Add(fS).Named(fmt.Sprintf("exp_out%d", j)) // out <= 0, f < 2^(cw-2): no overflow
			// out + f > 0 exactly when -f < out: one comparison with -f
			expOver = append(expOver, st.Cut(fmt.Sprintf("exp_over%d", j), srcOH[j].And(negF.Lt(out[j])).Named(fmt.Sprintf("exp_over%d", j))))
			oPlus = st.Cut(fmt.Sprintf("exp_out%d", j), oPlus)
			expO[j] = oPlus
			// max(u, out + f) = out + f exactly when out + f > u: u - out < f
			raise := st.Cut(fmt.Sprintf("exp_raise%d", j), unm[j].Lt(oPlus).Named(fmt.Sprintf("exp_raise%d", j)))
			expU[j] = hdlgen.Mux(raise, expO[j], unm[j]).Named(fmt.Sprintf("exp_unm%d", j))
		}
		rmtMatched := rmtTakeAny[0].(hdlgen.Expr)
		for _, t := range rmtTakeAny[1:] {
			rmtMatched = rmtMatched.Or(t)
		}
		rmtMatched = rmtMatched.Named("rmt_matched")
		orAll := func(vs []hdlgen.Value) hdlgen.Expr { return hdlgen.Cat(vs...).Any() }
		refused := st.Cut("refused", isSend.And(sendOver).Or(isRemote.And(orAll(rmtOver))).Or(isExp.And(orAll(expOver))).Named("refused"))

		// response: local falls by f, at least to 0; no member's unmatched
		// exceeds it
		localRsp := st.Cut("local_rsp", hdlgen.Mux(local.Lt(fS), zero, local.Sub(fS)).Named("local_rsp"))

		// the next word, per field
		fields := map[string]hdlgen.Value{}
		fields["local"] = hdlgen.Mux(isSend, localSum.Trunc(cw-1), hdlgen.Mux(isRsp, localRsp.AsUnsigned().Trunc(cw-1), cur.F("local")))
		for j := range unm {
			// (its comparison ends a stage, the selection another: the new
			// local count fans out to every member's)
			capped := st.Cut(fmt.Sprintf("rsp_cap%d", j), localRsp.Lt(unm[j]).Named(fmt.Sprintf("rsp_cap%d", j)))
			rspU := st.Cut(fmt.Sprintf("rsp_unm%d", j), hdlgen.Mux(capped, localRsp, unm[j]).Named(fmt.Sprintf("rsp_unm%d", j)))
			sendU := st.Cut(fmt.Sprintf("send_unm%d", j), unm[j].Add(fS).Named(fmt.Sprintf("send_unm%d", j)))
			u := hdlgen.Mux(isSend, sendU, hdlgen.Mux(isRsp, rspU,
				hdlgen.Mux(srcOH[j].And(isRemote), rmtU[j], hdlgen.Mux(srcOH[j].And(isExp), expU[j], unm[j]))))
			o := hdlgen.Mux(srcOH[j].And(isRemote), rmtO[j], hdlgen.Mux(srcOH[j].And(isExp), expO[j], out[j]))
			fields[fmt.Sprintf("unm%d", j)] = u.AsUnsigned().Named(fmt.Sprintf("unm%d_next", j))
			fields[fmt.Sprintf("out%d", j)] = o.AsUnsigned().Named(fmt.Sprintf("out%d_next", j))
		}
		names := []string{"local"}
		for j := range unm {
			names = append(names, fmt.Sprintf("unm%d", j), fmt.Sprintf("out%d", j))
		}
		zeros := map[string]hdlgen.Value{}
		for _, n := range names { // a refused event changes nothing; an open clears
			fields[n] = hdlgen.Mux(refused, cur.F(n), fields[n].(hdlgen.Expr))
			zeros[n] = c(cur.F(n).Width(), 0)
		}
		next := hdlgen.Mux(isOpen, word.Pack(zeros), word.Pack(fields))

		// the cost, after the word: ceil(matched num / D)
		matched := hdlgen.Mux(isSend, sendMatched.ZExt(mw), hdlgen.Mux(isRemote, rmtMatched.ZExt(mw), c(mw, 0)))
		matched = st.Cut("matched", hdlgen.Mux(refused, c(mw, 0), matched).Named("matched"))
		x := hdlgen.MulPieces(st.Cut, "mi_x", matched, num) // mw + numW bits
		x = addConstSplit(st.Cut, "mi_x_up", x, dd-1)
		cost := hdlgen.DivConst(st.Cut, "mi_cost", x, dd)
		cost = st.Cut("mi_cost", cost.Keep(tw-1, 0)) // at most matched
		tokens := hdlgen.Mux(isSend.And(refused.Not()), f.ZExt(tw).Add(cost), cost).Named("tokens")
		return connpipe.Outcome{
			Word: next,
			Result: map[string]hdlgen.Value{
				"tokens": tokens, "matched": matched, "refused": refused,
				"expiry": hdlgen.Mux(isRemote.And(refused.Not()), expiry, c(p.TimeW, 0)).Named("expiry"),
			},
		}
	})
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}
