package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
)

const configFlagHelp = "configuration file (HCL, docs/config.md); default: the embedded default (nicgen config default)"

// addConfigFlag gives a command the -c FILE flag.
func addConfigFlag(cmd *cobra.Command, path *string) {
	cmd.Flags().VarP(configFlag{path}, "config", "c", configFlagHelp)
}

// configFlag is -c FILE: an empty name (an unset $CFG) is a usage error,
// never the embedded default.
type configFlag struct{ p *string }

func (f configFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f configFlag) Set(v string) error {
	if v == "" {
		return errors.New("an empty file name (an unset variable?): name a configuration file, or leave out -c for the embedded default")
	}
	*f.p = v
	return nil
}

func (configFlag) Type() string { return "FILE" }

// loadConfig resolves -c FILE, or the embedded default without one. Any
// problem in the file is a usage error (exit status 2), reported with its
// file:line:column, before anything is written.
func loadConfig(path string) (*config.Resolved, error) {
	var r *config.Resolved
	var err error
	if path == "" {
		r, err = config.Default(config.WithCheck(goldenAccepts))
	} else {
		r, err = config.LoadFile(path, config.WithCheck(goldenAccepts))
	}
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	return r, nil
}

// goldenAccepts is the last check of a configuration: the golden model of
// each block must run it too, or sim and equiv could not.
func goldenAccepts(name string, cfg blocks.Config) error {
	b, err := blocks.Lookup(name)
	if err != nil {
		return err
	}
	if _, err := b.Golden(cfg); err != nil {
		return fmt.Errorf("the golden model cannot run it: %s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return nil
}

// selectBlocks picks blocks of the configuration by name: all of them
// when names is empty. A name outside the configuration is a usage error.
func selectBlocks(r *config.Resolved, names []string) ([]blocks.Block, error) {
	if len(names) == 0 {
		names = r.Blocks
	}
	var sel []blocks.Block
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] { // --blocks reps,reps is --blocks reps
			continue
		}
		seen[n] = true
		b, err := blocks.Lookup(n)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		if !r.Has(n) {
			return nil, usageErr("block %q is not in the configuration %s (its blocks: %s)", n, r.File, strings.Join(r.Blocks, ", "))
		}
		sel = append(sel, b)
	}
	return sel, nil
}

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show, check or print configurations",
		Long: `A configuration is one HCL file describing a NIC build: the network, the
hardware, and one block "NAME" { } per generated block with its options.
Everything not written is a documented default or derived from the network
(the BDP, the target RTT, gamma, the max window, widths, REPS exploration).
The reference is docs/config.md; examples are in docs/examples/.`,
		Example: "  nicgen config show -c docs/examples/400g.hcl\n  nicgen config default > my-nic.hcl",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newConfigShowCmd(), newConfigDefaultCmd(), newConfigCheckCmd())
	return cmd
}

func newConfigShowCmd() *cobra.Command {
	var path string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the resolved configuration, marking what is set, defaulted or derived",
		Long: `show resolves a configuration and prints every value of every block as a
configuration file: each value marked set (with the file:line:column that
writes it), default (and why) or derived (and from what), followed by the
derived quantities (BDP, target RTT, gamma, max window, widths) as comments.
The output is itself a configuration of the same build.`,
		Example: "  nicgen config show\n  nicgen config show -c docs/examples/100g-12us.hcl",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := loadConfig(path)
			if err != nil {
				return configErr(cmd, err, asJSON)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), showJSON(r))
			}
			fmt.Fprint(cmd.OutOrStdout(), r.Show())
			return nil
		},
	}
	addConfigFlag(cmd, &path)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the resolved configuration as JSON: every section's values with their source (set, default, derived), place and reason")
	return cmd
}

// configOut is a resolved configuration (config show --json).
type configOut struct {
	File     string          `json:"file"`
	Embedded bool            `json:"embedded,omitempty"`
	SHA256   string          `json:"sha256"`
	Name     string          `json:"name"`
	Blocks   []string        `json:"blocks"`
	Sections []configSection `json:"sections"`
}

type configSection struct {
	Type    string        `json:"type,omitempty"` // "", network, hardware, block
	Label   string        `json:"label,omitempty"`
	Values  []configValue `json:"values"`
	Derived []configValue `json:"derived,omitempty"` // quantities that are not attributes
}

type configValue struct {
	Name   string `json:"name"`
	Value  string `json:"value"` // as HCL writes it
	Source string `json:"source,omitempty"`
	At     string `json:"at,omitempty"` // file:line:column of a value set
	Why    string `json:"why,omitempty"`
}

func showJSON(r *config.Resolved) configOut {
	out := configOut{File: r.File, Embedded: r.Embedded, SHA256: r.SHA256, Name: r.Config.Name, Blocks: r.Blocks}
	for _, s := range r.Sections {
		cs := configSection{Type: s.Type, Label: s.Label, Values: []configValue{}}
		for _, st := range s.Settings {
			v := configValue{Name: st.Name, Value: st.Value, Why: st.Why}
			if st.Info {
				cs.Derived = append(cs.Derived, v)
				continue
			}
			switch st.Source {
			case config.SourceSet:
				v.Source, v.At = "set", st.Pos.String()
			case config.SourceDefault:
				v.Source = "default"
			default:
				v.Source = "derived"
			}
			cs.Values = append(cs.Values, v)
		}
		out.Sections = append(out.Sections, cs)
	}
	return out
}

// configErr is a configuration's errors, as JSON on standard output with
// --json (each with its file, line, column and message) besides the exit
// status and the message of the plain output.
func configErr(cmd *cobra.Command, err error, asJSON bool) error {
	var es config.Errors
	if !asJSON || !errors.As(err, &es) {
		return err
	}
	type problem struct {
		File    string `json:"file"`
		Line    int    `json:"line"`
		Column  int    `json:"column"`
		Message string `json:"message"`
	}
	ps := make([]problem, len(es))
	for i, e := range es {
		ps[i] = problem{e.Pos.File, e.Pos.Line, e.Pos.Col, e.Msg}
	}
	if werr := writeJSON(cmd.OutOrStdout(), struct {
		OK       bool      `json:"ok"`
		Problems []problem `json:"problems"`
	}{false, ps}); werr != nil {
		return werr
	}
	return err
}

func newConfigDefaultCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "default",
		Short:   "Print the embedded default configuration (the papers' setting)",
		Example: "  nicgen config default > my-nic.hcl",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := cmd.OutOrStdout().Write(config.DefaultSource())
			return err
		},
	}
}

func newConfigCheckCmd() *cobra.Command {
	var path string
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "check",
		Short:   "Check a configuration and name its blocks (exit status 2 on any problem)",
		Example: "  nicgen config check -c docs/examples/800g.hcl",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := loadConfig(path)
			if err != nil {
				return configErr(cmd, err, asJSON)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), struct {
					OK     bool     `json:"ok"`
					File   string   `json:"file"`
					SHA256 string   `json:"sha256"`
					Name   string   `json:"name"`
					Blocks []string `json:"blocks"`
				}{true, r.File, r.SHA256, r.Config.Name, r.Blocks})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: ok: %s; blocks %s\n", r.File, r.Config.Name, strings.Join(r.Blocks, ", "))
			return nil
		},
	}
	addConfigFlag(cmd, &path)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the verdict as JSON: ok, the blocks, or every problem with its file, line and column")
	return cmd
}
