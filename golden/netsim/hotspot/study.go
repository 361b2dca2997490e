package hotspot

import (
	"fmt"
	"io"
)

// Study is S2's comparison (S2:L118-160) on one configuration: the hot
// spot under no congestion control, ECN and SRP, and the same victims
// with the hot-spot senders silent (no congestion control and SRP), with
// the same seed, so that every run draws the same victims and messages.
type Study struct {
	Runs   []*Result `json:"runs"` // none, ecn, srp; then none and srp without the hot spot
	Claims []Claim   `json:"claims"`
}

// Claim is one of S2's headline claims, what was measured and whether it
// holds within the stated margin.
type Claim struct {
	Name     string `json:"name"`
	Paper    string `json:"paper"`
	Measured string `json:"measured"`
	Margin   string `json:"margin"`
	Holds    bool   `json:"holds"`
}

// The margins of the claims.
const (
	// VictimSlack bounds SRP's victim latency with the hot spot over the
	// same without it, and its small-message latency over the baseline's
	// without the hot spot.
	VictimSlack = 1.10
	// ZeroLoadSlack bounds SRP's victim in-flight latency over zero-load
	// (the victims' own 40% load queues a little).
	ZeroLoadSlack = 2.0
	// SaturationFactor is how much the baseline's victims must suffer from
	// the hot spot for the comparison to mean anything.
	SaturationFactor = 10.0
	// RateSlack bounds the reserved and delivered hot-spot rate around
	// 1/(1+eps).
	RateSlack = 0.01
)

// RunStudy runs the five networks of base (its CC is ignored), each with
// models made by mk, and checks the claims.
func RunStudy(base Config, mk func(Config) (Models, error)) (*Study, error) {
	if base.HotspotSenders == 0 {
		return nil, fmt.Errorf("the study needs hot-spot senders")
	}
	st := &Study{}
	for _, run := range []struct {
		cc   CC
		idle bool
	}{{None, false}, {ECN, false}, {SRP, false}, {None, true}, {SRP, true}} {
		cfg := base
		cfg.CC, cfg.HotspotIdle = run.cc, run.idle
		m, err := mk(cfg)
		if err != nil {
			return nil, err
		}
		r, err := Run(cfg, m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", run.cc, err)
		}
		if run.idle {
			r.CC += " (no hot spot)"
		}
		st.Runs = append(st.Runs, r)
	}
	none, ecn, srp, noneIdle, srpIdle := st.Runs[0], st.Runs[1], st.Runs[2], st.Runs[3], st.Runs[4]
	want := 1 / (1 + base.Epsilon)
	st.Claims = []Claim{
		{
			Name:  "victim latency stays near zero-load under SRP, while the baseline's queues build",
			Paper: "S2 Fig. 5 and 6: SRP's in-flight latency close to zero-load, the baseline's thousands of times it, ECN's much higher than SRP's",
			Measured: fmt.Sprintf("victims' in-flight latency %.0f ns = %.2f x zero-load and %.3f x the same without the hot spot under SRP; %.1f x zero-load under ECN; %.1f x under the baseline (%.1f x without the hot spot); peak VOQ %d, %d, %d packets",
				srp.VictimLatencyNs, ratio(srp.VictimLatencyNs, srp.VictimZeroLoadNs), ratio(srp.VictimLatencyNs, srpIdle.VictimLatencyNs),
				ratio(ecn.VictimLatencyNs, ecn.VictimZeroLoadNs), ratio(none.VictimLatencyNs, none.VictimZeroLoadNs),
				ratio(noneIdle.VictimLatencyNs, noneIdle.VictimZeroLoadNs), srp.PeakVOQ, ecn.PeakVOQ, none.PeakVOQ),
			Margin: fmt.Sprintf("SRP <= %.2f x without the hot spot and <= %.1f x zero-load; the baseline >= %.0f x its latency without the hot spot; ECN above SRP", VictimSlack, ZeroLoadSlack, SaturationFactor),
			Holds: srp.VictimLatencyNs <= VictimSlack*srpIdle.VictimLatencyNs && srp.VictimLatencyNs <= ZeroLoadSlack*srp.VictimZeroLoadNs &&
				none.VictimLatencyNs >= SaturationFactor*noneIdle.VictimLatencyNs && ecn.VictimLatencyNs > srp.VictimLatencyNs,
		},
		{
			Name:  fmt.Sprintf("the hot-spot receiver runs at 1/(1+eps) = %.1f%% of the link under SRP", 100*want),
			Paper: "S2 Sec. 5.1-5.2: the hot-spot link's data throughput is 5% lower than the baseline's",
			Measured: fmt.Sprintf("reserved %.2f%%, delivered %.2f%% (%.2f%% non-speculative) under SRP; delivered %.2f%% under the baseline, %.2f%% under ECN; SRP's senders %.2f%%..%.2f%% each (Jain %.4f; baseline %.2f%%..%.2f%%, Jain %.3f)",
				100*srp.HotspotReserved, 100*srp.HotspotRate, 100*srp.HotspotGranted, 100*none.HotspotRate, 100*ecn.HotspotRate,
				100*srp.SenderMin, 100*srp.SenderMax, srp.SenderJain, 100*none.SenderMin, 100*none.SenderMax, none.SenderJain),
			Margin: fmt.Sprintf("reserved within %.0f%% of the link of 1/(1+eps); delivered at least 1/(1+eps) - %.0f%%", 100*RateSlack, 100*RateSlack),
			Holds:  abs(srp.HotspotReserved-want) <= RateSlack && srp.HotspotRate >= want-RateSlack,
		},
		{
			Name:  "small messages are not slowed",
			Paper: "S2 Sec. 3 and 5.4: messages below n_min bypass the reservation, SRP's latency overhead is negligible at low load",
			Measured: fmt.Sprintf("victims' messages of %d packets (below n_min %d) take %.0f ns under SRP with the hot spot, %.0f ns under the baseline without it (%.3f x), %.0f ns through an empty network; under the baseline with the hot spot %.0f ns",
				base.SmallPackets, base.Tx.NMin, srp.SmallMsgNs, noneIdle.SmallMsgNs, ratio(srp.SmallMsgNs, noneIdle.SmallMsgNs), srp.SmallMsgZeroNs, none.SmallMsgNs),
			Margin: fmt.Sprintf("SRP with the hot spot <= %.2f x the baseline without it", VictimSlack),
			Holds:  srp.SmallMsgs > 0 && noneIdle.SmallMsgs > 0 && srp.SmallMsgNs <= VictimSlack*noneIdle.SmallMsgNs,
		},
	}
	if uint64(base.SmallPackets) >= base.Tx.NMin {
		st.Claims[2].Holds = false
		st.Claims[2].Measured += fmt.Sprintf("; but %d packets is not below n_min", base.SmallPackets)
	}
	return st, nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Holds says whether every claim holds.
func (s *Study) Holds() bool {
	for _, c := range s.Claims {
		if !c.Holds {
			return false
		}
	}
	return true
}

// WriteClaims prints the claims.
func (s *Study) WriteClaims(w io.Writer) error {
	for i, c := range s.Claims {
		verdict := "holds"
		if !c.Holds {
			verdict = "DOES NOT HOLD"
		}
		if _, err := fmt.Fprintf(w, "%d. %s: %s\n   measured: %s\n   margin:   %s\n   S2:       %s\n", i+1, c.Name, verdict, c.Measured, c.Margin, c.Paper); err != nil {
			return err
		}
	}
	return nil
}
