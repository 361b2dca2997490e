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
