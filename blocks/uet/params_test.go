package uet

import (
	"testing"

	"github.com/nicgen/nicgen/blocks/internal/paramtest"
	"github.com/nicgen/nicgen/blocks/smartt"
)

// A golden parameter the converter forgets stays zero; the converter is
// fed parameters whose every field is set (CC's Variant NSCC: Conf is the
// zero; the parts' own converters are checked in their packages).
func TestGoldenParamsComplete(t *testing.T) {
	var p Params
	paramtest.Fill(&p)
	p.CC.Variant = smartt.NSCC
	p.Conf.NumEntropies, p.Conf.ExploreInit = 300, 5 // its widths derive from them
	if u := paramtest.Unset(p.Golden()); len(u) > 0 {
		t.Errorf("Params.Golden leaves %v unset", u)
	}
}
