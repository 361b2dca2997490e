package reps

import "github.com/nicgen/nicgen/golden/pipe"

// Stepper is a transaction-level REPS model as the pipeline drives it:
// Step executes one accepted event, Reset reloads the LFSR.
type Stepper = pipe.Stepper[Event, Result]

var (
	_ Stepper = (*Model)(nil)
	_ Stepper = (*ConfModel)(nil)
)

// Pipeline is the cycle-level wrapper shared by both REPS blocks ("Cycle
// behaviour" in docs/blocks/reps.md); see package golden/pipe.
type Pipeline = pipe.Pipeline[Event, Result]

// NewPipeline returns an empty pipeline around s. s is used as is: it is
// not reset.
func NewPipeline(s Stepper) *Pipeline { return pipe.New(s) }
