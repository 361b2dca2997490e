// Package trace reads the event traces of `nicgen sim`: JSON lines, one
// event per line, its fields named after the block's s_event_* ports and
// checked against their widths. The fields come from the block's
// declaration, so a trace is exactly what the hardware's event stream can
// carry. The format is documented in docs/sim.md.
package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nicgen/nicgen/blocks/config"
)

// Field is one event field: an s_event_* input port without its prefix.
type Field struct {
	Name     string
	Width    int      // port width in bits (1..64): a value must fit
	Names    []string // value names (the kinds), written as strings
	Required bool
	Doc      string
}

func (f Field) max() uint64 {
	if f.Width >= 64 {
		return ^uint64(0)
	}
	return uint64(1)<<uint(f.Width) - 1
}

// Event is one parsed line: Values[i] is field i (0 when not written).
type Event struct {
	Line   int
	Values []uint64
}

// Error is a malformed line.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Errors is every malformed line of a trace (the first MaxErrors of them).
type Errors struct {
	List  []*Error
	Total int
	// StoppedAt is the line where reading stopped after MaxCounted
	// malformed lines (0: the whole trace was read).
	StoppedAt int
}

// MaxErrors is how many malformed lines are reported one by one, and
// MaxCounted how many are counted before reading stops (a stream that is
// not a trace, such as /dev/urandom, would never end).
const (
	MaxErrors  = 20
	MaxCounted = 1000
)

func (es *Errors) Error() string {
	lines := make([]string, len(es.List))
	for i, e := range es.List {
		lines[i] = e.Error()
	}
	switch {
	case es.StoppedAt > 0:
		lines = append(lines, fmt.Sprintf("... and %d more malformed lines: reading stopped at line %d, after %d malformed lines", es.Total-len(es.List), es.StoppedAt, es.Total))
	case es.Total > len(es.List):
		lines = append(lines, fmt.Sprintf("... and %d more malformed lines", es.Total-len(es.List)))
	}
	return strings.Join(lines, "\n")
}

// MaxLine is the longest line a trace may have, in bytes.
const MaxLine = 1 << 16

// Parse reads a whole trace. Blank lines and lines starting with # are
// skipped. Every malformed line is reported, by number, and no event is
// returned then: a simulation never runs on half a trace.
func Parse(r io.Reader, file string, fields []Field) ([]Event, error) {
	var events []Event
	err := Scan(r, file, fields, func(e Event) error {
		events = append(events, Event{Line: e.Line, Values: append([]uint64(nil), e.Values...)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return events, nil
}

// Scan reads a trace line by line in constant memory and calls fn for
// each event, in order, until the first malformed line; it goes on reading
// to report every malformed line (the first MaxErrors, and their count),
// without calling fn again. The Event passed to fn, and its Values, are
// only valid during the call. A UTF-8 byte-order mark before the first
// line is skipped, as configurations allow; a line may hold MaxLine bytes.
func Scan(r io.Reader, file string, fields []Field, fn func(Event) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), MaxLine)
	errs := &Errors{}
	fail := func(line int, format string, a ...any) {
		errs.Total++
		if len(errs.List) < MaxErrors {
			errs.List = append(errs.List, &Error{File: file, Line: line, Msg: fmt.Sprintf(format, a...)})
		}
	}
	ev := Event{Values: make([]uint64, len(fields))}
	line := 0
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xEF\xBB\xBF"))
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		for i := range ev.Values {
			ev.Values[i] = 0
		}
		if !fastLine(text, fields, ev.Values) {
			slow, err := parseLine(text, fields)
			if err != nil {
				fail(line, "%v", err)
				if errs.Total >= MaxCounted {
					errs.StoppedAt = line
					return errs
				}
				continue
			}
			copy(ev.Values, slow.Values)
		}
		if errs.Total > 0 {
			continue // only malformed lines are looked for now
		}
		ev.Line = line
		if err := fn(ev); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			fail(line+1, "line longer than %d bytes", MaxLine)
		} else {
			fail(line+1, "%v", err)
		}
	}
	if errs.Total > 0 {
		return errs
	}
	return nil
}

// fastLine parses the common shape of a line, {"field": 123, "kind":
// "ack", ...} with plain keys, whole numbers without a leading zero,
// value names and bools, every value in range and every required field
// present, into vals. Anything else returns false, and parseLine, which
// accepts the same lines and explains the others, reads the line.
func fastLine(text []byte, fields []Field, vals []uint64) bool {
	i, n := 0, len(text)
	ws := func() {
		for i < n && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
	}
	var seen uint64 // fields are at most 64
	if len(fields) > 64 || n < 2 || text[0] != '{' {
		return false
	}
	i = 1
	ws()
	if i < n && text[i] == '}' {
		i++
	} else {
		for {
			if i >= n || text[i] != '"' {
				return false
			}
			i++
			start := i
			for i < n && text[i] != '"' && text[i] != '\\' {
				i++
			}
			if i >= n || text[i] != '"' {
				return false
			}
			key := text[start:i]
			i++
			idx := -1
			for k := range fields {
				if fields[k].Name == string(key) {
					idx = k
					break
				}
			}
			if idx < 0 || seen&(1<<uint(idx)) != 0 {
				return false
			}
			seen |= 1 << uint(idx)
			ws()
			if i >= n || text[i] != ':' {
				return false
			}
			i++
			ws()
			if i >= n {
				return false
			}
			f := fields[idx]
			switch c := text[i]; {
			case c >= '0' && c <= '9':
				if c == '0' && i+1 < n && text[i+1] >= '0' && text[i+1] <= '9' {
					return false
				}
				var v uint64
				for i < n && text[i] >= '0' && text[i] <= '9' {
					d := uint64(text[i] - '0')
					if v > (^uint64(0)-d)/10 {
						return false
					}
					v = v*10 + d
					i++
				}
				if i < n && (text[i] == '.' || text[i] == 'e' || text[i] == 'E') {
					return false
				}
				if v > f.max() {
					return false
				}
				vals[idx] = v
			case c == '"':
				i++
				start := i
				for i < n && text[i] != '"' && text[i] != '\\' {
					i++
				}
				if i >= n || text[i] != '"' {
					return false
				}
				name := text[start:i]
				i++
				found := false
				for k, nm := range f.Names {
					if nm == string(name) {
						vals[idx], found = uint64(k), true
						break
					}
				}
				if !found {
					return false
				}
			case c == 't' && f.Width == 1 && bytes.HasPrefix(text[i:], []byte("true")):
				vals[idx] = 1
				i += 4
			case c == 'f' && f.Width == 1 && bytes.HasPrefix(text[i:], []byte("false")):
				vals[idx] = 0
				i += 5
			default:
				return false
			}
			ws()
			if i >= n {
				return false
			}
			if text[i] == ',' {
				i++
				ws()
				continue
			}
			if text[i] != '}' {
				return false
			}
			i++
			break
		}
	}
	ws()
	if i != n {
		return false
	}
	for k, f := range fields {
		if f.Required && seen&(1<<uint(k)) == 0 {
			return false
		}
	}
	return true
}

func fieldNames(fields []Field) []string {
	ns := make([]string, len(fields))
	for i, f := range fields {
		ns[i] = f.Name
	}
	return ns
}

// parseLine reads one JSON object of field values.
func parseLine(text []byte, fields []Field) (Event, error) {
	ev := Event{Values: make([]uint64, len(fields))}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return ev, fmt.Errorf("not JSON: %v", jsonErr(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return ev, fmt.Errorf("want a JSON object {\"conn\": ..., \"kind\": ...}, got %s", describe(tok))
	}
	seen := make([]bool, len(fields))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return ev, fmt.Errorf("not JSON: %v", jsonErr(err))
		}
		key, _ := tok.(string)
		idx := -1
		for i, f := range fields {
			if f.Name == key {
				idx = i
			}
		}
		if idx < 0 {
			msg := fmt.Sprintf("unknown field %q", key)
			if near := config.Nearest(key, fieldNames(fields)); near != "" {
				return ev, fmt.Errorf("%s; did you mean %q?", msg, near)
			}
			return ev, fmt.Errorf("%s (fields: %s)", msg, strings.Join(fieldNames(fields), ", "))
		}
		if seen[idx] {
			return ev, fmt.Errorf("field %q appears twice", key)
		}
		seen[idx] = true
		val, err := dec.Token()
		if err != nil {
			return ev, fmt.Errorf("not JSON: %v", jsonErr(err))
		}
		v, err := fieldValue(fields[idx], val)
		if err != nil {
			return ev, err
		}
		ev.Values[idx] = v
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return ev, fmt.Errorf("not JSON: %v", jsonErr(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return ev, fmt.Errorf("text after the JSON object")
	}
	for i, f := range fields {
		if f.Required && !seen[i] {
			return ev, fmt.Errorf("missing field %q", f.Name)
		}
	}
	return ev, nil
}

func jsonErr(err error) string {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return "unexpected end of line"
	}
	return err.Error()
}

func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' || v == ']' {
			return "an array"
		}
		return "an object"
	case string:
		return fmt.Sprintf("the string %q", v)
	case json.Number:
		return "the number " + v.String()
	case bool:
		return "a bool"
	case nil:
		return "null"
	}
	return fmt.Sprint(tok)
}

// fieldValue converts one JSON value: a whole number that fits the port, a
// bool for a 1-bit port, or a value name for the kind.
func fieldValue(f Field, tok json.Token) (uint64, error) {
	switch v := tok.(type) {
	case json.Number:
		u, err := strconv.ParseUint(v.String(), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: want a whole number 0..%d, got %s", f.Name, f.max(), v)
		}
		if u > f.max() {
			if f.Width == 1 {
				return 0, fmt.Errorf("%s: want true, false, 0 or 1, got %d", f.Name, u)
			}
			return 0, fmt.Errorf("%s = %d does not fit s_event_%s (%d bits): must be 0..%d", f.Name, u, f.Name, f.Width, f.max())
		}
		return u, nil
	case bool:
		if f.Width != 1 {
			return 0, fmt.Errorf("%s: want a whole number 0..%d, got a bool", f.Name, f.max())
		}
		if v {
			return 1, nil
		}
		return 0, nil
	case string:
		for i, n := range f.Names {
			if n == v {
				return uint64(i), nil
			}
		}
		if len(f.Names) > 0 {
			msg := fmt.Sprintf("%s: unknown %s %q", f.Name, f.Name, v)
			if near := config.Nearest(v, f.Names); near != "" {
				return 0, fmt.Errorf("%s; did you mean %q?", msg, near)
			}
			return 0, fmt.Errorf("%s (%s: %s, or a number 0..%d)", msg, f.Name, strings.Join(f.Names, ", "), f.max())
		}
	case json.Delim:
		// an array or object: the decoder would have to skip it; the line
		// is rejected as a whole anyway
	}
	want := fmt.Sprintf("a whole number 0..%d", f.max())
	if f.Width == 1 {
		want = "true, false, 0 or 1"
	}
	if len(f.Names) > 0 {
		want = fmt.Sprintf("one of %s or a number 0..%d", strings.Join(f.Names, ", "), f.max())
	}
	return 0, fmt.Errorf("%s: want %s, got %s", f.Name, want, describe(tok))
}
