package golden_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/nicgen/nicgen"

// TestGoldenIsIndependent fails if any package under golden/ (tests
// included) depends on a package of this module outside golden/, in
// particular hdlgen or blocks: a golden model that shares code with the
// generator would prove nothing about it.
func TestGoldenIsIndependent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	out, err := exec.Command("go", "list", "-deps", "-test", module+"/golden/...").Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list: %v\n%s", err, msg)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list returned no packages")
	}
	for _, dep := range deps {
		// Test variants print as "pkg [pkg.test]", test binaries as
		// "pkg.test" and external tests as "pkg_test": judge the package.
		dep = strings.Trim(dep, "[]")
		dep = strings.TrimSuffix(dep, ".test")
		dep = strings.TrimSuffix(dep, "_test")
		if dep != module && !strings.HasPrefix(dep, module+"/") {
			continue // standard library or a third-party module
		}
		if strings.HasPrefix(dep, module+"/hdlgen") || strings.HasPrefix(dep, module+"/blocks") {
			t.Errorf("golden depends on %s (hdlgen/blocks)", dep)
		} else if dep != module+"/golden" && !strings.HasPrefix(dep, module+"/golden/") {
			t.Errorf("golden depends on %s, outside golden/", dep)
		}
	}
}
