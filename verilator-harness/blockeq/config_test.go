package blockeq

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
)

// configWith is the embedded default configuration's network and
// hardware, with hardware attributes set (config.DefaultHead), and the
// blocks named in blockAttrs, each with the attributes its body sets: a test
// here sets a block's attributes as a user does, by name in HCL
// (docs/config.md), and needs no block's package.
func configWith(t *testing.T, hardware map[string]uint64, blockAttrs map[string]string) blocks.Config {
	t.Helper()
	var b strings.Builder
	b.WriteString(config.DefaultHead(hardware))
	names := make([]string, 0, len(blockAttrs))
	for name := range blockAttrs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(&b, "block %q {\n%s\n}\n", name, blockAttrs[name])
	}
	r, err := config.Load("test.hcl", []byte(b.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return r.Config
}
