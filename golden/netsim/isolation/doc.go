// Package isolation is S3's performance-isolation study (Section 3.5,
// Table 3.2; chapter 5 for 1RC with weights): one victim tenant and one
// attacker share one bottleneck, and each congestion control is asked
// how much of it the victim keeps when the attacker opens parallel QPs,
// staggers short QPs one per base RTT, or shuffles them over destinations.
//
// The network is the dumbbell of S3 Fig. 3.8 reduced to what the attacks
// need: two sender hosts (victim, attacker) with line-rate links to one
// switch whose egress toward the receivers is the only queue (one FIFO, as
// golden/snyder's Bottleneck); every destination sits behind it. A host
// serialises one packet at a time, round robin over its QPs that may
// send. The egress marks ECN with a probability rising linearly from 0 at
// 20% to 1 at 80% of a one-BDP queue (seeded draws), stamps HPCC's INT
// (queue, bytes sent, time) and never drops: the queue is unbounded and
// its peak is reported. ACKs come back after the propagation delays.
//
// Window controls (smartt, nscc: the fixed-point golden models on their
// 800 Gb/s network; swift, hpcc: golden/snyder's float64 references on the
// thesis's 100 Gb/s network) run with state per connection (each QP has
// its own, opened at one BDP) or per src/dst (the QPs of one source host
// and destination share one state and one window, created with the
// pair's first open QP and freed with its last). 1RC runs
// golden/onerc's sperc_link and onerc_switch at the bottleneck and an
// onerc_host at each sender (weights, shared speculative numbers, the
// resume point and the pacing rate).
// docs/sim.md ("Isolation") has the measured table and the choices.
package isolation
