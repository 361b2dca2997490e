package blockeq

import (
	"context"
	"fmt"
	"math/rand"
	"strings"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/control"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// ctlBench drives a block's control wrapper (docs/control.md) under
// Verilator: an AXI-Lite master, the event stream with random gaps and
// the result stream with random backpressure. Every result is compared
// with the block's golden model, run in acceptance order; the register
// interface is checked against what the golden side knows (a clear makes
// every connection's state the zero state of a fresh model, a copied word
// makes a connection behave as the one it was copied from, the counters
// count the results).
type ctlBench struct {
	logf   func(format string, a ...any) // the run's summary line
	fatalf func(format string, a ...any) // a failure; nil: fail panics with a ctlFailure
	b      block.Block
	c      block.Config
	mp     *control.Map
	model  *harness.Model
	in     []uint64
	out    []uint64
	pin    map[string]int
	pout   map[string]int
	rng    *rand.Rand
	cycle  int64
	golden block.Golden
	gIn    []string // golden event fields
	gOut   []string
	connAt int // conn's position in a golden event
	// the event offered, and the results expected in order
	offer   []uint64 // golden event fields, or nil
	expect  [][]uint64
	hist    map[uint64][][]uint64 // events accepted per connection since the last clear
	taken   [][]uint64            // golden results of the results taken since the counters were cleared
	conns   []uint64              // connections the events use
	results int
	numConn int // NUM_CONN: the map's, or the overridden parameter
	tuned   int // run-time settings written
	derived int // derived settings read back (control.Quotient)
	// settings holds the settings written, for a fresh golden model
	settings map[string]uint64
	sweep    int64  // cycles of the last clear until s_event_ready rose
	probe    uint64 // the connection of the event offered during the clear
	// expectFail: a mutant's run, whose first failure ends it (fail)
	expectFail bool
	ready      float64
	offering   float64
}

// newCtlBenchOf builds block name's control wrapper at c (control on),
// with its NUM_CONN parameter overridden (0: the default) and mutations
// (a broken variant) applied, under Verilator.
func newCtlBenchOf(name string, c blocks.Config, seed int64, numConn int, muts ...hdlgen.Mutation) (*ctlBench, error) {
	b, err := blocks.Lookup(name)
	if err != nil {
		return nil, err
	}
	c.Control = true
	m, mp, err := b.BuildControl(c)
	if err != nil {
		return nil, err
	}
	if err := hdlgen.Mutate(m, muts...); err != nil {
		return nil, err
	}
	var opts harness.BuildOptions
	if numConn > 0 {
		for _, p := range m.Params() {
			if p.Name() == "NUM_CONN" { // the literal its declaration takes without a width warning
				opts.ExtraArgs = []string{"-GNUM_CONN=" + p.ParamLiteral(uint64(numConn))}
			}
		}
	}
	d, err := hdlgen.Elaborate(m)
	if err != nil {
		return nil, err
	}
	hd := DesignOf(d)
	model, err := harness.Build(context.Background(), hd, opts)
	if err != nil {
		return nil, err
	}
	cb := &ctlBench{numConn: numConn, logf: func(string, ...any) {}, b: b, c: c, mp: mp, model: model, pin: map[string]int{}, pout: map[string]int{},
		rng: rand.New(rand.NewSource(seed)), hist: map[uint64][][]uint64{}, ready: 0.8, offering: 0.8}
	for _, p := range hd.Ports {
		if p.Dir == harness.In {
			cb.pin[p.Name] = len(cb.pin)
		} else {
			cb.pout[p.Name] = len(cb.pout)
		}
	}
	cb.in = make([]uint64, len(cb.pin))
	cb.out = make([]uint64, len(cb.pout))
	if cb.numConn == 0 {
		cb.numConn = mp.NumConn
	}
	if err := cb.catch(cb.freshGolden); err != nil {
		model.Close()
		return nil, err
	}
	// the connections the events use: 48, or half of a small table (the
	// other half takes the copies of words)
	for i := uint64(0); i < uint64(max(1, min(48, cb.numConn/2))); i++ {
		cb.conns = append(cb.conns, i)
	}
	return cb, nil
}

// catch runs f and returns the bench's failure in it as an error.
func (cb *ctlBench) catch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			cf, ok := r.(ctlFailure)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("%s", cf.msg)
		}
	}()
	f()
	return nil
}

// RunControl drives block name's control wrapper at configuration cfg
// (hardware.control on) under Verilator beside the block's golden model
// (docs/control.md): the clear after reset and on command, events with
// random gaps and result back-pressure compared with the golden model in
// order, AXI-Lite reads and writes of the identification registers,
// copies of connections' words into free connections, the run-time
// settings, the counters, refused commands and an out-of-range word;
// perRound events per round. It returns the run's summary, or the first
// failure.
func RunControl(cfg blocks.Config, name string, seed int64, perRound int) (string, error) {
	cb, err := newCtlBenchOf(name, cfg, seed, 0)
	if err != nil {
		return "", err
	}
	defer cb.model.Close()
	var summary string
	cb.logf = func(format string, a ...any) { summary = fmt.Sprintf(format, a...) }
	if err := cb.catch(func() { cb.run(name, perRound) }); err != nil {
		return "", fmt.Errorf("%s's control wrapper (%s_ctl), cycle %d: %w", name, name, cb.cycle, err)
	}
	return summary, nil
}

func (cb *ctlBench) freshGolden() {
	g, err := cb.b.Golden(cb.c)
	if err != nil {
		cb.fail("%v", err)
	}
	g.Reset()
	// the settings written stay: a clear does not touch them. In the map's
	// order: a setting derived from another (MI_GAIN from TARGET_RTT)
	// comes after it, and holds the value it was read back with
	if cb.mp != nil {
		for _, st := range cb.mp.Settings {
			if v, ok := cb.settings[st.Name]; ok {
				if err := g.(block.Tuner).Tune(st.Name, v); err != nil {
					cb.fail("%v", err)
				}
			}
		}
	}
	cb.golden = g
	cb.gIn, cb.gOut = g.Fields()
	cb.connAt = block.Bind([]string{"conn"}, cb.gIn)[0]
	cb.hist = map[uint64][][]uint64{}
}

func (cb *ctlBench) set(port string, v uint64) {
	i, ok := cb.pin[port]
	if !ok {
		cb.fail("no input %s", port)
	}
	cb.in[i] = v
}

func (cb *ctlBench) get(port string) uint64 {
	i, ok := cb.pout[port]
	if !ok {
		cb.fail("no output %s", port)
	}
	return cb.out[i]
}

// newEvent draws an event of random kind and fields on one of the
// connections in use (golden field order).
func (cb *ctlBench) newEvent() []uint64 {
	e := make([]uint64, len(cb.gIn))
	for i, f := range cb.gIn {
		w := cb.widthIn("s_event_" + f)
		switch {
		case w == 0: // a field of the golden model that the block has no port for
		case f == "conn":
			e[i] = cb.conns[cb.rng.Intn(len(cb.conns))]
		case f == "kind":
			e[i] = uint64(cb.rng.Intn(len(cb.b.Kinds) + 1)) // one past: an error
			if e[i] == uint64(len(cb.b.Kinds)) && cb.rng.Intn(4) != 0 {
				e[i] = uint64(cb.rng.Intn(len(cb.b.Kinds)))
			}
		default:
			v := cb.rng.Uint64()
			if cb.rng.Intn(3) == 0 { // small values reach the interesting cases
				v &= 0xFF
			}
			e[i] = v & (uint64(1)<<uint(w) - 1)
		}
	}
	return e
}

func (cb *ctlBench) widthIn(port string) int {
	for _, p := range cb.model.Inputs() {
		if p.Name == port {
			return p.Width
		}
	}
	return 0
}

// step runs one cycle. events: offer events (else keep s_event_valid low
// once the offered one is taken). It returns the outputs of the cycle.
func (cb *ctlBench) step(events bool, exclude map[uint64]bool) {
	if cb.offer == nil && events && cb.rng.Float64() < cb.offering {
		e := cb.newEvent()
		if !exclude[e[cb.connAt]] {
			cb.offer = e
		}
	}
	cb.set("s_event_valid", 0)
	if cb.offer != nil {
		cb.set("s_event_valid", 1)
		for i, f := range cb.gIn {
			if _, ok := cb.pin["s_event_"+f]; ok {
				cb.set("s_event_"+f, cb.offer[i])
			}
		}
	}
	mReady := cb.rng.Float64() < cb.ready
	cb.set("m_result_ready", block.Bit(mReady))
	cb.model.Step(cb.in, cb.out, 1)
	cb.cycle++
	if cb.offer != nil && cb.get("s_event_ready") == 1 {
		res := make([]uint64, len(cb.gOut))
		cb.golden.Step(cb.offer, res)
		cb.expect = append(cb.expect, res)
		conn := cb.offer[cb.connAt]
		cb.hist[conn] = append(cb.hist[conn], cb.offer)
		cb.offer = nil
	}
	if cb.get("m_result_valid") == 1 && mReady {
		if len(cb.expect) == 0 {
			cb.fail("cycle %d: a result that no event asked for", cb.cycle)
		}
		want := cb.expect[0]
		cb.expect = cb.expect[1:]
		for i, f := range cb.gOut {
			if got := cb.get("m_result_" + f); got != want[i] {
				cb.fail("cycle %d: result %d: m_result_%s = %#x, golden %#x (golden result %v)", cb.cycle, cb.results, f, got, want[i], want)
			}
		}
		cb.taken = append(cb.taken, want)
		cb.results++
	}
}

// axil runs one AXI-Lite transaction while the streams go on; read
// returns the data.
func (cb *ctlBench) axil(write bool, addr uint32, data uint32, events bool, exclude map[uint64]bool) uint32 {
	for k := range cb.pin {
		if strings.HasPrefix(k, "s_axil_") {
			cb.set(k, 0)
		}
	}
	cb.set("s_axil_bready", 1)
	cb.set("s_axil_rready", 1)
	if write {
		cb.set("s_axil_awaddr", uint64(addr))
		cb.set("s_axil_wdata", uint64(data))
		cb.set("s_axil_wstrb", 0xF)
		cb.set("s_axil_awvalid", 1)
		cb.set("s_axil_wvalid", 1)
	} else {
		cb.set("s_axil_araddr", uint64(addr))
		cb.set("s_axil_arvalid", 1)
	}
	var got uint32
	for n := 0; ; n++ {
		if n > 100 {
			cb.fail("cycle %d: AXI-Lite %v at 0x%03x never completed", cb.cycle, write, addr)
		}
		cb.step(events, exclude)
		if write {
			if cb.get("s_axil_awready") == 1 {
				if cb.get("s_axil_wready") != 1 {
					cb.fail("awready without wready")
				}
				cb.set("s_axil_awvalid", 0)
				cb.set("s_axil_wvalid", 0)
			}
			if cb.get("s_axil_bvalid") == 1 {
				if cb.get("s_axil_bresp") != 0 {
					cb.fail("bresp %d", cb.get("s_axil_bresp"))
				}
				break
			}
		} else {
			if cb.get("s_axil_arready") == 1 {
				cb.set("s_axil_arvalid", 0)
			}
			if cb.get("s_axil_rvalid") == 1 {
				got = uint32(cb.get("s_axil_rdata"))
				break
			}
		}
	}
	cb.set("s_axil_bready", 0)
	cb.set("s_axil_rready", 0)
	return got
}

func (cb *ctlBench) reg(name string) uint32 {
	for _, r := range cb.mp.Regs {
		if r.Name == name {
			return r.Offset
		}
	}
	cb.fail("no register %s", name)
	return 0
}

// waitIdle polls STATUS until no clear and no word operation runs; it
// returns STATUS.
func (cb *ctlBench) waitIdle(events bool, exclude map[uint64]bool) uint32 {
	for n := 0; ; n++ {
		st := cb.axil(false, control.OffStatus, 0, events, exclude)
		if st&(1<<control.StClearBusy|1<<control.StWordBusy) == 0 {
			return st
		}
		if n > 100000 {
			cb.fail("STATUS stays busy: %#x", st)
		}
	}
}

func (cb *ctlBench) drain() {
	for n := 0; len(cb.expect) > 0 || cb.offer != nil; n++ {
		if n > 10000 {
			cb.fail("results do not drain: %d expected", len(cb.expect))
		}
		cb.step(false, nil)
	}
}

// checkClear runs a clear (after reset, or CLEAR_TABLE) with an event
// offered all along: s_event_ready stays low for at least NumConn cycles,
// and once it rises STATUS.CLEAR_BUSY reads 0.
func (cb *ctlBench) checkClear() {
	start := cb.cycle
	cb.offer = cb.newEvent()
	cb.probe = cb.offer[cb.connAt]
	for n := 0; cb.offer != nil; n++ {
		if n > 4*cb.numConn+1000 {
			cb.fail("s_event_ready stays low %d cycles after the clear began", n)
		}
		cb.step(false, nil)
	}
	if got := cb.cycle - start; got < int64(cb.numConn) {
		cb.fail("an event was taken %d cycles after the clear began, for %d connections", got, cb.numConn)
	}
	cb.sweep = cb.cycle - start
	if st := cb.axil(false, control.OffStatus, 0, false, nil); st&(1<<control.StClearBusy) != 0 {
		cb.fail("s_event_ready rose while STATUS.CLEAR_BUSY is set (%#x)", st)
	}
}

func (cb *ctlBench) readWord(conn uint32, events bool, exclude map[uint64]bool) ([]uint32, uint32) {
	cb.axil(true, control.OffWordConn, conn, events, exclude)
	cb.axil(true, control.OffControl, 1<<control.CtlReadWord, events, exclude)
	st := cb.waitIdle(events, exclude)
	var w []uint32
	for i := 0; i*32 < cb.mp.WordBits; i++ {
		w = append(w, cb.axil(false, uint32(control.OffWordData+4*i), 0, events, exclude))
	}
	return w, st
}

func (cb *ctlBench) writeWord(conn uint32, w []uint32, events bool, exclude map[uint64]bool) uint32 {
	cb.axil(true, control.OffWordConn, conn, events, exclude)
	for i, v := range w {
		cb.axil(true, uint32(control.OffWordData+4*i), v, events, exclude)
	}
	cb.axil(true, control.OffControl, 1<<control.CtlWriteWord, events, exclude)
	return cb.waitIdle(events, exclude)
}

// expectedCounts counts the taken results by the counters' definitions.
func (cb *ctlBench) expectedCounts() map[string]uint32 {
	idx := map[string]int{}
	for i, f := range cb.gOut {
		idx[f] = i
	}
	want := map[string]uint32{}
	for _, r := range cb.mp.Counters {
		want[r.Name] = 0
	}
	enums := map[string][]string{}
	for _, d := range cb.b.Decode {
		enums[d.Field] = d.Names
	}
	for _, r := range cb.taken {
		errSet := r[idx["error"]] != 0
		if errSet {
			want["COUNTER_ERRORS"]++
		} else {
			want["COUNTER_EVENTS_"+strings.ToUpper(control.Ident(cb.b.Kinds[r[idx["kind"]]]))]++
		}
		for f, i := range idx {
			if f == "conn" || f == "kind" || f == "error" {
				continue
			}
			if names, ok := enums[f]; ok {
				if v := r[i]; v < uint64(len(names)) && names[v] != "" {
					want["COUNTER_"+strings.ToUpper(f+"_"+control.Ident(names[v]))]++
				}
				continue
			}
			if cb.widthOut("m_result_"+f) == 1 && r[i] == 1 {
				want["COUNTER_"+strings.ToUpper(f)]++
			}
		}
	}
	return want
}

func (cb *ctlBench) widthOut(port string) int {
	for _, p := range cb.model.Outputs() {
		if p.Name == port {
			return p.Width
		}
	}
	cb.fail("no output %s", port)
	return 0
}

func (cb *ctlBench) checkCounters() {
	want := cb.expectedCounts()
	if len(want) != len(cb.mp.Counters) {
		cb.fail("the test's counters %v are not the map's %d", want, len(cb.mp.Counters))
	}
	// the counters count a result taken in the next cycle (docs/control.md)
	cb.step(false, nil)
	for _, r := range cb.mp.Counters {
		got := cb.axil(false, r.Offset, 0, false, nil)
		if got != want[r.Name] {
			cb.fail("%s = %d, the golden results give %d", r.Name, got, want[r.Name])
		}
	}
}

// tune writes every run-time setting (PARAM registers) with a value drawn
// in its range, the event stream drained, tells the golden model, and runs
// events under it; a value out of range is refused (STATUS.REJECTED) and
// leaves the register as it was.
func (cb *ctlBench) tune(perRound int) {
	if len(cb.mp.Settings) == 0 {
		return
	}
	tuner, ok := cb.golden.(block.Tuner)
	if !ok {
		cb.fail("%s has run-time settings but its golden model is no block.Tuner", cb.b.Name)
	}
	if cb.settings == nil {
		cb.settings = map[string]uint64{}
	}
	// the quotients the wrapper derives, by the setting they set
	derive := map[string]*control.Quotient{}
	for _, mc := range cb.mp.Macros {
		if mc.Derive != nil {
			derive[mc.Derive.Setting] = mc.Derive
		}
	}
	// rounds 0 and 1 leave a derived setting to its derivation (read back,
	// and the golden model derives its own: TuneGolden), rounds 2 and 3
	// write it; even rounds draw small values
	for round := 0; round < 4; round++ {
		cb.drain()
		for _, st := range cb.mp.Settings {
			if st.From != "" && round < 2 {
				q := derive[st.Name]
				x, ok := cb.settings[st.From]
				if q == nil || !ok {
					cb.fail("PARAM_%s is derived from %s, which was not written before it (or no macro derives it)", st.Name, st.From)
				}
				want := q.Eval(x, st.Min, st.Max)
				if got := cb.axil(false, st.Offset, 0, false, nil); uint64(got) != want {
					cb.fail("PARAM_%s reads %d after PARAM_%s = %d, want %d", st.Name, got, st.From, x, want)
				}
				cb.settings[st.Name] = want
				cb.derived++
				continue
			}
			// small values half the time: an exploration count only shows
			// when a connection sends that many times between its opens
			span := min(st.Max-st.Min, 1<<20)
			if round%2 == 0 {
				span = min(span, 3)
			}
			v := st.Min + uint64(cb.rng.Int63n(int64(span)+1))
			cb.axil(true, st.Offset, uint32(v), false, nil)
			if got := cb.axil(false, st.Offset, 0, false, nil); uint64(got) != v {
				cb.fail("PARAM_%s reads %d after writing %d", st.Name, got, v)
			}
			if err := tuner.Tune(st.Name, v); err != nil {
				cb.fail("%v", err)
			}
			cb.settings[st.Name] = v
			// above the range, even where the register is too narrow to
			// hold it: refused, not cut to its low bits
			if st.Max < uint64(1)<<32-1 {
				cb.axil(true, st.Offset, uint32(st.Max+1), false, nil)
				if got := cb.axil(false, st.Offset, 0, false, nil); uint64(got) != v {
					cb.fail("PARAM_%s took %d, above its range: reads %d", st.Name, st.Max+1, got)
				}
				if s := cb.axil(false, control.OffStatus, 0, false, nil); s&(1<<control.StRejected) == 0 {
					cb.fail("PARAM_%s = %d (above its range) did not set REJECTED", st.Name, st.Max+1)
				}
				cb.axil(true, control.OffControl, 1<<control.CtlClearRejected, false, nil)
			}
			cb.tuned++
		}
		for i := 0; i < perRound; i++ {
			cb.step(true, nil)
		}
	}
}

// ctlFailure is a failure of the bench when a mutant is expected to fail.
type ctlFailure struct{ msg string }

// fail stops the bench: a test fails, or a mutant's run or RunControl
// ends (a ctlFailure).
func (cb *ctlBench) fail(format string, a ...any) {
	if cb.expectFail || cb.fatalf == nil {
		panic(ctlFailure{fmt.Sprintf(format, a...)})
	}
	cb.fatalf(format, a...)
}

func (cb *ctlBench) run(name string, perRound int) {
	{
		{
			cb.model.Reset(2)
			cb.checkClear()
			// identification
			for _, c := range []struct {
				reg  uint32
				want uint32
			}{{control.OffID, control.Magic}, {control.OffWordBits, uint32(cb.mp.WordBits)},
				{control.OffNumConn, uint32(cb.numConn)}, {control.OffCounters, uint32(len(cb.mp.Counters))}} {
				if got := cb.axil(false, c.reg, 0, false, nil); got != c.want {
					cb.fail("register 0x%03x = %#x, want %#x", c.reg, got, c.want)
				}
			}
			cb.axil(true, control.OffScratch, 0xA5C3_0F1E, false, nil)
			if got := cb.axil(false, control.OffScratch, 0, false, nil); got != 0xA5C3_0F1E {
				cb.fail("SCRATCH reads %#x", got)
			}
			if got := cb.axil(false, control.OffScratch+1, 0, false, nil); got != 0 {
				cb.fail("an unaligned read gives %#x", got)
			}
			// every connection in use reads the zero word after the clear
			for _, conn := range []uint32{0, 5, uint32(cb.numConn - 1)} {
				if int(conn) >= cb.numConn || uint64(conn) == cb.probe {
					continue // the event offered during the clear ran on it
				}
				w, st := cb.readWord(conn, false, nil)
				for i, v := range w {
					if v != 0 {
						cb.fail("after the clear, connection %d word %d = %#x", conn, i, v)
					}
				}
				if st&(1<<control.StWordError) != 0 {
					cb.fail("connection %d: WORD_ERROR", conn)
				}
			}
			// events, with copies of words to fresh connections (a block
			// with state outside its table, an LFSR, has its events replayed
			// on no copy: the replay would move the golden model's LFSR)
			fresh := uint64(100)
			if fresh+6 > uint64(cb.numConn) {
				fresh = uint64(len(cb.conns)) // a small table: its upper half
			}
			_, global := cb.golden.(block.TableClearer)
			for round := 0; round < 6; round++ {
				for i := 0; i < perRound; i++ {
					cb.step(true, nil)
				}
				if global || fresh >= uint64(cb.numConn) {
					continue
				}
				a := cb.conns[cb.rng.Intn(len(cb.conns))]
				bconn := fresh
				fresh++
				ex := map[uint64]bool{a: true, bconn: true}
				if cb.offer != nil && ex[cb.offer[cb.connAt]] {
					for cb.offer != nil {
						cb.step(false, nil)
					}
				}
				w, st := cb.readWord(uint32(a), true, ex)
				if st&(1<<control.StWordError) != 0 {
					cb.fail("reading connection %d: WORD_ERROR", a)
				}
				if st := cb.writeWord(uint32(bconn), w, true, ex); st&(1<<control.StWordError) != 0 {
					cb.fail("writing connection %d: WORD_ERROR", bconn)
				}
				back, _ := cb.readWord(uint32(bconn), true, ex)
				for i := range w {
					if back[i] != w[i] {
						cb.fail("connection %d word %d reads back %#x, written %#x", bconn, i, back[i], w[i])
					}
				}
				// the golden model: the fresh connection lives through the
				// original's events
				for _, e := range cb.hist[a] {
					e2 := append([]uint64(nil), e...)
					e2[cb.connAt] = bconn
					res := make([]uint64, len(cb.gOut))
					cb.golden.Step(e2, res)
					cb.hist[bconn] = append(cb.hist[bconn], e2)
				}
				cb.conns = append(cb.conns, bconn)
			}
			cb.tune(perRound)
			cb.drain()
			cb.checkCounters()
			cb.logf("%s: %d results in %d cycles; %d counters match; the clear held s_event_ready low %d cycles for %d connections; %d settings written, %d derived", name, cb.results, cb.cycle, len(cb.mp.Counters), cb.sweep, cb.numConn, cb.tuned, cb.derived)

			// refused commands and an out-of-range word
			cb.axil(true, control.OffWordConn, uint32(cb.numConn), false, nil)
			cb.axil(true, control.OffControl, 1<<control.CtlReadWord, false, nil)
			cb.axil(true, control.OffControl, 1<<control.CtlReadWord, false, nil) // while busy, or after: see STATUS
			st := cb.waitIdle(false, nil)
			if st&(1<<control.StWordError) == 0 {
				cb.fail("a word operation on connection %d did not set WORD_ERROR (STATUS %#x)", cb.numConn, st)
			}
			cb.axil(true, control.OffControl, 1<<control.CtlReadWord|1<<control.CtlClearTable, false, nil)
			if st := cb.axil(false, control.OffStatus, 0, false, nil); st&(1<<control.StRejected) == 0 || st&(1<<control.StClearBusy) != 0 {
				cb.fail("CLEAR_TABLE with READ_WORD: STATUS %#x, want REJECTED and no clear", st)
			}
			cb.axil(true, control.OffControl, 1<<control.CtlClearRejected, false, nil)
			if st := cb.axil(false, control.OffStatus, 0, false, nil); st&(1<<control.StRejected) != 0 {
				cb.fail("CLEAR_REJECTED left STATUS %#x", st)
			}

			// the counters clear; the table clears on command and the
			// block behaves as a fresh one
			cb.axil(true, control.OffControl, 1<<control.CtlClearCounters, false, nil)
			cb.taken = nil
			cb.axil(true, control.OffControl, 1<<control.CtlClearTable, false, nil)
			if tc, ok := cb.golden.(block.TableClearer); ok {
				tc.ClearTable() // the LFSR goes on
				cb.hist = map[uint64][][]uint64{}
			} else {
				cb.freshGolden()
			}
			cb.checkClear()
			for i := 0; i < 40000; i++ {
				cb.step(true, nil)
			}
			cb.drain()
			cb.checkCounters()
			if cb.results < 2*perRound {
				cb.fail("only %d results", cb.results)
			}
		}
	}
}
