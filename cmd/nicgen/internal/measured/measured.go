// Package measured reads and writes the record of place-and-route runs
// that the datasheets quote (cmd/nicgen/measured/ecp5.tsv, written by
// `nicgen synth BLOCK --target ecp5 --record FILE`): a header line, then
// one tab-separated line per top module (a block, or its control wrapper
// <block>_ctl), sorted, for the Verilog it was measured on. A line names
// that Verilog by its Digest, so a datasheet quotes it only for the same
// hardware: a change to the block makes the datasheet say that it is not
// measured, never repeat a figure of other hardware.
package measured

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Record is one line of the record: one top module's place-and-route
// result on an ECP5.
type Record struct {
	Block    string    // the top module: the block's name, or <block>_ctl
	Digest   string    // Digest of the measured Verilog
	FreqMHz  float64   // the constraint nextpnr placed for
	Seeds    []float64 // Fmax of seeds 1..n, MHz
	Median   float64   // the median of Seeds, MHz
	Uniform  float64   // events per clock, uniform over every connection (golden cycle model)
	Single   float64   // events per clock, one connection alone
	Critical string    // the median run's critical path
}

// header is the record's first line, naming the fields of a line.
const header = "# block\tverilog sha256\tconstraint MHz\tFmax per seed MHz\tmedian MHz\tevents/clock uniform\tevents/clock one connection\tcritical path (median seed)"

// Digest identifies a block's Verilog: SHA-256 over its files, by name, in
// name order (the first 16 hex digits), without the lines of the files'
// header comments that name the command and the configuration: the same
// hardware generated from another folder, or from a configuration file of
// another name, keeps its record.
func Digest(files map[string][]byte) string {
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

// line is r as a line of the record, without its newline. A tab in the
// critical path becomes a space.
func (r Record) line() string {
	seeds := make([]string, len(r.Seeds))
	for i, s := range r.Seeds {
		seeds[i] = strconv.FormatFloat(s, 'f', 1, 64)
	}
	return strings.Join([]string{r.Block, r.Digest, strconv.FormatFloat(r.FreqMHz, 'f', -1, 64), strings.Join(seeds, ","),
		strconv.FormatFloat(r.Median, 'f', 1, 64), strconv.FormatFloat(r.Uniform, 'f', 3, 64), strconv.FormatFloat(r.Single, 'f', 3, 64),
		strings.ReplaceAll(r.Critical, "\t", " ")}, "\t")
}

// Parse reads the text of a record; name is for errors (file:line).
func Parse(name, text string) ([]Record, error) {
	var out []Record
	for i, l := range strings.Split(text, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) != 8 {
			return nil, fmt.Errorf("%s:%d: %d tab-separated fields, want 8 (%s)", name, i+1, len(f), strings.TrimPrefix(header, "# "))
		}
		r := Record{Block: f[0], Digest: f[1], Critical: f[7]}
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

// Read reads the record at path; a missing file is an empty record.
func Read(path string) ([]Record, error) {
	text, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	return Parse(path, string(text))
}

// Find is the line of recs for top module top on the Verilog of digest.
func Find(recs []Record, top, digest string) (Record, bool) {
	for _, r := range recs {
		if r.Block == top && r.Digest == digest {
			return r, true
		}
	}
	return Record{}, false
}

// Put is recs with r in place of the line of its top module (one line per
// top, sorted by top); recs is left as it was.
func Put(recs []Record, r Record) []Record {
	out := slices.DeleteFunc(slices.Clone(recs), func(x Record) bool { return x.Block == r.Block })
	out = append(out, r)
	slices.SortFunc(out, func(a, b Record) int { return strings.Compare(a.Block, b.Block) })
	return out
}

// Format is the text of a record file of recs, in their order: the header,
// then one line each.
func Format(recs []Record) []byte {
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, r := range recs {
		b.WriteString(r.line() + "\n")
	}
	return []byte(b.String())
}
