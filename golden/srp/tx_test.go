package srp

import (
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
// is never both outstanding and delivered. Every message ends.
func TestTxInvariantsRandom(t *testing.T) {
	p := txParams()
	p.NumConn = 1
	m, _ := NewTxModel(p)
	rng := rand.New(rand.NewPCG(3, 4))
	var r TxResult
	now, msgs, ends := uint64(0), 0, 0
	m.StepTo(&TxEvent{Kind: TxOpen}, &r)
	for i := 0; i < 1_000_000; i++ {
		now += rng.Uint64N(40)
		s := m.State(0)
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
}
