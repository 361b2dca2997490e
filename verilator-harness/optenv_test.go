package harness

import (
	"slices"
	"strings"
	"testing"
)

// $NICGEN_VERILATOR_OPT sets the model's C++ level, and anything but a
// level is an error that names the variable.
func TestOptEnv(t *testing.T) {
	t.Setenv(optEnv, "")
	if !slices.Contains(makeArgs(), "OPT_FAST=-O3") || checkOptEnv() != nil {
		t.Errorf("unset: %v, %v", makeArgs(), checkOptEnv())
	}
	t.Setenv(optEnv, "-O1")
	if !slices.Contains(makeArgs(), "OPT_FAST=-O1") || checkOptEnv() != nil {
		t.Errorf("-O1: %v, %v", makeArgs(), checkOptEnv())
	}
	t.Setenv(optEnv, "fast")
	if err := checkOptEnv(); err == nil || !strings.Contains(err.Error(), "NICGEN_VERILATOR_OPT=\"fast\"") {
		t.Errorf("fast: %v", err)
	}
}
