package hdlgen

import (
	"fmt"
	"sort"
	"strings"
)

// Error is one problem found while building or checking a design. Loc is the
// Go line of the block that created the offending object.
type Error struct {
	Loc    Loc
	Pass   string
	Module string
	Msg    string
}

func (e Error) Error() string {
	return fmt.Sprintf("%s: %s: module %s: %s", e.Loc, e.Pass, e.Module, e.Msg)
}

// Errors is the list of problems of a design, sorted by location.
type Errors []Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

func (es Errors) sorted() Errors {
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.Loc.File != b.Loc.File {
			return a.Loc.File < b.Loc.File
		}
		if a.Loc.Line != b.Loc.Line {
			return a.Loc.Line < b.Loc.Line
		}
		return a.Msg < b.Msg
	})
	return es
}
