package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
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

// simulate runs the block's golden transaction-level model over a trace,
// streamed: each event is read, stepped and its result written before the
// next is read, so memory does not grow with the trace. It writes one JSON
// line per result: "line", then every result field in port order (1-bit
// fields as bools, the kind by name), each decoded field followed by its
// name (package block's Names). A malformed line stops the simulation
// (what was written is then to be discarded) and the trace is read on to
// report every malformed line: the error is a *trace.Errors.
func simulate(w io.Writer, cfg blocks.Config, b blocks.Block, m *hdlgen.Module, fields []trace.Field, r io.Reader, name string) error {
	model, err := b.Golden(cfg)
	if err != nil {
		return err
	}
	goldenIn, goldenOut := model.Fields()
	have := make([]string, len(fields))
	for i, f := range fields {
		have[i] = f.Name
	}
	inIdx := block.Bind(goldenIn, have) // golden input i <- trace field inIdx[i]
	type outField struct {
		name   string
		at     int // position in the golden result
		flag   bool
		names  []string // the kind's names
		decode *block.Names
	}
	var outs []outField
	for _, p := range resultFields(m) {
		n := strings.TrimPrefix(p.Name(), "m_result_")
		at := block.Bind([]string{n}, goldenOut)[0]
		if at < 0 {
			return fmt.Errorf("block %s: the golden model gives no result field %q", b.Name, n)
		}
		o := outField{name: n, at: at, flag: p.Width() == 1 && n != "conn" && n != "kind"}
		if n == "kind" {
			o.names = b.Kinds
		}
		for i := range b.Decode {
			if b.Decode[i].Field == n {
				o.decode = &b.Decode[i]
			}
		}
		outs = append(outs, o)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	in, res := make([]uint64, len(goldenIn)), make([]uint64, len(goldenOut))
	var line []byte
	err = trace.Scan(r, name, fields, func(e trace.Event) error {
		for i, j := range inIdx {
			if j >= 0 {
				in[i] = e.Values[j]
			} else {
				in[i] = 0
			}
		}
		model.Step(in, res)
		line = append(line[:0], `{"line":`...)
		line = strconv.AppendInt(line, int64(e.Line), 10)
		for _, o := range outs {
			v := res[o.at]
			line = appendField(line, o.name, v, o.flag, o.names)
			if o.decode != nil {
				line = appendName(line, o.decode.Key, v, o.decode.Names)
			}
		}
		line = append(line, '}', '\n')
		_, err := bw.Write(line)
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// appendField writes ,"key":value: a bool for a flag, the name of a named
// value (its number when it has none), else the number.
func appendField(b []byte, key string, v uint64, flag bool, names []string) []byte {
	if names != nil {
		return appendName(b, key, v, names)
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	switch {
	case flag && v == 1:
		return append(b, "true"...)
	case flag:
		return append(b, "false"...)
	}
	return strconv.AppendUint(b, v, 10)
}

func appendName(b []byte, key string, v uint64, names []string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	if v < uint64(len(names)) {
		return strconv.AppendQuote(b, names[v]) // ASCII names: the same as JSON
	}
	return strconv.AppendUint(b, v, 10)
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
required, the others default to 0; kind is one of the block's names (for
reps open, send, ack, nack, timeout; for nscc open, ack, nack, timeout; --schema
lists them) or a number; 1-bit fields take true, false, 0 or 1; every value
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
			c := r.Config
			c.Control = false // the block's own fields (its control wrapper keeps them)
			m, err := sel[0].Build(c)
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
			// the results go to a temporary file first: a malformed line
			// found late leaves no output behind, and memory stays flat
			toStdout := out == "" || out == "-"
			target, special := out, false
			if !toStdout {
				if target, special, err = outputPath(out); err != nil {
					return usageErr("-o: %v", err)
				}
			}
			// standard output, or a device, FIFO or socket: written
			// through once the whole trace has run
			through := toStdout || special
			tmpAt := target
			if through {
				tmpAt = filepath.Join(os.TempDir(), "nicgen-sim")
			}
			tmp, err := createBeside(tmpAt)
			if err != nil {
				return usageErr("-o: %v", err)
			}
			defer os.Remove(tmp.Name()) // a no-op once renamed
			serr := simulate(tmp, r.Config, sel[0], m, fields, in, name)
			if serr == nil && through {
				var dst io.Writer = cmd.OutOrStdout()
				dstName := "standard output"
				if special {
					f, err := openThrough(target, out)
					if err != nil {
						tmp.Close()
						return err
					}
					defer f.Close()
					dst, dstName = f, out
				}
				if _, serr = tmp.Seek(0, io.SeekStart); serr == nil {
					if _, err := io.Copy(dst, tmp); err != nil {
						tmp.Close()
						return fmt.Errorf("writing %s: %v", dstName, unwrapOS(err))
					}
				}
			}
			var te *trace.Errors
			if errors.As(serr, &te) {
				tmp.Close()
				return &exitError{code: 2, err: serr}
			}
			if err := finishTemp(tmp, target, serr); err != nil || through {
				return err
			}
			return renameOnto(tmp.Name(), target)
		},
	}
	addConfigFlag(cmd, &path)
	cmd.Flags().StringVar(&events, "events", "", "event trace, JSON lines (- reads stdin)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output file, written atomically (default stdout)")
	cmd.Flags().BoolVar(&schema, "schema", false, "print the trace fields of the block and exit")
	return cmd
}
