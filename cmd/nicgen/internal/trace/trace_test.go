package trace

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

var repsFields = []Field{
	{Name: "conn", Width: 16, Required: true},
	{Name: "kind", Width: 3, Names: []string{"open", "send", "ack", "nack", "timeout"}, Required: true},
	{Name: "ecn", Width: 1},
	{Name: "ev", Width: 16},
	{Name: "now", Width: 32},
}

func TestParse(t *testing.T) {
	in := "# a comment\n\n{\"conn\": 3, \"kind\": \"ack\", \"ecn\": true, \"ev\": 65535, \"now\": 7}\n  {\"kind\": 6, \"conn\": 0}\n"
	evs, err := Parse(strings.NewReader(in), "t.jsonl", repsFields)
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{{Line: 3, Values: []uint64{3, 2, 1, 65535, 7}}, {Line: 4, Values: []uint64{0, 6, 0, 0, 0}}}
	if len(evs) != 2 || evs[0].Line != want[0].Line || evs[1].Line != want[1].Line {
		t.Fatalf("got %+v", evs)
	}
	for i := range want {
		for j, v := range want[i].Values {
			if evs[i].Values[j] != v {
				t.Errorf("event %d field %s = %d, want %d", i, repsFields[j].Name, evs[i].Values[j], v)
			}
		}
	}
}

func TestParseReportsEveryBadLineUpToALimit(t *testing.T) {
	in := strings.Repeat("{\"conn\": 1}\n", MaxErrors+5)
	_, err := Parse(strings.NewReader(in), "t.jsonl", repsFields)
	var es *Errors
	if !errors.As(err, &es) || es.Total != MaxErrors+5 || len(es.List) != MaxErrors {
		t.Fatalf("%v", err)
	}
	if !strings.HasSuffix(err.Error(), "\n... and 5 more malformed lines") || !strings.HasPrefix(err.Error(), "t.jsonl:1: missing field \"kind\"\n") {
		t.Errorf("%s", err)
	}
}

func TestParseTooLongLine(t *testing.T) {
	in := "{\"conn\": 1, \"kind\": 0}\n{\"conn\": " + strings.Repeat("1", MaxLine) + "}\n"
	_, err := Parse(strings.NewReader(in), "t.jsonl", repsFields)
	if err == nil || err.Error() != "t.jsonl:2: line longer than 65536 bytes" {
		t.Errorf("%v", err)
	}
}

// FuzzParse: no input makes the parser panic; what it accepts fits the
// fields, and what it rejects is reported by line.
//
//	go test ./cmd/nicgen/internal/trace -run '^$' -fuzz FuzzParse
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"{\"conn\": 1, \"kind\": \"open\"}\n",
		"{\"conn\": 1, \"kind\": \"ack\", \"ecn\": 1, \"ev\": 3, \"now\": 4294967295}\n# c\n\n",
		"{\"conn\": 1, \"kind\": \"sned\"}\n{\"conn\": 1}\n[1]\n{\"conn\": 1, \"kind\": 0} x\n{\"conn\": 1.5, \"kind\": 0}\n",
		"{\"conn\": 1, \"kind\": \"send\", \"conn\": 2}\n{\"now\": [1, {\"a\": 2}], \"conn\": 0, \"kind\": 0}\n",
		"{\"conn\": 70000, \"kind\": 9, \"ecn\": null, \"ev\": -1}\n{",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		evs, err := Parse(bytes.NewReader(in), "f.jsonl", repsFields)
		if err != nil {
			var es *Errors
			if !errors.As(err, &es) || es.Total < 1 || len(es.List) < 1 || len(es.List) > MaxErrors || evs != nil {
				t.Fatalf("bad error %T %v (events %v)", err, err, evs)
			}
			for _, e := range es.List {
				if e.Line < 1 {
					t.Fatalf("error without a line: %v", e)
				}
			}
			return
		}
		last := 0
		for _, e := range evs {
			if e.Line <= last {
				t.Fatalf("lines out of order: %d after %d", e.Line, last)
			}
			last = e.Line
			for i, fd := range repsFields {
				if e.Values[i] > fd.max() {
					t.Fatalf("line %d: %s = %d does not fit %d bits", e.Line, fd.Name, e.Values[i], fd.Width)
				}
			}
		}
	})
}

// The fast path accepts only lines the full parser accepts, with the same
// values: random lines built from valid and invalid pieces.
func TestFastLineAgreesWithParseLine(t *testing.T) {
	good := map[string][]string{
		"conn": {"3", "0", "65535", "1234"}, "kind": {`"ack"`, `"open"`, "2", "7"}, "ecn": {"true", "false", "0", "1"},
		"ev": {"65535", "0", "17"}, "now": {"4294967295", "0", "99"},
	}
	bad := []string{"70000", "01", `"akc"`, "9", "2", "1.5", "1e3", "-1", `"x"`, "18446744073709551616", "null", "[1]", `"\u0061ck"`}
	keys := []string{"conn", "kind", "ecn", "ev", "now"}
	seps := []string{", ", ",", " , ", ",,"}
	x := uint64(12345)
	rnd := func(k int) int { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return int(x % uint64(k)) }
	vals := make([]uint64, len(repsFields))
	accepted := 0
	defer func() {
		if accepted < 2000 {
			t.Errorf("the fast path accepted only %d of 20000 lines: the comparison says little", accepted)
		}
	}()
	for trial := 0; trial < 20000; trial++ {
		var b strings.Builder
		b.WriteString("{")
		perm := []int{0, 1, 2, 3, 4}
		for i := len(perm) - 1; i > 0; i-- {
			j := rnd(i + 1)
			perm[i], perm[j] = perm[j], perm[i]
		}
		k := 1 + rnd(5)
		for i, p := range perm[:k] {
			key := keys[p]
			if rnd(20) == 0 {
				key = []string{"nope", "c\\u006fnn", "conn"}[rnd(3)]
			}
			v := good[keys[p]][rnd(len(good[keys[p]]))]
			if rnd(6) == 0 {
				v = bad[rnd(len(bad))]
			}
			b.WriteString(`"` + key + `"` + []string{": ", ":", " : "}[rnd(3)] + v)
			if i < k-1 {
				sep := seps[0]
				if rnd(10) == 0 {
					sep = seps[rnd(len(seps))]
				}
				b.WriteString(sep)
			}
		}
		end := "}"
		if rnd(10) == 0 {
			end = []string{"} ", "}x", "", "}}"}[rnd(4)]
		}
		b.WriteString(end)
		line := []byte(strings.TrimSpace(b.String()))
		for i := range vals {
			vals[i] = 0
		}
		if !fastLine(line, repsFields, vals) {
			continue
		}
		accepted++
		ev, err := parseLine(line, repsFields)
		if err != nil {
			t.Fatalf("%s: fast path accepted, parser says %v", line, err)
		}
		for i := range vals {
			if vals[i] != ev.Values[i] {
				t.Fatalf("%s: field %s fast %d, parser %d", line, repsFields[i].Name, vals[i], ev.Values[i])
			}
		}
	}
}

// Scan streams: fn sees every event in order, with a byte-order mark
// before the first line skipped; after a malformed line it is not called
// again, and every malformed line is still reported.
func TestScanStreamsAndStops(t *testing.T) {
	in := "\xEF\xBB\xBF{\"conn\": 1, \"kind\": \"open\"}\n{\"conn\": 2, \"kind\": \"send\"}\n{\"conn\": 1}\n{\"conn\": 3, \"kind\": \"ack\"}\n{\"kind\": 1}\n"
	var got []uint64
	err := Scan(strings.NewReader(in), "t.jsonl", repsFields, func(e Event) error {
		got = append(got, e.Values[0])
		return nil
	})
	var es *Errors
	if !errors.As(err, &es) || es.Total != 2 || es.List[0].Line != 3 || es.List[1].Line != 5 {
		t.Fatalf("errors: %v", err)
	}
	if len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("events before the first malformed line: %v, want [1 2]", got)
	}
}

// BenchmarkScan measures the trace reader alone (docs/sim.md).
func BenchmarkScan(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; i < 100000; i++ {
		buf.WriteString(`{"conn": 1234, "kind": "ack", "ecn": true, "ev": 4321, "now": 987654321}` + "\n")
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		if err := Scan(bytes.NewReader(buf.Bytes()), "b", repsFields, func(Event) error { n++; return nil }); err != nil || n != 100000 {
			b.Fatal(err, n)
		}
	}
	b.ReportMetric(float64(b.N*100000)/b.Elapsed().Seconds()/1e6, "Mevents/s")
}

// endless is a stream of malformed lines that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "x\n"[i%2]
	}
	return len(p), nil
}

// A stream that is not a trace stops being read after MaxCounted
// malformed lines, instead of being read forever.
func TestScanStopsOnEndlessGarbage(t *testing.T) {
	err := Scan(endless{}, "stream", []Field{{Name: "conn", Width: 16}}, func(Event) error { return nil })
	var es *Errors
	if !errors.As(err, &es) || es.Total != MaxCounted || es.StoppedAt != MaxCounted || len(es.List) != MaxErrors {
		t.Fatalf("got %v (%+v)", err, es)
	}
}
