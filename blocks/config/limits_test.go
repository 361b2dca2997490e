package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hostile files end in a located error, never a crash or an exhausted
// memory: deep nesting, a huge file, an endless device, a binary file.
func TestLimits(t *testing.T) {
	deep := "name = " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + "\n"
	_, err := Load("deep.hcl", []byte(deep))
	if err == nil || err.Error() != "deep.hcl:1:72: brackets nested more than 64 deep" {
		t.Errorf("100,000 nested brackets: %v", err)
	}
	// brackets in strings and comments do not count
	ok := "# " + strings.Repeat("(", 100) + "\nname = \"" + strings.Repeat("[", 100) + "\"\n"
	if _, err := Load("ok.hcl", []byte(ok)); err != nil && strings.Contains(err.Error(), "nested") {
		t.Errorf("brackets in a comment or a string counted: %v", err)
	}

	big := make([]byte, MaxBytes+1)
	if _, err := Load("big.hcl", big); err == nil || !strings.Contains(err.Error(), "larger than 1024 KiB") {
		t.Errorf("a file over the limit: %v", err)
	}
	if _, err := LoadFile("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero:1:1: the configuration is larger than 1024 KiB") {
		t.Errorf("/dev/zero: %v", err)
	}
	if _, err := LoadFile(""); err == nil || !strings.Contains(err.Error(), "an empty file name") {
		t.Errorf("an empty name: %v", err)
	}
	if _, err := LoadFile(t.TempDir()); err == nil || !strings.Contains(err.Error(), "it is a folder") {
		t.Errorf("a folder: %v", err)
	}

	// a binary file: at most MaxErrors problems and a count of the rest
	bin := make([]byte, 4096)
	for i := range bin {
		bin[i] = byte(i*7 + i/13)
	}
	path := filepath.Join(t.TempDir(), "bin.hcl")
	os.WriteFile(path, bin, 0o644)
	_, err = LoadFile(path)
	if err == nil {
		t.Fatal("a binary file loaded")
	}
	es := err.(Errors)
	if len(es) > MaxErrors+1 {
		t.Errorf("%d problems printed, want at most %d and a count", len(es), MaxErrors+1)
	}
	if len(es) == MaxErrors+1 && !strings.Contains(es[MaxErrors].Msg, "more problems") {
		t.Errorf("the last line %q does not count the rest", es[MaxErrors].Msg)
	}
}

// Many problems of a well-formed file are capped too.
func TestErrorsCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("network {\n  link_gbps = 100\n  mtu = 4096\n  base_rtt_ns = 12000\n}\nhardware {\n  clock_mhz = 250\n  connections = 16\n}\nblock \"reps\" {\n")
	for i := 0; i < 50; i++ {
		b.WriteString("  nosuch" + strings.Repeat("x", i) + " = 1\n")
	}
	b.WriteString("}\n")
	_, err := Load("many.hcl", []byte(b.String()))
	es, ok := err.(Errors)
	if !ok || len(es) != MaxErrors+1 || es[MaxErrors].Msg != "... and 30 more problems (the first 20 are shown)" {
		t.Errorf("%d problems: %v", len(es), err)
	}
}
