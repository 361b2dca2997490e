package netsim

import "testing"

// TestQueueOrder: events leave in time order, and events of one time in
// the order they were pushed.
func TestQueueOrder(t *testing.T) {
	var q Queue[int64, string]
	for _, e := range []struct {
		at int64
		s  string
	}{{5, "c"}, {1, "a"}, {5, "d"}, {3, "b"}, {5, "e"}, {9, "f"}} {
		q.Push(e.at, e.s)
	}
	got := ""
	last := int64(-1)
	for q.Len() > 0 {
		at, s := q.Pop()
		if at < last {
			t.Fatalf("%s at %d after %d", s, at, last)
		}
		last = at
		got += s
	}
	if got != "abcdef" {
		t.Fatalf("order %q, want abcdef", got)
	}
}
