package reps

import (
	"testing"

	"github.com/nicgen/nicgen/blocks/internal/paramtest"
)

// A golden parameter the converter forgets stays zero; at the default
// configuration a zero may happen to be right, so the converters are fed
// parameters whose every field is set.
func TestGoldenParamsComplete(t *testing.T) {
	var p Params
	paramtest.Fill(&p)
	if u := paramtest.Unset(p.Golden()); len(u) > 0 {
		t.Errorf("Params.Golden leaves %v unset", u)
	}
	var c ConfParams
	paramtest.Fill(&c)
	c.NumEntropies = 300 // EntW and ExploreW derive from it
	c.ExploreInit = 5
	if u := paramtest.Unset(c.Golden()); len(u) > 0 {
		t.Errorf("ConfParams.Golden leaves %v unset", u)
	}
}
