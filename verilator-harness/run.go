package harness

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Reference is a Go golden model behind a port-vector adapter.
type Reference interface {
	// Reset puts the model in its state right after the design's reset.
	Reset()
	// Cycle is given the inputs of one cycle (Design.Ports order, inputs
	// only) and must write every output (Design.Ports order, outputs only)
	// as sampled before the rising edge, then advance one cycle. The slices
	// are only valid during the call.
	Cycle(in []uint64, out []uint64)
}

// Stimulus produces the inputs of successive cycles. It must be a pure
// function of its seed and of the expected outputs it is shown, so that a
// run can be replayed: Run obtains it from a factory.
type Stimulus interface {
	// Next writes the inputs of the next cycle into in. prevOut holds the
	// reference's outputs of the previous cycle (nil on the first cycle
	// after reset), e.g. to hold an event until it was accepted. Values are
	// masked to the port widths afterwards. Neither slice may be retained.
	Next(prevOut []uint64, in []uint64)
}

// RunOptions controls Run.
type RunOptions struct {
	Cycles      int64 // cycles to run after reset
	ResetCycles int   // reset length; default 2
	// Batch is the number of cycles per call into the model; default
	// 4096, less for designs with many ports.
	Batch int
	// ContextBefore and ContextAfter are the number of cycles shown
	// around a mismatch; defaults 8 and 4 (negative: none).
	ContextBefore, ContextAfter int
	// WaveDir, when set, receives a VCD of the cycles around a mismatch.
	WaveDir string
	// WaveMargin is the number of extra cycles traced before the shown
	// context; default 16.
	WaveMargin int
	// Label is printed in reports and mismatch messages (a seed, a test
	// name); it also names the waveform file.
	Label string
	// Progress, if set, is called from time to time with the cycles done.
	Progress func(done, total int64)
}

func (o RunOptions) withDefaults(nIn, nOut int) RunOptions {
	if o.ResetCycles == 0 {
		o.ResetCycles = 2
	}
	if o.Batch <= 0 {
		o.Batch = 4096
		// keep one batch's buffers around 256 KiB
		if per := nIn + 2*nOut; per > 0 && 32768/per < o.Batch {
			o.Batch = max(256, 32768/per)
		}
	}
	o.ContextBefore = ctxDefault(o.ContextBefore, 8)
	o.ContextAfter = ctxDefault(o.ContextAfter, 4)
	if o.WaveMargin == 0 {
		o.WaveMargin = 16
	}
	if o.WaveMargin < 0 {
		o.WaveMargin = 0
	}
	return o
}

func ctxDefault(v, d int) int {
	if v == 0 {
		return d
	}
	if v < 0 {
		return 0
	}
	return v
}

// Report summarises a run.
type Report struct {
	Label        string
	Cycles       int64         // cycles compared equal (a mismatching cycle is not counted)
	Wall         time.Duration // wall time of the run, excluding reset and any replay
	CyclesPerSec float64
	// Busy times of the pipeline stages; the stimulus and reference run
	// concurrently with the model and the comparison.
	ModelTime, ProduceTime, CompareTime time.Duration
}

func (r Report) String() string {
	return fmt.Sprintf("%s%d cycles in %v (%.2f Mcycles/s; model %v, stimulus+reference %v, compare %v)",
		labelPrefix(r.Label), r.Cycles, r.Wall.Round(time.Millisecond), r.CyclesPerSec/1e6,
		r.ModelTime.Round(time.Millisecond), r.ProduceTime.Round(time.Millisecond), r.CompareTime.Round(time.Millisecond))
}

func labelPrefix(l string) string {
	if l == "" {
		return ""
	}
	return l + ": "
}

// Run resets the model (as a fresh instance, see Model.Reinit) and the
// reference, then runs o.Cycles cycles of newStim()'s stimulus through both
// and compares every output, cycle by cycle. On the first difference it
// returns a *Mismatch, after replaying the run from reset to collect the
// inputs around it and, with o.WaveDir, a waveform of that window.
//
// The stimulus and the reference run one batch ahead of the model in
// another goroutine, so a run uses two cores.
func Run(ctx context.Context, m *Model, ref Reference, newStim func() Stimulus, o RunOptions) (Report, error) {
	if m == nil || m.h == nil {
		return Report{}, errors.New("harness: Run needs an open Model")
	}
	if ref == nil || newStim == nil {
		return Report{}, errors.New("harness: Run needs a Reference and a Stimulus factory")
	}
	if o.Cycles < 0 {
		return Report{}, fmt.Errorf("harness: negative cycle count %d", o.Cycles)
	}
	o = o.withDefaults(len(m.in), len(m.out))
	if err := m.Reinit(); err != nil {
		return Report{}, err
	}
	ref.Reset()
	m.Reset(o.ResetCycles)
	d := newDriver(m, ref, newStim(), o.Batch)
	cmp := newComparer(m.out)
	rep := Report{Label: o.Label}
	var mm *Mismatch
	var done int64
	lastProgress := time.Now()
	start := time.Now()
	err := d.run(ctx, 0, o.Cycles, func(b *bufset) bool {
		// Batches may come out of order: keep the earliest mismatch.
		if mm != nil && b.start > mm.Cycle {
			return true
		}
		if i := cmp.find(b.exp, b.act, b.n); i >= 0 {
			mm = newMismatch(m, o, b.start+int64(i), row(b.in, i, d.nIn), row(b.exp, i, d.nOut), row(b.act, i, d.nOut))
			return true
		}
		done += int64(b.n)
		if o.Progress != nil && time.Since(lastProgress) > 100*time.Millisecond {
			lastProgress = time.Now()
			o.Progress(done, o.Cycles)
		}
		return false
	})
	rep.Cycles = done
	if mm != nil {
		rep.Cycles = mm.Cycle
	}
	rep.Wall = time.Since(start)
	if s := rep.Wall.Seconds(); s > 0 {
		rep.CyclesPerSec = float64(rep.Cycles) / s
	}
	rep.ModelTime, rep.ProduceTime, rep.CompareTime = d.stepTime, d.produceTime, d.compareTime
	if err != nil {
		return rep, err
	}
	if o.Progress != nil && mm == nil {
		o.Progress(rep.Cycles, o.Cycles)
	}
	if mm != nil {
		mm.replay(ctx, m, ref, newStim, o)
		return rep, mm
	}
	return rep, nil
}

func row(buf []uint64, i, w int) []uint64 {
	return append([]uint64(nil), buf[i*w:(i+1)*w]...)
}

// comparer finds the first differing cycle of a batch.
type comparer struct {
	nOut int
	mask []uint64
	qual []int // index of the qualifying output, or -1
}

func newComparer(out []Port) *comparer {
	c := &comparer{nOut: len(out), mask: make([]uint64, len(out)), qual: make([]int, len(out))}
	for j, p := range out {
		c.mask[j] = widthMask(p.Width)
		c.qual[j] = -1
		for k, q := range out {
			if p.QualifiedBy != "" && q.Name == p.QualifiedBy {
				c.qual[j] = k
			}
		}
	}
	return c
}

// compared reports whether output j of an expected row is compared.
func (c *comparer) compared(exp []uint64, j int) bool {
	q := c.qual[j]
	return q < 0 || exp[q]&1 != 0
}

// differs reports whether output j differs in a row (and is compared).
func (c *comparer) differs(exp, act []uint64, j int) bool {
	return (exp[j]^act[j])&c.mask[j] != 0 && c.compared(exp, j)
}

// find returns the first row of n that differs, or -1.
func (c *comparer) find(exp, act []uint64, n int) int {
	nOut := c.nOut
	if nOut == 0 {
		return -1
	}
	mask, qual := c.mask[:nOut], c.qual[:nOut]
	exp, act = exp[:n*nOut], act[:n*nOut]
	for i := 0; i+nOut <= len(exp); i += nOut {
		e := exp[i : i+nOut : i+nOut]
		a := act[i : i+nOut : i+nOut]
		for j := range e {
			if (e[j]^a[j])&mask[j] != 0 {
				if q := qual[j]; q < 0 || e[q]&1 != 0 {
					return i / nOut
				}
			}
		}
	}
	return -1
}

// bufset holds one batch: inputs, expected and actual outputs.
type bufset struct {
	in, exp, act []uint64
	start        int64
	n            int
	err          error
}

// driver runs a stimulus and a reference one batch ahead of a model.
type driver struct {
	m         *Model
	ref       Reference
	stim      Stimulus
	nIn, nOut int
	inMask    []uint64
	prev      []uint64
	havePrev  bool
	batch     int
	sets      []*bufset

	produceTime, stepTime, compareTime time.Duration
}

// nSets is the number of batches in flight: one being produced, one being
// stepped, one or two waiting to be compared or stepped.
const nSets = 4

func newDriver(m *Model, ref Reference, stim Stimulus, batch int) *driver {
	d := &driver{m: m, ref: ref, stim: stim, nIn: len(m.in), nOut: len(m.out), batch: batch}
	d.inMask = make([]uint64, d.nIn)
	for j, p := range m.in {
		d.inMask[j] = widthMask(p.Width)
	}
	d.prev = make([]uint64, d.nOut)
	for range nSets {
		d.sets = append(d.sets, &bufset{
			in:  make([]uint64, batch*d.nIn),
			exp: make([]uint64, batch*d.nOut),
			act: make([]uint64, batch*d.nOut),
		})
	}
	return d
}

// produce fills b.in and b.exp for cycles [b.start, b.start+b.n).
func (d *driver) produce(b *bufset) (err error) {
	i := 0
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("harness: panic in stimulus or reference at cycle %d: %v\n%s", b.start+int64(i), r, debug.Stack())
		}
	}()
	nIn, nOut := d.nIn, d.nOut
	mask := d.inMask[:nIn]
	stim, ref := d.stim, d.ref
	inBuf, expBuf := b.in[:b.n*nIn], b.exp[:b.n*nOut]
	var prev []uint64
	if d.havePrev {
		prev = d.prev
	}
	for io, oo := 0, 0; i < b.n; i++ {
		in := inBuf[io : io+nIn : io+nIn]
		out := expBuf[oo : oo+nOut : oo+nOut]
		stim.Next(prev, in)
		for j, m := range mask {
			in[j] &= m
		}
		ref.Cycle(in, out)
		prev = out
		io += nIn
		oo += nOut
	}
	if b.n > 0 {
		copy(d.prev, prev)
		d.havePrev = true
	}
	return nil
}

// run simulates cycles [from, to) and hands every batch, once stepped, to
// consume, which returns true to stop (the driver must not be run again
// after that).
//
// Three stages, two goroutines: this one (locked to its OS thread) steps
// the model; another runs the stimulus and the reference one or more
// batches ahead. Consuming (comparing) a stepped batch is done by
// whichever goroutine would otherwise wait, so the work balances itself
// between the two cores whether the model or the reference is the slower.
// consume calls are serialised but may come out of cycle order; every
// stepped batch is consumed before run returns.
func (d *driver) run(ctx context.Context, from, to int64, consume func(*bufset) bool) error {
	if from >= to {
		return nil
	}
	free := make(chan *bufset, len(d.sets))
	full := make(chan *bufset, len(d.sets))
	stepped := make(chan *bufset, len(d.sets))
	for _, s := range d.sets {
		free <- s
	}
	var (
		mu      sync.Mutex
		stop    atomic.Bool
		failure error
	)
	doConsume := func(b *bufset) {
		mu.Lock()
		t0 := time.Now()
		if consume(b) {
			stop.Store(true)
		}
		d.compareTime += time.Since(t0)
		mu.Unlock()
	}
	var produceTime time.Duration
	go func() {
		defer close(full)
		for start := from; start < to && !stop.Load(); {
			var b *bufset
			select {
			case b = <-free:
			default:
				select {
				case b = <-free:
				case s := <-stepped:
					doConsume(s)
					b = s
				}
			}
			b.start, b.n = start, int(min(int64(d.batch), to-start))
			t0 := time.Now()
			b.err = d.produce(b)
			produceTime += time.Since(t0)
			full <- b
			if b.err != nil {
				return
			}
			start += int64(b.n)
		}
	}()

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fail := func(err error) {
		if failure == nil {
			failure = err
		}
		stop.Store(true)
	}
	for open := true; open; {
		var b *bufset
		select {
		case b, open = <-full:
		default:
			select {
			case b, open = <-full:
			case s := <-stepped:
				doConsume(s)
				free <- s
				continue
			}
		}
		if !open {
			break
		}
		switch {
		case stop.Load():
			free <- b // drain
		case b.err != nil:
			fail(b.err)
			free <- b
		case ctx.Err() != nil:
			fail(ctx.Err())
			free <- b
		default:
			t0 := time.Now()
			d.m.step(b.in, b.act, b.n)
			d.stepTime += time.Since(t0)
			if d.m.status != 0 {
				fail(fmt.Errorf("harness: %s, during cycles %d..%d: %w", d.m.design.Top, b.start, b.start+int64(b.n)-1, d.m.Status()))
			}
			stepped <- b
		}
	}
	// The producer has exited: consume what is left, in order.
	for len(stepped) > 0 {
		doConsume(<-stepped)
	}
	d.produceTime += produceTime
	return failure
}
