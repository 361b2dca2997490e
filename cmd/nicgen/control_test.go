package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/control"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/eda"
	"github.com/nicgen/nicgen/hdlgen"
)

// TestControlWrappersLint builds the control wrapper of every block at the
// default configuration and lints it with Verilator -Wall (no waivers) and
// Icarus; Yosys finds no latch in the wrapper of the smallest block (the
// wrapper is the same logic for every block, and each block's own logic is
// checked by generate --check).
func TestControlWrappersLint(t *testing.T) {
	t.Parallel()
	c := blocks.DefaultConfig()
	c.Control = true
	for _, b := range blocks.All() {
		t.Run(b.Name, func(t *testing.T) {
			m, _, err := b.BuildControl(c)
			if err != nil {
				t.Fatal(err)
			}
			d, err := hdlgen.Elaborate(m)
			if err != nil {
				t.Fatal(err)
			}
			files := hdlgen.Emit(d, hdlgen.EmitOptions{})
			if err := eda.Lint(context.Background(), d.Top.Name(), files); err != nil {
				t.Fatal(err)
			}
			if b.Name == "lru_arb" {
				if err := eda.NoLatches(context.Background(), d.Top.Name(), files); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestControlHeader compiles every block's generated C header with gcc
// -Wall -Werror -pedantic and checks that the program's view of it is the
// register map: every register, counter, bit and word field.
func TestControlHeader(t *testing.T) {
	t.Parallel()
	c := blocks.DefaultConfig()
	c.Control = true
	for _, b := range blocks.All() {
		t.Run(b.Name, func(t *testing.T) {
			_, mp, err := b.BuildControl(c)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			name := control.Name(b.Name)
			if err := os.WriteFile(filepath.Join(dir, name+".h"), mp.Header([]string{"test"}), 0o644); err != nil {
				t.Fatal(err)
			}
			pre := strings.ToUpper(name) + "_"
			want := map[string]uint64{
				"ID_VALUE": control.Magic, "WORD_BITS": uint64(mp.WordBits), "WORD_REGS": uint64((mp.WordBits + 31) / 32),
				"NUM_CONN": uint64(mp.NumConn), "NUM_COUNTERS": uint64(len(mp.Counters)), "ADDR_BITS": uint64(mp.AddrW),
			}
			for _, r := range mp.Regs {
				if !strings.HasPrefix(r.Name, "WORD_DATA_") {
					want["REG_"+r.Name] = uint64(r.Offset)
				}
			}
			for i := 0; i < (mp.WordBits+31)/32; i++ {
				want[fmt.Sprintf("REG_WORD_DATA(%d)", i)] = uint64(control.OffWordData + 4*i)
			}
			for _, st := range mp.Settings {
				want["PARAM_"+st.Name+"_DEFAULT"], want["PARAM_"+st.Name+"_MIN"], want["PARAM_"+st.Name+"_MAX"] = st.Default, st.Min, st.Max
			}
			for _, bit := range mp.Bits {
				want[bit.Reg+"_"+bit.Name] = 1 << uint(bit.Bit)
			}
			for _, m := range mp.Macros {
				if len(m.Examples) == 0 {
					t.Errorf("helper %s has no example", m.Name)
				}
				for _, e := range m.Examples {
					want[e.Call] = e.Value
				}
			}
			lo := 0
			for _, f := range mp.Word {
				n := strings.ToUpper(control.Ident(f.Name))
				want["WORD_"+n+"_LSB"], want["WORD_"+n+"_BITS"] = uint64(f.Lo), uint64(f.Width)
				if f.Lo != lo {
					t.Errorf("word field %s at bit %d, want %d (the fields tile the word)", f.Name, f.Lo, lo)
				}
				lo += f.Width
			}
			if lo != mp.WordBits {
				t.Errorf("the word's fields cover %d bits of %d", lo, mp.WordBits)
			}
			var src strings.Builder
			fmt.Fprintf(&src, "#include <stdio.h>\n#include \"%s.h\"\nint main(void) {\n", name)
			var keys []string
			for k := range want {
				keys = append(keys, k)
			}
			for _, k := range keys {
				fmt.Fprintf(&src, "    printf(\"%%s %%lu\\n\", \"%s\", (unsigned long)(%s%s));\n", k, pre, k)
			}
			src.WriteString("    return 0;\n}\n")
			if err := os.WriteFile(filepath.Join(dir, "main.c"), []byte(src.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command("gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-o", filepath.Join(dir, "main"), filepath.Join(dir, "main.c")).CombinedOutput()
			if err != nil {
				t.Fatalf("gcc: %v\n%s", err, out)
			}
			out, err = exec.Command(filepath.Join(dir, "main")).Output()
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]uint64{}
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				k, v, _ := strings.Cut(l, " ")
				n, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					t.Fatalf("line %q", l)
				}
				got[k] = n
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s%s = %d, the map says %d", pre, k, got[k], v)
				}
			}
		})
	}
}
