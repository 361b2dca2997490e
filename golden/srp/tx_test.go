package srp

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
)

func txParams() TxParams {
	return TxParams{NMin: 4, NMax: 16, MW: 16, SeqW: 16, TimeW: 32, NumConn: 2, ConnW: 2, KindW: 3}
}

// S2's sender, step by step: a 20-packet message is a chunk of 16 and one
// of 4; speculation until a NACK, the grant's t_s, the NACKed packet and
// the unsent ones non-speculatively from t_s, lowest first; a 3-packet
// message bypasses SRP.
func TestTxHandSequence(t *testing.T) {
	m, err := NewTxModel(txParams())
	if err != nil {
		t.Fatal(err)
	}
	step := func(kind TxKind, m_, seq, ts, now uint64) TxResult {
		var r TxResult
		m.StepTo(&TxEvent{Conn: 1, Kind: kind, M: m_, Seq: seq, Ts: ts, Now: now}, &r)
		return r
	}
	want := func(what string, got, exp TxResult) {
		t.Helper()
		exp.Conn = 1
		exp.Kind = got.Kind
		if got != exp {
			t.Errorf("%s: %+v, want %+v", what, got, exp)
		}
	}
	step(TxOpen, 0, 0, 0, 0)
	want("message of 20", step(TxMsg, 20, 0, 0, 10), TxResult{})
	want("busy", step(TxMsg, 5, 0, 0, 11), TxResult{Busy: true})
	want("first send", step(TxSend, 0, 0, 0, 12), TxResult{Res: true, ResN: 16, Pkt: true, Spec: true, Seq: 0})
	for i := uint64(1); i < 5; i++ {
		want("speculative send", step(TxSend, 0, 0, 0, 12+i), TxResult{Pkt: true, Spec: true, Seq: i})
	}
	want("ack 0", step(TxAck, 0, 0, 0, 20), TxResult{})
	want("ack 0 again", step(TxAck, 0, 0, 0, 21), TxResult{Stale: true})
	want("nack 2", step(TxNack, 0, 2, 0, 22), TxResult{})
	want("no speculation after a NACK", step(TxSend, 0, 0, 0, 23), TxResult{})
	want("grant for another chunk", step(TxGrant, 0, 16, 1000, 24), TxResult{Stale: true})
	want("grant", step(TxGrant, 0, 0, 1000, 25), TxResult{})
	want("grant again", step(TxGrant, 0, 0, 2000, 26), TxResult{Stale: true})
	want("before t_s", step(TxSend, 0, 0, 0, 999), TxResult{})
	want("at t_s: the NACKed packet", step(TxSend, 0, 0, 0, 1000), TxResult{Pkt: true, Seq: 2})
	// 1, 3, 4 are outstanding; 5..15 were never sent
	for i := uint64(5); i < 16; i++ {
		want("non-speculative", step(TxSend, 0, 0, 0, 1000+i), TxResult{Pkt: true, Seq: i})
	}
	want("nothing left to send", step(TxSend, 0, 0, 0, 1100), TxResult{})
	want("late ack 1", step(TxAck, 0, 1, 0, 1101), TxResult{})
	want("late nack 3", step(TxNack, 0, 3, 0, 1102), TxResult{})
	want("resent after t_s", step(TxSend, 0, 0, 0, 1103), TxResult{Pkt: true, Seq: 3})
	want("ack 4 completes the chunk", step(TxAck, 0, 4, 0, 1104), TxResult{})
	want("second chunk", step(TxSend, 0, 0, 0, 1105), TxResult{Res: true, ResN: 4, Pkt: true, Spec: true, Seq: 16})
	for i := uint64(17); i < 20; i++ {
		want("speculative send", step(TxSend, 0, 0, 0, 1100+i), TxResult{Pkt: true, Spec: true, Seq: i})
	}
	want("all four sent", step(TxSend, 0, 0, 0, 1200), TxResult{})
	for i := uint64(16); i < 19; i++ {
		want("ack", step(TxAck, 0, i, 0, 1200+i), TxResult{})
	}
	want("the last ack ends the message", step(TxAck, 0, 19, 0, 1300), TxResult{MsgDone: true})
	want("grant after the chunk completed", step(TxGrant, 0, 16, 5000, 1301), TxResult{Stale: true})
	want("3 packets bypass", step(TxMsg, 3, 0, 0, 1400), TxResult{})
	want("bypass 1", step(TxSend, 0, 0, 0, 1401), TxResult{Pkt: true, Seq: 20})
	want("bypass 2", step(TxSend, 0, 0, 0, 1402), TxResult{Pkt: true, Seq: 21})
	want("bypass 3 ends the message", step(TxSend, 0, 0, 0, 1403), TxResult{Pkt: true, Seq: 22, MsgDone: true})
	want("idle", step(TxSend, 0, 0, 0, 1404), TxResult{})
	var r TxResult
	m.StepTo(&TxEvent{Conn: 1, Kind: TxMsg, M: 0}, &r)
	if !r.Error {
		t.Errorf("a message of 0 packets: %+v", r)
	}
}

// Under random events (grants, ACKs and NACKs mostly for packets that
// are outstanding), the sender's word keeps its invariants: the chunk is
// at most n_max, speculation stays within the packets sent, and a packet
// is never both outstanding and delivered. Every message ends. With
// WaitGrant a reservation never goes out while the one before it
// awaits its grant.
func TestTxInvariantsRandom(t *testing.T) {
	for _, wait := range []bool{false, true} {
		t.Run(fmt.Sprintf("WaitGrant=%v", wait), func(t *testing.T) { txInvariantsRandom(t, wait) })
	}
}

func txInvariantsRandom(t *testing.T, wait bool) {
	p := txParams()
	p.NumConn, p.WaitGrant = 1, wait
	m, _ := NewTxModel(p)
	rng := rand.New(rand.NewPCG(3, 4))
	var r TxResult
	now, msgs, ends, held := uint64(0), 0, 0, 0
	m.StepTo(&TxEvent{Kind: TxOpen}, &r)
	for i := 0; i < 1_000_000; i++ {
		now += rng.Uint64N(40)
		s := m.State(0)
		before := s
		e := TxEvent{Now: now}
		switch k := rng.IntN(10); {
		case k == 0:
			e.Kind, e.M = TxMsg, 1+rng.Uint64N(40)
		case k <= 4:
			e.Kind = TxSend
		case k == 5:
			e.Kind, e.Seq, e.Ts = TxGrant, s.Base, now+rng.Uint64N(500)
		default:
			e.Kind, e.Seq = TxAck, s.Base+rng.Uint64N(s.N+1)
			if rng.IntN(5) == 0 {
				e.Kind = TxNack
			}
		}
		m.StepTo(&e, &r)
		if e.Kind == TxMsg && !r.Busy {
			msgs++
		}
		if r.Res && wait && before.N > 0 && !before.Granted {
			t.Fatalf("event %d %+v: a reservation while the one before awaits its grant: state before %+v", i, e, before)
		}
		if e.Kind == TxSend && !r.Pkt && before.Left > 0 && before.complete() {
			held++
		}
		if r.MsgDone {
			ends++
		}
		s = m.State(0)
		if s.N > p.NMax || s.Next > s.N || s.Out&^(uint64(1)<<s.Next-1) != 0 || s.Out&s.Done != 0 || s.Done&^(uint64(1)<<s.N-1) != 0 || bits.OnesCount64(s.Out) > int(p.NMax) {
			t.Fatalf("event %d %+v: state %+v", i, e, s)
		}
	}
	if msgs < 5000 || ends < msgs-1 {
		t.Errorf("%d messages, %d ended", msgs, ends)
	}
	// a send that finds the chunk delivered and packets left starts the
	// next chunk, unless it waits for the grant
	if (held > 0) != wait {
		t.Errorf("WaitGrant %v: %d sends held for a grant", wait, held)
	}
	t.Logf("%d messages, %d sends held for a grant", msgs, held)
}

// A-37 on the smallest case that shows it: chunks of 2 packets (n_min 2,
// n_max 2), each ACKed before its chunk's grant comes back. S2:L76 ends a
// chunk with "After S has transmitted all n packets successfully, any
// future transmission between S and D repeats this reservation process".
// after_sent reads that as "once every packet is delivered": the next
// chunk's reservation goes out at the first send after the last ACK, and
// the late grant is stale. after_grant ends the process with its grant:
// the sends between the last ACK and the grant send nothing, the grant is
// taken, and the next send starts the chunk (before t_s: only the grant
// is awaited). A new message's first chunk waits the same way; a message
// that bypasses SRP reserves nothing and waits for nothing, in both.
func TestTxNextChunkA37(t *testing.T) {
	p := TxParams{NMin: 2, NMax: 2, MW: 8, SeqW: 8, TimeW: 16, NumConn: 1, ConnW: 1, KindW: 3}
	res := func(seq uint64) TxResult { return TxResult{Res: true, ResN: 2, Pkt: true, Spec: true, Seq: seq} }
	spec := func(seq uint64) TxResult { return TxResult{Pkt: true, Spec: true, Seq: seq} }
	type step struct {
		what                string
		kind                TxKind
		m, seq, ts, now     uint64
		afterSent, afterGnt TxResult
	}
	same := func(what string, kind TxKind, m, seq, ts, now uint64, r TxResult) step {
		return step{what, kind, m, seq, ts, now, r, r}
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"two chunks, then a message", []step{
			same("message of 4: two chunks", TxMsg, 4, 0, 0, 10, TxResult{}),
			same("R(2) with packet 0", TxSend, 0, 0, 0, 11, res(0)),
			same("packet 1", TxSend, 0, 0, 0, 12, spec(1)),
			same("ack 0", TxAck, 0, 0, 0, 13, TxResult{}),
			same("ack 1: the chunk is delivered, its grant is not back", TxAck, 0, 1, 0, 14, TxResult{}),
			{"the next send", TxSend, 0, 0, 0, 15, res(2), TxResult{}},
			{"the first chunk's grant, t_s ahead", TxGrant, 0, 0, 1000, 16, TxResult{Stale: true}, TxResult{}},
			{"a send before t_s", TxSend, 0, 0, 0, 17, spec(3), res(2)},
			{"a send", TxSend, 0, 0, 0, 18, TxResult{}, spec(3)},
			same("ack 2", TxAck, 0, 2, 0, 19, TxResult{}),
			same("ack 3: the message is delivered, the second grant is not back", TxAck, 0, 3, 0, 20, TxResult{MsgDone: true}),
			same("a new message of 4", TxMsg, 4, 0, 0, 21, TxResult{}),
			{"its first send", TxSend, 0, 0, 0, 22, res(4), TxResult{}},
			{"the second chunk's grant", TxGrant, 0, 2, 40, 23, TxResult{Stale: true}, TxResult{}},
			{"a send", TxSend, 0, 0, 0, 24, spec(5), res(4)},
		}},
		{"a bypassed message in between", []step{
			same("message of 2: one chunk", TxMsg, 2, 0, 0, 10, TxResult{}),
			same("R(2) with packet 0", TxSend, 0, 0, 0, 11, res(0)),
			same("packet 1", TxSend, 0, 0, 0, 12, spec(1)),
			same("ack 0", TxAck, 0, 0, 0, 13, TxResult{}),
			same("ack 1: delivered, the grant is not back", TxAck, 0, 1, 0, 14, TxResult{MsgDone: true}),
			same("message of 1: bypasses SRP", TxMsg, 1, 0, 0, 15, TxResult{}),
			same("its packet at once, non-speculatively", TxSend, 0, 0, 0, 16, TxResult{Pkt: true, Seq: 2, MsgDone: true}),
			same("the chunk's grant: no chunk waits for it", TxGrant, 0, 0, 100, 17, TxResult{Stale: true}),
			same("message of 2", TxMsg, 2, 0, 0, 18, TxResult{}),
			same("R(2) at once", TxSend, 0, 0, 0, 19, res(3)),
		}},
	} {
		for _, wait := range []bool{false, true} {
			p.WaitGrant = wait
			m, err := NewTxModel(p)
			if err != nil {
				t.Fatal(err)
			}
			var r TxResult
			m.StepTo(&TxEvent{Kind: TxOpen}, &r)
			for _, s := range tc.steps {
				m.StepTo(&TxEvent{Kind: s.kind, M: s.m, Seq: s.seq, Ts: s.ts, Now: s.now}, &r)
				want := s.afterSent
				if wait {
					want = s.afterGnt
				}
				want.Kind = s.kind
				if r != want {
					t.Errorf("%s, WaitGrant %v: %s: %+v, want %+v", tc.name, wait, s.what, r, want)
				}
			}
		}
	}
}
