package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The runtime objects shared between models are found in Vtop_classes.mk
// as both Verilator lines write it: 5.006 indents with a tab, 5.048 with
// two spaces. Missing them silently rebuilds the runtime for every model.
func TestGlobalObjects(t *testing.T) {
	want := []string{"verilated.o", "verilated_threads.o"}
	for name, mk := range map[string]string{
		"5.006": "VM_GLOBAL_FAST += \\\n\tverilated \\\n\tverilated_threads \\\n\n# Global classes, need linked once per executable\nVM_GLOBAL_SLOW += \\\n\n",
		"5.048": "VM_SUPPORT_SLOW += \\\n  Vtop__Syms__Slow \\\nVM_GLOBAL_FAST += \\\n  verilated \\\n  verilated_threads \\\nVM_GLOBAL_SLOW += \\\n\n",
	} {
		if got := globalObjects(mk); !slices.Equal(got, want) {
			t.Errorf("%s: globalObjects = %q, want %q", name, got, want)
		}
	}
}

// The slow files, and only they, are compiled without optimisation: each
// listed in Vtop_classes.mk's slow lists (5.006's tabs and 5.048's
// spaces) is enclosed in the pragmas, the fast ones are left as written.
func TestColdAtO0(t *testing.T) {
	for name, mk := range map[string]string{
		"5.006": "VM_CLASSES_FAST += \\\n\tVtop \\\n\tVtop_fast \\\n\n# slow\nVM_CLASSES_SLOW += \\\n\tVtop_slow \\\n\nVM_SUPPORT_FAST += \\\n\nVM_SUPPORT_SLOW += \\\n\tVtop__Syms \\\n\nVM_GLOBAL_FAST += \\\n\tverilated \\\n",
		"5.048": "VM_CLASSES_FAST += \\\n  Vtop \\\n  Vtop_fast \\\nVM_CLASSES_SLOW += \\\n  Vtop_slow \\\nVM_SUPPORT_FAST += \\\nVM_SUPPORT_SLOW += \\\n  Vtop__Syms \\\nVM_GLOBAL_FAST += \\\n  verilated \\\n",
	} {
		t.Run(name, func(t *testing.T) {
			obj := t.TempDir()
			files := []string{"Vtop", "Vtop_fast", "Vtop_slow", "Vtop__Syms", "verilated"}
			for _, f := range files {
				if err := os.WriteFile(filepath.Join(obj, f+".cpp"), []byte("int "+f+";\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(obj, "Vtop_classes.mk"), []byte(mk), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := coldAtO0(obj); err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				b, err := os.ReadFile(filepath.Join(obj, f+".cpp"))
				if err != nil {
					t.Fatal(err)
				}
				want := "int " + f + ";\n"
				if f == "Vtop_slow" || f == "Vtop__Syms" {
					want = coldPrologue + want + coldEpilogue
				}
				if string(b) != want {
					t.Errorf("%s.cpp:\n%s\nwant:\n%s", f, b, want)
				}
			}
		})
	}
	if err := coldAtO0(t.TempDir()); err == nil {
		t.Error("no Vtop_classes.mk, and no error")
	}
}

// The direct call of the root eval is taken for the eval_step that
// Verilator 5.006 and 5.048 write for a one-thread, timing-free model
// (texts copied from their output for srp_tx), and refused for one
// with work it does not know, with timing, or with threads.
func TestDirectEval(t *testing.T) {
	const tail = `bool Vtop::eventsPending() { return false; }
unsigned Vtop::threads() const { return 1; }
`
	v5006 := `void Vtop::eval_step() {
    VL_DEBUG_IF(VL_DBG_MSGF("+++++TOP Evaluate Vtop::eval_step\n"); );
#ifdef VL_DEBUG
    // Debug assertions
    Vtop___024root___eval_debug_assertions(&(vlSymsp->TOP));
#endif  // VL_DEBUG
    if (VL_UNLIKELY(!vlSymsp->__Vm_didInit)) {
        vlSymsp->__Vm_didInit = true;
        VL_DEBUG_IF(VL_DBG_MSGF("+ Initial\n"););
        Vtop___024root___eval_static(&(vlSymsp->TOP));
        Vtop___024root___eval_initial(&(vlSymsp->TOP));
        Vtop___024root___eval_settle(&(vlSymsp->TOP));
    }
    // MTask 0 start
    VL_DEBUG_IF(VL_DBG_MSGF("MTask0 starting\n"););
    Verilated::mtaskId(0);
    VL_DEBUG_IF(VL_DBG_MSGF("+ Eval\n"););
    Vtop___024root___eval(&(vlSymsp->TOP));
    // Evaluate cleanup
    Verilated::endOfThreadMTask(vlSymsp->__Vm_evalMsgQp);
    Verilated::endOfEval(vlSymsp->__Vm_evalMsgQp);
}
`
	v5048 := `void Vtop::eval_step() {
    VL_DEBUG_IF(VL_DBG_MSGF("+++++TOP Evaluate Vtop::eval_step\n"); );
#ifdef VL_DEBUG
    // Debug assertions
    Vtop___024root___eval_debug_assertions(&(vlSymsp->TOP));
#endif  // VL_DEBUG
    vlSymsp->__Vm_deleter.deleteAll();
    if (VL_UNLIKELY(!vlSymsp->__Vm_didInit)) {
        VL_DEBUG_IF(VL_DBG_MSGF("+ Initial\n"););
        Vtop___024root___eval_static(&(vlSymsp->TOP));
        Vtop___024root___eval_initial(&(vlSymsp->TOP));
        Vtop___024root___eval_settle(&(vlSymsp->TOP));
        vlSymsp->__Vm_didInit = true;
    }
    VL_DEBUG_IF(VL_DBG_MSGF("+ Eval\n"););
    Vtop___024root___eval(&(vlSymsp->TOP));
    // Evaluate cleanup
    Verilated::endOfEval(vlSymsp->__Vm_evalMsgQp);
}
`
	unknown := strings.Replace(v5048, "    // Evaluate cleanup\n", "    vlSymsp->__Vm_somethingNew();\n", 1)
	for _, c := range []struct {
		name, text string
		want       bool
	}{
		{"5.006", v5006 + tail, true},
		{"5.048", v5048 + tail, true},
		{"unknown statement", unknown + tail, false},
		{"timing", v5048 + strings.Replace(tail, "return false;", "return vlSymsp->TOP.__VdlySched.awaitingCurrentTime();", 1), false},
		{"threads", v5006 + strings.Replace(tail, "return 1;", "return 2;", 1), false},
		{"no eval_step", tail, false},
	} {
		if got := directEval(c.text); got != c.want {
			t.Errorf("%s: directEval = %v, want %v", c.name, got, c.want)
		}
	}
}

// headerCommand takes the wrapper's compile command from make -n (as
// Verilator 5.006's and 5.048's makefiles print it) without its input,
// output and dependency file, and finds verilated.h on its include path.
func TestHeaderCommand(t *testing.T) {
	inc := t.TempDir()
	if err := os.WriteFile(filepath.Join(inc, "verilated.h"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, dry := range map[string]string{
		"5.006": "g++  -I.  -MMD -I" + inc + " -I" + inc + "/vltstd -DVM_TRACE=0 -fPIC   -O1 -c -o nicgen_harness.o ../src/nicgen_harness.cpp\n",
		"5.048": "make: Entering directory '/x'\nc++  -I.  -MMD -I" + inc + " -DVERILATOR=1 -fPIC   -O3  -c -o nicgen_harness.o ../src/nicgen_harness.cpp\n",
	} {
		args, header, err := headerCommand(dry)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if header != filepath.Join(inc, "verilated.h") {
			t.Errorf("%s: header %q", name, header)
		}
		for _, a := range args {
			if a == "-c" || a == "-MMD" || a == "-o" || strings.Contains(a, "nicgen_harness") {
				t.Errorf("%s: %q kept in %q", name, a, args)
			}
		}
		if args[0] != "g++" && args[0] != "c++" || !slices.Contains(args, "-fPIC") {
			t.Errorf("%s: args %q", name, args)
		}
	}
	if _, _, err := headerCommand("g++ -I. -c -o other.o other.cpp\n"); err == nil {
		t.Error("a dry run without the wrapper's command was accepted")
	}
}

// A model build leaves a precompiled verilated.h in the cache that g++
// really uses for a file compiled with the model's flags (-H marks a used
// precompiled header with "!"), rather than silently reading the text.
func TestPrecompiledHeaderUsed(t *testing.T) {
	cache := t.TempDir()
	buildAcc(t, BuildOptions{CacheDir: cache})
	flags, err := filepath.Glob(filepath.Join(cache, "pch", "*", "flags.txt"))
	if err != nil || len(flags) != 1 {
		t.Fatalf("want one precompiled header in the cache, found %v (%v)", flags, err)
	}
	b, err := os.ReadFile(flags[0])
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Fields(string(b))
	dir := filepath.Dir(flags[0])
	src := filepath.Join(t.TempDir(), "use.cpp")
	if err := os.WriteFile(src, []byte("#include \"verilated.h\"\nint f() { return 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(args[0], append(args[1:], "-H", "-include", filepath.Join(dir, "verilated.h"), "-c", "-o", src+".o", src)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := "! " + filepath.Join(dir, "verilated.h.gch"); !strings.Contains(string(out), want) {
		t.Errorf("g++ did not use the precompiled header (want %q in -H's output):\n%.2000s", want, out)
	}
}

// From an empty cache, at the C++ levels make test and nicgen use and at
// Verilator's own default, the model builds with the precompiled header
// and its runtime objects without it (g++ 12 crashes on the runtime's
// files given a header precompiled at another level).
func TestFreshCacheAtEachLevel(t *testing.T) {
	for _, level := range []string{"-O1", "-O3", "-Os"} {
		t.Run(level, func(t *testing.T) {
			t.Setenv(optEnv, level)
			m := buildAcc(t, BuildOptions{CacheDir: t.TempDir()})
			b, err := os.ReadFile(m.Info().Log)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), "harness: precompiled header ") || strings.Contains(string(b), "unavailable") {
				t.Errorf("the build used no precompiled header:\n%s", b)
			}
		})
	}
}
