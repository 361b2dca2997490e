package smartt

import "github.com/nicgen/nicgen/golden/pipe"

// Pipeline is the cycle-level wrapper of the block: the pipelined shell of
// docs/pipeline.md that every block shares; see package golden/pipe.
type Pipeline = pipe.Pipeline[Event, Result]

// NewPipeline returns an empty pipeline of a datapath of depth stages
// around s; s is used as is.
func NewPipeline(s Stepper, depth int) *Pipeline { return pipe.New(s, depth) }

// ConnKey is the event's connection as the RTL's hazard unit compares it.
func (m *Model) ConnKey(e *Event) uint64 { return uint64(e.Conn) & (uint64(1)<<m.p.ConnW - 1) }
