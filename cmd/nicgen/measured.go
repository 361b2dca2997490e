package main

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// measuredECP5 is the record of place-and-route runs that datasheets quote
// (`nicgen synth BLOCK --target ecp5 --record measured/ecp5.tsv`): one line
// per top module (a block, or its control wrapper <block>_ctl from a
// configuration with hardware.control), for the Verilog it was measured
// on. A datasheet quotes a line only when its digest is that of the
// Verilog being generated, so a change to the block makes the datasheet
// say that it is not measured, never repeat a figure of other hardware.
//
//go:embed measured/ecp5.tsv
var measuredECP5 string

// measuredFile is the record's path from the repository root.
const measuredFile = "cmd/nicgen/measured/ecp5.tsv"

// ecp5Record is one line of the record.
type ecp5Record struct {
	Block    string    // the top module: the block's name, or <block>_ctl
	Digest   string    // verilogDigest of the measured Verilog
	FreqMHz  float64   // the constraint nextpnr placed for
	Seeds    []float64 // Fmax of seeds 1..n, MHz
	Median   float64
	Uniform  float64 // events per clock, uniform over every connection (golden cycle model)
	Single   float64 // events per clock, one connection alone
	Critical string  // the median run's critical path
}

const ecp5Header = "# block\tverilog sha256\tconstraint MHz\tFmax per seed MHz\tmedian MHz\tevents/clock uniform\tevents/clock one connection\tcritical path (median seed)"

// verilogDigest identifies a block's Verilog: SHA-256 over its files, by
// name, in name order (the first 16 hex digits), without the lines of the
// files' header comments that name the command and the configuration
// (hardwareBytes): the same hardware generated from another folder, or
// from a configuration file of another name, keeps its record.
func verilogDigest(files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, n := range names {
		b := hardwareBytes(files[n])
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// hardwareBytes is a generated file without the " * Command: " and
// " * Config: " lines of its leading comment (hdlgen's module header).
func hardwareBytes(b []byte) []byte {
	s := string(b)
	if !strings.HasPrefix(s, "/*\n") {
		return b
	}
	end := strings.Index(s, "\n */\n")
	if end < 0 {
		return b
	}
	var out strings.Builder
	for _, l := range strings.SplitAfter(s[:end+1], "\n") {
		if !strings.HasPrefix(l, " * Command: ") && !strings.HasPrefix(l, " * Config: ") {
			out.WriteString(l)
		}
	}
	out.WriteString(s[end+1:])
	return []byte(out.String())
}

func (r ecp5Record) line() string {
	seeds := make([]string, len(r.Seeds))
	for i, s := range r.Seeds {
		seeds[i] = strconv.FormatFloat(s, 'f', 1, 64)
	}
	return strings.Join([]string{r.Block, r.Digest, strconv.FormatFloat(r.FreqMHz, 'f', -1, 64), strings.Join(seeds, ","),
		strconv.FormatFloat(r.Median, 'f', 1, 64), strconv.FormatFloat(r.Uniform, 'f', 3, 64), strconv.FormatFloat(r.Single, 'f', 3, 64),
		strings.ReplaceAll(r.Critical, "\t", " ")}, "\t")
}

// parseECP5Records reads a record; name is for errors (file:line).
func parseECP5Records(name, text string) ([]ecp5Record, error) {
	var out []ecp5Record
	for i, l := range strings.Split(text, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) != 8 {
			return nil, fmt.Errorf("%s:%d: %d tab-separated fields, want 8 (%s)", name, i+1, len(f), strings.TrimPrefix(ecp5Header, "# "))
		}
		r := ecp5Record{Block: f[0], Digest: f[1], Critical: f[7]}
		nums := []struct {
			field string
			s     string
			v     *float64
		}{{"constraint MHz", f[2], &r.FreqMHz}, {"median MHz", f[4], &r.Median}, {"events/clock uniform", f[5], &r.Uniform}, {"events/clock one connection", f[6], &r.Single}}
		for _, n := range nums {
			v, err := strconv.ParseFloat(n.s, 64)
			if err != nil || v <= 0 {
				return nil, fmt.Errorf("%s:%d: %s %q: want a positive number", name, i+1, n.field, n.s)
			}
			*n.v = v
		}
		for _, s := range strings.Split(f[3], ",") {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || v <= 0 {
				return nil, fmt.Errorf("%s:%d: Fmax per seed %q: want positive numbers separated by commas", name, i+1, f[3])
			}
			r.Seeds = append(r.Seeds, v)
		}
		out = append(out, r)
	}
	return out, nil
}

// lookupECP5 is the record of block name for the Verilog of digest, if any.
func lookupECP5(name, digest string) (ecp5Record, bool, error) {
	recs, err := parseECP5Records(measuredFile, measuredECP5)
	if err != nil {
		return ecp5Record{}, false, err
	}
	for _, r := range recs {
		if r.Block == name && r.Digest == digest {
			return r, true, nil
		}
	}
	return ecp5Record{}, false, nil
}

// readECP5Records reads the record at path; a missing file is empty.
func readECP5Records(path string) ([]ecp5Record, error) {
	text, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	return parseECP5Records(path, string(text))
}

// recordECP5 writes r into the record at path, replacing its top module's
// line (one line per top, sorted), through a temporary file and a rename.
func recordECP5(path string, r ecp5Record) error {
	recs, err := readECP5Records(path)
	if err != nil {
		return err
	}
	recs = slices.DeleteFunc(recs, func(x ecp5Record) bool { return x.Block == r.Block })
	recs = append(recs, r)
	slices.SortFunc(recs, func(a, b ecp5Record) int { return strings.Compare(a.Block, b.Block) })
	var b strings.Builder
	b.WriteString(ecp5Header + "\n")
	for _, x := range recs {
		b.WriteString(x.line() + "\n")
	}
	return writeAtomic(path, []byte(b.String()))
}
