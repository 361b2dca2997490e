package snyder

import "math"

// VAIParams are Variable Additive Increase's constants (S3 Table 4.1), in
// the unit of the instantiation's measured congestion: bytes of queue for
// HPCC (the largest queue depth seen in the RTT), ns of RTT for Swift.
type VAIParams struct {
	TokenThresh   float64 // HPCC 50 KB; Swift 4 us + target delay (S3:L1047)
	AIDiv         float64 // HPCC 1 KB; Swift 30 ns
	AICap         float64 // 100 tokens spent at most per rate update
	BankCap       float64 // 1000 tokens banked at most
	DampenerConst float64 // 8
	BaseAI        float64 // the protocol's AI (50 Mb/s), in its own unit
	// Excess makes a token per AIDiv of congestion above TokenThresh (the
	// text, S3:L895) instead of per AIDiv of the whole measured
	// congestion (Algorithm 1 line 3 as printed, the default). A-25.
	Excess bool
}

// HPCCVAI is Table 4.1's HPCC column, congestion in bytes, AI in Mb/s.
func HPCCVAI() VAIParams {
	return VAIParams{TokenThresh: 50_000, AIDiv: 1_000, AICap: 100, BankCap: 1000, DampenerConst: 8, BaseAI: 50}
}

// SwiftVAI is Table 4.1's Swift column for a target delay in ns (the text
// adds it to the 4 us, S3:L1047), congestion in ns, AI in Mb/s.
func SwiftVAI(targetNs float64) VAIParams {
	return VAIParams{TokenThresh: 4_000 + targetNs, AIDiv: 30, AICap: 100, BankCap: 1000, DampenerConst: 8, BaseAI: 50}
}

// VAI is one flow's Variable AI state (S3 Algorithms 1 and 2), in
// float64: the reference the fixed-point block is measured against.
type VAI struct {
	Bank     float64 // AI_Bank, tokens
	Dampener float64
	MeasCong float64 // the largest congestion measured in this RTT
	// Congested records a congestion signal in this RTT: a delay above
	// the target (Swift) or C >= 1 (HPCC, A-26); "No Congestion" of
	// Algorithm 1 line 7 is its absence.
	Congested bool
}

// Observe takes one ACK's measured congestion and whether it signalled
// congestion.
func (v *VAI) Observe(mc float64, congested bool) {
	v.MeasCong = math.Max(v.MeasCong, mc)
	v.Congested = v.Congested || congested
}

// EndRTT is Algorithm 1, run when an RTT finishes.
func (v *VAI) EndRTT(p VAIParams) {
	mc := v.MeasCong
	if mc > p.TokenThresh { // lines 2-3
		gain := mc / p.AIDiv
		if p.Excess {
			gain = (mc - p.TokenThresh) / p.AIDiv
		}
		v.Bank = math.Min(gain+v.Bank, p.BankCap)
	}
	switch { // lines 4-10 (line 9's test is implied by line 4's else: kept as printed)
	case mc > p.TokenThresh:
		v.Dampener += mc / p.TokenThresh
	case v.Bank == 0:
		if !v.Congested {
			v.Dampener = 0
		} else if mc < p.TokenThresh {
			v.Dampener = math.Max(v.Dampener-1, 0)
		}
	}
	v.MeasCong, v.Congested = 0, false // line 11
}

// Increase is Algorithm 2: the additive increase of a rate update, taking
// the tokens it spends from the bank when the update is a rate adjustment
// (S3:L943: each decrease period while the rate falls, each RTT while it
// rises). With an empty bank it is the base AI.
func (v *VAI) Increase(p VAIParams, adjust bool) float64 {
	tokens := math.Min(p.AICap, v.Bank) // line 2 (line 1 is a dead store)
	if adjust {
		v.Bank = math.Max(v.Bank-tokens, 0)
	}
	divisor := v.Dampener/p.DampenerConst + 1
	return math.Max(tokens/divisor, 1) * p.BaseAI
}
