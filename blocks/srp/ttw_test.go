package srp_test

import (
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/blocks/internal/paramtest"
	"github.com/nicgen/nicgen/blocks/srp"
	gsrp "github.com/nicgen/nicgen/golden/srp"
)

func TestTTWGoldenParamsComplete(t *testing.T) {
	var p srp.TTWParams
	paramtest.Fill(&p)
	if u := paramtest.Unset(p.Golden()); len(u) > 0 {
		t.Errorf("TTWParams.Golden leaves %v unset", u)
	}
}

// ttw_mode chooses A-20's carrying of the wait; a deadline header takes
// the time's width by default, and a narrower one is a located error, as
// an unknown mode, a TTW of 0 and a TTW past the header.
func TestTTWConfig(t *testing.T) {
	r, err := config.Load("ttw.hcl", []byte(ipdNet+ipdHardware(32)+"block \"srp_ttw\" {\n  ttw_mode = \"deadline\"\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := srp.TTWOf(r.Config)
	if err != nil || p.Mode != gsrp.TTWDeadline || p.HdrW != 32 {
		t.Fatalf("deadline: %+v, %v", p, err)
	}
	for _, tc := range []struct{ src, want string }{
		{"block \"srp_ttw\" {\n  ttw_mode = \"absolute\"\n}\n", "ttw.hcl:12:14: ttw_mode = \"absolute\": want one of accumulated, per_hop, deadline"},
		{"block \"srp_ttw\" {\n  ttw_mode = \"deadline\"\n  header_width = 16\n}\n", "ttw.hcl:13:18: srp_ttw: a deadline header is a time: 16 bits, want the time's 32"},
		{"block \"srp_ttw\" {\n  ttw = 0\n}\n", "ttw.hcl:12:9: ttw = 0 is out of range"},
		{"block \"srp_ttw\" {\n  ttw = 70000\n}\n", "ttw.hcl:12:9: srp_ttw: TTW 70000 does not fit below 2^16"},
	} {
		_, err := config.Load("ttw.hcl", []byte(ipdNet+ipdHardware(32)+tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
}
