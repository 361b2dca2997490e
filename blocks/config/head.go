package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// DefaultHead is the embedded default configuration's network and
// hardware sections, with the hardware attributes of set written in (a
// value replaces the default's, an attribute the default leaves out is
// added), for a file that goes on to name its own blocks: a test or an
// example starts from the papers' network this way instead of copying it.
func DefaultHead(set map[string]uint64) string {
	src := string(defaultSrc)
	start, end := strings.Index(src, "network {"), strings.Index(src, "\nblock ")
	if start < 0 || end < start {
		start, end = 0, len(src)
	}
	head := src[start:end]
	head = head[:strings.LastIndex(head, "}")+1] + "\n"
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		re := regexp.MustCompile(`(?m)^(\s*` + regexp.QuoteMeta(name) + `\s*=\s*)\d+`)
		if re.MatchString(head) {
			head = re.ReplaceAllString(head, "${1}"+fmt.Sprint(set[name]))
			continue
		}
		at := strings.Index(head, "hardware {\n")
		if at < 0 {
			head += "hardware {\n}\n"
			at = strings.Index(head, "hardware {\n")
		}
		at += len("hardware {\n")
		head = head[:at] + fmt.Sprintf("  %s = %d\n", name, set[name]) + head[at:]
	}
	return head
}
