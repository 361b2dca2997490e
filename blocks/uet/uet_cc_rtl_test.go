package uet_test

import (
	"context"
	"math/rand"
	"reflect"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/blocks/uet"
	"github.com/nicgen/nicgen/golden/netsim"
	guet "github.com/nicgen/nicgen/golden/uet"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

func uetConfig(p uet.Params) blocks.Config {
	return blocks.DefaultConfig().Clone().Set("uet_cc", p)
}

// uetAlt is the other parts, small (uet.SmallParams: 2 connections, MTU
// 64 B, 5 entropies, so that windows, counters and entropies wrap and
// saturate within a few events): smartt and reps_conf, with htsim's send
// rule, at the depth its cuts reach.
func uetAlt() uet.Params {
	p := uet.SmallParams(smartt.Conf, true)
	p.Rule = guet.RoomForMTU
	p.Depth = connpipe.MustDepth(uet.NeededDepth(p))
	return p
}

// uet_cc's RTL equals the composition of the golden models (golden/uet)
// with the generic stimulus, on the default parts (nscc and reps) and on
// the others, small (smartt and reps_conf, may_send room_for_mtu).
func TestUETCCEquivalence(t *testing.T) {
	blockeq.NeedVerilator(t)
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    uet.Params
		div  int64
	}{
		{"nscc+reps", uet.DefaultParams(), 1},
		{"smartt+reps_conf small", uetAlt(), 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := blockeq.NewBench(uetConfig(tc.p), "uet_cc", 29)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: blockeq.Cycles() / tc.div, Label: "uet_cc/" + tc.name, WaveDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v\ncoverage:\n%s", rep, b.Coverage)
			if miss := b.Coverage.Missing(); len(miss) > 0 {
				t.Errorf("never reached: %v", miss)
			}
		})
	}
}

// TestUETCCNICLoop drives the Verilated uet_cc (default configuration) as
// a NIC's transmit and receive paths would: 16 connections send while the block says they may,
// each packet comes back 8.6-30 us later as an ack (a fifth ECN-marked), a
// trim's nack (1 in 20) or a timeout (1 in 200) carrying the entropy it was
// sent on, and every result is compared with the golden composition. The
// run must reach both may_send values, QuickAdapt, explored and recycled
// entropies, and freezing mode (which lasts 10 ms: it does not end within
// the run's 7 ms).
func TestUETCCNICLoop(t *testing.T) {
	t.Parallel()
	p := uet.DefaultParams() // the equivalence's model, from the cache
	m, err := uet.Block(p)
	model, hd := blockeq.Build(t, m, err)
	rtl, err := newUETRTL(model, hd)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := guet.NewModel(p.Golden())
	if err != nil {
		t.Fatal(err)
	}
	type pkt struct {
		ev   uint32
		due  uint64
		sent uint64
	}
	const conns = 16
	may := make([]bool, conns)
	flights := make([][]pkt, conns)
	rng := rand.New(rand.NewSource(11))
	now := uint64(1000)
	var n, blocked, qa, explored, recycled, frozen, sends int
	step := func(e guet.Event) guet.Result {
		want := ref.Step(e)
		got := rtl.Step(e)
		if got != want {
			t.Fatalf("event %d %+v: RTL %+v, golden %+v", n, e, got, want)
		}
		n++
		return got
	}
	for c := uint32(0); c < conns; c++ {
		may[c] = step(guet.Event{Conn: c, Kind: guet.KindOpen, Now: now}).MaySend
	}
	for i := 0; i < 60000; i++ {
		now += uint64(20 + rng.Intn(200))
		c := uint32(rng.Intn(conns))
		fl := flights[c]
		switch {
		case len(fl) > 0 && fl[0].due <= now:
			pk := fl[0]
			flights[c] = fl[1:]
			e := guet.Event{Conn: c, Kind: guet.KindAck, Size: 4096, EV: pk.ev, Now: now, RTT: uint32(now - pk.sent)}
			switch r := rng.Intn(200); {
			case r == 0:
				e.Kind = guet.KindTimeout
			case r < 10:
				e.Kind = guet.KindNack
			default:
				e.ECN = rng.Intn(5) == 0
			}
			res := step(e)
			may[c] = res.MaySend
			if res.QA {
				qa++
			}
			if res.Frozen {
				frozen++
			}
		case may[c]:
			res := step(guet.Event{Conn: c, Kind: guet.KindSend, Size: 4096, Now: now})
			may[c] = res.MaySend
			sends++
			if res.Explored {
				explored++
			} else {
				recycled++
			}
			flights[c] = append(flights[c], pkt{ev: res.EV, sent: now, due: now + 8600 + uint64(rng.Intn(21400))})
		default:
			blocked++
		}
	}
	t.Logf("%d events through the RTL, all equal to the golden composition: %d sends (%d explored, %d recycled), %d draws blocked by may_send, %d QuickAdapts, %d results frozen", n, sends, explored, recycled, blocked, qa, frozen)
	if blocked < 100 || explored < 100 || recycled < 100 || qa < 1 || frozen < 1 {
		t.Errorf("the loop reached too little")
	}
}

// uetRTL is the Verilated uet_cc (reps as its load balancer) behind
// golden/uet's events and results.
type uetRTL struct {
	s   *blockeq.RTLStepper
	out []uint64
}

func newUETRTL(m *harness.Model, hd harness.Design) (*uetRTL, error) {
	s, err := blockeq.NewRTLStepper(m, hd, uet.EventFields, uet.ResultFields)
	return &uetRTL{s: s, out: make([]uint64, len(uet.ResultFields))}, err
}

func (u *uetRTL) Step(e guet.Event) guet.Result {
	out := u.out
	u.s.Step([]uint64{uint64(e.Conn), uint64(e.Kind), uint64(e.Size), hdlBit(e.ECN), uint64(e.RTT), uint64(e.EV), e.Now}, out)
	return guet.Result{Conn: uint32(out[0]), Kind: guet.Kind(out[1]), EV: uint32(out[2]), Explored: out[3] == 1, Frozen: out[4] == 1,
		Cwnd: uint32(out[5]), Case: uint8(out[6]), QA: out[7] == 1, Fast: out[8] == 1, Inflight: uint32(out[9]), MaySend: out[10] == 1, Error: out[11] == 1}
}

func hdlBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// TestIncastUETRTLInTheLoop runs the 8:1 incast of 1 MiB messages with
// uet_cc as every sender's engine (windows and entropies from one block),
// once with the golden composition and once with the Verilated block (one
// block, a connection per sender), and requires the identical run and the
// same entropies.
func TestIncastUETRTLInTheLoop(t *testing.T) {
	t.Parallel()
	p := uet.DefaultParams()
	m, err := uet.Block(p)
	model, hd := blockeq.Build(t, m, err)
	gp := p.Golden()
	cfg := netsim.ConfigFor(gp.CC)
	cfg.MessageBytes = 1 << 20
	cfg.RecordCwnd = true
	run := func(stepper func(i int) (netsim.UETStepper, error)) (*netsim.Result, []*netsim.UETEngine) {
		ctrls := make([]netsim.Controller, cfg.Senders)
		engines := make([]*netsim.UETEngine, cfg.Senders)
		for i := range ctrls {
			s, err := stepper(i)
			if err != nil {
				t.Fatal(err)
			}
			engines[i] = netsim.NewUETEngine(s)
			ctrls[i] = engines[i]
		}
		res, err := netsim.Run(cfg, ctrls)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := netsim.EntropyTotals(engines); err != nil {
			t.Fatal(err)
		}
		return res, engines
	}
	// one block serves every sender (a connection each), so one golden
	// model does too: the REPS LFSR's draws interleave in event order
	ref, err := guet.NewModel(gp)
	if err != nil {
		t.Fatal(err)
	}
	want, wantE := run(func(int) (netsim.UETStepper, error) { return ref, nil })
	rtl, err := newUETRTL(model, hd)
	if err != nil {
		t.Fatal(err)
	}
	got, gotE := run(func(int) (netsim.UETStepper, error) { return rtl, nil })
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the RTL in the loop gives another run: completion %.0f vs %.0f ns, trims %d vs %d", got.CompletionNs, want.CompletionNs, got.Trims, want.Trims)
	}
	for i := range gotE {
		if !reflect.DeepEqual(gotE[i].EVs, wantE[i].EVs) || gotE[i].Explored != wantE[i].Explored {
			t.Fatalf("sender %d: the RTL's entropies differ from the golden composition's", i)
		}
	}
	e, _ := netsim.EntropyTotals(gotE)
	t.Logf("uet_cc in the loop: completion %.4f x ideal, %d trims, %d sends explored and %d recycled, identical to the golden run", got.Slowdown, got.Trims, e.Explored, e.Recycled)
}

// Each mutant fails: the window controller also runs on sends, and its
// unacked bytes are read before the event's packet leaves them. (may_send
// against the wrong window is the formal job uet_cc's broken variant.)
func TestUETCCMutantsFail(t *testing.T) {
	t.Parallel()
	// small parts (uet.SmallParams at depth 4), which verilate in a
	// fraction of the default's time
	small := uet.SmallParams(smartt.NSCC, false)
	small.Depth = 4
	cfg := uetConfig(small)
	for _, tc := range []struct {
		name string
		mut  hdlgen.Mutation
	}{
		{"window controller runs on sends", hdlgen.Mutation{Node: "cc_active", With: func(hdlgen.Expr, func(string) hdlgen.Expr) hdlgen.Expr { return hdlgen.True() }}},
		{"unacked before the packet leaves", hdlgen.Mutation{Node: "cc_unacked", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr { return get("cur_inflight") }}},
	} {
		t.Run(tc.name, func(t *testing.T) { blockeq.MutantMustFail(t, cfg, "uet_cc", tc.mut, 31, 300_000) })
	}
}

// uetSplit is the split engine on the default parts, with the window
// path's nscc merging in 8 slots.
func uetSplit() blocks.Config {
	cc := smartt.MustOf(blocks.DefaultConfig(), smartt.NSCC)
	cc.MergeSlots, cc.MergeAcks, cc.MergeNacks = 8, true, true
	p := uet.DefaultParams()
	p.CC, p.Split = cc, true
	p.Depth = connpipe.MustDepth(uet.NeededDepth(p))
	return blocks.DefaultConfig().Clone().Set("nscc", cc).Set("uet_cc", p)
}

// uetSplitSmall is the split engine on small parts (uet.SmallParams: 2
// connections, windows and counters that saturate within a few events),
// its window path merging in 3 slots.
func uetSplitSmall() blocks.Config {
	p := uet.SmallParams(smartt.NSCC, false)
	p.CC.MergeSlots, p.CC.MergeAcks, p.CC.MergeNacks = 3, true, true
	p.CC.Depth = connpipe.MustDepth(smartt.DepthFor(p.CC))
	p.Split = true
	p.Depth = connpipe.MustDepth(uet.NeededDepth(p))
	return blocks.DefaultConfig().Clone().Set("uet_cc", p)
}

// The split engine's RTL equals its golden cycle model (golden/uet
// Split): the send path's results with the window each event saw, and
// the window path's updates (m_window_*), cycle by cycle.
func TestUETCCSplitEquivalence(t *testing.T) {
	blockeq.NeedVerilator(t)
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  blocks.Config
		div  int64
	}{
		{"nscc+reps merging", uetSplit(), 5},
		{"small", uetSplitSmall(), 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := blockeq.NewBench(tc.cfg, "uet_cc", 31)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: blockeq.Cycles() / tc.div, Label: "uet_cc split/" + tc.name, WaveDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v\ncoverage:\n%s", rep, b.Coverage)
			if miss := b.Coverage.Missing(); len(miss) > 0 {
				t.Errorf("never reached: %v", miss)
			}
		})
	}
}

// The split engine's equivalence can fail: an RTL whose window path's
// results are never written into the window table, whose window queue
// takes only every other result it should, or whose window path forgets
// the word it writes behind, must mismatch.
func TestUETCCSplitCanFail(t *testing.T) {
	t.Parallel()
	cfg := uetSplitSmall()
	for _, mut := range []hdlgen.Mutation{
		{Node: "window_wr", With: func(_ hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr { return get("open_wr_reg") }},
		{Node: "window_push", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.And(get("wq_wr_reg").Bit(0).Not())
		}},
		// the window path's write behind: the event issued in the cycle of
		// the table's write takes the table's old word
		{Module: "uet_cc_window", Node: "snoop_wb_ahead", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr { return hdlgen.False() }},
	} {
		t.Run(mut.Node, func(t *testing.T) { blockeq.MutantMustFail(t, cfg, "uet_cc", mut, 3, 200_000) })
	}
}
