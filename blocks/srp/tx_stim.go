package srp

import (
	"fmt"
	"slices"

	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/stim"
	gsrp "github.com/nicgen/nicgen/golden/srp"
)

// srp_tx's stimulus (block.Desc.Stimulus) plays the host and the network:
// it keeps a model of its own (a second golden model, stepped as it draws
// each event, which is the order the block executes them in) to learn
// which reservations and speculative packets went out, and answers them
// later with grants, ACKs and NACKs, besides stale answers, busy messages
// and errors. Its coverage is every outcome, and with next_chunk =
// after_grant a send held for a grant and the grant that releases
// it.

// txMix is the event mix of the srp_tx stimulus.
type txMix struct {
	active uint64 // queues 0..active-1 are used (all opened first)
	stim.Shape
	stepMax uint64 // time advances by 0..stepMax ticks per cycle
}

// txMixFor adapts the mix to a named profile. srp_tx has no ECN marks,
// its losses are the NACKs of every mix, and its extremes (ids past the
// table, unknown kinds, empty messages, stale answers) are in every mix:
// all-ecn, all-loss and extremes are the mixed profile. Vectors use 64
// queues.
func txMixFor(p TxParams, profile string) (txMix, error) {
	m := txMix{active: uint64(p.NumConn), stepMax: 8, Shape: stim.Shape{PValid: 0.9, PReady: 0.8, PSame: 0.2, PHot: 0.8, Hot: 8}}
	if m.Profile(profile, connpipe.MaxDepth+1) {
		return m, nil
	}
	switch profile {
	case "mixed", "all-ecn", "all-loss", "extremes":
	case stim.Vectors:
		m.active = min(m.active, 64)
	case "wrap":
		m.stepMax = uint64(1) << uint(max(p.TimeW-10, 4))
	default:
		return m, fmt.Errorf("srp_tx: no stimulus profile %q", profile)
	}
	return m, nil
}

// txAnswer is a network answer the stimulus will give later.
type txAnswer struct {
	conn      uint64
	kind      gsrp.TxKind
	seq       uint64
	dueEvents uint64 // drawn events after which it is due
}

// txDraw draws srp_tx events: queues 0 .. active-1 opened first, then the
// answers that are due, messages and sends on the queues with locality,
// stale answers and errors.
type txDraw struct {
	p       TxParams
	mix     txMix
	r       *stim.Rand
	conns   stim.Locality
	shadow  *gsrp.TxModel
	opened  uint64
	n       uint64
	now     uint64
	pending []txAnswer
}

func newTxDraw(p TxParams, mix txMix, r *stim.Rand) (*txDraw, error) {
	sh, err := gsrp.NewTxModel(p.Golden())
	if err != nil {
		return nil, err
	}
	d := &txDraw{p: p, mix: mix, r: r, shadow: sh}
	d.conns = mix.Locality(r, mix.active)
	d.now = uint64(1)<<uint(p.TimeW) - 5000 // wrap early
	return d, nil
}

// due reports whether one of the first pending answers is due.
func (d *txDraw) due() bool {
	for i := 0; i < min(8, len(d.pending)); i++ {
		if d.pending[i].dueEvents <= d.n {
			return true
		}
	}
	return false
}

// tick advances the time by one cycle.
func (d *txDraw) tick() { d.now += d.r.Below(d.mix.stepMax + 1) }

// event draws the next event into f: conn, kind, m, seq, ts, now (the
// golden model's order), and steps the shadow model with it.
func (d *txDraw) event(f []uint64) {
	tmask := uint64(1)<<uint(d.p.TimeW) - 1
	smask := uint64(1)<<uint(d.p.SeqW) - 1
	e := gsrp.TxEvent{Now: d.now & tmask}
	d.n++
	switch {
	case d.opened < d.mix.active:
		e.Conn, e.Kind = uint32(d.opened), gsrp.TxOpen
		d.conns.Force(d.opened)
		d.opened++
	case d.due() && d.r.Below(3) > 0:
		// any of the first answers that are due, not the oldest: a grant
		// may come after some of its chunk's ACKs and NACKs
		var due []int
		for i := 0; i < min(8, len(d.pending)); i++ {
			if d.pending[i].dueEvents <= d.n {
				due = append(due, i)
			}
		}
		j := due[d.r.Below(uint64(len(due)))]
		a := d.pending[j]
		d.pending = slices.Delete(d.pending, j, j+1)
		e.Conn, e.Kind, e.Seq = uint32(a.conn), a.kind, a.seq
		if a.kind == gsrp.TxGrant {
			e.Ts = (e.Now + d.r.Below(200)) & tmask // t_s a little ahead, as a busy receiver grants
			if d.r.Below(8) == 0 {
				e.Ts = (e.Now - d.r.Below(100)) & tmask // or already past
			}
		}
	default:
		c := d.conns.Pick(d.r)
		e.Conn = uint32(c)
		switch k := d.r.Below(100); {
		case k < 8:
			e.Kind, e.M = gsrp.TxMsg, 1+d.r.Below(40) // bypassing (below n_min) and chunked
			if d.r.Below(50) == 0 {
				e.M = 0 // an error
			}
		case k < 90:
			e.Kind = gsrp.TxSend
		case k < 93: // a stale answer
			e.Kind, e.Seq = gsrp.TxKind(3+d.r.Below(3)), d.r.Next()&smask
		case k < 95:
			e.Conn = uint32(d.p.NumConn) + uint32(d.r.Below(4)) // an error
			e.Kind = gsrp.TxSend
		case k < 96:
			e.Kind = gsrp.TxNumKinds + gsrp.TxKind(d.r.Below(2)) // an unknown kind
		default:
			e.Kind = gsrp.TxSend
		}
	}
	var r gsrp.TxResult
	d.shadow.StepTo(&e, &r)
	if r.Res {
		due := d.n + 5 + d.r.Below(60)
		if d.p.WaitGrant && d.r.Below(4) == 0 {
			// after_grant: a grant late enough for its chunk's
			// ACKs to come first, so that the next chunk waits for it
			due += 100 + d.r.Below(300)
		}
		d.pending = append(d.pending, txAnswer{conn: uint64(e.Conn), kind: gsrp.TxGrant, seq: r.Seq, dueEvents: due})
	}
	if r.Pkt && r.Spec {
		kind := gsrp.TxAck
		if d.r.Below(8) == 0 {
			kind = gsrp.TxNack
		}
		d.pending = append(d.pending, txAnswer{conn: uint64(e.Conn), kind: kind, seq: r.Seq, dueEvents: d.n + 3 + d.r.Below(80)})
	}
	if len(d.pending) > 4096 { // answers the queues will never need
		d.pending = d.pending[len(d.pending)-4096:]
	}
	f[0], f[1], f[2], f[3], f[4], f[5] = uint64(e.Conn), uint64(e.Kind), e.M, e.Seq, e.Ts, e.Now
}

// txStimulus is srp_tx's block.Desc.Stimulus.
func txStimulus(p TxParams, profile string, r *stim.Rand) (stim.Source, stim.Coverage, error) {
	mix, err := txMixFor(p, profile)
	if err != nil {
		return stim.Source{}, nil, err
	}
	d, err := newTxDraw(p, mix, r)
	if err != nil {
		return stim.Source{}, nil, err
	}
	src := mix.Source(d.tick, d.event)
	if profile == stim.Vectors {
		src.Tick, src.Event = nil, stim.Spaced(d.r, d.tick, d.event)
	}
	return src, newTxCoverage(p), nil
}

// txTrack is what the coverage learns of a queue from its results: the
// packets of the chunk reserved last (0: none since the queue opened or
// took a message) and its ACKs, whether its grant came, and whether the
// message ended.
type txTrack struct {
	n, acked       uint64
	granted, ended bool
}

// txCoverage counts the outcomes of srp_tx a run reached, from the golden
// results (conn, kind, pkt, seq, spec, res, res_n, stale, busy, msg_done,
// error, and the members of a shell with wait slots).
type txCoverage struct {
	stim.Cases
	queues []txTrack
}

// newTxCoverage expects every case of p: with n_max 1 a chunk is one
// packet, sent with its reservation, so no later speculative send exists;
// a send held for a grant, and the grant of a delivered chunk, exist only
// after_grant.
func newTxCoverage(p TxParams) *txCoverage {
	c := &txCoverage{Cases: stim.NewCases("open", "message accepted", "message while busy", "reservation with the first speculative packet",
		"speculative send", "non-speculative send", "send with nothing to send", "reserve held for grant", "grant",
		"grant of a delivered chunk", "stale grant", "ack", "nack", "stale ack or nack", "message delivered", "error"),
		queues: make([]txTrack, p.NumConn)}
	c.Skip("speculative send", p.NMax == 1)
	c.Skip("reserve held for grant", !p.WaitGrant)
	c.Skip("grant of a delivered chunk", !p.WaitGrant)
	return c
}

// Count classifies a result; the queue's track tells a send held for a
// grant (the chunk reserved last is ACKed throughout and the message
// goes on, so the send would start the next chunk after_sent) from one
// with nothing to send.
func (c *txCoverage) Count(res []uint64) {
	kind := gsrp.TxKind(res[1])
	pkt, spec, reserved, stale, busy, msgDone := res[2] == 1, res[4] == 1, res[5] == 1, res[7] == 1, res[8] == 1, res[9] == 1
	if res[10] == 1 {
		c.Add("error")
		return
	}
	q := &c.queues[res[0]]
	delivered := q.n > 0 && q.acked == q.n
	switch {
	case kind == gsrp.TxOpen:
		c.Add("open")
		*q = txTrack{}
	case kind == gsrp.TxMsg && busy:
		c.Add("message while busy")
	case kind == gsrp.TxMsg:
		c.Add("message accepted")
		*q = txTrack{} // a message that bypasses SRP replaces the chunk
	case kind == gsrp.TxSend && reserved:
		c.Add("reservation with the first speculative packet")
		*q = txTrack{n: res[6]}
	case kind == gsrp.TxSend && pkt && spec:
		c.Add("speculative send")
	case kind == gsrp.TxSend && pkt:
		c.Add("non-speculative send")
	case kind == gsrp.TxSend && delivered && !q.granted && !q.ended:
		c.Add("reserve held for grant")
	case kind == gsrp.TxSend:
		c.Add("send with nothing to send")
	case kind == gsrp.TxGrant && stale:
		c.Add("stale grant")
	case kind == gsrp.TxGrant && delivered:
		c.Add("grant of a delivered chunk")
		q.granted = true
	case kind == gsrp.TxGrant:
		c.Add("grant")
		q.granted = true
	case stale:
		c.Add("stale ack or nack")
	case kind == gsrp.TxAck:
		c.Add("ack")
		q.acked++
	default:
		c.Add("nack")
	}
	if msgDone {
		c.Add("message delivered")
		q.ended = true
	}
}
