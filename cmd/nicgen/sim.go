package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks"
	breps "github.com/nicgen/nicgen/blocks/reps"
	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/trace"
	goldenreps "github.com/nicgen/nicgen/golden/reps"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
	"github.com/nicgen/nicgen/hdlgen"
)

// traceFields is the trace schema of a block: its s_event_* input ports
// (all but valid) with their widths and docs, and the kind names.
func traceFields(block string, m *hdlgen.Module) []trace.Field {
	var kinds []string
	switch block {
	case "reps", "reps_conf":
		for k := 0; k < breps.NumKinds; k++ {
			kinds = append(kinds, goldenreps.Kind(k).String())
		}
	case "smartt", "nscc":
		for k := 0; k < bsmartt.NumKinds; k++ {
			kinds = append(kinds, gsmartt.Kind(k).String())
		}
	}
	var fs []trace.Field
	for _, p := range m.Ports() {
		name, ok := strings.CutPrefix(p.Name(), "s_event_")
		if !ok || !p.IsInput() || name == "valid" {
			continue
		}
		f := trace.Field{Name: name, Width: p.Width(), Doc: p.Doc(), Required: name == "conn" || name == "kind"}
		if name == "kind" {
			f.Names = kinds
		}
		fs = append(fs, f)
	}
	return fs
}

// smarttRules names the m_result_case values.
var smarttRules = []string{"none", "FD", "MD", "FI", "MI", "QuickAdapt", "FastIncrease", "loss"}

type repsLine struct {
	Line     int    `json:"line"`
	Conn     uint32 `json:"conn"`
	Kind     any    `json:"kind"`
	EV       uint32 `json:"ev"`
	Explored bool   `json:"explored"`
	Frozen   *bool  `json:"frozen,omitempty"`
	Error    bool   `json:"error"`
}

type smarttLine struct {
	Line  int    `json:"line"`
	Conn  uint32 `json:"conn"`
	Kind  any    `json:"kind"`
	Cwnd  uint32 `json:"cwnd"`
	Case  uint8  `json:"case"`
	Rule  string `json:"rule"`
	QA    bool   `json:"qa"`
	Fast  bool   `json:"fast"`
	Error bool   `json:"error"`
}

// kindOut is a kind by name, or by number when the block has no such kind.
func kindOut(k uint8, names []string) any {
	if int(k) < len(names) {
		return names[k]
	}
	return k
}

// simulate runs the block's golden transaction-level model over the events
// and writes one JSON line per result.
func simulate(w io.Writer, cfg blocks.Config, block string, fields []trace.Field, events []trace.Event) error {
	idx := map[string]int{}
	var kinds []string
	for i, f := range fields {
		idx[f.Name] = i
		if f.Name == "kind" {
			kinds = f.Names
		}
	}
	get := func(e trace.Event, name string) uint64 {
		if i, ok := idx[name]; ok {
			return e.Values[i]
		}
		return 0
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	switch block {
	case "reps", "reps_conf":
		var m goldenreps.Stepper
		var err error
		if block == "reps" {
			m, err = goldenreps.NewModel(cfg.Reps.Golden())
		} else {
			m, err = goldenreps.NewConfModel(cfg.RepsConf.Golden())
		}
		if err != nil {
			return err
		}
		for _, e := range events {
			res := m.Step(goldenreps.Event{
				Conn: uint32(get(e, "conn")), Kind: goldenreps.Kind(get(e, "kind")), ECN: get(e, "ecn") == 1,
				EV: uint32(get(e, "ev")), Now: get(e, "now"),
			})
			out := repsLine{Line: e.Line, Conn: res.Conn, Kind: kindOut(uint8(res.Kind), kinds), EV: res.EV, Explored: res.Explored, Error: res.Error}
			if block == "reps" {
				out.Frozen = &res.Frozen
			}
			if err := enc.Encode(out); err != nil {
				return err
			}
		}
	case "smartt", "nscc":
		p := cfg.Smartt
		if block == "nscc" {
			p = cfg.NSCC
		}
		m, err := gsmartt.NewModel(p.Golden())
		if err != nil {
			return err
		}
		for _, e := range events {
			res := m.Step(gsmartt.Event{
				Conn: uint32(get(e, "conn")), Kind: gsmartt.Kind(get(e, "kind")), Size: uint32(get(e, "size")),
				ECN: get(e, "ecn") == 1, RTT: uint32(get(e, "rtt")), Unacked: uint32(get(e, "unacked")), Now: get(e, "now"),
			})
			out := smarttLine{Line: e.Line, Conn: res.Conn, Kind: kindOut(uint8(res.Kind), kinds), Cwnd: res.Cwnd, Case: res.Case,
				Rule: smarttRules[res.Case&7], QA: res.QA, Fast: res.Fast, Error: res.Error}
			if err := enc.Encode(out); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("no golden model is wired for block %q", block)
	}
	return nil
}

// writeSchema prints a block's trace fields.
func writeSchema(w io.Writer, block string, fields []trace.Field) {
	fmt.Fprintf(w, "events of block %s: one JSON object per line; blank lines and lines starting with # are skipped\n", block)
	fmt.Fprintf(w, "%-8s %5s  %-8s %s\n", "field", "bits", "presence", "meaning")
	for _, f := range fields {
		req := "optional"
		if f.Required {
			req = "required"
		}
		doc := f.Doc
		if len(f.Names) > 0 {
			doc = fmt.Sprintf("a name (%s) or a number", strings.Join(f.Names, ", "))
		} else if f.Width == 1 {
			doc += " (true, false, 0 or 1)"
		}
		fmt.Fprintf(w, "%-8s %5d  %-8s %s\n", f.Name, f.Width, req, doc)
	}
}

func newSimCmd() *cobra.Command {
	var path, events, out string
	var schema bool
	cmd := &cobra.Command{
		Use:   "sim BLOCK --events FILE",
		Short: "Run a block's golden model over an event trace (JSON lines in, JSON lines out)",
		Long: `sim runs the golden transaction-level model of a block, with the options of
the configuration, over a trace of events and prints one JSON line per result.

The trace has one JSON object per line whose fields are the block's s_event_*
ports without the prefix (conn, kind, ecn, ev, now for reps; conn, kind,
size, ecn, rtt, unacked, now for smartt and nscc): conn and kind are
required, the others default to 0; kind is a name (open, send, ack, nack,
timeout) or a number; 1-bit fields take true, false, 0 or 1; every value
must fit its port. Blank lines and lines starting with # are skipped.
--schema prints the fields of a block. Every malformed line is reported with
its line number (exit status 2) and nothing is simulated. docs/sim.md has the
schema of each block and of the output.`,
		Example: "  nicgen sim reps --events docs/examples/reps-events.jsonl\n" +
			"  nicgen sim nscc --schema\n" +
			"  nicgen sim smartt -c docs/examples/100g-12us.hcl --events trace.jsonl -o results.jsonl",
		Args: oneArg("BLOCK"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := loadConfig(path)
			if err != nil {
				return err
			}
			sel, err := selectBlocks(r, args)
			if err != nil {
				return err
			}
			m, err := sel[0].Build(r.Config)
			if err != nil {
				return err
			}
			fields := traceFields(args[0], m)
			if schema {
				writeSchema(cmd.OutOrStdout(), args[0], fields)
				return nil
			}
			if events == "" {
				return usageErr("sim %s: --events FILE is required (- reads stdin; --schema prints the fields)", args[0])
			}
			in, name := cmd.InOrStdin(), "stdin"
			if events != "-" {
				f, err := os.Open(events)
				if err != nil {
					return usageErr("--events: %v", err)
				}
				defer f.Close()
				in, name = f, events
			}
			evs, err := trace.Parse(in, name, fields)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			var buf bytes.Buffer
			if err := simulate(&buf, r.Config, args[0], fields, evs); err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err = cmd.OutOrStdout().Write(buf.Bytes())
				return err
			}
			return writeAtomic(out, buf.Bytes())
		},
	}
	addConfigFlag(cmd, &path)
	cmd.Flags().StringVar(&events, "events", "", "event trace, JSON lines (- reads stdin)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file, written atomically (default stdout)")
	cmd.Flags().BoolVar(&schema, "schema", false, "print the trace fields of the block and exit")
	return cmd
}
