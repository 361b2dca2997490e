package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks"
)

// The embedded default is the papers' setting: exactly blocks.DefaultConfig,
// so the committed Verilog does not change with the loader.
func TestDefaultIsBlocksDefault(t *testing.T) {
	r, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if want := blocks.DefaultConfig(); !reflect.DeepEqual(r.Config, want) {
		t.Errorf("embedded default resolves to\n%+v\nwant blocks.DefaultConfig()\n%+v", r.Config, want)
	}
	if !reflect.DeepEqual(r.Blocks, blocks.Names()) {
		t.Errorf("blocks %v, want %v", r.Blocks, blocks.Names())
	}
	if !r.Embedded {
		t.Error("the embedded default is not marked embedded")
	}
}

// Every block has a schema and every schema a block.
func TestSchemaCoversEveryBlock(t *testing.T) {
	if got, want := BlockNames(), blocks.Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("config.BlockNames() = %v, blocks.Names() = %v", got, want)
	}
}

const net100g = `
network {
  link_gbps   = 100
  mtu         = 4096
  base_rtt_ns = 12000
}
hardware {
  clock_mhz   = 200
  connections = 1024
}
`

// Derived values are computed from the network, never typed.
func TestDerivedFromTheNetwork(t *testing.T) {
	r, err := Load("100g.hcl", []byte(net100g+`block "reps" {}
block "reps_conf" { num_entropies = 16 }
block "smartt" {}
block "nscc" {}
`))
	if err != nil {
		t.Fatal(err)
	}
	c := r.Config
	// read by attribute name, as config show prints them
	attr := func(section, label, name string) string {
		sec, ok := r.Section(section, label)
		if !ok {
			t.Fatalf("no %s section %q", section, label)
		}
		return settingOf(sec, name).Value
	}
	nsccConns := -1
	if b, err := blocks.Lookup("nscc"); err == nil {
		nsccConns, _ = b.NumConn(c)
	}
	for _, x := range []struct {
		what      string
		got, want string
	}{
		{"reps explore_init = ceil(150000 / 4096)", attr("block", "reps", "explore_init"), "37"},
		{"reps explore_after_freeze", attr("block", "reps", "explore_after_freeze"), "37"},
		{"reps_conf explore_init = min(37, 16)", attr("block", "reps_conf", "explore_init"), "16"},
		{"reps_conf ev_width", attr("block", "reps_conf", "ev_width"), "16"},
		{"smartt byte_width = bits(187500)", attr("block", "smartt", "byte_width"), "18"},
		{"nscc byte_width = bits(225000)", attr("block", "nscc", "byte_width"), "18"},
		{"smartt rtt_width = max(20, bits(36000))", attr("block", "smartt", "rtt_width"), "20"},
		{"conn_width = max(16, bits(1023))", attr("hardware", "", "conn_width"), "16"},
		{"nscc's connections", fmt.Sprint(nsccConns), "1024"},
		{"smartt f", attr("block", "smartt", "f"), "6"},
		{"nscc f", attr("block", "nscc", "f"), "3"},
	} {
		if x.got != x.want {
			t.Errorf("%s: %s, want %s", x.what, x.got, x.want)
		}
	}
	if c.ClockMHz != 200 || c.Name != "100g (100 Gb/s, 4 KiB MTU, 12 us base RTT, 1024 connections, 200 MHz)" {
		t.Errorf("clock %v, name %q", c.ClockMHz, c.Name)
	}
	net, _ := r.Section("network", "")
	if got := settingOf(net, "bdp_packets"); got.Value != "37" || !got.Info || got.Source != SourceDerived {
		t.Errorf("bdp_packets: %+v", got)
	}
}

func settingOf(s Section, name string) Setting {
	for _, st := range s.Settings {
		if st.Name == name {
			return st
		}
	}
	return Setting{}
}

// Where a value comes from: the file with its position, a default with its
// reason, or a derivation with its inputs.
func TestProvenance(t *testing.T) {
	r, err := Load("p.hcl", []byte(net100g+`block "reps" {
  entries = 16
}
`))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := r.Section("block", "reps")
	for _, c := range []struct {
		name string
		want Setting
	}{
		{"entries", Setting{Name: "entries", Value: "16", Source: SourceSet, Pos: Pos{File: "p.hcl", Line: 12, Col: 13}}},
		{"head_width", Setting{Name: "head_width", Value: "8", Source: SourceDerived, Why: "max(8 as S4 Table 1, bits to hold index entries - 1 = 15)"}},
		{"count_width", Setting{Name: "count_width", Value: "8", Source: SourceDerived, Why: "max(8 as S4 Table 1, bits to hold entries = 16)"}},
		{"freeze_time", Setting{Name: "freeze_time", Value: "10000000", Source: SourceDefault, Why: "10 ms in 1 ns ticks"}},
	} {
		if got := settingOf(s, c.name); got != c.want {
			t.Errorf("%s: %+v\nwant %+v", c.name, got, c.want)
		}
	}
	if r.Embedded || len(r.SHA256) != 64 || r.File != "p.hcl" {
		t.Errorf("embedded %v, sha256 %q, file %q", r.Embedded, r.SHA256, r.File)
	}
}

// A network so large that the contract's 6 fraction bits do not fit gets
// the largest f that does, and says why.
func TestFractionBitsLoweredForLargeNetworks(t *testing.T) {
	r, err := Load("big.hcl", []byte(`
network {
  link_gbps   = 3200
  mtu         = 9000
  base_rtt_ns = 200000
}
hardware {
  clock_mhz   = 500
  connections = 4096
}
block "smartt" {}
`))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := r.Section("block", "smartt")
	f := settingOf(s, "f")
	if n, err := strconv.Atoi(f.Value); err != nil || n >= 6 || f.Source != SourceDerived || !strings.HasPrefix(f.Why, "lowered from 6: ") {
		t.Errorf("f = %s: %+v", f.Value, f)
	}
}

func TestErrorsAreSortedAndEveryOneIsReported(t *testing.T) {
	_, err := Load("e.hcl", []byte(`
block "reps" {
  entries = 0
}
network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
  colour      = "blue"
}
hardware {
  clock_mhz   = 250
  connections = 4096
}
`))
	es, ok := err.(Errors)
	if !ok || len(es) != 2 {
		t.Fatalf("%T %v", err, err)
	}
	if es[0].Error() != "e.hcl:3:13: entries = 0 is out of range: must be 1..64" ||
		es[1].Error() != `e.hcl:9:3: unknown attribute "colour" in network (attributes: link_gbps, mtu, base_rtt_ns, target_rtt_factor)` {
		t.Errorf("%v", err)
	}
}

func TestNearest(t *testing.T) {
	names := []string{"entries", "ev_width", "head_width", "count_width", "explore_init"}
	for _, c := range []struct{ in, want string }{
		{"entires", "entries"}, {"Entries", "entries"}, {"headwidth", "head_width"}, {"explore_int", "explore_init"},
		{"quantum_flux", ""}, {"e", ""},
	} {
		if got := Nearest(c.in, names); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
