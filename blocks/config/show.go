package config

import (
	"fmt"
	"strings"
)

// Show writes the resolved configuration as a configuration file: every
// attribute with its value, marked set (where the file writes it), default
// (why) or derived (from what), and the derived quantities that are not
// attributes as comments. Loading the output again gives the same blocks.
func (r *Resolved) Show() string {
	var b strings.Builder
	src := r.File
	if r.Embedded {
		src += " (embedded default)"
	}
	fmt.Fprintf(&b, "# %s\n# from %s, sha256 %s\n", r.Config.Name, src, r.SHA256[:16])
	b.WriteString("# Every value is marked: set (where the file writes it), default (why) or\n")
	b.WriteString("# derived (from what). This text is itself a configuration of the same build.\n")
	for _, s := range r.Sections {
		b.WriteString("\n")
		indent := ""
		switch s.Type {
		case "":
		case "block":
			fmt.Fprintf(&b, "block %q {\n", s.Label)
			indent = "  "
		default:
			fmt.Fprintf(&b, "%s {\n", s.Type)
			indent = "  "
		}
		nameW, valW := 0, 0
		for _, st := range s.Settings {
			if !st.Info {
				nameW, valW = max(nameW, len(st.Name)), max(valW, len(st.Value))
			}
		}
		for _, st := range s.Settings {
			if st.Info {
				continue
			}
			fmt.Fprintf(&b, "%s%-*s = %-*s  # %s\n", indent, nameW, st.Name, valW, st.Value, provenance(st))
		}
		var infos []Setting
		for _, st := range s.Settings {
			if st.Info {
				infos = append(infos, st)
			}
		}
		if len(infos) > 0 {
			fmt.Fprintf(&b, "%s# derived quantities:\n", indent)
			w, vw := 0, 0
			for _, st := range infos {
				w, vw = max(w, len(st.Name)), max(vw, len(st.Value))
			}
			for _, st := range infos {
				fmt.Fprintf(&b, "%s#   %-*s = %-*s  %s\n", indent, w, st.Name, vw, st.Value, st.Why)
			}
		}
		if s.Type != "" {
			b.WriteString("}\n")
		}
	}
	return b.String()
}

func provenance(st Setting) string {
	switch st.Source {
	case SourceSet:
		return "set at " + st.Pos.String()
	case SourceDefault:
		return "default: " + st.Why
	}
	return "derived: " + st.Why
}
