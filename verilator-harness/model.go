package harness

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

typedef void (*nicgen_info_fn)(int64_t*);
typedef void* (*nicgen_create_fn)(uint64_t, int);
typedef void (*nicgen_destroy_fn)(void*);
typedef void (*nicgen_reset_fn)(void*, int64_t);
typedef int (*nicgen_step_fn)(void*, const uint64_t*, uint64_t*, int64_t);
typedef uint64_t (*nicgen_cycle_fn)(void*);
typedef int (*nicgen_trace_open_fn)(void*, const char*);
typedef void (*nicgen_trace_close_fn)(void*);

static void call_info(void* f, int64_t* v) { ((nicgen_info_fn)f)(v); }
static void* call_create(void* f, uint64_t seed, int rr) { return ((nicgen_create_fn)f)(seed, rr); }
static void call_destroy(void* f, void* h) { ((nicgen_destroy_fn)f)(h); }
static void call_reset(void* f, void* h, int64_t n) { ((nicgen_reset_fn)f)(h, n); }
static int call_step(void* f, void* h, const uint64_t* in, uint64_t* out, int64_t n) {
	return ((nicgen_step_fn)f)(h, in, out, n);
}
static uint64_t call_cycle(void* f, void* h) { return ((nicgen_cycle_fn)f)(h); }
static int call_trace_open(void* f, void* h, const char* p) { return ((nicgen_trace_open_fn)f)(h, p); }
static void call_trace_close(void* f, void* h) { ((nicgen_trace_close_fn)f)(h); }

static void* open_lib(const char* path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
static const char* last_error(void) { const char* e = dlerror(); return e ? e : "unknown dlopen error"; }
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"
)

// lib is a loaded model.so. Libraries stay loaded for the life of the
// process (Verilator's runtime has static state; dlclose is not worth it).
type lib struct {
	path                                                   string
	info, create, destroy, reset, step, cycle, topen, tclo unsafe.Pointer
	nIn, nOut                                              int
	trace                                                  bool
}

var (
	libsMu sync.Mutex
	libs   = map[string]*lib{}
)

func loadLib(path string) (*lib, error) {
	libsMu.Lock()
	defer libsMu.Unlock()
	if l := libs[path]; l != nil {
		return l, nil
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	h := C.open_lib(cpath)
	if h == nil {
		return nil, fmt.Errorf("harness: dlopen %s: %s", path, C.GoString(C.last_error()))
	}
	l := &lib{path: path}
	for _, s := range []struct {
		name string
		p    *unsafe.Pointer
	}{
		{"nicgen_info", &l.info}, {"nicgen_create", &l.create}, {"nicgen_destroy", &l.destroy},
		{"nicgen_reset", &l.reset}, {"nicgen_step", &l.step}, {"nicgen_cycle", &l.cycle},
		{"nicgen_trace_open", &l.topen}, {"nicgen_trace_close", &l.tclo},
	} {
		cs := C.CString(s.name)
		*s.p = C.dlsym(h, cs)
		C.free(unsafe.Pointer(cs))
		if *s.p == nil {
			return nil, fmt.Errorf("harness: %s has no symbol %s (stale cache entry? delete it)", path, s.name)
		}
	}
	var v [4]C.int64_t
	C.call_info(l.info, &v[0])
	if int(v[0]) != wrapperABI {
		return nil, fmt.Errorf("harness: %s has wrapper ABI %d, want %d", path, int64(v[0]), wrapperABI)
	}
	l.nIn, l.nOut, l.trace = int(v[1]), int(v[2]), v[3] != 0
	libs[path] = l
	return l, nil
}

// Model is one instance of a verilated design. It is not safe for
// concurrent use; distinct Models (even of the same Design) are independent.
type Model struct {
	design  Design
	opts    BuildOptions
	info    BuildInfo
	lib     *lib
	h       unsafe.Pointer
	in, out []Port
	tracing bool
	status  int // from the last step: 1 $finish, 2|3 $stop or error
}

func (m *Model) create() error {
	rr := 0
	if m.opts.XInitialUnique {
		rr = 2
	}
	m.status = 0
	m.h = C.call_create(m.lib.create, C.uint64_t(m.opts.RandSeed), C.int(rr))
	if m.h == nil {
		return errors.New("harness: model creation failed")
	}
	return nil
}

// Design returns the (normalised) design the model was built from.
func (m *Model) Design() Design { return m.design }

// Options returns the options the model was built with.
func (m *Model) Options() BuildOptions { return m.opts }

// Info tells where the model came from and whether it was cached.
func (m *Model) Info() BuildInfo { return m.info }

// Inputs returns the input ports in the order Step reads them.
func (m *Model) Inputs() []Port { return append([]Port(nil), m.in...) }

// Outputs returns the output ports in the order Step writes them.
func (m *Model) Outputs() []Port { return append([]Port(nil), m.out...) }

func (m *Model) live() {
	if m.h == nil {
		panic("harness: use of a closed Model")
	}
}

// Close frees the model instance. The shared library stays loaded.
func (m *Model) Close() error {
	if m.h != nil {
		C.call_destroy(m.lib.destroy, m.h)
		m.h = nil
		m.tracing = false
	}
	return nil
}

// Reinit replaces the instance by a new one, as at power-on: every
// register and memory is back to its initial value (0, or random with
// XInitialUnique), not only those that reset touches.
func (m *Model) Reinit() error {
	m.Close()
	return m.create()
}

// Reset drives the reset high, with every input 0, for the given number of
// rising clock edges, then releases it. The cycle counter restarts at 0.
func (m *Model) Reset(cycles int) {
	m.live()
	if cycles < 0 {
		cycles = 0
	}
	C.call_reset(m.lib.reset, m.h, C.int64_t(cycles))
}

// Cycle is the number of cycles stepped since the last Reset.
func (m *Model) Cycle() int64 {
	m.live()
	return int64(C.call_cycle(m.lib.cycle, m.h))
}

// Step runs n cycles. For cycle i it drives in[i*nIn:(i+1)*nIn] (inputs in
// Design.Ports order; values are masked to the port widths), settles the
// combinational logic, writes the outputs to out[i*nOut:(i+1)*nOut] (outputs
// in Design.Ports order), then clocks a rising edge.
func (m *Model) Step(in, out []uint64, n int) {
	m.live()
	if n <= 0 {
		return
	}
	nIn, nOut := len(m.in), len(m.out)
	if len(in) < n*nIn || len(out) < n*nOut {
		panic(fmt.Sprintf("harness: Step(%d cycles) needs %d inputs and %d outputs, got %d and %d", n, n*nIn, n*nOut, len(in), len(out)))
	}
	m.step(in, out, n)
}

func (m *Model) step(in, out []uint64, n int) {
	var pi *C.uint64_t
	var po *C.uint64_t
	if len(m.in) > 0 {
		pi = (*C.uint64_t)(unsafe.Pointer(&in[0]))
	}
	if len(m.out) > 0 {
		po = (*C.uint64_t)(unsafe.Pointer(&out[0]))
	}
	m.status = int(C.call_step(m.lib.step, m.h, pi, po, C.int64_t(n)))
}

// Status reports whether the design has executed $finish, $stop or failed
// an assertion ($error) since the instance was created. ($fatal aborts the
// process: Verilator gives no way to continue.)
func (m *Model) Status() error {
	switch {
	case m.status&2 != 0:
		return errors.New("the design executed $stop or reported an error ($error, failed assertion); see the simulator output")
	case m.status&1 != 0:
		return errors.New("the design executed $finish")
	}
	return nil
}

// StartTrace writes a VCD of the following cycles to path (model built
// with Trace). Cycle c (counted from the last Reset) is dumped at time 10*c
// (inputs applied, clock low, outputs as sampled) and 10*c+5 (after the
// rising edge). Reset cycles are not dumped; start tracing after Reset.
func (m *Model) StartTrace(path string) error {
	m.live()
	if !m.lib.trace {
		return errors.New("harness: model was built without BuildOptions.Trace")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("harness: trace: %w", err)
	}
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	switch rc := C.call_trace_open(m.lib.topen, m.h, cp); rc {
	case 0:
		m.tracing = true
		return nil
	case -2:
		return errors.New("harness: a trace is already open")
	default:
		return fmt.Errorf("harness: cannot open trace file %s (code %d)", path, int(rc))
	}
}

// StopTrace flushes and closes the trace started by StartTrace.
func (m *Model) StopTrace() error {
	m.live()
	if !m.tracing {
		return errors.New("harness: no trace open")
	}
	C.call_trace_close(m.lib.tclo, m.h)
	m.tracing = false
	return nil
}

// fresh makes a new, independent instance from the same library.
func (m *Model) fresh() (*Model, error) {
	n := &Model{design: m.design, opts: m.opts, info: m.info, lib: m.lib, in: m.in, out: m.out}
	if err := n.create(); err != nil {
		return nil, err
	}
	return n, nil
}
