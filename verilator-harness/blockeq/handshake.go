package blockeq

// handshake drives the stream handshake for a stimulus that draws its
// events itself: s_event_valid is held until the event is accepted, then
// offered again with probability pValid; m_result_ready is drawn with
// probability pReady every cycle.
type handshake struct {
	sValid, mReady, sReady int
	r                      *rng
	pValid, pReady         threshold
	valid                  bool
}

func newHandshake(sValid, mReady, sReady int, r *rng, pValid, pReady float64) handshake {
	return handshake{sValid: sValid, mReady: mReady, sReady: sReady, r: r, pValid: thresholdOf(pValid), pReady: thresholdOf(pReady)}
}

// step drives s_event_valid and m_result_ready for one cycle, given the
// outputs of the last; it reports whether a new event is offered, which
// the caller draws and writes to the event ports.
func (h *handshake) step(prevOut, in []uint64) (fresh bool) {
	accepted := prevOut != nil && h.valid && prevOut[h.sReady] == 1
	if !h.valid || accepted {
		h.valid = h.r.Hit(h.pValid)
		fresh = h.valid
	}
	in[h.sValid] = B2U(h.valid)
	in[h.mReady] = B2U(h.r.Hit(h.pReady))
	return fresh
}
