package blockeq

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
)

// configWith is the embedded default configuration's network and
// hardware, with hardware attributes set (name to value), and the blocks
// named in blockAttrs, each with the attributes its body sets: a test
// here sets a block's attributes as a user does, by name in HCL
// (docs/config.md), and needs no block's package.
func configWith(t *testing.T, hardware map[string]int, blockAttrs map[string]string) blocks.Config {
	t.Helper()
	src := string(config.DefaultSource())
	head := src[:strings.Index(src, "\nblock ")+1]
	names := make([]string, 0, len(hardware))
	for name := range hardware {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		v := hardware[name]
		if set := regexp.MustCompile(`(?m)^(  ` + name + `\s*=\s*)\d+`); set.MatchString(head) {
			head = set.ReplaceAllString(head, "${1}"+fmt.Sprint(v))
			continue
		}
		at := strings.Index(head, "hardware {\n")
		if at < 0 {
			t.Fatal("the default configuration has no hardware block")
		}
		at += len("hardware {\n")
		head = head[:at] + fmt.Sprintf("  %s = %d\n", name, v) + head[at:]
	}
	var b strings.Builder
	b.WriteString(head)
	names = names[:0]
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
