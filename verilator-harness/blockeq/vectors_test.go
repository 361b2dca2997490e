package blockeq

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
)

var vectorBlocks = []string{"reps", "reps_conf", "smartt", "nscc"}

func writeVectors(t *testing.T, block string, n int, seed uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteVectors(&buf, block, n, seed); err != nil {
		t.Fatalf("%s: %v", block, err)
	}
	return buf.Bytes()
}

func TestVectorsDeterministic(t *testing.T) {
	t.Parallel()
	for _, block := range vectorBlocks {
		a, b := writeVectors(t, block, 500, 1), writeVectors(t, block, 500, 1)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two exports with the same seed differ", block)
		}
		if bytes.Equal(a, writeVectors(t, block, 500, 2)) {
			t.Errorf("%s: seeds 1 and 2 give the same vectors", block)
		}
	}
}

// streamFields are the data ports of a stream (not valid and ready),
// without their prefix.
func streamFields(ports map[string]int, prefix string) map[string]int {
	f := map[string]int{}
	for name, w := range ports {
		if rest, ok := strings.CutPrefix(name, prefix+"_"); ok && rest != "valid" && rest != "ready" {
			f[rest] = w
		}
	}
	return f
}

// checkFields requires obj's keys to be exactly the stream's fields and
// every value to fit its port.
func checkFields(obj map[string]any, fields map[string]int, what string) error {
	var got, want []string
	for k := range obj {
		got = append(got, k)
	}
	for k := range fields {
		want = append(want, k)
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		return fmt.Errorf("%s: fields %v, ports %v", what, got, want)
	}
	for k, v := range obj {
		var x uint64
		switch v := v.(type) {
		case bool:
			x = B2U(v)
		case float64:
			x = uint64(v)
			if float64(x) != v {
				return fmt.Errorf("%s: %s = %v is not a non-negative integer", what, k, v)
			}
		default:
			return fmt.Errorf("%s: %s = %v (%T)", what, k, v, v)
		}
		if fields[k] < 64 && x>>fields[k] != 0 {
			return fmt.Errorf("%s: %s = %d does not fit %d bits", what, k, x, fields[k])
		}
	}
	return nil
}

// The testbench maps vector fields to ports by name alone: every event
// field names an s_event_* port, every expected field an m_result_* port,
// all of them, and every value fits its port.
func TestVectorsNamePorts(t *testing.T) {
	t.Parallel()
	for _, block := range vectorBlocks {
		sc := bufio.NewScanner(bytes.NewReader(writeVectors(t, block, 2000, 1)))
		sc.Buffer(nil, 1<<20)
		sc.Scan()
		var h VectorHeader
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
			t.Fatal(err)
		}
		ev, res := streamFields(h.Ports, "s_event"), streamFields(h.Ports, "m_result")
		for i := 0; sc.Scan(); i++ {
			var line map[string]any
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			expect, _ := line["expect"].(map[string]any)
			delete(line, "expect")
			for _, err := range []error{
				checkFields(line, ev, fmt.Sprintf("%s event %d", block, i)),
				checkFields(expect, res, fmt.Sprintf("%s event %d expect", block, i)),
			} {
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	}
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
	for _, v := range []bsmartt.Variant{bsmartt.Conf, bsmartt.NSCC} {
		block := v.String()
		p, err := bsmartt.Of(cfg, v)
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
		vs, err := GenerateVectors(block, n, 1)
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
		var h VectorHeader
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
				mtu += int(B2U(e.Size == d.MTU))
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
				same += int(B2U(e.Conn == prev.Conn))
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
