package threecpo_test

import (
	"context"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/stim"
	"github.com/nicgen/nicgen/blocks/threecpo"
	gthreecpo "github.com/nicgen/nicgen/golden/threecpo"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

func matchConfig(p threecpo.MCastMatchParams) blocks.Config {
	return blocks.DefaultConfig().Clone().Set("mcast_match", p)
}

// narrowMatch: 3 members of 2 matchers, 3-bit flits and 6-bit counters,
// so that sends, arrivals and expiries reach the counters' ranges and are
// refused, and 12-bit latencies around the MI ramp.
func narrowMatch() threecpo.MCastMatchParams {
	p := threecpo.DefaultMCastMatchParams()
	p.Members, p.NumConn, p.ConnW, p.FlitW, p.CountW, p.LatW, p.TimeW = 3, 2, 2, 3, 6, 12, 10
	p.Depth = connpipe.MustDepth(threecpo.NeededMatchDepth(p))
	return p
}

// mcast_match's RTL equals its golden model (golden/threecpo MatchTable,
// itself equal to the Matcher written from S3 Section 6.2.2) with the
// generic stimulus on the default configuration and on the narrow one.
func TestMCastMatchEquivalence(t *testing.T) {
	blockeq.NeedVerilator(t) // the bench's Run builds a Verilated model
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    threecpo.MCastMatchParams
	}{
		{"default", threecpo.DefaultMCastMatchParams()},
		{"narrow", narrowMatch()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := blockeq.NewBench(matchConfig(tc.p), "mcast_match", 29)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := b.Run(context.Background(), harness.BuildOptions{}, harness.RunOptions{Cycles: blockeq.Cycles(), Label: "mcast_match/" + tc.name, WaveDir: t.TempDir()})
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

// Each mutant fails on the narrow configuration: a send's match not
// capped at its flits, an arrival matched against a member's negative
// count too, the response's cap on unmatched forgotten, and the MI ramp's
// latency taken before its clamp.
func TestMCastMatchMutantsFail(t *testing.T) {
	t.Parallel()
	cfg := matchConfig(narrowMatch())
	for _, tc := range []struct {
		name string
		mut  hdlgen.Mutation
	}{
		{"send match not capped", hdlgen.Mutation{Node: "send_take0", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return hdlgen.Mux(get("cur_unm0").Bit(get("cur_unm0").Width()-1), get("cur_unm0").Not().Keep(orig.Width()-1, 0), orig)
		}}},
		{"arrival matched when negative", hdlgen.Mutation{Node: "rmt_matched", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return hdlgen.Mux(orig.IsZero().And(get("src_is0")), get("cur_unm0").Trunc(orig.Width()), orig)
		}}},
		{"response cap forgotten", hdlgen.Mutation{Node: "local_rsp", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Or(hdlgen.SConst(orig.Width(), int64(1)<<uint(orig.Width()-2)))
		}}},
		{"latency not clamped", hdlgen.Mutation{Node: "lat_clamped", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr {
			return orig.Xor(hdlgen.Const(orig.Width(), 64))
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) { blockeq.MutantMustFail(t, cfg, "mcast_match", tc.mut, 31, 300_000) })
	}
}

// The Verilated block, driven as a NIC drives it (the Remote-Op-Queue
// beside it returning entries as expire events when their expiry passes,
// here the entries the golden Matcher's own queue expires, whose expiry
// the block's result must equal; responses in the order of the local
// sends), pays what the golden Matcher (golden/threecpo match.go, the
// thesis's rules with the queue inside) pays, event by event: 7 members,
// 9-flit packets and reads of 1, latencies across the MI ramp.
func TestMCastMatchNICLoop(t *testing.T) {
	t.Parallel()
	p := threecpo.DefaultMCastMatchParams()
	p.NumConn, p.ConnW = 2, 1
	p.Depth = connpipe.MustDepth(threecpo.NeededMatchDepth(p))
	m, err := threecpo.MCastMatch(p)
	model, hd := blockeq.Build(t, m, err)
	rtl, err := blockeq.NewRTLStepper(model, hd, threecpo.MatchEventFields, threecpo.MatchResultFields)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := gthreecpo.NewMatcher(p.MatchParams)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]uint64, len(threecpo.MatchResultFields))
	step := func(kind gthreecpo.MatchKind, src, f, lat uint32, now, wait uint64) []uint64 {
		rtl.Step([]uint64{1, uint64(kind), uint64(src), uint64(f), uint64(lat), now, wait}, out)
		if out[5] != 0 || out[6] != 0 {
			t.Fatalf("%v of %d flits: refused %d error %d", kind, f, out[5], out[6])
		}
		return out
	}
	var sent []uint32
	r := stim.New(77)
	var sendMatched, rmtMatched, ramp int
	step(gthreecpo.MatchOpenKind, 0, 0, 0, 0, 0)
	for now := uint64(0); now < 60000; now++ {
		for _, e := range ref.Expire(now) { // the entries the NIC's FIFO returns now
			step(gthreecpo.MatchExpireKind, uint32(e.Src), uint32(e.Flits), 0, 0, 0)
		}
		f := uint32(9)
		if r.Below(3) == 0 {
			f = 1
		}
		lat := uint32(500 + r.Below(2000))
		if lat > 1000 && lat < 2000 {
			ramp++
		}
		// phases of 2,000 cycles: mostly local sends (arrivals match
		// them), then mostly arrivals and responses, a send now and then
		// (it matches the arrivals)
		x := r.Below(5)
		if now/2000%2 == 1 {
			x = [20]uint64{0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 4}[r.Below(20)]
		}
		switch x {
		case 0, 1:
			if len(sent) < 200 {
				tok, matched := ref.SendLocal(f, lat)
				o := step(gthreecpo.MatchSendKind, 0, f, lat, 0, 0)
				if uint32(o[2]) != tok || uint32(o[3]) != matched {
					t.Fatalf("send at %d: RTL paid %d for %d matched, the Matcher %d for %d", now, o[2], o[3], tok, matched)
				}
				sendMatched += int(matched)
				sent = append(sent, f)
			}
		case 2:
			src, wait := uint32(r.Below(7)), 100+r.Below(300)
			tok, matched := ref.ReceiveRemote(int(src), f, now, wait, 0, lat)
			o := step(gthreecpo.MatchRemoteKind, src, f, lat, now, wait)
			if uint32(o[2]) != tok || uint32(o[3]) != matched || o[4] != now+wait {
				t.Fatalf("remote at %d: RTL paid %d for %d matched, expiry %d; the Matcher %d for %d, %d", now, o[2], o[3], o[4], tok, matched, now+wait)
			}
			rmtMatched += int(matched)
		case 3:
			if len(sent) > 0 {
				ref.Response(sent[0])
				step(gthreecpo.MatchResponseKind, 0, sent[0], 0, 0, 0)
				sent = sent[1:]
			}
		}
	}
	t.Logf("matched flits: %d by sends, %d by arrivals; %d latencies on the MI ramp", sendMatched, rmtMatched, ramp)
	if sendMatched == 0 || rmtMatched == 0 {
		t.Errorf("nothing matched by sends (%d) or arrivals (%d): the loop does not exercise matching", sendMatched, rmtMatched)
	}
}
