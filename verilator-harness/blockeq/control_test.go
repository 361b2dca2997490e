package blockeq

import (
	"math/bits"
	"path/filepath"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/blocks/control"
	"github.com/nicgen/nicgen/hdlgen"
)

// newCtlBench builds block name's wrapper at the default configuration.
func newCtlBench(t *testing.T, name string, seed int64, muts ...hdlgen.Mutation) *ctlBench {
	return newCtlBenchN(t, name, seed, 0, muts...)
}

// newCtlBenchN builds the wrapper with its NUM_CONN parameter overridden
// (0: the default).
func newCtlBenchN(t *testing.T, name string, seed int64, numConn int, muts ...hdlgen.Mutation) *ctlBench {
	return newCtlBenchConfig(t, name, seed, numConn, nil, muts...)
}

// newCtlBenchConfig builds the wrapper of a configuration that tweak
// changes from the default (nil: the default); the bench's failures fail
// the test.
func newCtlBenchConfig(t *testing.T, name string, seed int64, numConn int, tweak func(*blocks.Config) error, muts ...hdlgen.Mutation) *ctlBench {
	t.Helper()
	c := blocks.DefaultConfig()
	if tweak != nil {
		if err := tweak(&c); err != nil {
			t.Fatal(err)
		}
	}
	cb, err := newCtlBenchOf(name, c, seed, numConn, muts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cb.model.Close() })
	cb.logf, cb.fatalf = t.Logf, t.Fatalf
	return cb
}

// TestControlWrapper runs the register interface of the control wrapper
// under Verilator beside the golden model: the clear after reset and on
// command, word reads and writes (a connection's word copied to a fresh
// connection makes it behave as the original, checked against the
// golden model replaying the original's events on it), the counters, the
// identification registers, refused commands and out-of-range words.
func TestControlWrapper(t *testing.T) {
	t.Parallel()
	// events per round: nscc runs four rounds of its settings besides
	// (some 300,000 results), smartt is nscc's shared datapath with the
	// conference rules, uet_cc composes nscc's and reps's (with reps's
	// LFSR: no copies)
	for _, r := range []struct {
		name     string
		perRound int
	}{{"nscc", 75000}, {"smartt", 22500}, {"reps_conf", 75000}, {"reps", 75000}, {"uet_cc", 22500}} {
		t.Run(r.name, func(t *testing.T) {
			cb := newCtlBench(t, r.name, 7)
			cb.run(r.name, r.perRound)
		})
	}
	// NUM_CONN set at instantiation: the sweep covers those connections,
	// the register reads it, and a connection at or above it is an error
	// nscc with its delay trigger of QuickAdapt: the threshold the
	// hardware derives from TARGET_RTT
	t.Run("nscc/delay_qa", func(t *testing.T) {
		cfg := configWith(t, nil, map[string]string{"nscc": "  delay_qa = true"})
		cb := newCtlBenchConfig(t, "nscc", 11, 0, func(c *blocks.Config) error {
			*c = cfg
			return nil
		})
		cb.run("nscc", 25000)
	})
	t.Run("reps_conf/NUM_CONN=1000", func(t *testing.T) {
		cb := newCtlBenchN(t, "reps_conf", 9, 1000)
		cb.run("reps_conf", 40000)
	})
}

// TestControlWrapperEveryBlock runs the bench on the wrapper of every
// block at the default configuration (TestControlWrapper runs five of
// them longer): events, copies of words into free connections (the upper
// half of a small table), run-time settings, counters, refused commands
// and the clear on command.
func TestControlWrapperEveryBlock(t *testing.T) {
	t.Parallel()
	for _, b := range blocks.All() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			cb := newCtlBench(t, b.Name, 3)
			cb.run(b.Name, 4000)
		})
	}
}

// TestControlWrapperExamples runs the bench on the wrapper of every block
// of every example configuration (docs/examples), with control on. Left
// out: uet-split.hcl (the split engine takes no control wrapper) and
// wait-slots.hcl (with slots, results of different connections leave in
// another order than the events came, and the bench compares in order).
func TestControlWrapperExamples(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "examples", "*.hcl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example configurations: %v", err)
	}
	for _, f := range files {
		switch filepath.Base(f) {
		case "uet-split.hcl", "wait-slots.hcl":
			continue
		}
		r, err := config.LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range r.Blocks {
			t.Run(filepath.Base(f)+"/"+name, func(t *testing.T) {
				t.Parallel()
				cb := newCtlBenchConfig(t, name, 5, 0, func(c *blocks.Config) error {
					*c = r.Config.Clone()
					c.Control = true
					return nil
				})
				cb.run(name, 2000)
			})
		}
	}
}

// TestControlWrapperMutants checks that the bench fails the wrapper with
// a table read that never captures the word (the copies then write a
// stale word), and with a clear sweep that writes WORD_DATA instead of
// zeros (the clear on command then leaves the last copied word).
func TestControlWrapperMutants(t *testing.T) {
	t.Parallel()
	for _, mut := range []hdlgen.Mutation{
		{Module: "reps_conf", Node: "table_read", With: func(orig hdlgen.Expr, _ func(string) hdlgen.Expr) hdlgen.Expr { return hdlgen.False() }},
		{Node: "table_wdata_sel", With: func(orig hdlgen.Expr, get func(string) hdlgen.Expr) hdlgen.Expr { return get("word_data0_reg") }},
	} {
		t.Run(mut.Node, func(t *testing.T) {
			cb := newCtlBench(t, "reps_conf", 7, mut)
			cb.expectFail = true
			msg := func() (msg string) {
				defer func() {
					if r := recover(); r != nil {
						f, ok := r.(ctlFailure)
						if !ok {
							panic(r)
						}
						msg = f.msg
					}
				}()
				cb.run("reps_conf", 20000)
				return ""
			}()
			if msg == "" {
				t.Errorf("the bench passes the wrapper with %s mutated", mut.Node)
			}
			t.Logf("%s: %s", mut.Node, msg)
		})
	}
}

// TestControlDerive writes TARGET_RTT with the values where a long divider
// goes wrong first (the range's ends, quotients with a step where the
// partial remainder equals the divisor, and the quotients either side of
// the clamp) and a thousand drawn ones, and reads back the MI_GAIN that
// the wrapper derived, against the quotient computed in Go; smartt's
// wrapper with its conference constants besides nscc's.
func TestControlDerive(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"nscc", "smartt"} {
		t.Run(name, func(t *testing.T) {
			cb := newCtlBench(t, name, 5)
			cb.model.Reset(2)
			cb.checkClear()
			var q *control.Quotient
			for _, mc := range cb.mp.Macros {
				if mc.Derive != nil {
					q = mc.Derive
				}
			}
			if q == nil {
				t.Fatalf("%s derives no setting", name)
			}
			var from, to control.Setting
			for _, st := range cb.mp.Settings {
				switch st.Name {
				case q.From:
					from = st
				case q.Setting:
					to = st
				}
			}
			xs := []uint64{from.Min, from.Min + 1, from.Min + 2, from.Max - 1, from.Max}
			// the least target whose quotient is at most Max, and the one
			// below it
			d0 := from.Min - q.Off
			for ; d0 < from.Max-q.Off && (q.Num+d0/2)/d0 > to.Max; d0++ {
			}
			xs = append(xs, q.Off+d0, q.Off+d0-1)
			// ties within the range: a step of the long division, most
			// significant quotient bit first, where the partial remainder
			// equals the divisor (the last step of an exact quotient is
			// one)
			exact := 0
			for d := d0; d <= from.Max-q.Off && exact < 40; d++ {
				n := q.Num + d/2
				r := uint64(0)
				for b := bits.Len64(n) - 1; b >= 0; b-- {
					r = r<<1 | n>>uint(b)&1
					if r == d {
						xs = append(xs, q.Off+d)
						exact++
						break
					}
					if r > d {
						r -= d
					}
				}
			}
			for i := 0; i < 1000; i++ {
				xs = append(xs, from.Min+uint64(cb.rng.Int63n(int64(from.Max-from.Min+1))))
			}
			for _, x := range xs {
				if x < from.Min || x > from.Max {
					continue
				}
				cb.axil(true, from.Offset, uint32(x), false, nil)
				want := q.Eval(x, to.Min, to.Max)
				if got := cb.axil(false, to.Offset, 0, false, nil); uint64(got) != want {
					t.Fatalf("PARAM_%s = %d: PARAM_%s reads %d, want %d", q.From, x, q.Setting, got, want)
				}
			}
			// how much later a target's write is answered than another's
			c0 := cb.cycle
			cb.axil(true, control.OffScratch, 1, false, nil)
			c1 := cb.cycle
			cb.axil(true, from.Offset, uint32(from.Max), false, nil)
			t.Logf("%s: %d targets, %d with a step where the remainder is the divisor; a write of %s takes %d cycles, of SCRATCH %d",
				name, len(xs), exact, q.From, cb.cycle-c1, c1-c0)
		})
	}
}
