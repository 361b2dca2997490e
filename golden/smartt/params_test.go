package smartt

import (
	"math"
	"strings"
	"testing"
)

// Seed references: S0 = shared/seeds/000_*.txt (SMaRTT conference paper),
// S1 = shared/seeds/001_*.txt (journal paper), line numbers as printed by
// grep -n; "contract" = docs/blocks/smartt.md.

func TestDefaultParamsValid(t *testing.T) {
	for _, v := range []Variant{Conf, NSCC} {
		if err := DefaultParams(v).Validate(); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
	if Conf.String() != "smartt" || NSCC.String() != "nscc" || Variant(7).String() != "variant(7)" {
		t.Error("Variant.String")
	}
}

// TestDerive checks every derived value of contract Sections 2 and 3
// against numbers worked by hand for the default network (800 Gb/s, 4096 B,
// brtt 8600 ns, S0:L324, S0:L377).
func TestDerive(t *testing.T) {
	d := DefaultParams(Conf).Derive()
	n := DefaultParams(NSCC).Derive()
	u := func(name string, got, want uint64) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	// BDP = 800 b/ns * 8600 ns / 8 = 860,000 B.
	u("BDP", d.BDP, 860_000)
	// TrttNs = 1.5 * 8600 (S0:L98).
	u("TrttNs", uint64(d.TrttNs), 12_900)
	// gamma = 860,000 / 150,000 = 86/15.
	if math.Abs(d.Gamma-86.0/15) > 1e-12 {
		t.Errorf("Gamma = %v, want 5.7333", d.Gamma)
	}
	// MaxCwnd = 1.25 * 860,000 (S0:L263); 1.5 * 860,000 (S1:L1024).
	u("MaxCwnd smartt", uint64(d.MaxCwnd), 1_075_000)
	u("MaxCwnd nscc", uint64(n.MaxCwnd), 1_290_000)
	u("InitCwnd", uint64(d.InitCwnd), 1_075_000) // InitCwnd 0 = MaxCwnd
	u("MinCwnd", uint64(d.MinCwnd), 4096)
	// 2^20 = 1,048,576 <= MaxCwnd < 2^21 for both variants.
	u("CwndW smartt", uint64(d.CwndW), 21)
	u("CwndW nscc", uint64(n.CwndW), 21)
	u("CW", uint64(d.CW), 27)
	// ceil(12900 / 16) = ceil(806.25); ceil(8600 / 16) = ceil(537.5).
	u("TrttQ", uint64(d.TrttQ), 807)
	u("BrttQ", uint64(d.BrttQ), 538)
	// mi = 8600 / (12900 - 8600) = 2 (S0:L163).
	if d.Mi != 2 {
		t.Errorf("Mi = %v, want 2", d.Mi)
	}
	// KFi = round(4096 * 0.25 * 86/15 * 4096) = round(360,710,144 / 15)
	//     = round(24,047,342.93).
	u("KFi", d.KFi, 24_047_343)
	// KMi = round(4096 * 2 * 86/15 * 4096) = round(2,885,681,152 / 15)
	//     = round(192,378,743.47) (8 times KFi: mi / fi = 2 / 0.25).
	u("KMi", d.KMi, 192_378_743)
	// KMd = 2 * 64 (S0:L147).
	u("KMd", d.KMd, 128)
	// KFd = round(0.8 / 860,000 * 2^40) = round(879,609,302,220.8 / 860,000)
	//     = round(1,022,801.51).
	u("KFd", d.KFd, 1_022_802)
	// QaScale = round(0.8 * 65536) = round(52,428.8) (S0:L223); 1.0 for
	// nscc (S1:L735).
	u("QaScale smartt", uint64(d.QaScale), 52_429)
	u("QaScale nscc", uint64(n.QaScale), 65_536)
	// WtdThresh = 0.25 * 4096 (S0:L318; avg_wtd is Q0.12).
	u("WtdThresh", uint64(d.WtdThresh), 1024)
	// FiRttMax = 8600 + 1000.
	u("FiRttMax", uint64(d.FiRttMax), 9_600)
	// KFast = 2 * 4096 * 64 (S0:L241).
	u("KFast", d.KFast, 524_288)
	// MdGain = round(0.8 * 65536).
	u("MdGain", uint64(d.MdGain), 52_429)
	// QaRttNs = 8600 + 4 * 4300.
	u("QaRttNs", uint64(d.QaRttNs), 25_800)
	u("MinC", uint64(d.MinC), 262_144)
	u("MaxC smartt", uint64(d.MaxC), 68_800_000)
	u("MaxC nscc", uint64(n.MaxC), 10_320_000) // F = 3 for nscc: 1,290,000 * 8
	u("CMax", uint64(d.CMax), 1<<27-1)
	u("ByteMax", uint64(d.ByteMax), 1<<21-1)
	u("QaGate", uint64(n.QaGate), 161_250) // 1,290,000 >> 3
	u("AdjBytes", uint64(n.AdjBytes), 32_768)

	// md doubles when timeouts replace trims (S0:L234).
	p := DefaultParams(Conf)
	p.TimeoutsReplaceTrims = true
	u("KMd timeouts", p.Derive().KMd, 256)
	p.InitCwnd = 4 * 4096
	u("InitCwnd option", uint64(p.Derive().InitCwnd), 16_384)
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Params)
		want string
	}{
		{"variant", func(p *Params) { p.Variant = 2 }, "Variant = 2"},
		{"conn", func(p *Params) { p.NumConn = 1 << 17 }, "exceeds 2^ConnW"},
		{"numconn", func(p *Params) { p.NumConn = 0 }, "NumConn = 0"},
		{"timew", func(p *Params) { p.TimeW = 27 }, "TimeW = 27"},
		{"f", func(p *Params) { p.F = 17 }, "F = 17"},
		{"k", func(p *Params) { p.K = 0 }, "K = 0"},
		{"wtd", func(p *Params) { p.WtdShift = 0 }, "WtdShift = 0"},
		{"link", func(p *Params) { p.Network.LinkGbps = 0 }, "LinkGbps = 0"},
		{"nan", func(p *Params) { p.Network.LinkGbps = math.NaN() }, "LinkGbps = NaN"},
		{"brtt", func(p *Params) { p.Network.BrttNs = 0 }, "BrttNs"},
		{"mtu", func(p *Params) { p.Network.MTU = 1 << 14 }, "does not fit SizeW"},
		{"mtu0", func(p *Params) { p.Network.MTU = 0 }, "MTU must be"},
		{"init low", func(p *Params) { p.InitCwnd = 100 }, "InitCwnd = 100"},
		{"init high", func(p *Params) { p.InitCwnd = 2_000_000 }, "InitCwnd = 2000000"},
		{"tiny bdp", func(p *Params) { p.Network.LinkGbps = 0.001 }, "MaxCwnd"},
		{"c width", func(p *Params) { p.F = 12 }, "c must fit 32 bits"},
		{"stamp range", func(p *Params) { p.RttW = 32; p.Network.BrttNs = 200_000_000 }, "must be < 2^23"},
		{"brtt width", func(p *Params) { p.Network.BrttNs = 1 << 20 }, "does not fit RttW"},
	}
	for _, c := range cases {
		p := DefaultParams(Conf)
		c.mod(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v, want %q", c.name, err, c.want)
		}
		if _, err := NewModel(p); err == nil {
			t.Errorf("%s: NewModel accepted invalid params", c.name)
		}
		p.Derive() // must not panic on bad params
	}
}
