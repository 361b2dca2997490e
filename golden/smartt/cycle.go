package smartt

import "github.com/nicgen/nicgen/golden/pipe"

// Pipeline is the cycle-level wrapper of the block, the shell of
// docs/blocks/reps.md "Cycle behaviour" that smartt shares (contract
// Section 1); see package golden/pipe.
type Pipeline = pipe.Pipeline[Event, Result]

// NewPipeline returns an empty pipeline around s; s is used as is.
func NewPipeline(s Stepper) *Pipeline { return pipe.New(s) }
