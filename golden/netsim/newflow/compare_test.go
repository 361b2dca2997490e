package newflow

import "testing"

// Compare runs the scene with 1RC, which drops speculative packets and
// delivers in order, and without, which drops none.
func TestCompare(t *testing.T) {
	c, err := Compare(Default(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if c.Weight != 2 || c.With.Weight != 2 || !c.With.InOrder || len(c.With.Dropped) == 0 || len(c.Without.Dropped) != 0 {
		t.Fatalf("%+v: with %+v, without %+v", c, c.With, c.Without)
	}
}
