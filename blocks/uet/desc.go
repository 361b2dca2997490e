package uet

import (
	"slices"

	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/control"
	"github.com/nicgen/nicgen/blocks/reps"
	"github.com/nicgen/nicgen/blocks/smartt"
	guet "github.com/nicgen/nicgen/golden/uet"
)

// Descriptor is uet_cc to nicgen's tools (package blocks lists it). Its
// parts' parameters are the configuration's sections of those blocks (or
// their defaults when the file has none): the nscc in uet_cc is the nscc
// the configuration describes.
func Descriptor() block.Block {
	return block.Define(block.Desc[Params]{
		Name:   "uet_cc",
		Title:  "UEC transport congestion engine: nscc (or smartt) and reps (or reps_conf) composed on one event stream, with the bytes in flight",
		Cocotb: block.Replay{Icarus: 5000, Verilator: 10000},
		Attrs: []block.Attr{
			{Name: "cc", Kind: block.String, Options: []string{"nscc", "smartt"}, Doc: "the window controller, with the parameters of its block's section"},
			{Name: "lb", Kind: block.String, Options: []string{"reps", "reps_conf"}, Doc: "the load balancer, with the parameters of its block's section"},
			{Name: "may_send", Kind: block.String, Options: []string{"below_cwnd", "room_for_mtu"}, Doc: "below_cwnd: bytes in flight < cwnd; room_for_mtu: bytes in flight + MTU <= cwnd (htsim's send permission for a full packet)"},
			{Name: "send_path", Kind: block.String, Options: []string{"shared", "split"}, Doc: "shared: one shell runs both parts on every event; split: the load balancer and the bytes in flight on a short send path, the window controller (with the window controller's section's depth and merge_slots) on a window path that writes the window the send path reads (docs/blocks/uet_cc.md, Split send path)"},
			block.DepthAttr,
		},
		Default: DefaultParams,
		Resolve: resolve,
		Build:   Block,
		Paper: func(p Params) (block.PaperFigure, bool) {
			// S1's 19 B and S4 Table 1's 193 bits (8 entries, its widths)
			r := p.REPS
			if p.UseConf || p.CC.Variant != smartt.NSCC || r.N != 8 || r.EVW != 16 || r.HeadW != 8 || r.CountW != 8 || r.TimeW != 32 || r.ExploreW != 8 {
				return block.PaperFigure{}, false
			}
			return block.PaperFigure{PerConnBits: 19*8 + 17*r.N + 57, Source: "S1:L861-862 (19 B) + S4 Table 1 (193 bits)"}, true
		},
		NumConn: func(p Params) int { return p.NumConn() },
		Kinds:   KindNames,
		Decode:  []block.Names{{Field: "case", Key: "rule", Names: smartt.Rules}},
		Golden: func(p Params) (block.Golden, error) {
			m, err := guet.NewModel(p.Golden())
			return eventModel{m, !p.UseConf, p.Split}, err
		},
		Cycler: func(p Params) (block.Cycler, error) {
			if p.Split {
				return newSplitCycler(p)
			}
			m, err := guet.NewModel(p.Golden())
			if err != nil {
				return nil, err
			}
			return cycler{guet.NewPipeline(m, p.Depth)}, nil
		},
		Cycle: func(p Params) (block.CycleModel, bool, error) {
			if !p.Split {
				return nil, false, nil
			}
			s, err := guet.NewSplit(p.Golden())
			return &splitModel{s: s, g: p.Golden()}, true, err
		},
		Formal: formalJobs,
		Macros: func(p Params) []control.Macro { return smartt.Macros(p.CC) },
	})
}

// DefaultParams is uet_cc in the default configuration: the default nscc
// and reps, below_cwnd, at the depth its datapath reaches.
func DefaultParams() Params {
	p := baseParams()
	p.CC.Depth = connpipe.MustDepth(smartt.DepthFor(p.CC))
	p.Depth = connpipe.MustDepth(NeededDepth(p))
	return p
}

// baseParams are DefaultParams before the depths are counted: what a
// configuration's section starts from (resolve counts its depth once, for
// its own parts).
func baseParams() Params {
	return Params{CC: smartt.DefaultParams(smartt.NSCC), REPS: reps.DefaultParams(), Conf: reps.DefaultConfParams(), Rule: guet.BelowWindow, Core: connpipe.Core{Depth: 1}}
}

func resolve(s block.Section, env block.Env) Params {
	p := baseParams()
	ccName := s.Choice("cc", "nscc", "the UEC reference's window controller (S1, NSCC)")
	lbName := s.Choice("lb", "reps", "the UEC reference's load balancer (S4, REPS)")
	rule := s.Choice("may_send", "below_cwnd", "bytes in flight < cwnd: a connection sends while its window is not full")
	path := s.Choice("send_path", "shared", "one shell for both parts: every result is the composition of the parts' per-event results")
	if env.Params == nil {
		p.CC.Depth = connpipe.MustDepth(smartt.DepthFor(p.CC))
	} else {
		cc, ok := env.Params(ccName).(smartt.Params)
		if !ok {
			s.Errorf("cc", "cc = %q: the configuration's %s section does not resolve", ccName, ccName)
			return p
		}
		p.CC = cc
		if lbName == "reps_conf" {
			lb, ok := env.Params(lbName).(reps.ConfParams)
			if !ok {
				s.Errorf("lb", "lb = %q: the configuration's reps_conf section does not resolve", lbName)
				return p
			}
			p.Conf, p.UseConf = lb, true
		} else {
			lb, ok := env.Params(lbName).(reps.Params)
			if !ok {
				s.Errorf("lb", "lb = %q: the configuration's reps section does not resolve", lbName)
				return p
			}
			p.REPS = lb
		}
	}
	if rule == "room_for_mtu" {
		p.Rule = guet.RoomForMTU
	} else {
		p.Rule = guet.BelowWindow
	}
	p.Split = path == "split"
	if p.Split && p.UseConf {
		s.Errorf("send_path", "send_path = \"split\" needs lb = \"reps\": reps_conf's split engine is not built")
		return p
	}
	if err := p.Validate(); err != nil {
		s.Errorf("", "uet_cc: %v", err)
		return p
	}
	if d, ok := block.DerivedDepth(s, func() (int, error) { return NeededDepth(p) }); ok {
		p.Depth = d
	}
	return p
}

// eventModel drives the golden model by field values (block.Golden).
type eventModel struct {
	m      *guet.Model
	frozen bool // the block has m_result_frozen (reps)
	split  bool // the split engine: events spaced apart (guet.StepSpaced)
}

// EventFields and ResultFields are uet_cc's stream fields in the golden
// model's order, with reps as the load balancer; ResultFieldsOf gives a
// configuration's (reps_conf has no frozen).
var (
	EventFields  = []string{"conn", "kind", "size", "ecn", "rtt", "ev", "now"}
	ResultFields = []string{"conn", "kind", "ev", "explored", "frozen", "cwnd", "case", "qa", "fast", "inflight", "may_send", "error"}
)

// ResultFieldsOf is the result fields of p's block.
func ResultFieldsOf(p Params) []string { return resultFields(!p.UseConf) }

func resultFields(frozen bool) []string {
	if frozen {
		return ResultFields
	}
	var out []string
	for _, f := range ResultFields {
		if f != "frozen" {
			out = append(out, f)
		}
	}
	return out
}

func (e eventModel) Fields() ([]string, []string) {
	if e.split {
		return EventFields, splitFields(resultFields(e.frozen))
	}
	return EventFields, resultFields(e.frozen)
}

func (e eventModel) Step(in, out []uint64) {
	ev := guet.Event{Conn: uint32(in[0]), Kind: guet.Kind(in[1]), Size: uint32(in[2]), ECN: in[3] == 1, RTT: uint32(in[4]), EV: uint32(in[5]), Now: in[6]}
	var r guet.Result
	if e.split {
		e.m.StepSpaced(&ev, &r)
		putSplit(&r, out, e.frozen)
		return
	}
	e.m.StepTo(&ev, &r)
	out[0], out[1], out[2], out[3] = uint64(r.Conn), uint64(r.Kind), uint64(r.EV), block.Bit(r.Explored)
	i := 4
	if e.frozen {
		out[i] = block.Bit(r.Frozen)
		i++
	}
	out[i], out[i+1], out[i+2], out[i+3] = uint64(r.Cwnd), uint64(r.Case), block.Bit(r.QA), block.Bit(r.Fast)
	out[i+4], out[i+5], out[i+6] = uint64(r.Inflight), block.Bit(r.MaySend), block.Bit(r.Error)
}

func (e eventModel) Reset() { e.m.Reset() }

// Tune sets a run-time setting of either part (block.Tuner): the window
// controller's TARGET_RTT, MI_GAIN and QA_SCALING, the load balancer's
// others.
func (e eventModel) Tune(name string, v uint64) error {
	if slices.Contains(smartt.Settings, name) {
		return smartt.TuneGolden(e.m.CC(), name, v)
	}
	return reps.TuneGolden(e.m.LB(), name, v)
}

// ClearTable clears both parts' tables and the bytes in flight, and keeps
// reps's LFSR (block.TableClearer).
func (e eventModel) ClearTable() { e.m.ClearTable() }

type cycler struct{ p *guet.Pipeline }

func (c cycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	out := c.p.Cycle(guet.CycleIn{SValid: valid, MReady: ready, Event: guet.Event{Conn: conn, Kind: guet.KindOpen}})
	return out.SReady, out.MValid
}

// splitFields is a result field list without the fields the split engine
// does not have (case, qa, fast).
func splitFields(fs []string) []string {
	var out []string
	for _, f := range fs {
		if f != "case" && f != "qa" && f != "fast" {
			out = append(out, f)
		}
	}
	return out
}

// putSplit writes a split engine's result in splitFields' order.
func putSplit(r *guet.Result, out []uint64, frozen bool) {
	out[0], out[1], out[2], out[3] = uint64(r.Conn), uint64(r.Kind), uint64(r.EV), block.Bit(r.Explored)
	i := 4
	if frozen {
		out[i] = block.Bit(r.Frozen)
		i++
	}
	out[i], out[i+1], out[i+2], out[i+3] = uint64(r.Cwnd), uint64(r.Inflight), block.Bit(r.MaySend), block.Bit(r.Error)
}

// splitModel is the split engine's cycle model on fields (block.CycleModel).
type splitModel struct {
	s *guet.Split
	g guet.Params
}

// windowPorts are the m_window_* monitor's ports, after m_result_*.
func windowPorts(merging bool) []string {
	ps := []string{"m_window_valid", "m_window_conn", "m_window_kind", "m_window_cwnd", "m_window_case", "m_window_qa", "m_window_fast"}
	if merging {
		ps = append(ps, "m_window_members")
	}
	return append(ps, "m_window_error")
}

func (m *splitModel) Fields() ([]string, []string) {
	var outs []string
	for _, f := range splitFields(resultFields(!m.g.UseConf)) {
		outs = append(outs, "m_result_"+f)
	}
	return EventFields, append(outs, windowPorts(m.g.Window.Slots > 0)...)
}

func (m *splitModel) Cycle(sValid, mReady bool, in, out []uint64) (bool, bool) {
	ev := guet.Event{Conn: uint32(in[0]), Kind: guet.Kind(in[1]), Size: uint32(in[2]), ECN: in[3] == 1, RTT: uint32(in[4]), EV: uint32(in[5]), Now: in[6]}
	o := m.s.Cycle(guet.CycleIn{SValid: sValid, MReady: mReady, Event: ev})
	n := len(splitFields(resultFields(!m.g.UseConf)))
	if o.MValid {
		putSplit(&o.Result, out[:n], !m.g.UseConf)
	} else {
		clear(out[:n])
	}
	wv, w := m.s.WindowUpdate()
	o2 := out[n:]
	o2[0], o2[1], o2[2], o2[3] = block.Bit(wv), uint64(w.Conn), uint64(w.Kind), uint64(w.Cwnd)
	o2[4], o2[5], o2[6] = uint64(w.Case), block.Bit(w.QA), block.Bit(w.Fast)
	i := 7
	if m.g.Window.Slots > 0 {
		o2[i] = uint64(w.Members)
		i++
	}
	o2[i] = block.Bit(w.Error)
	return o.SReady, o.MValid
}

func (m *splitModel) Reset() { m.s.Reset() }

// splitCycler drives the split engine for timing (block.Cycler) as a
// NIC's traffic would: each connection's events alternate a send and the
// ACK of an MTU (per-packet ACKs), so that the window path sees an ACK for
// every send; the time advances a nanosecond per event.
type splitCycler struct {
	s    *guet.Split
	mtu  uint32
	rtt  uint32
	sent map[uint32]bool // the connection's last event taken was a send
	now  uint64
}

func newSplitCycler(p Params) (*splitCycler, error) {
	s, err := guet.NewSplit(p.Golden())
	return &splitCycler{s: s, mtu: uint32(p.CC.Net.MTU), rtt: uint32(p.CC.Net.BrttNs), sent: map[uint32]bool{}}, err
}

func (c *splitCycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	e := guet.Event{Conn: conn, Kind: guet.KindSend, Size: c.mtu, Now: c.now}
	if c.sent[conn] {
		e.Kind, e.RTT = guet.KindAck, c.rtt
	}
	o := c.s.Cycle(guet.CycleIn{SValid: valid, MReady: ready, Event: e})
	if valid && o.SReady {
		c.sent[conn] = !c.sent[conn]
		c.now++
	}
	return o.SReady, o.MValid
}
