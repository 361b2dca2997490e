// Package netsim is a small deterministic discrete-event model of one
// bottleneck: N senders, each behind its own congestion controller, send a
// message to one receiver through one switch egress port. It exists to run
// the SMaRTT golden models (golden/smartt) in closed loop and to check them
// against the papers' incast figures (seed S0 Fig. 4 and Fig. 10, seed S1
// Fig. 12), not to model a datacenter.
//
// The network:
//
//	sender i --(link, prop)--> switch egress --(link, prop)--> receiver
//	sender i <--(link, prop)-- switch port i <--(link, prop)-- receiver
//
// Every link runs at Config.LinkGbps and serialises one packet at a time
// (store and forward). The egress port toward the receiver has two queues:
// a data queue of Config.QueueBytes (default one BDP) with RED/ECN marking
// at dequeue (S0:L72, L267), and a high-priority queue for trimmed headers
// that is always served first (non-preemptive: a header waits at most for
// the data packet on the wire, never behind queued data; S0:L102). A data
// packet that would overflow the data queue is trimmed (S0:L212): its 64 B
// header goes on to the receiver through the high-priority queue, and the
// receiver returns it to the sender as a NACK. The receiver acknowledges
// every data packet (no coalescing); ACKs and NACKs travel the reverse links
// at high priority, so they never wait behind data. The four propagation
// delays are set so that the unloaded RTT of a full-size packet, measured
// from the start of its serialisation at the sender to the arrival of the
// last bit of its ACK, equals Config.BaseRTTNs exactly.
//
// A sender may start a packet while bytesInFlight + MTU <= cwnd, or when
// nothing is in flight (so that a window below one MTU cannot deadlock the
// flow). It gives its controller one open at time 0, one ack per
// acknowledged packet (size, ECN echo, RTT from send to ack, bytes still in
// flight, now) and one nack per trimmed packet, which it retransmits before
// any new data. Trimming means no loss, so there are no timeouts.
//
// The controller is the seam: anything that implements Controller (a golden
// fixed-point model, the float64 reference, or later a Verilated RTL model
// behind the same Step) can be run in the loop without touching the
// simulator. Each sender calls its controller in time order, one event at a
// time, and acts on the result at once: the block's D+5 cycles of latency
// (D its pipeline depth, docs/pipeline.md; a few ns) are not modelled, a
// packet takes 41 ns at 800 Gb/s. An RTL controller would drive s_event_*
// with the event and return m_result_*.
//
// Time is kept in integer picoseconds. Simultaneous events run in a fixed
// order of kinds (a port that finishes a packet dequeues the next before
// new arrivals are admitted); packets reaching the switch at the same
// instant are admitted in a random order, because the senders run in
// lockstep and any fixed order would trim the same sender every time. That
// order and the RED marking draw from two PCG generators seeded by
// Config.Seed, so the same Config and controllers always give the same
// numbers.
package netsim
