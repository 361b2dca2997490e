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
	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/trace"
	"github.com/nicgen/nicgen/hdlgen"
)

// traceFields is the trace schema of a block: its s_event_* input ports
// (all but valid) with their widths and docs, and the kind names.
func traceFields(b blocks.Block, m *hdlgen.Module) []trace.Field {
	var fs []trace.Field
	for _, p := range m.Ports() {
		name, ok := strings.CutPrefix(p.Name(), "s_event_")
		if !ok || !p.IsInput() || name == "valid" {
			continue
		}
		f := trace.Field{Name: name, Width: p.Width(), Doc: p.Doc(), Required: name == "conn" || name == "kind"}
		if name == "kind" {
			f.Names = b.Kinds
		}
		fs = append(fs, f)
	}
	return fs
}

// resultFields are a block's m_result_* output ports but valid, by field
// name, in port order.
func resultFields(m *hdlgen.Module) []*hdlgen.Signal {
	var out []*hdlgen.Signal
	for _, p := range m.Ports() {
		name, ok := strings.CutPrefix(p.Name(), "m_result_")
		if ok && !p.IsInput() && name != "valid" {
			out = append(out, p)
		}
	}
	return out
}

// kindOut is a kind by name, or by number when the block has no such kind.
func kindOut(k uint64, names []string) any {
	if k < uint64(len(names)) {
		return names[k]
	}
	return k
}

// simulate runs the block's golden transaction-level model over the events
// and writes one JSON line per result: "line", then every result field in
// port order (1-bit fields as bools, the kind by name), each decoded field
// followed by its name (package block's Names).
func simulate(w io.Writer, cfg blocks.Config, b blocks.Block, m *hdlgen.Module, fields []trace.Field, events []trace.Event) error {
	model, err := b.Golden(cfg)
	if err != nil {
		return err
	}
	results := resultFields(m)
	decode := map[string]block.Names{}
	for _, d := range b.Decode {
		decode[d.Field] = d
	}
	ev := make(map[string]uint64, len(fields))
	var line bytes.Buffer
	for _, e := range events {
		for i, f := range fields {
			ev[f.Name] = e.Values[i]
		}
		res := model.Step(ev)
		line.Reset()
		fmt.Fprintf(&line, `{"line":%d`, e.Line)
		for _, p := range results {
			name := strings.TrimPrefix(p.Name(), "m_result_")
			v, ok := res[name]
			if !ok {
				return fmt.Errorf("block %s: the golden model gives no result field %q", b.Name, name)
			}
			var val any = v
			switch {
			case name == "kind":
				val = kindOut(v, b.Kinds)
			case p.Width() == 1 && name != "conn":
				val = v == 1
			}
			if err := writeField(&line, name, val); err != nil {
				return err
			}
			if d, ok := decode[name]; ok {
				if err := writeField(&line, d.Key, kindOut(v, d.Names)); err != nil {
					return err
				}
			}
		}
		line.WriteString("}\n")
		if _, err := w.Write(line.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

func writeField(b *bytes.Buffer, key string, v any) error {
	k, err := json.Marshal(key)
	if err != nil {
		return err
	}
	val, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b.WriteByte(',')
	b.Write(k)
	b.WriteByte(':')
	b.Write(val)
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
			fields := traceFields(sel[0], m)
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
			if err := simulate(&buf, r.Config, sel[0], m, fields, evs); err != nil {
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
