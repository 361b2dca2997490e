package srp

import (
	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	gsrp "github.com/nicgen/nicgen/golden/srp"
	"github.com/nicgen/nicgen/hdlgen"
)

// TxParams configures srp_tx: S2's sender, one word per destination send
// queue (golden/srp tx.go states the rules and the choices).
type TxParams struct {
	connpipe.Core
	NumConn, ConnW int
	NMin, NMax     uint64 // S2 Table 1: 4 and 16 packets
	MW             int    // bits of a message's length in packets
	SeqW           int    // bits of a sequence number
	TimeW          int
	WaitSlots      int // waiting slots in front of the datapath (block.WaitSlotsAttr); 0: the plain shell
	// WaitGrant is next_chunk = "after_grant": a chunk's
	// reservation waits until the grant of the chunk before has arrived
	WaitGrant bool
}

// srp_tx's event kinds (golden/srp TxKind).
const (
	TxKindW    = 3
	TxNumKinds = int(gsrp.TxNumKinds)
)

// TxKindNames are the names of s_event_kind's values.
var TxKindNames = []string{gsrp.TxOpen.String(), gsrp.TxMsg.String(), gsrp.TxSend.String(), gsrp.TxGrant.String(), gsrp.TxAck.String(), gsrp.TxNack.String()}

// DefaultTxParams is S2 Table 1 (n_min 4, n_max 16) with 4096 send
// queues, messages of up to 65,535 packets, 16-bit sequence numbers and
// 32-bit time.
func DefaultTxParams() TxParams {
	p := TxParams{NumConn: 4096, ConnW: 16, NMin: 4, NMax: 16, MW: 16, SeqW: 16, TimeW: 32}
	p.Depth = connpipe.MustDepth(NeededTxDepth(p))
	return p
}

// Golden is the golden model's view of the parameters.
func (p TxParams) Golden() gsrp.TxParams {
	return gsrp.TxParams{NMin: p.NMin, NMax: p.NMax, MW: p.MW, SeqW: p.SeqW, TimeW: p.TimeW, NumConn: p.NumConn, ConnW: p.ConnW, KindW: TxKindW, WaitGrant: p.WaitGrant}
}

// NW is the width of a chunk's packet count (0..n_max).
func (p TxParams) NW() int { return hdlgen.BitsFor(p.NMax) }

// TxWordLayout is the per-queue word of srp_tx.
func TxWordLayout(p TxParams) *hdlgen.Layout {
	nm := int(p.NMax)
	return hdlgen.NewLayout("srp_tx_word").
		Field("left", p.MW, "packets of the message not yet in a chunk").
		Field("base", p.SeqW, "sequence number of the chunk's first packet").
		Field("n", p.NW(), "packets of the chunk (0..n_max)").
		Field("next", p.NW(), "packets of the chunk sent speculatively, in order").
		Field("out", nm, "bit i: packet i sent speculatively, neither ACKed nor NACKed").
		Field("done", nm, "bit i: packet i ACKed or sent non-speculatively").
		Field("halted", 1, "a NACK stopped speculation").
		Field("granted", 1, "the grant arrived (or the chunk bypasses SRP)").
		Field("ts", p.TimeW, "t_s: non-speculative transmission starts then, ticks")
}

// NeededTxDepth is the number of datapath stages srp_tx's cuts reach.
func NeededTxDepth(p TxParams) (int, error) {
	return connpipe.NeededDepth(p, connpipe.MaxDepth, Tx)
}

// thermo is the NMax-bit mask of the values below v: bit i is v > i.
func thermo(v hdlgen.Expr, nmax int, name string) hdlgen.Expr {
	bitsOf := make([]hdlgen.Value, nmax) // most significant first
	for i := 0; i < nmax; i++ {
		bitsOf[nmax-1-i] = v.Gt(hdlgen.Const(v.Width(), uint64(i)))
	}
	if name == "" {
		return hdlgen.Cat(bitsOf...)
	}
	return hdlgen.Cat(bitsOf...).Named(name)
}

// onehot is the NMax-bit decoding of i (0 when i >= NMax).
func onehot(i hdlgen.Expr, nmax int, name string) hdlgen.Expr {
	bitsOf := make([]hdlgen.Value, nmax)
	for k := 0; k < nmax; k++ {
		bitsOf[nmax-1-k] = i.EqC(uint64(k))
	}
	return hdlgen.Cat(bitsOf...).Named(name)
}

// lowestIndex is the index of the lowest 1 bit of x, w bits wide (any
// value when x is 0): a tree of the halves' indices, log2 levels deep,
// which needs no carry chain first, so that it can run beside the one
// that isolates the lowest bit.
func lowestIndex(x hdlgen.Expr, w int, name string) hdlgen.Expr {
	var tree func(bits []hdlgen.Expr) (idx, any hdlgen.Expr)
	tree = func(bits []hdlgen.Expr) (idx, any hdlgen.Expr) {
		if len(bits) == 2 {
			return bits[0].Not(), bits[0].Or(bits[1])
		}
		h := len(bits) / 2
		iL, aL := tree(bits[:h])
		iH, aH := tree(bits[h:])
		return hdlgen.Mux(aL, hdlgen.Cat(hdlgen.False(), iL), hdlgen.Cat(hdlgen.True(), iH)), aL.Or(aH)
	}
	n := 2
	for n < x.Width() {
		n *= 2
	}
	if x.Width() == 1 {
		return hdlgen.Const(w, 0).Named(name)
	}
	bits := make([]hdlgen.Expr, n)
	for i := range bits {
		bits[i] = hdlgen.False()
		if i < x.Width() {
			bits[i] = x.Bit(i)
		}
	}
	idx, _ := tree(bits)
	if idx.Width() < w {
		idx = idx.ZExt(w)
	}
	return idx.Named(name)
}

// Tx builds the srp_tx top (docs/blocks/srp.md).
func Tx(p TxParams) (*hdlgen.Module, error) {
	if err := gsrp.ValidateTx(p.Golden()); err != nil {
		return nil, err
	}
	m := hdlgen.NewModule("srp_tx", "SRP sender (S2), one word per destination send queue in block RAM,\npipelined shell (docs/pipeline.md). Behaviour: docs/blocks/srp.md.")
	nm, nw, sw, tw := int(p.NMax), p.NW(), p.SeqW, p.TimeW
	m.Note("NumConn = %d, ConnW = %d, n_min = %d, n_max = %d, MW = %d, SeqW = %d, TimeW = %d", p.NumConn, p.ConnW, p.NMin, p.NMax, p.MW, sw, tw)
	if p.WaitGrant {
		m.Note("next_chunk = after_grant (A-37): a chunk's reservation waits for the grant of the chunk before")
	}
	word := TxWordLayout(p)
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: TxKindW, NumKinds: TxNumKinds, KindNames: TxKindNames,
		EventFields: []connpipe.Field{
			{Name: "m", Width: p.MW, Doc: "msg: packets of the message (1 and up; 0 is an error)"},
			{Name: "seq", Width: sw, Doc: "grant: the chunk's first sequence number; ack, nack: the packet's"},
			{Name: "ts", Width: tw, Doc: "grant: t_s in this NIC's clock, ticks"},
			{Name: "now", Width: tw, Doc: "time of the event, ticks (wrapping)"},
		},
		ResultFields: []connpipe.Field{
			{Name: "pkt", Width: 1, Doc: "send: a packet goes out"},
			{Name: "seq", Width: sw, Doc: "send: its sequence number (with res: the chunk's first)"},
			{Name: "spec", Width: 1, Doc: "send: on the speculative VC with a TTW, kept until ACKed; else the data VC"},
			{Name: "res", Width: 1, Doc: "send: issue the reservation R(res_n) for the chunk starting at seq"},
			{Name: "res_n", Width: nw, Doc: "send: packets of the reservation"},
			{Name: "stale", Width: 1, Doc: "grant, ack, nack: not for the current chunk or not outstanding; nothing changed"},
			{Name: "busy", Width: 1, Doc: "msg: the queue is still sending a message; nothing changed"},
			{Name: "msg_done", Width: 1, Doc: "the message is delivered after this event"},
		},
		Word: word, Core: p.Core, Merge: block.Waiting(p.WaitSlots),
		Refuse: func(kind hdlgen.Expr, f hdlgen.Record) hdlgen.Expr {
			return kind.EqC(uint64(gsrp.TxMsg)).And(f.F("m").IsZero())
		},
	}
	if p.Formal.Invariants {
		spec.WordInvariants = txWordInvariants(p)
	}
	err := connpipe.Build(m, spec, func(st connpipe.Step) connpipe.Outcome {
		isOpen, isMsg, isSend := st.KindIs(int(gsrp.TxOpen)), st.KindIs(int(gsrp.TxMsg)), st.KindIs(int(gsrp.TxSend))
		isGrant, isAck, isNack := st.KindIs(int(gsrp.TxGrant)), st.KindIs(int(gsrp.TxAck)), st.KindIs(int(gsrp.TxNack))
		left, base, n, next := st.Cur.F("left"), st.Cur.F("base"), st.Cur.F("n"), st.Cur.F("next")
		out, done, halted, granted, ts := st.Cur.F("out"), st.Cur.F("done"), st.Cur.F("halted"), st.Cur.F("granted"), st.Cur.F("ts")
		em, eseq, ets, now := st.Event.F("m"), st.Event.F("seq"), st.Event.F("ts"), st.Event.F("now")
		zeroN, zeroM := hdlgen.Const(nw, 0), hdlgen.Const(nm, 0)

		full := thermo(n, nm, "chunk_mask")
		complete := done.Eq(full).Named("complete")
		idle := left.IsZero().And(complete).Named("idle")
		// the next chunk, when a send finds the chunk complete and packets left
		// (decided in a stage of their own: the test of the chunk and the
		// word's muxes it selects do not fit one clock, 7.02 ns on ECP5)
		startIf := isSend.And(complete).And(left.Any())
		// after_grant: not while the chunk's reservation awaits its
		// grant (after open there is no chunk; a bypassed one made none)
		var awaiting hdlgen.Expr
		if p.WaitGrant {
			awaiting = n.Any().And(granted.Not()).Named("grant_awaited")
			startIf = startIf.And(awaiting.Not())
		}
		start := st.Cut("chunk_start", startIf.Named("chunk_start"))
		nmaxM := hdlgen.Const(p.MW, p.NMax)
		short := left.Lt(nmaxM).Named("left_short")
		n1 := st.Cut("chunk_n", hdlgen.Mux(short, left.Keep(nw-1, 0), hdlgen.Const(nw, p.NMax)).Named("chunk_n"))
		// left - min(left, n_max): the comparison and the subtraction side by side
		leftAfter := st.Cut("left_after", hdlgen.Mux(short, hdlgen.Const(p.MW, 0), left.Sub(nmaxM)).Named("left_after"))
		nextBase := st.Cut("next_base", base.Add(n.ZExt(sw)).Named("next_base"))
		// the chunk the send works on (the new one when it starts one)
		cN := st.Cut("c_n", hdlgen.Mux(start, n1, n).Named("c_n"))
		cLeft := st.Cut("c_left", hdlgen.Mux(start, leftAfter, left).Named("c_left"))
		cBase := st.Cut("c_base", hdlgen.Mux(start, nextBase, base).Named("c_base"))
		cNext := st.Cut("c_next", hdlgen.Mux(start, zeroN, next).Named("c_next"))
		cOut := st.Cut("c_out", hdlgen.Mux(start, zeroM, out).Named("c_out"))
		cDone := st.Cut("c_done", hdlgen.Mux(start, zeroM, done).Named("c_done"))
		cHalted := st.Cut("c_halted", halted.And(start.Not()).Named("c_halted"))
		cGranted := st.Cut("c_granted", granted.And(start.Not()).Named("c_granted"))
		cTs := st.Cut("c_ts", hdlgen.Mux(start, hdlgen.Const(tw, 0), ts).Named("c_ts"))
		started := st.Cut("started", start)

		// a send: speculative, in order, until the grant or a NACK
		specSend := isSend.And(cGranted.Not()).And(cHalted.Not()).And(cNext.Lt(cN)).Named("spec_send")
		// ... or from t_s on, the lowest packet neither delivered nor outstanding
		reached := now.Sub(cTs).Keep(tw-1, tw-1).Not().Named("ts_reached")
		// (the mask of the chunk ends a stage before the lowest bit's carry
		// chain: 6.60 ns on ECP5 in one)
		todo := st.Cut("todo", thermo(cN, nm, "c_chunk_mask").And(cDone.Or(cOut).Not()).Named("todo"))
		lowest := todo.And(todo.Not().Add(hdlgen.Const(nm, 1))).Named("todo_lowest")
		nsSend := st.Cut("ns_send", isSend.And(specSend.Not()).And(cGranted).And(reached).And(todo.Any()).Named("ns_send"))
		lowest = st.Cut("todo_lowest", lowest)
		specSend = st.Cut("spec_send", specSend)
		// the lowest bit's index beside it, from a register of its own:
		// encoding the lowest bit in the last stage put it before the
		// sequence number's add and the result head (srp_tx_ctl, 7.23 ns)
		nsIdx := st.Cut("ns_index", lowestIndex(todo, nw, "ns_index"))
		specBit := onehot(cNext, nm, "spec_bit")
		pktIdx := hdlgen.Mux(specSend, cNext, nsIdx).Named("pkt_index")
		pktSeq := cBase.Add(pktIdx.ZExt(sw)).Named("pkt_seq")

		// grant, ack, nack: a grant for the chunk while it awaits one; a
		// complete chunk awaits none after_sent, and its own after_grant
		var grantOK hdlgen.Expr
		if p.WaitGrant {
			grantOK = isGrant.And(awaiting).And(eseq.Eq(base)).Named("grant_ok")
		} else {
			grantOK = isGrant.And(n.Any()).And(granted.Not()).And(complete.Not()).And(eseq.Eq(base)).Named("grant_ok")
		}
		rel := eseq.Sub(base).Named("ack_index")
		inChunk := rel.Lt(n.ZExt(sw)).Named("ack_in_chunk")
		relBit := onehot(rel.Keep(nw-1, 0), nm, "ack_bit")
		hit := isAck.Or(isNack).And(inChunk).And(out.And(relBit).Any()).Named("ack_hit")
		hit, relBit, grantOK = st.Cut("ack_hit", hit), st.Cut("ack_bit", relBit), st.Cut("grant_ok", grantOK)
		// a message: bypass below n_min, else the packets wait for a send
		bypass := em.Lt(hdlgen.Const(p.MW, p.NMin)).Named("bypass")
		idleC := st.Cut("idle", idle)
		msgOK := isMsg.And(idleC).Named("msg_ok")

		// the word after the event
		newOut := hdlgen.Mux(specSend, cOut.Or(specBit), hdlgen.Mux(hit, cOut.And(relBit.Not()), cOut)).Named("new_out")
		newDone := hdlgen.Mux(nsSend, cDone.Or(lowest), hdlgen.Mux(hit.And(isAck), cDone.Or(relBit), cDone)).Named("new_done")
		newNext := hdlgen.Mux(specSend, cNext.Add(hdlgen.Const(nw, 1)), cNext).Named("new_next")
		newHalted := cHalted.Or(hit.And(isNack)).Named("new_halted")
		newGranted := cGranted.Or(grantOK).Named("new_granted")
		newTs := hdlgen.Mux(grantOK, ets, cTs).Named("new_ts")
		newLeft := hdlgen.Mux(msgOK.And(bypass.Not()), em, cLeft).Named("new_left")
		kept := word.Pack(map[string]hdlgen.Value{"left": newLeft, "base": cBase, "n": cN, "next": newNext, "out": newOut,
			"done": newDone, "halted": newHalted, "granted": newGranted, "ts": newTs})
		emShort := em.Keep(nw-1, 0) // below n_min <= n_max: fits the count
		bypassed := word.Pack(map[string]hdlgen.Value{"left": hdlgen.Const(p.MW, 0), "base": cBase.Add(cN.ZExt(sw)), "n": emShort, "next": emShort,
			"out": zeroM, "done": zeroM, "halted": hdlgen.False(), "granted": hdlgen.True(), "ts": now})
		newWord := hdlgen.Mux(isOpen, word.Zero(), hdlgen.Mux(msgOK.And(bypass), bypassed, kept))
		// the message ends when the event leaves the queue idle
		nowIdle := newLeft.IsZero().And(newDone.Eq(thermo(cN, nm, "new_chunk_mask"))).Named("now_idle")
		msgDone := idleC.Not().And(nowIdle).And(isSend.Or(isAck)).Named("msg_done")
		return connpipe.Outcome{
			Word: newWord,
			Result: map[string]hdlgen.Value{
				"pkt":      specSend.Or(nsSend),
				"seq":      hdlgen.Mux(specSend.Or(nsSend), pktSeq, hdlgen.Const(sw, 0)),
				"spec":     specSend,
				"res":      started,
				"res_n":    hdlgen.Mux(started, cN, zeroN),
				"stale":    isGrant.And(grantOK.Not()).Or(isAck.Or(isNack).And(hit.Not())),
				"busy":     isMsg.And(idleC.Not()),
				"msg_done": msgDone,
			},
		}
	})
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}

// txWordInvariants are srp_tx's word invariants: the chunk holds at most
// n_max packets, speculation stays within the packets sent, a packet is
// never both outstanding and delivered, nothing past the chunk is, and
// before the grant only packets sent are.
func txWordInvariants(p TxParams) []connpipe.Invariant {
	nm := int(p.NMax)
	return []connpipe.Invariant{
		{Name: "n_le_nmax", Holds: func(f hdlgen.Record) hdlgen.Value {
			return f.F("n").Le(hdlgen.Const(p.NW(), p.NMax))
		}},
		{Name: "next_le_n", Holds: func(f hdlgen.Record) hdlgen.Value { return f.F("next").Le(f.F("n")) }},
		{Name: "out_were_sent", Holds: func(f hdlgen.Record) hdlgen.Value {
			return f.F("out").And(thermo(f.F("next"), nm, "").Not()).IsZero()
		}},
		{Name: "out_done_disjoint", Holds: func(f hdlgen.Record) hdlgen.Value { return f.F("out").And(f.F("done")).IsZero() }},
		{Name: "done_within_chunk", Holds: func(f hdlgen.Record) hdlgen.Value {
			return f.F("done").And(thermo(f.F("n"), nm, "").Not()).IsZero()
		}},
		// before the grant only ACKed packets are delivered, and those were
		// sent (what makes out_done_disjoint inductive)
		{Name: "done_before_grant_were_sent", Holds: func(f hdlgen.Record) hdlgen.Value {
			return f.F("granted").Or(f.F("done").And(thermo(f.F("next"), nm, "").Not()).IsZero())
		}},
	}
}
