package smartt_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/smartt"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// writeVectors is the vector file of block in the default configuration.
func writeVectors(t *testing.T, block string, n int, seed uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := blockeq.WriteVectors(&buf, block, n, seed); err != nil {
		t.Fatalf("%s: %v", block, err)
	}
	return buf.Bytes()
}

// smarttVectorEvent is an event line of smartt's and nscc's vector files,
// as a testbench reads it (docs/blocks/smartt.md Section 1).
type smarttVectorEvent struct {
	Conn    uint32             `json:"conn"`
	Kind    uint8              `json:"kind"`
	Size    uint32             `json:"size"`
	ECN     uint8              `json:"ecn"`
	RTT     uint32             `json:"rtt"`
	Unacked uint32             `json:"unacked"`
	Now     uint64             `json:"now"`
	Expect  smarttVectorResult `json:"expect"`
}

// smarttVectorResult is the expected m_result_* beat of a SMaRTT block.
type smarttVectorResult struct {
	Conn  uint32 `json:"conn"`
	Kind  uint8  `json:"kind"`
	Cwnd  uint32 `json:"cwnd"`
	Case  uint8  `json:"case"`
	QA    bool   `json:"qa"`
	Fast  bool   `json:"fast"`
	Error bool   `json:"error"`
}

// The SMaRTT stimulus: what the exporter promises (cocotb/README.md,
// "Vectors"), and the expectations are the golden model's.
func TestSmarttVectors(t *testing.T) {
	t.Parallel()
	cfg := blocks.DefaultConfig()
	for _, v := range []smartt.Variant{smartt.Conf, smartt.NSCC} {
		block := v.String()
		p, err := smartt.Of(cfg, v)
		if err != nil {
			t.Fatal(err)
		}
		gp := p.Golden()
		model, err := gsmartt.NewModel(gp)
		if err != nil {
			t.Fatal(err)
		}
		d := model.Derived()

		const n = 4000
		vs, err := blockeq.GenerateVectors(block, n, 1)
		if err != nil {
			t.Fatal(err)
		}
		if miss := vs.Coverage.Missing(); len(miss) > 0 {
			t.Errorf("%s: %d events never reach %v", block, n, miss)
		}
		// Through JSON and back, as the testbench reads them.
		var buf bytes.Buffer
		if _, err := vs.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(&buf)
		var h blockeq.VectorHeader
		if err := dec.Decode(&h); err != nil {
			t.Fatal(err)
		}
		if h.Events != n || len(h.Cases) != 8 || len(h.Kinds) != 4 {
			t.Errorf("%s: header %d events, %d case names, %d kind names", block, h.Events, len(h.Cases), len(h.Kinds))
		}

		opened := map[uint32]bool{}
		var acks, mtu, ecn, nacks, timeouts, same, outOfRange, wraps, lowRTT, midRTT, highRTT int
		var invalid [8]int
		var maxUnacked uint32
		var prev smarttVectorEvent
		for i := 0; i < n; i++ {
			var e smarttVectorEvent
			if err := dec.Decode(&e); err != nil {
				t.Fatalf("%s: event %d: %v", block, i, err)
			}
			ge := gsmartt.Event{Conn: e.Conn, Kind: gsmartt.Kind(e.Kind), Size: e.Size, ECN: e.ECN == 1,
				RTT: e.RTT, Unacked: e.Unacked, Now: e.Now}
			r := model.Step(ge)
			want := smarttVectorResult{Conn: r.Conn, Kind: uint8(r.Kind), Cwnd: r.Cwnd, Case: r.Case, QA: r.QA,
				Fast: r.Fast, Error: r.Error}
			if e.Expect != want {
				t.Fatalf("%s: event %d %+v: expect %+v, golden model %+v", block, i, ge, e.Expect, want)
			}
			inRange := int(e.Conn) < gp.NumConn
			if inRange && e.Kind != uint8(gsmartt.KindOpen) && !opened[e.Conn] {
				t.Fatalf("%s: event %d: %s on connection %d, never opened", block, i, ge.Kind, e.Conn)
			}
			if inRange && e.Kind == uint8(gsmartt.KindOpen) {
				opened[e.Conn] = true
			}
			if !inRange {
				outOfRange++
			}
			if e.Kind > 3 {
				invalid[e.Kind]++
			}
			if (!inRange || e.Kind > 3) != e.Expect.Error {
				t.Fatalf("%s: event %d %+v: error = %v", block, i, ge, e.Expect.Error)
			}
			switch e.Kind {
			case 1:
				acks++
				mtu += int(blockeq.B2U(e.Size == d.MTU))
				ecn += int(e.ECN)
				switch {
				case e.RTT < d.BrttNs || e.RTT > 3*d.TrttNs:
					t.Fatalf("%s: event %d: ack RTT %d ns outside [base RTT, 3 target RTTs]", block, i, e.RTT)
				case e.RTT <= d.FiRttMax:
					lowRTT++
				case e.RTT <= d.TrttNs:
					midRTT++
				default:
					highRTT++
				}
			case 2:
				nacks++
			case 3:
				timeouts++
			}
			maxUnacked = max(maxUnacked, e.Unacked)
			if i > 0 {
				same += int(blockeq.B2U(e.Conn == prev.Conn))
				if e.Now < prev.Now {
					wraps++
					if e.Now != 0 || prev.Now < 1<<31 {
						t.Errorf("%s: event %d: now %d after %d: the wrap must land on 0", block, i, e.Now, prev.Now)
					}
				}
			}
			prev = e
		}
		frac := func(k, of int) float64 { return float64(k) / float64(max(of, 1)) }
		checks := []struct {
			what string
			ok   bool
		}{
			{fmt.Sprintf("acks %.2f of events, want > 0.85", frac(acks, n)), frac(acks, n) > 0.85},
			{fmt.Sprintf("MTU-sized acks %.2f, want > 0.75", frac(mtu, acks)), frac(mtu, acks) > 0.75},
			{fmt.Sprintf("ECN-marked acks %.2f, want about a third", frac(ecn, acks)), frac(ecn, acks) > 0.25 && frac(ecn, acks) < 0.42},
			{fmt.Sprintf("ack RTTs <= FiRttMax %d, <= Trtt %d, above %d: want each", lowRTT, midRTT, highRTT), lowRTT > 0 && midRTT > 0 && highRTT > 0},
			{fmt.Sprintf("%d nacks, %d timeouts", nacks, timeouts), nacks > 0 && timeouts > 0},
			{fmt.Sprintf("back to back on one connection %.2f, want > 0.25", frac(same, n)), frac(same, n) > 0.25},
			{fmt.Sprintf("%d out-of-range connections, want a few", outOfRange), outOfRange > 0 && frac(outOfRange, n) < 0.03},
			{fmt.Sprintf("invalid kinds 4..7: %v, want each", invalid[4:]), invalid[4] > 0 && invalid[5] > 0 && invalid[6] > 0 && invalid[7] > 0},
			{fmt.Sprintf("largest unacked %d, want up to 64 KiB", maxUnacked), maxUnacked <= 64<<10 && maxUnacked > 60<<10},
			{fmt.Sprintf("now wrapped %d times, want once", wraps), wraps == 1},
		}
		for _, c := range checks {
			if !c.ok {
				t.Errorf("%s: %s", block, c.what)
			}
		}
	}
}
