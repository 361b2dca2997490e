package smartt

import "testing"

// derived is the default Derived in the contract's 16 ns stamps and bytes,
// the units of the worked examples below.
func derived(v Variant) *Derived {
	p := DefaultParams(v)
	p.StampShift, p.StampW, p.ByteShift, p.F, p.IncW, p.AvgW = ConfStampShift, ConfStampW, 0, 6, 0, 0
	d := p.Derive()
	return &d
}

func TestStamps(t *testing.T) {
	d := derived(NSCC)
	// q(t) = (t >> 4) mod 2^24: 2^32 - 16 ns is the last unit before the
	// 32-bit wrap, and the stamp wraps with now (2^28 units per wrap).
	if d.Stamp(1<<32-16) != 1<<24-1 || d.Stamp(0) != 0 || d.Stamp(1<<32) != 0 || d.Stamp(12_900) != 806 {
		t.Fatal("Stamp")
	}
	// deadlines: the unit boundary nearest start + dur (halves up), from
	// the start in ns: 8,600 ns after 0 lies halfway between 537 x 16 and
	// 538 x 16; after 1 ns and after 9 ns, 538 x 16 = 8,608 is nearest;
	// after 24 ns, 539 x 16 = 8,624 exactly
	if d.BrttC != 8608 || d.BrttH != 538 || d.TrttC != 12_908 || d.TrttH != 807 {
		t.Fatalf("BrttC %d BrttH %d TrttC %d TrttH %d", d.BrttC, d.BrttH, d.TrttC, d.TrttH)
	}
	for _, c := range []struct {
		start uint64
		want  uint32
	}{{0, 538}, {1, 538}, {9, 538}, {24, 539}, {1<<32 - 8, 537}} {
		if got := d.HoldEnd(c.start); got != c.want {
			t.Errorf("HoldEnd(%d) = %d, want %d", c.start, got, c.want)
		}
	}
	// passed: the deadline is not 1..BrttH units ahead
	for _, c := range []struct {
		now, stamp uint32
		want       bool
	}{
		{1000, 1000, true},           // at the deadline: ended
		{999, 1000, false},           // one unit before
		{1000 - 538, 1000, false},    // BrttH ahead: the farthest a deadline is set
		{1000 - 539, 1000, true},     // farther: none is set there, it ended long ago
		{1<<24 - 10, 5, false},       // 15 units ahead, across the wrap
		{6, 5, true},                 // a full cycle minus one unit after it
		{1<<23 + 5, 1, true},         // half a cycle after
		{1 << 20, 1<<20 + 20, false}, // 20 units ahead
	} {
		if got := d.passed(c.now, c.stamp); got != c.want {
			t.Errorf("passed(now %d, deadline %d) = %v", c.now, c.stamp, got)
		}
	}
	// a zero stamp: always passed under ZeroStampExpired; otherwise the
	// distance decides, like any stamp
	d.ZeroStampExpired = true
	if !d.passed(1<<24-10, 0) {
		t.Error("zero stamp under ZeroStampExpired")
	}
	d.ZeroStampExpired = false
	if d.passed(1<<24-10, 0) || !d.passed(10, 0) {
		t.Error("zero stamp, literal")
	}
	// windowOpen: the end lies 1..TrttH units ahead
	d.ZeroStampExpired = true
	for _, c := range []struct {
		now, end uint32
		want     bool
	}{
		{100, 100, false}, // now == end: ended (now >= end, S0 Alg. 2)
		{99, 100, true},
		{100 + 1<<24 - 807, 100, true},  // TrttH ahead, across the wrap
		{100 + 1<<24 - 808, 100, false}, // 808 ahead: no window is set that far
		{101, 100, false},               // just ended
		{1<<23 + 200, 100, false},       // long ago
		{5, 0, false},                   // no window yet
	} {
		if got := d.windowOpen(c.now&d.StampMask, c.end); got != c.want {
			t.Errorf("windowOpen(now %d, end %d) = %v", c.now&d.StampMask, c.end, got)
		}
	}
}

// QuickAdapt (S0 Alg. 2, S0:L216-231).
func TestQuickAdaptBlock(t *testing.T) {
	d := derived(Conf)
	in := QAIn{C: 100 << 6, Acked: 8192, Ignored: 50_000, ToIgnore: 10, Trigger: true, End: 1000, NowQ: 999, EndNext: 1806, Unacked: 12_345}

	// Before end: nothing at all.
	if out := QuickAdapt(d, in); out != (QAOut{C: in.C, Acked: 8192, Ignored: 50_000, ToIgnore: 10, Trigger: true, End: 1000}) {
		t.Fatalf("before end: %+v", out)
	}
	// At end (at_or_after): fires. c = (8192 * 52429) >> 10 = 429,498,368
	// / 1024 = 419,432 (6553.6 B: 0.8 * 2 packets, S0:L223). to_ignore =
	// unacked, ignored = 0, the next window ends at EndNext.
	in.NowQ, in.EndNext = 1000, 1807
	want := QAOut{C: 419_432, Acked: 0, Ignored: 0, ToIgnore: 12_345, Trigger: false, End: 1807, Fired: true}
	if out := QuickAdapt(d, in); out != want {
		t.Fatalf("fire: %+v, want %+v", out, want)
	}
	// Without a trigger the window just restarts.
	in.Trigger = false
	if out := QuickAdapt(d, in); out != (QAOut{C: in.C, Acked: 0, Ignored: 50_000, ToIgnore: 10, End: 1807}) {
		t.Fatalf("no trigger: %+v", out)
	}
	// extra_trigger (the nscc delay trigger) fires like trigger.
	in.ExtraTrigger = true
	if out := QuickAdapt(d, in); !out.Fired || out.C != 419_432 {
		t.Fatalf("extra trigger: %+v", out)
	}
	// Acked below an MTU counts as one MTU: (4096 * 52429) >> 10 =
	// 209,716 (3276.8 B; the clamp raises it to the MTU).
	in.Acked = 100
	if out := QuickAdapt(d, in); out.C != 209_716 {
		t.Fatalf("max(acked, MTU): %+v", out)
	}
	// end = 0 (no window yet): opens one without firing, even with bit 23
	// of nowq set (ZeroStampExpired).
	in = QAIn{C: 1 << 20, Acked: 4096, Trigger: true, End: 0, NowQ: 1<<24 - 100, EndNext: 707}
	if out := QuickAdapt(d, in); out.Fired || out.End != 707 || out.Acked != 0 || !out.Trigger {
		t.Fatalf("end = 0: %+v", out)
	}
	// The literal contract (option off) waits for bit 23 of nowq to clear.
	dl := *d
	dl.ZeroStampExpired = false
	if out := QuickAdapt(&dl, in); out.End != 0 || out.Acked != 4096 {
		t.Fatalf("literal end = 0: %+v", out)
	}
	in.NowQ, in.EndNext = 5, 812
	if out := QuickAdapt(&dl, in); out.Fired || out.End != 812 {
		t.Fatalf("literal end = 0, low half: %+v", out)
	}
	// nscc: qa_scaling = 1 (S1:L735): c = 8192 << 6.
	in = QAIn{C: 1 << 25, Acked: 8192, Trigger: true, End: 10, NowQ: 10}
	if out := QuickAdapt(derived(NSCC), in); out.C != 8192<<6 || !out.Fired {
		t.Fatalf("nscc: %+v", out)
	}
}

// FastIncrease (S0 Alg. 3, S0:L243-257).
func TestFastIncreaseBlock(t *testing.T) {
	d := derived(Conf)
	c := uint64(16_384) << 6 // 4 packets
	// Uncongested (rtt <= 8600 + 1000, no ECN): count grows, no step
	// while count <= cwnd.
	out := FastIncrease(d, FastIn{C: c, Count: 12_288, Size: 4096, RTT: 9600})
	if out != (FastOut{C: c, Count: 16_384}) {
		t.Fatalf("count = cwnd: %+v", out)
	}
	// count > cwnd: c + 2 MTU (524,288 units), increase set.
	out = FastIncrease(d, FastIn{C: c, Count: 16_384, Size: 1, RTT: 8600})
	if out != (FastOut{C: c + 524_288, Count: 16_385, Increase: true, Fired: true}) {
		t.Fatalf("entry: %+v", out)
	}
	// Active: every uncongested ack steps.
	out = FastIncrease(d, FastIn{C: c, Count: 5, Increase: true, Size: 64, RTT: 9000})
	if !out.Fired || out.C != c+524_288 || out.Count != 69 {
		t.Fatalf("active: %+v", out)
	}
	// ECN, or rtt above the tolerance, ends it.
	for _, in := range []FastIn{{C: c, Count: 99_999, Increase: true, Size: 4096, RTT: 8600, ECN: true}, {C: c, Count: 99_999, Increase: true, Size: 4096, RTT: 9601}} {
		if out := FastIncrease(d, in); out != (FastOut{C: c}) {
			t.Fatalf("exit %+v: %+v", in, out)
		}
	}
	// count saturates at 2^21 - 1.
	out = FastIncrease(d, FastIn{C: 1 << 30, Count: 1<<21 - 10, Size: 4096, RTT: 8600})
	if out.Count != 1<<21-1 || out.Fired {
		t.Fatalf("saturation: %+v", out)
	}
}

// WTD (S0:L316-318, A-8): alpha = 1/16 in Q0.8, threshold 64.
func TestWTDBlock(t *testing.T) {
	d := derived(Conf)
	// Q0.12, threshold 1024. Five marked acks from 0, avg - (avg >> 4) + 256:
	// 0 -> 256; 256 - 16 + 256 = 496; 496 - 31 + 256 = 721; 721 - 45 + 256 = 932;
	// 932 - 58 + 256 = 1130 >= 1024.
	want := []uint16{256, 496, 721, 932, 1130}
	avg := uint16(0)
	for i, w := range want {
		var can bool
		avg, can = WTD(d, avg, true)
		if avg != w || can != (i == 4) {
			t.Fatalf("mark %d: avg %d can %v, want %d", i+1, avg, can, w)
		}
	}
	// Unmarked: 1130 - 70 = 1060, still >= 1024; then 1060 - 66 = 994; 994 - 62 = 932.
	for _, w := range []uint16{1060, 994, 932} {
		var can bool
		if avg, can = WTD(d, avg, false); avg != w || can != (w >= 1024) {
			t.Fatalf("decay: %d %v, want %d", avg, can, w)
		}
	}
	// The truncating decay stops at 15 (15 >> 4 = 0): the EWMA never
	// falls below 15/4096 (0.4%) without marks.
	if a, _ := WTD(d, 15, false); a != 15 {
		t.Fatalf("floor: %d", a)
	}
	// Saturates at 4095: 4095 - 255 + 256 = 4096 -> 4095.
	if a, can := WTD(d, 4095, true); a != 4095 || !can {
		t.Fatalf("top: %d", a)
	}
}

func TestClampBlock(t *testing.T) {
	d := derived(Conf)
	for _, c := range []struct{ in, want uint64 }{
		{0, 262_144}, {262_143, 262_144}, {262_144, 262_144}, {1 << 24, 1 << 24},
		{68_800_000, 68_800_000}, {68_800_001, 68_800_000}, {1 << 40, 68_800_000},
	} {
		if got := Clamp(d, c.in); uint64(got) != c.want {
			t.Errorf("Clamp(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}
