package smartt

import (
	"testing"

	"github.com/nicgen/nicgen/blocks/internal/paramtest"
)

// A golden parameter the converter forgets stays zero; at the default
// configuration a zero may happen to be right, so the converter is fed
// parameters whose every field is set (Variant NSCC: Conf is the zero).
func TestGoldenParamsComplete(t *testing.T) {
	var p Params
	paramtest.Fill(&p)
	p.Variant = NSCC
	if u := paramtest.Unset(p.Golden()); len(u) > 0 {
		t.Errorf("Params.Golden leaves %v unset", u)
	}
}
