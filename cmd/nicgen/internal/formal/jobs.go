package formal

import (
	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/block"
)

// Job is one proof (package block: each block declares its own).
type Job = block.FormalJob

// Jobs are the proofs `make formal` runs: every registered block's, in
// the order of the block names.
func Jobs() []Job {
	var jobs []Job
	for _, b := range blocks.All() {
		jobs = append(jobs, b.Formal()...)
	}
	return jobs
}
