package smartt

import (
	"math"
	"reflect"
	"testing"
)

// Directed tests of contract Sections 5 and 6. Expected numbers are worked
// by hand (K = 10 reciprocals spelled out where they matter) from the
// default constants checked in TestDerive: KFi 24,047,343, KMi
// 192,378,743, KMd 128, KFd 1,022,802, QaScale 52,429, TrttQ 807, BrttQ 538.

const mtu = 4096

func newModel(t *testing.T, v Variant, mod func(*Params)) *Model {
	t.Helper()
	p := DefaultParams(v)
	// the worked examples below count in the contract's 16 ns stamps and
	// bytes (nscc keeps 256 ns stamps and 64 B counter units by default:
	// TestNSCCDefaultStamps, TestNSCCDefaultUnits)
	p.StampShift, p.StampW, p.ByteShift, p.F, p.IncW, p.AvgW = ConfStampShift, ConfStampW, 0, 6, 0, 0
	if mod != nil {
		mod(&p)
	}
	m, err := NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func initCwnd(b uint32) func(*Params) { return func(p *Params) { p.InitCwnd = b } }

func openEv(c uint32, now uint64) Event { return Event{Conn: c, Kind: KindOpen, Now: now} }

func ackEv(c, size, rtt uint32, ecn bool, unacked uint32, now uint64) Event {
	return Event{Conn: c, Kind: KindAck, Size: size, RTT: rtt, ECN: ecn, Unacked: unacked, Now: now}
}

func lossEv(c uint32, k Kind, size, unacked uint32, now uint64) Event {
	return Event{Conn: c, Kind: k, Size: size, Unacked: unacked, Now: now}
}

func res(c uint32, k Kind, cwnd uint32, kase uint8) Result {
	return Result{Conn: c, Kind: k, Cwnd: cwnd, Case: kase, QA: kase == CaseQA}
}

// step runs e and checks the result.
func step(t *testing.T, m *Model, e Event, want Result) {
	t.Helper()
	if got := m.Step(e); got != want {
		t.Fatalf("Step(%+v)\n got %+v\nwant %+v", e, got, want)
	}
}

func checkConn(t *testing.T, m *Model, c uint32, want State) {
	t.Helper()
	if got := m.Conn(c); got != want {
		t.Fatalf("conn %d\n got %+v\nwant %+v", c, got, want)
	}
}

// TestOpen: c = InitCwnd << F, every other field 0 (nscc: avg_rtt = brtt).
func TestOpen(t *testing.T) {
	m := newModel(t, Conf, nil)
	step(t, m, openEv(7, 5), res(7, KindOpen, 1_075_000, CaseNone))
	checkConn(t, m, 7, State{C: 68_800_000})
	// open again resets a used word
	m.Step(lossEv(7, KindNack, 4096, 0, 100))
	step(t, m, openEv(7, 200), res(7, KindOpen, 1_075_000, CaseNone))
	checkConn(t, m, 7, State{C: 68_800_000})

	n := newModel(t, NSCC, initCwnd(16*mtu))
	step(t, n, openEv(0, 5), res(0, KindOpen, 65_536, CaseNone))
	checkConn(t, n, 0, State{C: 65_536 << 6, AvgRtt: 8600})
}

// TestQuickAdaptFig4 is S0 Fig. 4 (S0:L237): a 2:1 incast, both senders
// starting at 4 packets. A trim sets trigger_qa; one target RTT later the
// window becomes the bytes acknowledged in that window, 2 packets (times
// qa_scaling: 1 for nscc, S1:L735; 0.8 for smartt, S0:L223). QuickAdapt then
// ignores the acks of the bytes in flight (S0:L214, S0:L224) and fires at
// most once per target RTT (S0:L219).
func TestQuickAdaptFig4(t *testing.T) {
	for _, v := range []Variant{Conf, NSCC} {
		t.Run(v.String(), func(t *testing.T) {
			m := newModel(t, v, initCwnd(4*mtu))
			step(t, m, openEv(0, 0), res(0, KindOpen, 16_384, CaseNone))
			step(t, m, openEv(1, 0), res(1, KindOpen, 16_384, CaseNone))
			// 2 packets after the target RTT: 6553 B (6553.6) for smartt,
			// (8192 * 52429) >> 10 = 419,432 units; 8192 B for nscc.
			qaCwnd := uint32(8192)
			if v == Conf {
				qaCwnd = 6553
			}
			for c := range uint32(2) {
				o := uint64(40 * c) // the two senders' packets interleave
				// t = brtt: the first packet is trimmed (A-7: its bytes
				// count as acked). 16,384 - 4096 = 12,288 B; trigger set;
				// QuickAdapt opens the first window: end = (8600 + 12,900
				// + 8) >> 4 = 1344 (conn 1, at 8640: 1346). No fire: end
				// was 0.
				step(t, m, lossEv(c, KindNack, mtu, 3*mtu, 8600+o), res(c, KindNack, 12_288, CaseLoss))
				// An ECN-marked, delayed ack inside the window: counted
				// (acked = 4096), nothing fires. smartt: WTD avg 16 < 64
				// holds the decrease; nscc: avg_rtt = 8600 + (13,000 -
				// 8600) >> 3 = 9150 <= Trtt, so no MD (and it stays below
				// Trtt for the whole test).
				step(t, m, ackEv(c, mtu, 13_000, true, 2*mtu, 12_000+o), res(c, KindAck, 12_288, CaseNone))
			}
			for c := range uint32(2) {
				o := uint64(40 * c)
				// t = 21,600 (q = 1350 >= 1344): the window is over; acked =
				// 8192 = 2 packets, trigger pending -> QuickAdapt fires,
				// to_ignore = unacked = 8192, the next window ends at
				// (21,600 + 12,908) >> 4 = 2156 (conn 1, at 21,640: 2159).
				step(t, m, ackEv(c, mtu, 13_000, true, 2*mtu, 21_600+o), res(c, KindAck, qaCwnd, CaseQA))
				s := m.Conn(c)
				if s.ToIgnore != 8192 || s.Ignored != 0 || s.Acked != 0 || s.Trigger || s.End != [2]uint32{2156, 2159}[c] {
					t.Fatalf("conn %d after QA: %+v", c, s)
				}
			}
			// Ignore phase: the next ack (ignored 4096 < 8192) is dropped
			// whatever it says; the word changes only in acked, ignored.
			before := m.Conn(0)
			step(t, m, ackEv(0, mtu, 900_000, true, mtu, 22_000), res(0, KindAck, qaCwnd, CaseNone))
			before.Acked, before.Ignored = 4096, 4096
			checkConn(t, m, 0, before)
			// ignored reaches to_ignore: acks count again (ECN: a WTD hold
			// in smartt, avg_rtt still low in nscc -> no-op, case 0).
			step(t, m, ackEv(0, mtu, 13_000, true, mtu, 22_500), res(0, KindAck, qaCwnd, CaseNone))
			// A second trim in the same window: trigger set, cwnd -= 4096
			// (smartt 6553.6 - 4096 = 2457.6 -> clamped to the MTU), but
			// QuickAdapt does not fire before end (once per target RTT).
			wantC := uint32(4096)
			step(t, m, lossEv(0, KindNack, mtu, mtu, 23_000), res(0, KindNack, wantC, CaseLoss))
			step(t, m, ackEv(0, mtu, 13_000, true, mtu, 34_480), res(0, KindAck, wantC, CaseNone)) // q = 2155
			// q(34,496) = 2156 = end: fires on acked = the acks at 22,000,
			// 22,500, 34,480 and 34,496 = 4 packets = 16,384 B (the nack at
			// 23,000 is not delivered data, A-7). smartt: (16384 * 52429)
			// >> 10 = 838,864 units = 13,107 B (13,107.25); nscc: 16,384 B.
			qa2 := uint32(16_384)
			if v == Conf {
				qa2 = 13_107
			}
			step(t, m, ackEv(0, mtu, 13_000, true, mtu, 34_496), res(0, KindAck, qa2, CaseQA))
		})
	}
}

// TestFastIncrease (S0:L241, Alg. 3): after more than cwnd bytes of acks
// with rtt ~ brtt and no ECN, each such ack adds 2 MTU; an ECN ack ends it.
func TestFastIncrease(t *testing.T) {
	m := newModel(t, Conf, initCwnd(4*mtu))
	m.Step(openEv(0, 0))
	// Ack 1 (rtt 9600 = FiRttMax, count 4096 <= 16,384): MI then FI from
	// c = 2^20 (div: m = 1024, T = 2047, e = 20):
	//   div(4096 * KMi, 2^20) = (787,983,331,328 * 2047) >> 31 = 751,112;
	//   mi = div(751,112 * 3300, 9600): m = 1200, T = floor(2^22 / 2401) =
	//        1746, e = 13: (2,478,669,600 * 1746) >> 24 = 257,954
	//        (< 4096 << 6 = 262,144, not capped); c = 1,306,530;
	//   fi = div(4096 * KFi, 1,306,530): m = 1275, T = floor(2^22 / 2551)
	//        = 1644, e = 20: (98,497,916,928 * 1644) >> 31 = 75,404;
	//   c = 1,381,934 -> 21,592 B.
	step(t, m, ackEv(0, mtu, 9600, false, 0, 1000), res(0, KindAck, 21_592, CaseMI))
	// MI + FI keep the window ahead of count until ack 12: count = 49,152
	// > 48,106 B, the window after ack 11.
	prev := uint32(21_592)
	for i := uint64(2); i <= 11; i++ {
		r := m.Step(ackEv(0, mtu, 9600, false, 0, 1000*i))
		if r.Case != CaseMI || r.Fast || r.Cwnd <= prev || uint32(i)*mtu > prev {
			t.Fatalf("ack %d: %+v (previous window %d)", i, r, prev)
		}
		prev = r.Cwnd
	}
	if prev != 48_106 {
		t.Fatalf("window after 11 acks = %d, want 48,106", prev)
	}
	// Entry: +2 MTU = 8192 B exactly, Fast set, the core cases skipped.
	want := Result{Conn: 0, Kind: KindAck, Cwnd: 48_106 + 8192, Case: CaseFast, Fast: true}
	step(t, m, ackEv(0, mtu, 9600, false, 0, 12_000), want)
	// Active: +2 MTU on every uncongested ack, whatever count says.
	want.Cwnd += 8192
	step(t, m, ackEv(0, 64, 8600, false, 0, 12_500), want)
	if s := m.Conn(0); s.Count != 12*4096+64 || !s.Increase {
		t.Fatalf("active: %+v", s)
	}
	// Exit on ECN: count = 0, increase = 0; WTD (avg 16) holds the
	// decrease, so the window stays.
	step(t, m, ackEv(0, mtu, 8600, true, 0, 13_000), Result{Conn: 0, Kind: KindAck, Cwnd: want.Cwnd, Case: CaseNone})
	if s := m.Conn(0); s.Count != 0 || s.Increase {
		t.Fatalf("after ECN: %+v", s)
	}
	// Exit on a high RTT as well (nscc, same sub-block).
	n := newModel(t, NSCC, nil)
	n.Step(openEv(0, 0))
	r := n.Step(ackEv(0, mtu, 9600, false, 0, 100)) // at MaxCwnd: count 4096 <= cwnd
	if r.Fast {
		t.Fatalf("%+v", r)
	}
	for i := range uint64(400) { // 1,290,000 B / 4096 = 314.9 acks to enter
		n.Step(ackEv(0, mtu, 9600, false, 0, 200+10*i))
	}
	if s := n.Conn(0); !s.Increase || s.C != 82_560_000 {
		t.Fatalf("nscc: FastIncrease not active at MaxCwnd: %+v", s)
	}
	if r := n.Step(ackEv(0, mtu, 9601, false, 0, 5000)); r.Fast || n.Conn(0).Count != 0 {
		t.Fatalf("nscc exit: %+v", r)
	}
}

// TestWTD (S0:L316-318): no decrease until avg_wtd >= 0.25 = 64/256.
func TestWTD(t *testing.T) {
	m := newModel(t, Conf, nil)
	m.Step(openEv(0, 0))
	// Four marks: avg 256, 496, 721, 932 < 1024 (Q0.12): held, window unchanged.
	for i := range uint64(4) {
		step(t, m, ackEv(0, mtu, 10_000, true, 0, 100*(i+1)), res(0, KindAck, 1_075_000, CaseNone))
	}
	// Fifth: avg 1130 >= 1024 -> FD (rtt 10,000 <= Trtt) from c = 68,800,000
	// (1.25 BDP): (68,800,000 * 4096 * 1,022,802) >> 40 = 262,144 units
	// (262,144.12; exact: 1.25 * 0.8 * 4096 B = 4096 B). c = 68,537,856 =
	// 1,070,904 B.
	step(t, m, ackEv(0, mtu, 10_000, true, 0, 500), res(0, KindAck, 1_070_904, CaseFD))
	if s := m.Conn(0); s.AvgWtd != 1130 {
		t.Fatalf("avg_wtd = %d", s.AvgWtd)
	}
}

// TestCoreCasesConf works each S0 core case (S0 Eqs. 1-4, Alg. 1 L19-27)
// from c = 32,000,000 units (500,000 B), size 4096, with WTD open and a
// QuickAdapt window that has not ended.
func TestCoreCasesConf(t *testing.T) {
	p := DefaultParams(Conf)
	d := p.Derive()
	base := State{C: 32_000_000, AvgWtd: 3200, End: 5000}
	cases := []struct {
		name string
		ecn  bool
		rtt  uint32
		c    uint32
		kase uint8
	}{
		// FD: (32e6 * 4096 * 1,022,802) >> 40 = 121,927 (exact 121,927.5:
		// 500,000 / 860,000 * 0.8 * 4096 B); c = 31,878,073 -> 498,094 B.
		{"FD", true, 10_000, 31_878_073, CaseFD},
		// FD at rtt = Trtt exactly (A-1: <=).
		{"FD at Trtt", true, 12_900, 31_878_073, CaseFD},
		// MD: div((20,000 - 12,900) * 4096 * 128, 20,000) = div(3,722,444,800,
		// 20,000): m = 1250, T = 1677, e = 14: 186,042 (exact 186,122.24)
		// < 262,144; c = 31,813,958; then FD on it: 121,218; c =
		// 31,692,740 -> 495,199 B.
		{"MD+FD", true, 20_000, 31_692_740, CaseMD},
		// FI: div(4096 * KFi, 32e6): m = 1953, T = 1073, e = 24: 3075 (exact
		// 3078.06); c = 32,003,075 -> 500,048 B.
		{"FI", false, 20_000, 32_003_075, CaseFI},
		// MI: q = div(4096 * KMi, 32e6) = 24,607 (exact 24,624.5); mi =
		// div(24,607 * 2900, 10,000): m = 1250, T = 1677, e = 13: 7132;
		// c = 32,007,132; FI on it: 3075; c = 32,010,207 -> 500,159 B.
		// (rtt 10,000 > FiRttMax: FastIncrease resets, does not fire.)
		{"MI+FI", false, 10_000, 32_010_207, CaseMI},
	}
	for _, c := range cases {
		s, r := Step(p, d, base, ackEv(0, mtu, c.rtt, c.ecn, 0, 100))
		if s.C != c.c || r.Case != c.kase || r.Cwnd != c.c>>6 || r.QA || r.Fast {
			t.Errorf("%s: c = %d, result %+v; want c = %d case %d", c.name, s.C, r, c.c, c.kase)
		}
	}
	// MD is capped at one packet: rtt = 2^20 - 1 gives (rtt - Trtt) / rtt
	// * 2 * 4096 = 8091 B > 4096 -> 4096 B, then FD: c = 32e6 - 262,144 =
	// 31,737,856; FD (31,737,856 * 4096 * 1,022,802) >> 40 = 120,928;
	// c = 31,616,928.
	if s, _ := Step(p, d, base, ackEv(0, mtu, 1<<20-1, true, 0, 100)); s.C != 31_616_928 {
		t.Errorf("MD cap: c = %d", s.C)
	}
	// TimeoutsReplaceTrims doubles md: div(..* 256, 20,000) = 372,084
	// (exact 372,244) > 262,144 -> capped to one packet: 31,616,928
	// after FD as above... with rtt 20,000.
	p2 := p
	p2.TimeoutsReplaceTrims = true
	if s, _ := Step(p2, p2.Derive(), base, ackEv(0, mtu, 20_000, true, 0, 100)); s.C != 31_616_928 {
		t.Errorf("md = 4: c = %d", s.C)
	}
}

// TestCoreCasesNSCC works the S1 core cases (Alg. 1, Eqs. 1-3) from c =
// 32,000,000 units, with the adjustment period not due (adj_end is the
// deadline of a period that starts now: (100 + 8600 + 8) >> 4 = 544).
func TestCoreCasesNSCC(t *testing.T) {
	p := DefaultParams(NSCC)
	p.StampShift, p.StampW, p.ByteShift, p.F, p.IncW, p.AvgW = ConfStampShift, ConfStampW, 0, 6, 0, 0 // the contract's 16 ns stamps, bytes and widths
	d := p.Derive()
	base := State{C: 32_000_000, AvgRtt: 20_000, End: 5000, AdjEnd: 544, MdEnd: 0}
	// MD (ECN, rtt > Trtt, avg_rtt 20,000 + 0 > Trtt, md_end 0 = never):
	// div(32e6 * 7100, 20,000): m = 1250, T = 1677, e = 14: 11,355,113
	// (exact 11,360,000); red = min(16e6, (11,355,113 * 52,429) >> 16 =
	// 9,084,125) (exact 0.355 * 0.8 * c = 9,088,000); c = 22,915,875 ->
	// 358,060 B. md_end = (100 + 8600 + 8) >> 4 = 544.
	s, r := Step(p, d, base, ackEv(0, mtu, 20_000, true, 0, 100))
	if s.C != 22_915_875 || r.Case != CaseMD || s.MdEnd != 544 || s.Recv != 4096 {
		t.Errorf("MD: %+v %+v", s, r)
	}
	// ECN with rtt <= Trtt: no-op (S1:L904), case 0.
	s, r = Step(p, d, base, ackEv(0, mtu, 12_900, true, 0, 100))
	if s.C != 32_000_000 || r.Case != CaseNone || s.AvgRtt != 20_000-888 {
		// avg_rtt = 20,000 + (12,900 - 20,000) >>> 3 = 20,000 - 888 (floor of -887.5)
		t.Errorf("no-op: %+v %+v", s, r)
	}
	// FI accumulates: inc = div(4096 * KFi, 32e6) = 3075; c unchanged.
	s, r = Step(p, d, base, ackEv(0, mtu, 20_000, false, 0, 100))
	if s.C != 32_000_000 || s.Inc != 3075 || r.Case != CaseFI {
		t.Errorf("FI: %+v %+v", s, r)
	}
	// PI then FI, both from the same c: 7132 + 3075 = 10,207.
	s, r = Step(p, d, base, ackEv(0, mtu, 10_000, false, 0, 100))
	if s.C != 32_000_000 || s.Inc != 10_207 || r.Case != CaseMI {
		t.Errorf("PI+FI: %+v %+v", s, r)
	}
	// MD held back by avg_rtt <= Trtt: case 0.
	low := base
	low.AvgRtt = 8600 // avg becomes 8600 + (20,000 - 8600) >> 3 = 10,025
	if s, r := Step(p, d, low, ackEv(0, mtu, 20_000, true, 0, 100)); s.C != 32_000_000 || r.Case != CaseNone {
		t.Errorf("MD held: %+v %+v", s, r)
	}
}

// TestNSCCMDOncePerBrtt: MD at most once per base RTT (S1:L577, L960), at
// most half the window (S1 Eq. 1, S1:L958).
func TestNSCCMDOncePerBrtt(t *testing.T) {
	m := newModel(t, NSCC, nil)
	m.Step(openEv(0, 0))
	// avg_rtt = 8600 + (1,000,000 - 8600) >> 3 = 132,525; factor 1 -
	// 0.8 * 119,625 / 132,525 = 0.278 < 0.5 -> the floor: c = 82,560,000 /
	// 2 = 41,280,000 -> 645,000 B. md_end = the unit boundary nearest
	// 1000 + 8600 ns: (9608 + 8) >> 4 = 600, at 9600 ns.
	step(t, m, ackEv(0, mtu, 1_000_000, true, 0, 1000), res(0, KindAck, 645_000, CaseMD))
	// q(9599) = 599, before md_end -> held (case 0).
	step(t, m, ackEv(0, mtu, 1_000_000, true, 0, 9599), res(0, KindAck, 645_000, CaseNone))
	// q(9600) = 600 = md_end: MD again, again halved (8600 ns after the
	// first, as the reference's "more than a base RTT" by half a unit at
	// most). avg_rtt: 132,525 + 867,475 >> 3 = 240,959, then 240,959 +
	// 759,041 >> 3 = 335,839. md_end = (9600 + 8608) >> 4 = 1138.
	step(t, m, ackEv(0, mtu, 1_000_000, true, 0, 9600), res(0, KindAck, 322_500, CaseMD))
	if s := m.Conn(0); s.MdEnd != 1138 || s.AvgRtt != 335_839 {
		t.Fatalf("%+v", s)
	}
}

// TestNSCCAdjustPeriod: increases are applied every 8 MTU or base RTT
// (S1:L838-854).
func TestNSCCAdjustPeriod(t *testing.T) {
	m := newModel(t, NSCC, initCwnd(100*mtu))
	m.Step(openEv(0, 0))
	// Ack 1 (FI, rtt 20,000): inc = div(4096 * KFi, 26,214,400) = 3755;
	// adj_end = 0 (never) -> applied now: c = 26,218,155 -> 409,658 B;
	// adj_end = (1000 + 8608) >> 4 = 600.
	step(t, m, ackEv(0, mtu, 20_000, false, 0, 1000), res(0, KindAck, 409_658, CaseFI))
	// Acks 2..9: recv = 4096 .. 32,768 (not > 8 MTU), q <= 118 < 600:
	// accumulated, the window stays. Each adds div(4096 * KFi,
	// 26,218,155) = 3755.
	for i := uint64(2); i <= 9; i++ {
		step(t, m, ackEv(0, mtu, 20_000, false, 0, 1000+100*i), res(0, KindAck, 409_658, CaseFI))
	}
	if s := m.Conn(0); s.Inc != 8*3755 || s.Recv != 32_768 {
		t.Fatalf("before: %+v", s)
	}
	// Ack 10: recv = 36,864 > 32,768: c = 26,218,155 + 9 * 3755 =
	// 26,251,950 -> 410,186 B; adj_end = (2000 + 8608) >> 4 = 663.
	step(t, m, ackEv(0, mtu, 20_000, false, 0, 2000), res(0, KindAck, 410_186, CaseFI))
	if s := m.Conn(0); s.Inc != 0 || s.Recv != 0 || s.AdjEnd != 663 {
		t.Fatalf("after: %+v", s)
	}
	// Time: one ack at q = 663 applies with recv = 4096 only.
	step(t, m, ackEv(0, mtu, 20_000, false, 0, 2100), res(0, KindAck, 410_186, CaseFI))
	r := m.Step(ackEv(0, mtu, 20_000, false, 0, 16*663))
	if r.Cwnd <= 410_186 || m.Conn(0).Inc != 0 {
		t.Fatalf("time trigger: %+v %+v", r, m.Conn(0))
	}

	// AdjustPeriod off: every ack applies at once.
	n := newModel(t, NSCC, func(p *Params) { p.InitCwnd = 100 * mtu; p.AdjustPeriod = false })
	n.Step(openEv(0, 0))
	n.Step(ackEv(0, mtu, 20_000, false, 0, 1000))
	step(t, n, ackEv(0, mtu, 20_000, false, 0, 1100), res(0, KindAck, (26_218_155+3755)>>6, CaseFI))
}

// TestClamps: the window stays within [MTU, MaxCwnd] (S0:L205, L263).
func TestClamps(t *testing.T) {
	for _, v := range []Variant{Conf, NSCC} {
		m := newModel(t, v, initCwnd(mtu))
		m.Step(openEv(0, 0))
		// At the MTU: a timeout (no QA for nscc; smartt's opens a window)
		// cannot go lower.
		step(t, m, lossEv(0, KindTimeout, mtu, 0, 100), res(0, KindTimeout, mtu, CaseLoss))
		step(t, m, lossEv(0, KindNack, 16_000, 0, 200), res(0, KindNack, mtu, CaseLoss))
		// At MaxCwnd: FastIncrease (+2 MTU) is clamped on its early return.
		top := newModel(t, v, nil)
		top.Step(openEv(0, 0))
		max := top.Derived().MaxCwnd
		st := top.Conn(0)
		st.Increase = true
		s, r := Step(top.Params(), top.Derived(), st, ackEv(0, mtu, 8600, false, 0, 100))
		if r != (Result{Kind: KindAck, Cwnd: max, Case: CaseFast, Fast: true}) || s.C != max<<6 {
			t.Fatalf("%s at MaxCwnd: %+v", v, r)
		}
	}
}

// TestNoClampOnEarlyReturn: the literal pseudocode (A-2, S0:L184-185)
// leaves a QuickAdapt result below the MTU and a FastIncrease result above
// MaxCwnd until the next clamped event; the register saturates.
func TestNoClampOnEarlyReturn(t *testing.T) {
	p := DefaultParams(Conf)
	p.ClampOnEarlyReturn = false
	d := p.Derive()
	// QA on acked = 100 B: max(100, 4096) * 0.8 = 3276.8 B stays.
	s := State{C: 1 << 25, Acked: 0, Trigger: true, End: 10}
	s, r := Step(p, d, s, ackEv(0, 100, 20_000, false, 0, 16*10))
	if r.Case != CaseQA || s.C != 209_716 || r.Cwnd != 3276 {
		t.Fatalf("QA: %+v %+v", s, r)
	}
	// FastIncrease above MaxCwnd stays, and saturates at 2^27 - 1.
	s = State{C: d.MaxC, Increase: true, End: 5000}
	s, r = Step(p, d, s, ackEv(0, mtu, 8600, false, 0, 100))
	if s.C != d.MaxC+524_288 || r.Cwnd != 1_075_000+8192 {
		t.Fatalf("FastIncrease: %+v", r)
	}
	s.C = 1<<27 - 100
	if s, _ = Step(p, d, s, ackEv(0, mtu, 8600, false, 0, 100)); s.C != 1<<27-1 {
		t.Fatalf("saturation: %d", s.C)
	}
	// The next core case clamps.
	if s, r = Step(p, d, s, ackEv(0, mtu, 20_000, false, 0, 100)); r.Cwnd != 1_075_000 {
		t.Fatalf("clamp after: %+v", r)
	}
}

// TestNowWrap: now wraps at 2^32 ns and the 24-bit stamps with it.
func TestNowWrap(t *testing.T) {
	for _, hi := range []uint64{0, 1 << 32, 7 << 40} { // bits above TimeW are not seen
		m := newModel(t, NSCC, initCwnd(64*mtu))
		m.Step(openEv(0, 0))
		// the window ends at ((2^32 - 1000 + 12,908) >> 4) mod 2^24 =
		// 744, across the wrap.
		m.Step(ackEv(0, mtu, 20_000, false, 0, hi|(1<<32-1000)))
		if s := m.Conn(0); s.End != 744 {
			t.Fatalf("end = %d", s.End)
		}
		m.Step(lossEv(0, KindNack, mtu, 0, hi|(1<<32-500)))
		// After the wrap: q(11,888) = 743 is still before end ...
		if r := m.Step(ackEv(0, mtu, 20_000, false, 0, hi|11_888)); r.QA {
			t.Fatalf("fired early: %+v", r)
		}
		// ... q(11,904) = 744 ends the window: 12,904 ns after it opened.
		// acked = 2 acks = 8192 B (the nack does not count, A-7).
		step(t, m, ackEv(0, mtu, 20_000, false, 0, hi|11_904), res(0, KindAck, 8192, CaseQA))
	}
}

// TestZeroStamp: the zero stamps of a word just opened read as long past.
// With ZeroStampExpired (the default) always; without it the distance
// to the deadline decides, as for any stamp, which holds an MD back only
// where now's stamp lies within one hold-off (BrttH = 538 units) before
// stamp 0. The contract's
// serial arithmetic read a zero stamp as "in the future" for half of the
// stamp cycle (q(now) with bit 23 set) and blocked QuickAdapt and the MD.
func TestZeroStamp(t *testing.T) {
	for _, c := range []struct {
		open    uint64
		litHeld bool
		why     string
	}{
		{1<<27 + 100_000, false, "q = 2^23 + 6250"},
		{1<<28 - 1600, true, "q = 2^24 - 100, within BrttH before 0"},
	} {
		lit := newModel(t, NSCC, func(p *Params) { p.ZeroStampExpired = false })
		def := newModel(t, NSCC, nil)
		for _, m := range []*Model{lit, def} {
			m.Step(openEv(0, c.open))
			m.Step(ackEv(0, mtu, 1_000_000, true, 0, c.open+100))
		}
		if s := def.Conn(0); s.End == 0 || s.MdEnd == 0 || s.C != 41_280_000 {
			t.Fatalf("%s, default: %+v", c.why, s)
		}
		s := lit.Conn(0)
		// (where the MD is held, a window end of 0 reads as a window still
		// open for the same reason: QuickAdapt leaves it)
		if held := s.MdEnd == 0 && s.C == 82_560_000; held != c.litHeld || (s.End == 0) != c.litHeld {
			t.Fatalf("%s, literal: MD held %v, want %v: %+v", c.why, held, c.litHeld, s)
		}
	}
}

// TestLossEvents: nack and timeout (S0:L197-202, S1 Alg. 4 L15-21).
func TestLossEvents(t *testing.T) {
	// smartt: a timeout acts like a trim (S0:L232): trigger set, QA may fire.
	m := newModel(t, Conf, initCwnd(64*mtu))
	m.Step(openEv(0, 0))
	m.Step(ackEv(0, mtu, 20_000, false, 0, 100)) // opens the window, end = 6 + 807
	c := m.Conn(0).C >> 6
	step(t, m, lossEv(0, KindTimeout, mtu, 5*mtu, 200), res(0, KindTimeout, c-mtu, CaseLoss))
	if !m.Conn(0).Trigger {
		t.Fatal("smartt timeout: no trigger")
	}
	// At q = 813 the timeout fires QA: acked = 0 (timeouts are not
	// delivered data, A-7) -> max(0, MTU) * 0.8 = 3276.8 B, clamped to the
	// MTU; to_ignore = 5 * 4096.
	step(t, m, lossEv(0, KindTimeout, mtu, 5*mtu, 16*813), res(0, KindTimeout, mtu, CaseQA))
	if s := m.Conn(0); s.ToIgnore != 5*mtu || s.Trigger {
		t.Fatalf("%+v", s)
	}
	// In the ignore phase a trim still reduces the window but does not call
	// QuickAdapt (S0:L201: only if ignored >= to_ignore).
	// (4096 - 1000 = 3096 B, clamped to the MTU.)
	step(t, m, lossEv(0, KindNack, 1000, 0, 100_000), res(0, KindNack, mtu, CaseLoss))
	if s := m.Conn(0); !s.Trigger || s.Ignored != 1000 {
		t.Fatalf("%+v", s)
	}

	// nscc: a timeout neither triggers nor runs QuickAdapt (S1:L746), nor counts as delivered.
	n := newModel(t, NSCC, initCwnd(64*mtu))
	n.Step(openEv(0, 0))
	n.Step(ackEv(0, mtu, 20_000, false, 0, 100))
	c = n.Conn(0).C >> 6
	step(t, n, lossEv(0, KindTimeout, mtu, 0, 16*900), res(0, KindTimeout, c-mtu, CaseLoss))
	if s := n.Conn(0); s.Trigger || s.Acked != 0 || s.End != 813 {
		t.Fatalf("nscc timeout: %+v", s)
	}
	// A nack fires it, dropping inc and recv (htsim). The ack at q = 901
	// restarts the window (end 1708, acked 0) and applies inc (due since
	// q(100) + 538); the next two accumulate inc and recv.
	n.Step(ackEv(0, mtu, 20_000, false, 0, 16*901))
	n.Step(ackEv(0, mtu, 20_000, false, 0, 16*1000))
	n.Step(ackEv(0, mtu, 20_000, false, 0, 16*1100))
	if s := n.Conn(0); s.Inc == 0 || s.Recv != 8192 {
		t.Fatalf("nscc before nack: %+v", s)
	}
	// acked = 2 acks = 8192 B (the nack is not delivered data, A-7).
	step(t, n, lossEv(0, KindNack, mtu, 3*mtu, 16*2000), res(0, KindNack, 8192, CaseQA))
	if s := n.Conn(0); s.Inc != 0 || s.Recv != 0 || s.ToIgnore != 3*mtu {
		t.Fatalf("nscc nack QA: %+v", s)
	}
}

// TestDelayQA: without trimming, nscc's QuickAdapt fires on a high RTT when
// little was acked (A-10, htsim qa_threshold and qa_gate).
func TestDelayQA(t *testing.T) {
	for _, on := range []bool{false, true} {
		m := newModel(t, NSCC, func(p *Params) { p.DelayQA = on })
		m.Step(openEv(0, 0))
		m.Step(ackEv(0, mtu, 20_000, false, 0, 100)) // opens the window (end 813)
		// rtt 25,801 > QaRttNs = 25,800, acked 4096 < 161,250 (the first
		// ack only opened the window), window over: cwnd = 4096.
		r := m.Step(ackEv(0, mtu, 25_801, false, 2*mtu, 16*813))
		if r.QA != on {
			t.Fatalf("DelayQA %v: %+v", on, r)
		}
		if on && r.Cwnd != 4096 {
			t.Fatalf("DelayQA: %+v", r)
		}
	}
	// rtt = QaRttNs exactly does not trigger.
	m := newModel(t, NSCC, func(p *Params) { p.DelayQA = true })
	m.Step(openEv(0, 0))
	m.Step(ackEv(0, mtu, 20_000, false, 0, 100))
	if r := m.Step(ackEv(0, mtu, 25_800, false, 0, 16*813)); r.QA {
		t.Fatalf("%+v", r)
	}
}

// TestErrors: conn >= NumConn or kind 4..7 is an error; nothing changes.
func TestErrors(t *testing.T) {
	for _, v := range []Variant{Conf, NSCC} {
		m := newModel(t, v, func(p *Params) { p.NumConn = 100 })
		m.Step(openEv(5, 0))
		m.Step(ackEv(5, mtu, 20_000, true, 0, 100))
		before := m.Conn(5)
		for k := Kind(4); k <= 7; k++ {
			step(t, m, Event{Conn: 5, Kind: k, Size: mtu, Now: 200}, Result{Conn: 5, Kind: k, Error: true})
		}
		step(t, m, ackEv(100, mtu, 20_000, true, 0, 300), Result{Conn: 100, Kind: KindAck, Error: true})
		// Kind is read through 3 bits: 9 = 1 (ack) is valid; conn through
		// 16 bits: 0x10005 is connection 5.
		checkConn(t, m, 5, before)
		s, r := Step(m.Params(), m.Derived(), before, Event{Conn: 5, Kind: 12, Now: 1})
		if s != before || r != (Result{Conn: 5, Kind: 4, Error: true}) {
			t.Fatalf("pure Step error: %+v", r)
		}
		if r := m.Step(Event{Conn: 0x10005, Kind: 9, Size: 0x4000 | 100, RTT: 20_000, Now: 400}); r.Error || r.Conn != 5 || r.Kind != KindAck {
			t.Fatalf("truncation: %+v", r)
		}
		if s := m.Conn(5); s.Acked != before.Acked+100 {
			t.Fatalf("size not truncated to 14 bits: %+v", s)
		}
	}
}

// TestNSCCDefaultStamps: nscc's default stamps are 11 bits of 256 ns. An
// MD's hold-off ends at the unit boundary nearest 8600 ns after it, at
// most BrttH = ceil((8600 + 128) / 256) = 35 units ahead; a QuickAdapt
// window's at most TrttH = ceil((12,900 + 128) / 256) = 51; and a
// deadline is read over the whole 2048-unit cycle.
func TestNSCCDefaultStamps(t *testing.T) {
	p := DefaultParams(NSCC)
	d := p.Derive()
	if p.StampShift != 8 || p.StampW != 11 || d.BrttH != 35 || d.TrttH != 51 || d.BrttC != 8728 {
		t.Fatalf("stamps %d ns x %d bits, BrttH %d, TrttH %d, BrttC %d", 1<<p.StampShift, p.StampW, d.BrttH, d.TrttH, d.BrttC)
	}
	m, err := NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	const t0 = 1_000_000
	m.Step(openEv(0, t0))
	// a marked ack with a high RTT: MD (md_end 0 has passed)
	if r := m.Step(ackEv(0, mtu, 1_000_000, true, 0, t0+256)); r.Case != CaseMD {
		t.Fatalf("first MD: %+v", r)
	}
	// md_end = ((1,000,256 + 8728) >> 8) mod 2048 = 3941 mod 2048 =
	// 1893: the hold-off ends at 3941 x 256 = 1,008,896 ns, 8640 ns after
	// the MD
	if md := m.Conn(0).MdEnd; md != 1893 {
		t.Fatalf("md_end = %d, want 1893", md)
	}
	if r := m.Step(ackEv(0, mtu, 1_000_000, true, 0, 1_008_895)); r.Case != CaseNone {
		t.Fatalf("MD inside the hold-off: %+v", r)
	}
	if r := m.Step(ackEv(0, mtu, 1_000_000, true, 0, 1_008_896)); r.Case != CaseMD {
		t.Fatalf("no MD at the hold-off's end: %+v", r)
	}
	// 1500 units (384 us) of silence, past half the cycle: the deadline
	// of the last MD still reads as passed (1500 - 34 units behind now is
	// 582 ahead over the cycle: farther than any hold-off is set)
	last := m.Conn(0).MdEnd
	if r := m.Step(ackEv(0, mtu, 1_000_000, true, 0, 1_008_896+1500*256)); r.Case != CaseMD {
		t.Fatalf("no MD after 1500 units (md_end %d): %+v", last, r)
	}
}

// TestNSCCDefaultUnits: nscc's byte counters count 64 B units, a packet
// ceil(size / 64) of them. A 4 KiB packet is 64 units exactly; a 100 B one
// counts 2 (128 B). QuickAdapt sets the window to the units acked times
// 64 B; the adjustment period ends when recv * 64 > 8 MTU, i.e. recv > 512.
func TestNSCCDefaultUnits(t *testing.T) {
	p := DefaultParams(NSCC)
	d := p.Derive()
	if p.ByteShift != 6 || d.CountMax != 1<<15-1 || d.AdjUnits != 512 || d.Units(4096) != 64 || d.Units(100) != 2 || d.Units(64) != 1 {
		t.Fatalf("ByteShift %d, CountMax %d, AdjUnits %d", p.ByteShift, d.CountMax, d.AdjUnits)
	}
	m, err := NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	m.Step(openEv(0, 0))
	// opens the QuickAdapt window, and is an adjustment (adj_end 0 has
	// passed), which empties recv
	m.Step(ackEv(0, 100, 9000, false, 0, 256))
	m.Step(ackEv(0, 4096, 9000, false, 0, 512))
	m.Step(ackEv(0, 100, 9000, false, 0, 768))
	if s := m.Conn(0); s.Acked != 64+2 || s.Recv != 64+2 || s.Count != 2+64+2 {
		t.Fatalf("acked %d, recv %d units: %+v", s.Acked, s.Recv, s)
	}
}

// TestRetune: the run-time constants change what the model computes from
// the next event on, their derived values follow the target RTT, and
// values the hardware cannot hold are refused with the model unchanged.
func TestRetune(t *testing.T) {
	m := newModel(t, NSCC, func(p *Params) { p.DelayQA = true })
	d0 := m.Derived()
	if err := m.Retune(d0.TrttNs, d0.KMi, d0.QaScale); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Derived(), d0) {
		t.Fatalf("retuning to the defaults changed the constants")
	}
	trtt := 2 * d0.BrttNs // 2 base RTTs: 17,200 ns, 1,075 stamps of 16 ns
	if err := m.Retune(trtt, d0.KMi/2, 1<<15); err != nil {
		t.Fatal(err)
	}
	d := m.Derived()
	if d.TrttNs != 17200 || d.TrttQ != 1075 || d.QaRttNs != 8600+4*8600 || d.KMi != d0.KMi/2 || d.QaScale != 1<<15 {
		t.Fatalf("retuned: Trtt %d ns, %d stamps, QA threshold %d ns, KMi %d, qa_scaling %d", d.TrttNs, d.TrttQ, d.QaRttNs, d.KMi, d.QaScale)
	}
	for _, bad := range []struct {
		trtt    uint32
		kmi     uint64
		qa      uint32
		because string
	}{
		{d0.BrttNs, d0.KMi, d0.QaScale, "a target at the base RTT"},
		{d0.RttMax, d0.KMi, d0.QaScale, "a QuickAdapt threshold above the RTT's width"},
		{d0.TrttNs, 0, d0.QaScale, "a zero gain"},
		{d0.TrttNs, d0.KMi, 1 << 17, "a scaling of 2"},
	} {
		if err := m.Retune(bad.trtt, bad.kmi, bad.qa); err == nil {
			t.Errorf("Retune took %s", bad.because)
		}
		if !reflect.DeepEqual(m.Derived(), d) {
			t.Errorf("a refused Retune (%s) changed the constants", bad.because)
		}
	}
}

// TestMIGainFor: the integer gain a control wrapper derives from a target
// RTT is within 1 of the float formula of Derive at every target tried,
// equals it at the default target of both variants, and is 0 at or below
// the base RTT (no gain to derive).
func TestMIGainFor(t *testing.T) {
	for _, v := range []Variant{Conf, NSCC} {
		m := newModel(t, v, nil)
		d := m.Derived()
		if got := m.MIGainFor(d.TrttNs); got != d.KMi {
			t.Errorf("%s: MIGainFor(%d) = %d, Derive's KMi %d", v, d.TrttNs, got, d.KMi)
		}
		for _, trtt := range []uint32{d.BrttNs + 1, d.BrttNs + 7, d.BrttNs + 1000, 2 * d.BrttNs, 3*d.BrttNs + 11, 30 * d.BrttNs} {
			want := float64(d.MTU) * float64(d.BrttNs) / float64(trtt-d.BrttNs) * d.Gamma * math.Ldexp(1, 2*d.F)
			if got := float64(m.MIGainFor(trtt)); math.Abs(got-want) > 1 {
				t.Errorf("%s: MIGainFor(%d) = %.0f, the formula %.3f", v, trtt, got, want)
			}
		}
		if g := m.MIGainFor(d.BrttNs); g != 0 {
			t.Errorf("%s: MIGainFor(base) = %d, want 0", v, g)
		}
	}
}
