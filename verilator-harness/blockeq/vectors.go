package blockeq

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/nicgen/nicgen/blocks"
)

// Vector export: a random event sequence and the golden model's answer to
// each event, as JSON lines, for testbenches that cannot link Go (cocotb
// under Icarus and Verilator). The cycle-level behaviour is the testbench's
// business; a vector only says what the block must answer, in order.
//
// File format: one header line (VectorHeader), then one line per event, in
// acceptance order: a FieldVector, drawn by the block's own stimulus
// (profile stim.Vectors) or by the generic draw. Every field of an event
// line is named after its s_event_<field> port and every field of its
// "expect" object after its m_result_<field> port, so a testbench maps
// lines to ports from the names alone; flags are JSON booleans.

// VectorHeader is the first line of a vector file.
type VectorHeader struct {
	Block  string `json:"block"`
	Seed   uint64 `json:"seed"`
	Events int    `json:"events"`
	// Params are the block's parameters the expectations were computed
	// with (its Params in the configuration).
	Params any `json:"params"`
	// Depth is the block's pipeline_depth (its Params.Depth): the number of
	// datapath stages of the pipelined shell, which sets its cycle contract
	// (docs/pipeline.md: events of one connection Depth cycles apart, and
	// Latency and Credits below). The vectors do not depend on it; a
	// testbench checks the timing of the design generated from the same
	// configuration with it.
	Depth int `json:"depth"`
	// Latency is the number of cycles from an event's acceptance to its
	// result on m_result_* with no stall, and Credits the number of events
	// that may be issued and not yet taken (the result buffer's entries),
	// for Depth: pipe.Latency(Depth) and pipe.Credits(Depth), so that a
	// testbench needs no copy of the contract's stage count.
	Latency int `json:"latency"`
	Credits int `json:"credits"`
	// Ports maps every port of the generated top module to its width, from
	// the block's declaration, so a testbench checks the design it drives
	// against the one the vectors were made for instead of hard-coding
	// widths.
	Ports map[string]int `json:"ports"`
	// Kinds names the s_event_kind values, for readable reports.
	Kinds []string `json:"kinds"`
	// Cases names the m_result_case values of the blocks that have that
	// port and name its values (block.Names of field "case": smartt, nscc,
	// uet_cc), for readable reports.
	Cases []string `json:"cases,omitempty"`
	// Replay is the events of this file a cocotb run replays by default,
	// per simulator ("icarus", "verilator"; 0: all): the block's
	// block.Replay, so that no Makefile line is the block's.
	Replay map[string]int `json:"replay"`
}

// VectorLine is one event line of a vector file (*FieldVector).
type VectorLine interface{ vectorLine() }

// VectorSet is a generated vector file in memory, with the coverage its
// expectations reach (counted from the golden model's results).
type VectorSet struct {
	Header   VectorHeader
	Events   []VectorLine
	Coverage CoverageReport
}

// GenerateVectors draws n events for a block of the default configuration
// (blocks.DefaultConfig, the configuration verilog-out/ is generated from)
// and computes the expected result of each with the block's golden
// transaction-level model, starting from reset and an all-zero table.
func GenerateVectors(block string, n int, seed uint64) (*VectorSet, error) {
	return GenerateVectorsFor(blocks.DefaultConfig(), block, n, seed)
}

// GenerateVectorsFor is GenerateVectors for a block of a given
// configuration.
func GenerateVectorsFor(cfg blocks.Config, block string, n int, seed uint64) (*VectorSet, error) {
	if n < 1 {
		return nil, fmt.Errorf("blockeq: %d events: need at least 1", n)
	}
	b, err := blocks.Lookup(block)
	if err != nil {
		return nil, err
	}
	cfg.Control = false // the block's own ports (its control wrapper keeps their names)
	d, err := b.Elaborate(cfg)
	if err != nil {
		return nil, fmt.Errorf("block %s: %w", block, err)
	}
	ports := map[string]int{}
	var inOrder, outOrder []string
	for _, p := range d.Top.Ports() {
		ports[p.Name()] = p.Width()
		if name, ok := strings.CutPrefix(p.Name(), "s_event_"); ok && p.IsInput() && name != "valid" {
			inOrder = append(inOrder, name)
		}
		if name, ok := strings.CutPrefix(p.Name(), "m_result_"); ok && !p.IsInput() && name != "valid" {
			outOrder = append(outOrder, name)
		}
	}
	vs, err := genericVectors(cfg, b, ports, inOrder, outOrder, n, seed)
	if err != nil {
		return nil, fmt.Errorf("block %s: %w", block, err)
	}
	return vs, nil
}

// WriteTo writes the header line and one line per event.
func (vs *VectorSet) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	bw := bufio.NewWriter(cw)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(vs.Header); err != nil {
		return cw.n, fmt.Errorf("vectors %s: header: %w", vs.Header.Block, err)
	}
	for i, e := range vs.Events {
		if err := enc.Encode(e); err != nil {
			return cw.n, fmt.Errorf("vectors %s: event %d: %w", vs.Header.Block, i, err)
		}
	}
	err := bw.Flush()
	return cw.n, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// WriteVectors writes n events of a block with their golden expectations
// as JSON lines (see VectorHeader and FieldVector). The
// same block, n and seed always give the same bytes.
func WriteVectors(w io.Writer, block string, n int, seed uint64) error {
	vs, err := GenerateVectors(block, n, seed)
	if err != nil {
		return err
	}
	_, err = vs.WriteTo(w)
	return err
}
