package srp

import (
	"fmt"

	"github.com/nicgen/nicgen/blocks/connpipe"
	gsrp "github.com/nicgen/nicgen/golden/srp"
	"github.com/nicgen/nicgen/hdlgen"
)

// TTWParams configures srp_ttw: the TTW check of one router input buffer,
// one word per buffer slot (golden/srp TTWMode for the A-20 choices).
type TTWParams struct {
	connpipe.Core
	NumConn, ConnW int // slots of the buffer and the width of their id
	TimeW          int
	HdrW           int // the header field: accumulated wait, or a deadline (TimeW bits)
	TTW            uint64
	Mode           gsrp.TTWMode
}

// srp_ttw's event kinds (golden/srp TTWKind).
const (
	TTWKindW    = 2
	TTWNumKinds = int(gsrp.TTWNumKinds)
)

// TTWKindNames are the names of s_event_kind's values.
var TTWKindNames = []string{gsrp.TTWOpen.String(), gsrp.TTWArrive.String(), gsrp.TTWHead.String()}

// DefaultTTWParams is S2's speculative VC: a 16-packet input buffer, a TTW
// of 1.3 us in 1 ns ticks, the accumulated wait in a 16-bit header field
// 32-bit time.
func DefaultTTWParams() TTWParams {
	p := TTWParams{NumConn: 16, ConnW: 16, TimeW: 32, HdrW: 16, TTW: 1300, Mode: gsrp.TTWAccumulated}
	p.Depth = connpipe.MustDepth(NeededTTWDepth(p))
	return p
}

// Golden is the golden model's view of the parameters.
func (p TTWParams) Golden() gsrp.TTWParams {
	return gsrp.TTWParams{Mode: p.Mode, TTW: p.TTW, TimeW: p.TimeW, HdrW: p.HdrW, NumConn: p.NumConn, ConnW: p.ConnW, KindW: TTWKindW}
}

// TTWWordLayout is the per-slot word of srp_ttw.
func TTWWordLayout(p TTWParams) *hdlgen.Layout {
	l := hdlgen.NewLayout("srp_ttw_word").
		Field("valid", 1, "the slot holds a packet").
		Field("spec", 1, "the packet is speculative")
	if p.Mode != gsrp.TTWDeadline { // a deadline needs no arrival time
		l = l.Field("stamp", p.TimeW, "arrival time at this router, ticks")
	}
	return l.Field("hdr", p.HdrW, "the packet's header field as it arrived")
}

// NeededTTWDepth is the number of datapath stages srp_ttw's cuts reach.
func NeededTTWDepth(p TTWParams) (int, error) {
	return connpipe.NeededDepth(p, connpipe.MaxDepth, TTW)
}

// TTW builds the srp_ttw top: a speculative packet is stamped on arrival
// into its slot and checked when it reaches the head of the buffer; past
// its TTW it is dropped and its head flit becomes a NACK; scheduled
// packets pass (docs/blocks/srp.md).
func TTW(p TTWParams) (*hdlgen.Module, error) {
	if err := gsrp.ValidateTTW(p.Golden()); err != nil {
		return nil, err
	}
	m := hdlgen.NewModule("srp_ttw", "SRP router input buffer TTW check (S2), one word per buffer slot in block RAM,\npipelined shell (docs/pipeline.md). Behaviour: docs/blocks/srp.md.")
	tw, hw := p.TimeW, p.HdrW
	m.Note("NumConn = %d slots, ConnW = %d, TimeW = %d, HdrW = %d, TTW = %d ticks, mode %s (A-20)", p.NumConn, p.ConnW, tw, hw, p.TTW, p.Mode)
	word := TTWWordLayout(p)
	hdrDoc := "accumulated queueing time at earlier hops, ticks"
	switch p.Mode {
	case gsrp.TTWPerHop:
		hdrDoc = "header field, forwarded unchanged (per-hop mode)"
	case gsrp.TTWDeadline:
		hdrDoc = "deadline written by the source (send time + TTW), ticks"
	}
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: TTWKindW, NumKinds: TTWNumKinds, KindNames: TTWKindNames,
		EventFields: []connpipe.Field{
			{Name: "now", Width: tw, Doc: "time of the event, ticks (wrapping)"},
			{Name: "hdr", Width: hw, Doc: "arrive: " + hdrDoc},
			{Name: "spec", Width: 1, Doc: "arrive: the packet is speculative"},
		},
		ResultFields: []connpipe.Field{
			{Name: "drop", Width: 1, Doc: "the speculative packet is dropped: its head flit becomes a NACK to its source"},
			{Name: "spec", Width: 1, Doc: "head: the packet is speculative (arrive: set with drop)"},
			{Name: "hdr", Width: hw, Doc: "head: the header to forward (0 when dropped)"},
			{Name: "empty", Width: 1, Doc: "head: the slot held no packet"},
		},
		Word: word, Core: p.Core,
	}
	if p.Formal.Invariants {
		spec.ResultInvariants = []connpipe.Invariant{{Name: "scheduled_never_dropped", Holds: func(f hdlgen.Record) hdlgen.Value {
			return f.F("drop").Implies(f.F("spec"))
		}}}
		if p.Mode == gsrp.TTWAccumulated {
			spec.ResultInvariants = append(spec.ResultInvariants, connpipe.Invariant{Name: "forwarded_within_ttw", Holds: func(f hdlgen.Record) hdlgen.Value {
				head := f.F("kind").EqC(uint64(gsrp.TTWHead))
				return head.And(f.F("spec")).And(f.F("drop").Not()).Implies(f.F("hdr").Le(hdlgen.Const(hw, p.TTW)))
			}})
		}
	}
	ttw := func(w int) hdlgen.Expr { return hdlgen.Const(w, p.TTW) }
	err := connpipe.Build(m, spec, func(st connpipe.Step) connpipe.Outcome {
		isArr, isHead := st.KindIs(int(gsrp.TTWArrive)).Named("is_arrive"), st.KindIs(int(gsrp.TTWHead)).Named("is_head")
		now, evHdr, evSpec := st.Event.F("now"), st.Event.F("hdr"), st.Event.F("spec")
		valid, cspec, chdr := st.Cur.F("valid"), st.Cur.F("spec"), st.Cur.F("hdr")
		// a deadline has passed when now - deadline is in the lower half of
		// the circle and not 0 (serial numbers)
		late := func(deadline hdlgen.Expr, name string) hdlgen.Expr {
			d := now.Sub(deadline).Keep(tw-1, tw-1)
			return now.Ne(deadline).And(d.Not()).Named(name)
		}
		// at arrival, with no wait here: the header alone
		var arrExp hdlgen.Expr
		switch p.Mode {
		case gsrp.TTWAccumulated:
			arrExp = evHdr.Gt(ttw(hw)).Named("arrive_expired")
		case gsrp.TTWPerHop:
			arrExp = hdlgen.False()
		case gsrp.TTWDeadline:
			arrExp = late(evHdr, "arrive_expired")
		}
		// at the head: the wait here, and the header to forward
		var wait hdlgen.Expr
		if p.Mode != gsrp.TTWDeadline {
			// a stage of its own: the subtraction, the sum and the test
			// are three carry chains (6.24 ns on ECP5 in one stage)
			wait = st.Cut("local_wait", now.Sub(st.Cur.F("stamp")).Named("local_wait"))
		}
		var headExp, fwd hdlgen.Expr
		switch p.Mode {
		case gsrp.TTWAccumulated:
			sw := max(hw, tw) + 1
			sum := chdr.ZExt(sw).Add(wait.ZExt(sw)).Named("acc_sum")
			// the sum saturates at the header's width; below the TTW it fits
			headExp = sum.Gt(ttw(sw)).Named("head_expired")
			fwd = sum.Keep(hw-1, 0)
		case gsrp.TTWPerHop:
			headExp = wait.Gt(ttw(tw)).Named("head_expired")
			fwd = chdr
		case gsrp.TTWDeadline:
			headExp = late(chdr, "head_expired")
			fwd = chdr
		}
		headExp = st.Cut("head_expired", headExp)
		arrDrop := isArr.And(evSpec).And(arrExp).Named("arrive_drop")
		// the packet's class as the result reports it, and the gate of the
		// check (kept apart, so that the property "scheduled packets are
		// never dropped" compares the drop with the class, not with itself)
		headSpec := isHead.And(valid).And(cspec).Named("head_spec")
		checked := isHead.And(valid).And(cspec).Named("head_checked")
		headDrop := checked.And(headExp).Named("head_drop")
		drop := arrDrop.Or(headDrop).Named("drop")
		hdrOut := hdlgen.Mux(isHead.And(valid).And(headDrop.Not()), hdlgen.Mux(cspec, fwd, chdr), hdlgen.Const(hw, 0)).Named("hdr_out")
		// an arrival kept is stored; an open, a head and an arrival dropped
		// leave the slot empty
		store := isArr.And(arrDrop.Not()).Named("store")
		stored := map[string]hdlgen.Value{"valid": hdlgen.True(), "spec": evSpec, "hdr": evHdr}
		if p.Mode != gsrp.TTWDeadline {
			stored["stamp"] = now
		}
		return connpipe.Outcome{
			Word: hdlgen.Mux(store,
				word.Pack(stored),
				word.Zero()),
			Result: map[string]hdlgen.Value{
				"drop":  drop,
				"spec":  arrDrop.Or(headSpec),
				"hdr":   hdrOut,
				"empty": isHead.And(valid.Not()),
			},
		}
	})
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}

// ttwModes are the mode names of the configuration.
var ttwModes = []gsrp.TTWMode{gsrp.TTWAccumulated, gsrp.TTWPerHop, gsrp.TTWDeadline}

func parseTTWMode(s string) (gsrp.TTWMode, error) {
	for _, m := range ttwModes {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown ttw_mode %q: want accumulated, per_hop or deadline", s)
}
