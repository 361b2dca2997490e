package netsim

import (
	"reflect"
	"testing"

	"github.com/nicgen/nicgen/golden/uet"
)

// coalesceACKs merges a connection's unmarked ACKs up to the limit, each
// merged ACK at its last member's place; a marked ACK or a NACK breaks the
// run and goes alone, sends pass through. markACKs marks every ACK and
// raises its RTT.
func TestCoalesceAndMarkACKs(t *testing.T) {
	send := uet.Event{Conn: 1, Kind: uet.KindSend, Size: 4096}
	ack := func(conn uint32, rtt uint32, ecn bool) uet.Event {
		return uet.Event{Conn: conn, Kind: uet.KindAck, Size: 4096, RTT: rtt, ECN: ecn}
	}
	evs := []uet.Event{send, ack(1, 10, false), ack(2, 11, false), ack(1, 12, false), send, ack(1, 13, false), ack(1, 14, true), ack(1, 15, false)}
	got := coalesceACKs(evs, 3*4096)
	merged := ack(1, 13, false)
	merged.Size = 3 * 4096
	want := []uet.Event{send, ack(2, 11, false), send, merged, ack(1, 14, true), ack(1, 15, false)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("coalesceACKs:\n got %+v\nwant %+v", got, want)
	}
	marked := markACKs(evs, 12)
	for i, e := range marked {
		if e.Kind == uet.KindAck && (!e.ECN || e.RTT != max(evs[i].RTT, 12)) {
			t.Errorf("markACKs: event %d %+v", i, e)
		}
	}
	if evs[1].ECN {
		t.Error("markACKs changed its input")
	}
}
