package reps

import "github.com/nicgen/nicgen/golden/pipe"

// Stepper is a transaction-level REPS model as the pipeline drives it:
// Step executes one accepted event, Reset reloads the LFSR, ConnKey is the
// connection as the hazard unit compares it.
type Stepper = pipe.Stepper[Event, Result]

// Clearer is a Stepper whose state table clears alone (the control
// wrapper's CLEAR_TABLE): both REPS models.
type Clearer interface {
	Stepper
	ClearTable()
}

var (
	_ Clearer = (*Model)(nil)
	_ Clearer = (*ConfModel)(nil)
)

// Pipeline is the cycle-level wrapper shared by both REPS blocks: the
// pipelined shell of docs/pipeline.md; see package golden/pipe.
type Pipeline = pipe.Pipeline[Event, Result]

// NewPipeline returns an empty pipeline of a datapath of depth stages
// around s. s is used as is: it is not reset.
func NewPipeline(s Stepper, depth int) *Pipeline { return pipe.New(s, depth) }

// ConnKey is the event's connection as the RTL's hazard unit compares it.
func (m *Model) ConnKey(e *Event) uint64 { return uint64(e.Conn & mask32(m.p.ConnW)) }

// ConnKey is the event's connection as the RTL's hazard unit compares it.
func (m *ConfModel) ConnKey(e *Event) uint64 { return uint64(e.Conn & mask32(m.p.ConnW)) }
