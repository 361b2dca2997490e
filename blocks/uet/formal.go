package uet

import (
	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/reps"
	"github.com/nicgen/nicgen/blocks/smartt"
	guet "github.com/nicgen/nicgen/golden/uet"
	"github.com/nicgen/nicgen/hdlgen"
)

// resultInvariants hold of every result beat of uet_cc (docs/formal.md):
//   - inflight_open_zero: an open starts with nothing in flight. Broken: an
//     open adds its size as a send does.
//   - send_leaves_window: a send applies no window rule and fires no
//     QuickAdapt. Broken: the result's case has its low bit set whatever
//     the event.
//   - may_send_rule: may_send is the configured rule of the results'
//     inflight and cwnd. Broken: may_send always 1.
func resultInvariants(p Params) []connpipe.Invariant {
	bw := p.CC.ByteW
	return []connpipe.Invariant{
		{Name: "inflight_open_zero", Holds: func(r hdlgen.Record) hdlgen.Value {
			return r.F("kind").EqC(uint64(guet.KindOpen)).Implies(r.F("inflight").IsZero())
		}},
		{Name: "send_leaves_window", Holds: func(r hdlgen.Record) hdlgen.Value {
			return r.F("kind").EqC(uint64(guet.KindSend)).Implies(r.F("case").IsZero().And(r.F("qa").Not()))
		}},
		{Name: "may_send_rule", Holds: func(r hdlgen.Record) hdlgen.Value {
			cwnd, f := r.F("cwnd"), r.F("inflight")
			w := max(bw, cwnd.Width()) + 1
			var rule hdlgen.Expr
			if p.Rule == guet.RoomForMTU {
				rule = f.ZExt(w).Add(hdlgen.Const(w, uint64(p.CC.Net.MTU))).Le(cwnd.ZExt(w))
			} else {
				rule = f.ZExt(w).Lt(cwnd.ZExt(w))
			}
			return r.F("error").Or(r.F("may_send").Eq(rule))
		}},
	}
}

// SmallParams composes the parts' small proof configurations (2
// connections, MTU 64 B, a 4-entry buffer or 5 entropies) at depth 1;
// reps takes the window controller's 28-bit time, as the parts share now.
// The tests that build many variants (mutants) use it: it verilates in a
// fraction of the default's time.
func SmallParams(cc smartt.Variant, conf bool) Params {
	r := reps.SmallParams()
	c := smartt.SmallParams(cc)
	r.TimeW = c.TimeW
	return Params{CC: c, REPS: r, Conf: reps.SmallConfParams(), UseConf: conf, Core: connpipe.Core{Depth: 1}}
}

func formalJob(name, doc string, p Params, breaks bool) block.FormalJob {
	j := block.FormalJob{Name: name, Doc: doc, MaxSteps: 12 + 2*p.Depth, Breaks: breaks, Build: func(f connpipe.Formal) (*hdlgen.Module, error) {
		p.Formal = f
		return Block(p)
	}}
	if breaks {
		j.Mutants = map[string][]hdlgen.Mutation{
			"inflight_open_zero": {{Node: "inflight_next", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
				return hdlgen.Mux(get("inflight_is_open"), get("inflight_added"), orig)
			}}},
			"send_leaves_window": {{Node: "case_result", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr {
				return orig.Or(hdlgen.Const(orig.Width(), 1))
			}}},
			"may_send_rule": {{Node: "may_send", With: func(hdlgen.Expr, func(string) hdlgen.Expr) hdlgen.Expr { return hdlgen.True() }}},
		}
		j.BreakOnly = []string{"inflight_open_zero", "send_leaves_window", "may_send_rule"}
		j.OwnOnly = true
	}
	return j
}

// formalJobs are uet_cc's proofs: nscc with reps (the default parts), with
// the broken variants of uet_cc's own assertions; nscc with reps_conf and
// the htsim send rule; smartt with reps. Each proves the parts' word
// invariants of their fields of the composed word, the composition's
// result invariants and the shell's properties.
func formalJobs() []block.FormalJob {
	conf := SmallParams(smartt.NSCC, true)
	conf.Rule = guet.RoomForMTU
	return []block.FormalJob{
		formalJob("uet_cc", "nscc and reps as in their proofs (2 connections, MTU 64 B, 4-entry buffer), time 28 bits", SmallParams(smartt.NSCC, false), true),
		formalJob("uet_cc_conf", "nscc and reps_conf (5 entropies), may_send room_for_mtu", conf, false),
		formalJob("uet_cc_smartt", "smartt and reps", SmallParams(smartt.Conf, false), false),
	}
}
