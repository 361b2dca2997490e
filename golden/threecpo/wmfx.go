package threecpo

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/nicgen/nicgen/golden/fixed"
	"github.com/nicgen/nicgen/golden/pipe"
)

// This file is watermark control in fixed point, as the `wm_ctrl` block
// is to compute it (one instance per watermark, its state a table word):
// Algorithm 6 of WMParams with the watermark in 2^-F units, the
// watermark equivalent through the reciprocal divider of golden/smartt,
// the decrease fraction as an exact constant division, and fbs from a
// table of 1/sqrt over the mantissa. TestWMFxError bounds its distance
// from WMParams.Alg6. The skew correction (lines 4-8) is not in it: it
// divides by a per-RTT count and the thesis applies it to request tokens
// only; the float64 reference keeps it.

// WMFxParams are the fixed-point controller's constants and formats.
type WMFxParams struct {
	WMMax, WMMin uint32 // whole tokens per WMMax cycles
	LatThresh    uint32 // cycles
	MaxLatThresh uint32 // cycles
	BaseMD16     uint32 // BaseMD in 2^-16 (0.5: 32768)
	AI           uint32 // whole watermark units per probe
	F            int    // fraction bits of the watermark and its equivalent
	LatW         int    // bits of a probe's latency, cycles (wider saturates)
	GDW          int    // bits of the matched-token count of an RTT (saturates)
	K            int    // index bits of the reciprocal divider's table
	RsqrtBits    int    // index bits of the 1/sqrt table
	ElseOfLine12 bool   // A-31, as WMParams
}

// DefaultWMFx is the thesis's controller: watermarks to 2468 in 2^-8,
// latencies to 2^17 - 1 cycles, up to 2^16 - 1 matched tokens per RTT, a
// 4096-entry reciprocal table and a 1024-entry 1/sqrt table.
func DefaultWMFx() WMFxParams {
	return WMFxParams{WMMax: 2468, WMMin: 100, LatThresh: 2000, MaxLatThresh: 5000, BaseMD16: 32768, AI: 50,
		F: 8, LatW: 17, GDW: 16, K: 12, RsqrtBits: 10, ElseOfLine12: true}
}

// Float is the float64 reference these constants stand for.
func (p WMFxParams) Float() WMParams {
	return WMParams{WMMax: float64(p.WMMax), WMMin: float64(p.WMMin), LatThresh: float64(p.LatThresh),
		MaxLatThresh: float64(p.MaxLatThresh), BaseMD: float64(p.BaseMD16) / 65536, AI: float64(p.AI), ElseOfLine12: p.ElseOfLine12}
}

// Validate reports what is out of range.
func (p WMFxParams) Validate() error {
	var errs []error
	if err := p.Float().Validate(); err != nil {
		errs = append(errs, err)
	}
	if p.F < 0 || p.F > 12 || p.F%2 != 0 {
		errs = append(errs, fmt.Errorf("F %d: want an even number 0..12 (the square root of 2^-F is a shift)", p.F))
	}
	if p.WMMax >= 1<<16 || p.BaseMD16 == 0 || p.BaseMD16 >= 1<<16 {
		errs = append(errs, fmt.Errorf("WMMax %d, BaseMD16 %d: want WMMax < 65536 and 0 < BaseMD16 < 65536", p.WMMax, p.BaseMD16))
	}
	if p.LatW < 8 || p.LatW > 24 || p.GDW < 1 || p.GDW > 24 || p.MaxLatThresh >= 1<<p.LatW {
		errs = append(errs, fmt.Errorf("LatW %d, GDW %d: want 8..24 with MaxLatThresh below 2^LatW, and 1..24", p.LatW, p.GDW))
	}
	if p.K < 4 || p.K > 14 || p.RsqrtBits < 4 || p.RsqrtBits > 14 {
		errs = append(errs, fmt.Errorf("K %d, RsqrtBits %d: want 4..14", p.K, p.RsqrtBits))
	}
	return errors.Join(errs...)
}

// WMFxState is one instance's word.
type WMFxState struct {
	WM       uint32 // watermark, 2^-F
	LastWMEq uint32 // last RTT's watermark equivalent, 2^-F (at most WMMax)
	GD       uint32 // matched tokens this RTT, saturating at 2^GDW - 1
}

// WMFx is the controller with its tables.
type WMFx struct {
	p     WMFxParams
	rsqrt []uint64 // 1/sqrt of the mantissa in 2^-16 (NewWMFx)
	alpha uint64   // alpha in 2^-16
	beta  uint64   // beta in 2^-16
}

// NewWMFx builds the tables.
func NewWMFx(p WMFxParams) (*WMFx, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	f := p.Float()
	w := &WMFx{p: p, alpha: uint64(math.Round(f.Alpha() * 65536)), beta: uint64(math.Round(f.Beta() * 65536))}
	// 1/sqrt of the mantissa in 2^-16, the table of Swift's fbs
	w.rsqrt = fixed.RsqrtTable(p.RsqrtBits, 16)
	return w, nil
}

// Params are the controller's parameters.
func (w *WMFx) Params() WMFxParams { return w.p }

// RsqrtTable is the 1/sqrt ROM (for the block).
func (w *WMFx) RsqrtTable() []uint64 { return w.rsqrt }

// MD16 is the decrease fraction of a latency in 2^-16: 0 at or below
// LatThresh, floor((lat - LatThresh) BaseMD16 / (MaxLatThresh -
// LatThresh)) up to MaxLatThresh, BaseMD16 from there.
func (w *WMFx) MD16(lat uint32) uint32 {
	p := w.p
	switch {
	case lat <= p.LatThresh:
		return 0
	case lat >= p.MaxLatThresh:
		return p.BaseMD16
	}
	return uint32(uint64(lat-p.LatThresh) * uint64(p.BaseMD16) / uint64(p.MaxLatThresh-p.LatThresh))
}

// FBS16 is fbs(x 2^-F) in 2^-16, x > 0: 1 + beta - alpha / sqrt(x), the
// quotient truncated, clamped to [0.05, 1] (0.05 is 3277).
func (w *WMFx) FBS16(x uint32) uint32 {
	const floor, one = 3277, 65536
	if x == 0 {
		return floor
	}
	l := bits.Len32(x)
	e := (l - 1) / 2 // x = m 4^e, m in [1, 4)
	b := w.p.RsqrtBits
	var idx uint32
	if d := 2*e + 2 - b; d >= 0 {
		idx = x >> uint(d)
	} else {
		idx = x << uint(-d)
	}
	// 1/sqrt(x 2^-F) = rsqrt[idx] 2^-16 2^(F/2 - e)
	q := w.alpha * w.rsqrt[idx] // 2^-32
	s := 16 - (w.p.F/2 - e)     // to 2^-16
	var t uint64
	if s >= 0 {
		t = q >> uint(s)
	} else {
		t = q << uint(-s)
	}
	v := int64(one) + int64(w.beta) - int64(t)
	return uint32(min(max(v, floor), one))
}

// WMEq is the watermark equivalent of gd matched tokens over lat cycles
// in 2^-F: WMMax gd 2^F / lat through the reciprocal divider, at most
// WMMax (lat 0 reads as 1).
func (w *WMFx) WMEq(gd, lat uint32) uint32 {
	q := fixed.Div(uint64(w.p.WMMax)*uint64(gd)<<uint(w.p.F), uint64(lat), w.p.K)
	return uint32(min(q, uint64(w.p.WMMax)<<uint(w.p.F)))
}

// Open is a fresh instance at WMMax.
func (w *WMFx) Open() WMFxState { return WMFxState{WM: w.p.WMMax << uint(w.p.F)} }

// Matched adds n tokens consumed by multicast matching to the RTT's
// count, saturating.
func (w *WMFx) Matched(s WMFxState, n uint32) WMFxState {
	s.GD = uint32(min(uint64(s.GD)+uint64(n), uint64(1)<<uint(w.p.GDW)-1))
	return s
}

// Probe is Algorithm 6 for one probe of latency lat (saturated to LatW
// bits by the caller's port), as WMParams.Alg6 without the skew
// correction, in fixed point. Decreases truncate toward a smaller
// decrease (the product is floored), increases are exact.
func (w *WMFx) Probe(s WMFxState, lat uint32, rttFinished bool) WMFxState {
	p := w.p
	top := p.WMMax << uint(p.F)
	md := uint64(w.MD16(lat))
	congested := lat > p.LatThresh
	if rttFinished {
		eq := w.WMEq(s.GD, lat)
		decrease := func() {
			if s.WM > eq {
				x := s.WM - eq
				s.WM -= uint32(uint64(w.FBS16(x)) * md * uint64(x) >> 32)
			}
		}
		if eq > s.LastWMEq {
			delta := eq - s.LastWMEq
			s.WM = min(s.WM+delta, top)
			if congested && uint64(delta) < uint64(s.WM)*md>>16 {
				decrease()
			}
		} else if p.ElseOfLine12 && congested {
			decrease()
		}
		s.LastWMEq = eq
		s.GD = 0
	}
	if lat < p.LatThresh {
		s.WM = min(s.WM+p.AI<<uint(p.F), top)
	}
	s.WM = min(max(s.WM, p.WMMin<<uint(p.F)), top)
	return s
}

// WMKind is a wm_ctrl event's kind.
type WMKind uint8

const (
	WMOpen    WMKind = iota // an instance starts at WM_MAX
	WMProbe                 // a probe packet's latency (Algorithm 6)
	WMMatched               // tokens multicast matching consumed
	WMNumKinds
)

func (k WMKind) String() string {
	switch k {
	case WMOpen:
		return "open"
	case WMProbe:
		return "probe"
	case WMMatched:
		return "matched"
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// WMEvent is one event of one instance (a GPU's request or response
// watermark).
type WMEvent struct {
	Conn   uint32
	Kind   WMKind
	Lat    uint32 // probe: latency, cycles (LatW bits)
	RTTEnd bool   // probe: an RTT ended with it
	Tokens uint32 // matched: tokens to add (GDW bits)
}

// WMResult answers an event.
type WMResult struct {
	Conn      uint32
	Kind      WMKind
	WM        uint32 // the watermark after the event, 2^-F
	Eq        uint32 // the last RTT's watermark equivalent after the event
	Decreased bool   // the watermark fell
	Error     bool   // connection or kind out of range: nothing changed
}

// WMTable is the controller over a table of NumConn instances (all-zero
// at start; an instance is meaningful from its open on).
type WMTable struct {
	w            *WMFx
	NumConn      int
	ConnW, KindW int
	table        []WMFxState
}

// NewWMTable makes the table.
func NewWMTable(p WMFxParams, numConn, connW, kindW int) (*WMTable, error) {
	w, err := NewWMFx(p)
	if err != nil {
		return nil, err
	}
	if numConn < 1 || connW < 1 || connW > 32 || kindW < 2 || kindW > 8 {
		return nil, fmt.Errorf("threecpo: %d instances, %d-bit ids, %d-bit kinds: want at least 1, 1..32 and 2..8", numConn, connW, kindW)
	}
	return &WMTable{w: w, NumConn: numConn, ConnW: connW, KindW: kindW, table: make([]WMFxState, numConn)}, nil
}

func mask(v uint32, w int) uint32 {
	if w >= 32 {
		return v
	}
	return v & (uint32(1)<<uint(w) - 1)
}

// StepTo runs one event (pipe.Stepper).
func (t *WMTable) StepTo(e *WMEvent, r *WMResult) {
	p := t.w.p
	conn, kind := mask(e.Conn, t.ConnW), WMKind(mask(uint32(e.Kind), t.KindW))
	*r = WMResult{Conn: conn, Kind: kind}
	if int64(conn) >= int64(t.NumConn) || kind >= WMNumKinds {
		r.Error = true
		return
	}
	s := &t.table[conn]
	before := s.WM
	switch kind {
	case WMOpen:
		*s = t.w.Open()
	case WMProbe:
		*s = t.w.Probe(*s, mask(e.Lat, p.LatW), e.RTTEnd)
	case WMMatched:
		*s = t.w.Matched(*s, mask(e.Tokens, p.GDW))
	}
	r.WM, r.Eq, r.Decreased = s.WM, s.LastWMEq, kind != WMOpen && s.WM < before
}

// Reset does nothing: the table is all the state.
func (t *WMTable) Reset() {}

// ConnKey is the event's connection as the RTL's hazard unit compares it.
func (t *WMTable) ConnKey(e *WMEvent) uint64 { return uint64(mask(e.Conn, t.ConnW)) }

// State is instance conn's word (tests).
func (t *WMTable) State(conn int) WMFxState { return t.table[conn] }

// Ctrl is the controller (its tables and parameters).
func (t *WMTable) Ctrl() *WMFx { return t.w }

// WMPipeline is wm_ctrl in the cycle contract of the pipelined shell.
type WMPipeline = pipe.Pipeline[WMEvent, WMResult]

// NewWMPipeline wraps t in the shell of a datapath of depth stages.
func NewWMPipeline(t *WMTable, depth int) *WMPipeline { return pipe.New[WMEvent, WMResult](t, depth) }

// AlphaBeta16 are alpha and beta in 2^-16, as FBS16 uses them.
func (w *WMFx) AlphaBeta16() (alpha, beta uint64) { return w.alpha, w.beta }
