package blockeq

import "fmt"

// vectorsTakeNoSlots refuses vectors for a block with wait slots: a
// vector file states the plain shell's cycle contract (latency, credits),
// which the slots change.
func vectorsTakeNoSlots(block string, slots int) error {
	if slots > 0 {
		return fmt.Errorf("blockeq: block %s with wait_slots = %d: the vector files state the plain shell's cycle contract (latency, credits), which the waiting slots change; use nicgen equiv", block, slots)
	}
	return nil
}
