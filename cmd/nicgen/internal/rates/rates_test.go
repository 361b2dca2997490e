package rates

import (
	"testing"

	"github.com/nicgen/nicgen/blocks"
)

// contractPipe is the pipeline contract of a plain shell (docs/pipeline.md)
// written out on its own: an event is taken unless its connection was
// taken in the last depth cycles, at most one per cycle and in order, and
// its result is valid latency cycles after it was taken, in order.
func contractPipe(depth, latency int) CycleModel {
	cycle := 0
	takenAt := map[uint32]int{}
	var due []int // the cycles the results in flight become valid
	return func(valid, ready bool, conn uint32) (sReady, mValid bool) {
		defer func() { cycle++ }()
		at, inFlight := takenAt[conn]
		sReady = !inFlight || cycle-at >= depth
		if valid && sReady {
			takenAt[conn] = cycle
			due = append(due, cycle+latency)
		}
		mValid = len(due) > 0 && due[0] <= cycle
		if mValid && ready {
			due = due[1:]
		}
		return sReady, mValid
	}
}

// offer counts the events per clock of loads whose spans follow from the
// contract by hand: n events of one connection take (n-1)*depth+1 cycles
// from the first result to the last; two connections in turn issue in
// pairs, (n/2-1)*depth+2 cycles; depth connections in turn never wait.
func TestOfferFollowsTheContract(t *testing.T) {
	t.Parallel()
	const n = 64
	for _, depth := range []int{1, 2, 3, 9, 31} {
		inTurn := func(k int) []uint32 {
			c := make([]uint32, n)
			for i := range c {
				c[i] = uint32(i % k)
			}
			return c
		}
		pairSpan := (n/2-1)*depth + 2
		if depth == 1 {
			pairSpan = n
		}
		for _, c := range []struct {
			name  string
			conns []uint32
			want  float64
		}{
			{"one connection", make([]uint32, n), n / float64((n-1)*depth+1)},
			{"two in turn", inTurn(2), n / float64(pairSpan)},
			{"depth in turn", inTurn(depth), 1},
		} {
			got, err := offer(contractPipe(depth, depth+5), c.conns)
			if err != nil {
				t.Fatalf("depth %d, %s: %v", depth, c.name, err)
			}
			if got != c.want {
				t.Errorf("depth %d, %s: %v events per clock, want %v", depth, c.name, got, c.want)
			}
		}
	}
	stuck := func(valid, ready bool, conn uint32) (bool, bool) { return false, false }
	if _, err := offer(stuck, make([]uint32, 4)); err == nil {
		t.Errorf("a model that takes no event gave a rate")
	}
}

// Every default block's golden cycle model keeps the plain shell's
// contract: MeasureTiming finds latency depth+5 and one event every depth
// cycles per connection, and each load of MeasureLoads runs exactly as
// fast as on contractPipe of the block's depth driven with the same
// connections.
func TestRatesMatchThePipelineContract(t *testing.T) {
	t.Parallel()
	cfg := blocks.DefaultConfig()
	incast8, err := incastConns(8)
	if err != nil {
		t.Fatal(err)
	}
	incast64, err := incastConns(64)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks.All() {
		depth, err := b.Depth(cfg)
		if err != nil {
			t.Fatal(err)
		}
		numConn, err := b.NumConn(cfg)
		if err != nil {
			t.Fatal(err)
		}
		tm, err := MeasureTiming(cfg, b.Name)
		if err != nil {
			t.Fatal(err)
		}
		burst := float64(tm.Burst)
		if want := (Timing{Latency: depth + 5, PerClock: burst / ((burst-1)*float64(depth) + 1), Mixed: 1, Depth: depth, Burst: 64}); tm != want {
			t.Errorf("%s: timing %+v, want %+v", b.Name, tm, want)
		}
		lr, err := MeasureLoads(cfg, b.Name)
		if err != nil {
			t.Fatal(err)
		}
		contract := func(conns []uint32) float64 {
			r, err := offer(contractPipe(depth, depth+5), conns)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		want := Loads{
			Uniform:     contract(uniformConns(uniformEvents, numConn)),
			Incast:      contract(incast8),
			IncastConns: 8,
			Incast64:    contract(incast64),
			Single:      contract(make([]uint32, singleEvents)),
		}
		if lr != want {
			t.Errorf("%s: loads %+v, the contract gives %+v", b.Name, lr, want)
		}
	}
}

// The recorded incast is every sender's ACKs: events of each of the
// senders' connections, and of no other.
func TestRecordIncast(t *testing.T) {
	t.Parallel()
	conns, err := incastConns(8)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint32]int{}
	for _, c := range conns {
		seen[c]++
	}
	if len(seen) != 8 {
		t.Errorf("the 8:1 incast's events are of %d connections, want 8: %v", len(seen), seen)
	}
	for c := range seen {
		if c >= 8 {
			t.Errorf("an event of connection %d in an 8:1 incast", c)
		}
	}
}
