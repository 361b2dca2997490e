// Package onerc holds the 1RC blocks (seed S3 chapter 5): onerc_switch,
// the window table of a switch port. Behaviour: docs/blocks/onerc.md.
package onerc

import (
	"fmt"
	"github.com/nicgen/nicgen/blocks/block"

	"github.com/nicgen/nicgen/blocks/connpipe"
	gonerc "github.com/nicgen/nicgen/golden/onerc"
	"github.com/nicgen/nicgen/hdlgen"
)

// SwitchParams configure onerc_switch.
type SwitchParams struct {
	connpipe.Core
	NumConn, ConnW int // slots of the window table (a power of two) and the id's width
	TagW           int // bits of the epoch above the slot index
	WinW           int // bits of a window, of let_through and of the threshold
	WeightW        int // bits of the weight (connection count)
	SeqW           int // bits of a sequence number
	MissPass       bool
	WaitSlots      int // waiting slots in front of the datapath (block.WaitSlotsAttr); 0: the plain shell
}

// onerc_switch's event kinds (golden/onerc SwitchKind).
const (
	SwitchKindW    = 2
	SwitchNumKinds = int(gonerc.SwNumKinds)
)

// SwitchKindNames names the kinds.
var SwitchKindNames = []string{"open", "ctrl", "data"}

// DefaultSwitchParams: 16 epoch slots, 16-bit tags (epochs of 12 us wrap
// after 16 x 2^16 x 12 us = 12.6 s), windows up to 4,095 packets (a BDP
// of 12 us at 800 Gb/s is 293 packets of 4 KiB), weights up to 255
// connections, 16-bit sequence numbers, misses dropped.
func DefaultSwitchParams() SwitchParams {
	p := SwitchParams{NumConn: 16, ConnW: 16, TagW: 16, WinW: 12, WeightW: 8, SeqW: 16}
	p.Depth = connpipe.MustDepth(NeededSwitchDepth(p))
	return p
}

// Golden is the golden model's view of the parameters.
func (p SwitchParams) Golden() gonerc.SwitchParams {
	return gonerc.SwitchParams{NumConn: p.NumConn, ConnW: p.ConnW, KindW: SwitchKindW, TagW: p.TagW, WinW: p.WinW,
		WeightW: p.WeightW, SeqW: p.SeqW, MissPass: p.MissPass}
}

// SwitchWordLayout is the per-slot word of onerc_switch.
func SwitchWordLayout(p SwitchParams) *hdlgen.Layout {
	return hdlgen.NewLayout("onerc_switch_word").
		Field("valid", 1, "the slot holds an epoch's entry").
		Field("tag", p.TagW, "the epoch's bits above the slot index").
		Field("win", p.WinW, "the entry: rate_to_window(b) of the epoch's first control packet, packets")
}

// NeededSwitchDepth is the number of datapath stages onerc_switch's cuts
// reach.
func NeededSwitchDepth(p SwitchParams) (int, error) {
	return connpipe.NeededDepth(p, connpipe.MaxDepth, Switch)
}

// divide is floor(n / d) for d > 0 by restoring division, one quotient
// bit per step from the top, the pipeline cut after every per steps: each
// step is a comparison of d's width + 1 bits, a subtraction of d's width
// and a mux.
func divide(st connpipe.Step, name string, n, d hdlgen.Expr, per int) hdlgen.Expr {
	nw, dw := n.Width(), d.Width()
	rem := hdlgen.Const(dw, 0) // always below d
	q := make([]hdlgen.Value, nw)
	for k, i := 0, nw-1; i >= 0; k, i = k+1, i-1 {
		t := hdlgen.Cat(rem, n.Bit(i)) // 2 rem + n[i] < 2d
		ge := t.Ge(d.ZExt(dw + 1)).Named(fmt.Sprintf("%s_q%d", name, i))
		q[k] = ge
		if i == 0 {
			break
		}
		// t - d < d when t >= d: its low dw bits are the remainder
		low := t.Trunc(dw)
		rem = hdlgen.Mux(ge, low.Sub(d), low).Named(fmt.Sprintf("%s_rem%d", name, i))
		if (k+1)%per == 0 {
			rem = st.Cut(fmt.Sprintf("%s_rem%d", name, i), rem)
		}
	}
	return hdlgen.Cat(q...).Named(name)
}

// Switch builds the onerc_switch top: per epoch slot of a switch port's
// window table, the first control packet of a newer epoch fills the entry
// and every control packet gets let_through = max(1, min(entry/weight,
// let_through)); a speculative data packet is dropped when its sequence
// number reaches max(1, entry/weight) (docs/blocks/onerc.md).
func Switch(p SwitchParams) (*hdlgen.Module, error) {
	if err := gonerc.ValidateSwitch(p.Golden()); err != nil {
		return nil, err
	}
	m := hdlgen.NewModule("onerc_switch", "1RC window table of one switch port (S3 Alg. 4 lines 15-19, Alg. 5), one entry per epoch slot\nin block RAM, pipelined shell (docs/pipeline.md). Behaviour: docs/blocks/onerc.md.")
	m.Note("NumConn = %d slots, ConnW = %d, TagW = %d, WinW = %d, WeightW = %d, SeqW = %d, misses %s",
		p.NumConn, p.ConnW, p.TagW, p.WinW, p.WeightW, p.SeqW, map[bool]string{false: "dropped", true: "passed"}[p.MissPass])
	word := SwitchWordLayout(p)
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: SwitchKindW, NumKinds: SwitchNumKinds, KindNames: SwitchKindNames,
		EventFields: []connpipe.Field{
			{Name: "tag", Width: p.TagW, Doc: "the epoch's bits above the slot index (the slot is s_event_conn)"},
			{Name: "window", Width: p.WinW, Doc: "ctrl: rate_to_window(b), packets"},
			{Name: "weight", Width: p.WeightW, Doc: "ctrl, data: the flow's weight, its host's connection count; 0 is an error"},
			{Name: "let_through", Width: p.WinW, Doc: "ctrl: let_through so far"},
			{Name: "seq", Width: p.SeqW, Doc: "data: sequence number"},
			{Name: "spec", Width: 1, Doc: "data: the packet is speculative"},
		},
		ResultFields: []connpipe.Field{
			{Name: "hit", Width: 1, Doc: "the slot holds the packet's epoch (after a fill)"},
			{Name: "filled", Width: 1, Doc: "ctrl: this packet created the entry"},
			{Name: "thresh", Width: p.WinW, Doc: "ctrl, data with an entry: max(1, entry / weight); else 0"},
			{Name: "let_through", Width: p.WinW, Doc: "ctrl: max(1, min(entry / weight, let_through)); else 0"},
			{Name: "drop", Width: 1, Doc: "data: the speculative packet is dropped"},
			{Name: "spec", Width: 1, Doc: "data: the packet is speculative (echo)"},
		},
		Word: word, Core: p.Core, Merge: block.Waiting(p.WaitSlots),
		Refuse: func(kind hdlgen.Expr, f hdlgen.Record) hdlgen.Expr {
			return kind.EqC(uint64(gonerc.SwOpen)).Not().And(f.F("weight").IsZero())
		},
	}
	if p.Formal.Invariants {
		spec.ResultInvariants = []connpipe.Invariant{
			{Name: "scheduled_never_dropped", Holds: func(f hdlgen.Record) hdlgen.Value { return f.F("drop").Implies(f.F("spec")) }},
			{Name: "ctrl_at_least_one", Holds: func(f hdlgen.Record) hdlgen.Value {
				ctrl := f.F("kind").EqC(uint64(gonerc.SwCtrl)).And(f.F("error").Not())
				return ctrl.Implies(f.F("thresh").Any().And(f.F("let_through").Any()))
			}},
		}
	}
	err := connpipe.Build(m, spec, func(st connpipe.Step) connpipe.Outcome {
		isOpen, isCtrl, isData := st.KindIs(int(gonerc.SwOpen)), st.KindIs(int(gonerc.SwCtrl)), st.KindIs(int(gonerc.SwData))
		cv, ctag, cwin := st.Cur.F("valid"), st.Cur.F("tag"), st.Cur.F("win")
		tag, win, weight := st.Event.F("tag"), st.Event.F("window"), st.Event.F("weight")
		spec := st.Event.F("spec")
		sameTag := tag.Eq(ctag).Named("same_tag")
		hit0 := cv.And(sameTag).Named("hit0")
		// a newer epoch than the slot's: tag - ctag in the lower half of the
		// circle and not 0 (serial comparison)
		d := tag.Sub(ctag).Named("tag_minus_cur")
		newer := cv.Not().Or(sameTag.Not().And(d.Keep(p.TagW-1, p.TagW-1).Not())).Named("newer")
		fill := isCtrl.And(hit0.Not()).And(newer).Named("fill")
		entry := st.Cut("entry", hdlgen.Mux(hit0, cwin, win).Named("entry"))
		// one division step per stage (two measured 7.94 ns on ECP5, 126
		// MHz); windows too wide for the shell's stages take two
		per := (p.WinW + connpipe.MaxDepth - 4) / (connpipe.MaxDepth - 3)
		q := st.Cut("quot", divide(st, "quot", entry, weight, per))
		one := hdlgen.Const(p.WinW, 1)
		thresh := st.Cut("thresh", hdlgen.Mux(q.IsZero(), one, q).Named("thresh"))
		letIn := st.Event.F("let_through")
		least := st.Cut("let_min", hdlgen.Mux(q.Lt(letIn), q, letIn).Named("let_min"))
		letOut := hdlgen.Mux(least.IsZero(), one, least).Named("let_out")
		sw := max(p.SeqW, p.WinW)
		late := st.Event.F("seq").ZExt(sw).Ge(thresh.ZExt(sw)).Named("seq_late")
		dropHit := spec.And(late).Named("drop_hit")
		dropMiss := spec.And(hdlgen.Const(1, map[bool]uint64{false: 1, true: 0}[p.MissPass]))
		drop := isData.And(hdlgen.Mux(hit0, dropHit, dropMiss)).Named("drop")
		zero := hdlgen.Const(p.WinW, 0)
		return connpipe.Outcome{
			Word: hdlgen.Mux(isOpen, word.Zero(),
				hdlgen.Mux(fill, word.Pack(map[string]hdlgen.Value{"valid": hdlgen.True(), "tag": tag, "win": win}),
					word.Pack(map[string]hdlgen.Value{"valid": cv, "tag": ctag, "win": cwin}))),
			Result: map[string]hdlgen.Value{
				"hit":         isOpen.Not().And(hit0.Or(fill)),
				"filled":      fill,
				"thresh":      hdlgen.Mux(isCtrl.Or(isData.And(hit0)), thresh, zero),
				"let_through": hdlgen.Mux(isCtrl, letOut, zero),
				"drop":        drop,
				"spec":        isData.And(spec),
			},
		}
	})
	if err == nil {
		err = p.Formal.Check(m)
	}
	return m, err
}
