package blockeq

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
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
