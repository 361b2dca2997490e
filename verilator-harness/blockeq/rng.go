package blockeq

import "github.com/nicgen/nicgen/blocks/stim"

// rng is the stimulus generator every bench shares (package stim).
type rng = stim.Rand

func newRNG(seed uint64) *rng { return stim.New(seed) }

// threshold is a probability as random bits compare with it (package stim).
type threshold = stim.Threshold

func thresholdOf(p float64) threshold { return stim.ThresholdOf(p) }
