package snyder

// Ack is what a sender learns from one ACK: its delay (send to ACK), the
// packets it acknowledges, the time, the packet's sequence number and the
// sender's next one, and the in-band telemetry the egress stamped on the
// packet as it left (HPCC's INT: queue length, bytes sent so far, time).
type Ack struct {
	DelayNs, Acked, NowNs float64
	Seq, SndNxt           int64
	QLenBytes, TxBytes    float64
	TsNs                  float64
}
