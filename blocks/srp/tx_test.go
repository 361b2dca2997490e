package srp_test

import (
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/blocks/internal/paramtest"
	"github.com/nicgen/nicgen/blocks/srp"
	"github.com/nicgen/nicgen/hdlgen"
)

func TestTxGoldenParamsComplete(t *testing.T) {
	var p srp.TxParams
	paramtest.Fill(&p)
	if u := paramtest.Unset(p.Golden()); len(u) > 0 {
		t.Errorf("TxParams.Golden leaves %v unset", u)
	}
}

// n_min above n_max, a zero n_min and sequence numbers too narrow for two
// chunks are located errors.
func TestTxConfigErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"block \"srp_tx\" {\n  n_min = 20\n}\n", "ttw.hcl:12:11: srp_tx: n_min 20: want 1..n_max (16)"},
		{"block \"srp_tx\" {\n  n_min = 0\n}\n", "ttw.hcl:12:11: n_min = 0 is out of range"},
		{"block \"srp_tx\" {\n  seq_width = 4\n}\n", "ttw.hcl:12:15: srp_tx: 4-bit sequence numbers cannot tell two chunks of 16 apart"},
	} {
		_, err := config.Load("ttw.hcl", []byte(ipdNet+ipdHardware(32)+tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
}

// The same parameters give the same Verilog, byte for byte: srp_tx's
// results carry values whose balancing registers the shell adds while it
// places them (once in a map's order, so runs differed).
func TestTxVerilogDeterministic(t *testing.T) {
	emit := func() string {
		m, err := srp.Tx(srp.DefaultTxParams())
		if err != nil {
			t.Fatal(err)
		}
		d, err := hdlgen.Elaborate(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(hdlgen.Emit(d, hdlgen.EmitOptions{})["srp_tx.v"])
	}
	first := emit()
	for i := 0; i < 8; i++ {
		if emit() != first {
			t.Fatalf("run %d emitted different Verilog", i+2)
		}
	}
}
