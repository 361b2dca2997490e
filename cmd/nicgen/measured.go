package main

import (
	_ "embed"

	"github.com/nicgen/nicgen/cmd/nicgen/internal/measured"
)

// measuredECP5 is the record of place-and-route runs that datasheets quote
// (`nicgen synth BLOCK --target ecp5 --record measured/ecp5.tsv`; its
// format is package measured's). It is embedded here, beside the command,
// so that the path the datasheets name stays measuredFile.
//
//go:embed measured/ecp5.tsv
var measuredECP5 string

// measuredFile is the record's path from the repository root.
const measuredFile = "cmd/nicgen/measured/ecp5.tsv"

// lookupECP5 is the embedded record's line for top module top on the
// Verilog of files, nil when that Verilog was not measured.
func lookupECP5(top string, files map[string][]byte) (*measured.Record, error) {
	recs, err := measured.Parse(measuredFile, measuredECP5)
	if err != nil {
		return nil, err
	}
	if r, ok := measured.Find(recs, top, measured.Digest(files)); ok {
		return &r, nil
	}
	return nil, nil
}

// recordECP5 writes r into the record at path in place of its top
// module's line, atomically.
func recordECP5(path string, r measured.Record) error {
	recs, err := measured.Read(path)
	if err != nil {
		return err
	}
	return writeAtomic(path, measured.Format(measured.Put(recs, r)))
}
