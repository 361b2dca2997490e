package reps

import (
	"testing"

	"github.com/nicgen/nicgen/hdlgen"
)

// S4 Table 1 (S4:L74): with 16-bit EVs, 8-bit head and counters and a
// 32-bit exit time, REPS keeps 74 bits per connection with one buffer entry
// and 193 bits with eight. The budget is derived from the block's state
// table declaration, so this checks the declared hardware, not a formula.
func TestBudgetMatchesS4Table1(t *testing.T) {
	for _, tc := range []struct {
		entries, bits, bytes int
	}{
		{1, 74, 10},
		{8, 193, 25},
	} {
		p := DefaultParams()
		p.N = tc.entries
		m, err := Paper(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := hdlgen.Elaborate(m); err != nil {
			t.Fatal(err)
		}
		b := hdlgen.StateBudget(m)
		if b.PerConnBits() != tc.bits || (b.PerConnBits()+7)/8 != tc.bytes {
			t.Errorf("N=%d: %d bits per connection, S4 Table 1 says %d bits (%d bytes)", tc.entries, b.PerConnBits(), tc.bits, tc.bytes)
		}
		if b.Connections != p.NumConn {
			t.Errorf("table of %d connections, want %d", b.Connections, p.NumConn)
		}
	}
}

// 8-bit EVs save one byte per entry.
func TestBudgetEightBitEVs(t *testing.T) {
	p := DefaultParams()
	p.EVW = 8
	m, err := Paper(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := hdlgen.StateBudget(m).PerConnBits(); got != 129 {
		t.Errorf("8 entries of 8-bit EVs: %d bits, want 8*9+57 = 129", got)
	}
}

func TestParamsRejected(t *testing.T) {
	for name, mut := range map[string]func(*Params){
		"N":           func(p *Params) { p.N = 0 },
		"HeadW":       func(p *Params) { p.N, p.HeadW = 16, 3 },
		"CountW":      func(p *Params) { p.CountW = 3 },
		"FreezeTime":  func(p *Params) { p.TimeW, p.FreezeTime = 16, 1<<15 },
		"LFSRSeed":    func(p *Params) { p.LFSRSeed = 0 },
		"ExploreInit": func(p *Params) { p.ExploreInit = 256 },
	} {
		p := DefaultParams()
		mut(&p)
		if _, err := Paper(p); err == nil {
			t.Errorf("%s: bad parameters accepted", name)
		}
	}
}
