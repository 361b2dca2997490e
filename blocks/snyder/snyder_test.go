package snyder_test

import (
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/blocks/internal/paramtest"
	"github.com/nicgen/nicgen/blocks/snyder"
	gsnyder "github.com/nicgen/nicgen/golden/snyder"
	"github.com/nicgen/nicgen/hdlgen"
)

func TestGoldenParamsComplete(t *testing.T) {
	var s snyder.SwiftParams
	paramtest.Fill(&s)
	s.VAI = gsnyder.DefaultSwiftVAIFx(7000) // Fill leaves pointers nil
	if u := paramtest.Unset(s.Golden()); len(u) > 0 {
		t.Errorf("SwiftParams.Golden leaves %v unset", u)
	}
	var h snyder.HPCCParams
	paramtest.Fill(&h)
	h.VAI = gsnyder.DefaultHPCCVAIFx()
	if u := paramtest.Unset(h.Golden()); len(u) > 0 {
		t.Errorf("HPCCParams.Golden leaves %v unset", u)
	}
}

const head = "network {\n  link_gbps = 100\n  mtu = 4096\n  base_rtt_ns = 12000\n}\nhardware {\n  clock_mhz = 200\n  connections = 64\n  time_width = 32\n}\n"

// The options switch the word's fields on and off: the documented bits
// per connection (docs/blocks/swift.md, docs/blocks/hpcc.md) for each
// combination, the depth within the shell's, and a bad value a located
// error.
func TestOptionsAndState(t *testing.T) {
	for _, tc := range []struct {
		src  string
		bits int
	}{
		{"block \"swift\" {}\n", 58},
		{"block \"swift\" {\n  sampling_frequency = 30\n}\n", 57},
		{"block \"swift\" {\n  sampling_frequency = 30\n  vai = true\n  always_ai = true\n}\n", 177},
		{"block \"hpcc\" {}\n", 170},
		{"block \"hpcc\" {\n  random_feedback = true\n}\n", 196},
		{"block \"hpcc\" {\n  sampling_frequency = 30\n  random_feedback = true\n  vai = true\n}\n", 292},
	} {
		r, err := config.Load("s.hcl", []byte(head+tc.src))
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		var bits, depth int
		if p, err := snyder.SwiftOf(r.Config); err == nil {
			bits, depth = snyder.SwiftWordLayout(p).Width(), p.Depth
		} else if p, err := snyder.HPCCOf(r.Config); err == nil {
			bits, depth = snyder.HPCCWordLayout(p).Width(), p.Depth
		} else {
			t.Fatalf("%q: %v", tc.src, err)
		}
		if bits != tc.bits || depth < 1 || depth > connpipe.MaxDepth {
			t.Errorf("%q: %d bits, depth %d; want %d bits", tc.src, bits, depth, tc.bits)
		}
	}
	for _, tc := range []struct{ src, want string }{
		{"block \"swift\" {\n  frac_width = 15\n}\n", "s.hcl:12:16: frac_width = 15 is odd"},
		{"block \"swift\" {\n  min_cwnd = 0.000001\n}\n", "s.hcl:12:14: min_cwnd rounds to 0"},
		{"block \"hpcc\" {\n  eta = 0.000001\n}\n", "s.hcl:12:9: eta = 1e-06 is out of range"},
		{"block \"hpcc\" {\n  lfsr_seed = 0\n}\n", "s.hcl:12:15: lfsr_seed = 0 is out of range"},
		{"block \"hpcc\" {\n  pipeline_depth = 99\n}\n", "s.hcl:12:20: pipeline_depth = 99"},
	} {
		_, err := config.Load("s.hcl", []byte(head+tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
}

// always_ai follows S3:L1026 unless the file sets it: on with VAI or SF,
// off without either, and a written value wins.
func TestAlwaysAIFollowsS3(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"", false},
		{"vai = true", true},
		{"sampling_frequency = 30", true},
		{"sampling_frequency = 30\n  vai = true", true},
		{"vai = true\n  always_ai = false", false},
		{"always_ai = true", true},
	} {
		r, err := config.Load("s.hcl", []byte(head+"block \"swift\" {\n  "+tc.src+"\n}\n"))
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		p, err := snyder.SwiftOf(r.Config)
		if err != nil {
			t.Fatal(err)
		}
		if p.AlwaysAI != tc.want {
			t.Errorf("%q: always_ai %v, want %v", tc.src, p.AlwaysAI, tc.want)
		}
	}
}

// The same parameters give the same Verilog, byte for byte, and a
// shallower pipeline keeps the first cuts.
func TestVerilogDeterministic(t *testing.T) {
	emit := func(m *hdlgen.Module, err error, file string) string {
		if err != nil {
			t.Fatal(err)
		}
		d, err := hdlgen.Elaborate(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(hdlgen.Emit(d, hdlgen.EmitOptions{})[file])
	}
	sw := snyder.DefaultSwiftParams()
	sw.SF, sw.AlwaysAI, sw.VAI = 30, true, gsnyder.DefaultSwiftVAIFx(7000)
	hp := snyder.DefaultHPCCParams()
	hp.RandomFeedback, hp.VAI = true, gsnyder.DefaultHPCCVAIFx()
	emitS := func(p snyder.SwiftParams) string { m, err := snyder.Swift(p); return emit(m, err, "swift.v") }
	emitH := func(p snyder.HPCCParams) string { m, err := snyder.HPCC(p); return emit(m, err, "hpcc.v") }
	first := [2]string{emitS(sw), emitH(hp)}
	for i := 0; i < 3; i++ {
		if emitS(sw) != first[0] || emitH(hp) != first[1] {
			t.Fatalf("run %d emitted different Verilog", i+2)
		}
	}
	sw.Depth = 3
	if v := emitS(sw); v == first[0] || !strings.Contains(v, "s3_") {
		t.Fatal("depth 3 emitted the same Verilog, or no third stage")
	}
}
