package config

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/block"
)

// DefaultFile is the name the embedded default configuration goes by in
// positions and file headers.
const DefaultFile = "default.hcl"

//go:embed default.hcl
var defaultSrc []byte

// DefaultSource is the text of the embedded default configuration:
// default.hcl, and an empty block section for every registered block that
// it does not list (a new block is in the default build from its one
// registration line in blocks/blocks.go, with its own defaults).
func DefaultSource() []byte {
	src := append([]byte(nil), defaultSrc...)
	f, diags := hclsyntax.ParseConfig(defaultSrc, DefaultFile, hcl.InitialPos)
	listed := map[string]bool{}
	if !diags.HasErrors() {
		if body, ok := f.Body.(*hclsyntax.Body); ok {
			for _, b := range body.Blocks {
				if b.Type == "block" && len(b.Labels) == 1 {
					listed[b.Labels[0]] = true
				}
			}
		}
	}
	var extra []string
	for _, n := range blocks.Names() {
		if !listed[n] {
			extra = append(extra, n)
		}
	}
	if len(extra) > 0 {
		src = append(src, "\n# Registered blocks that default.hcl does not list, at their defaults.\n"...)
		for _, n := range extra {
			src = append(src, fmt.Sprintf("block %q {}\n", n)...)
		}
	}
	return src
}

// Default resolves the embedded default configuration: the papers' setting,
// equal to blocks.DefaultConfig() (a test checks it).
func Default(opts ...Option) (*Resolved, error) { return Load(DefaultFile, DefaultSource(), opts...) }

// Option adjusts a load.
type Option func(*loader)

// WithCheck adds a last check of every block of an otherwise valid
// configuration (the command line passes the golden models' own
// validation, which this package cannot import). A failure is reported at
// the block's label.
func WithCheck(check func(block string, cfg blocks.Config) error) Option {
	return func(l *loader) { l.check = check }
}

// LoadFile reads and resolves a configuration file. A file that cannot be
// read is an Errors too, at line 1.
func LoadFile(path string, opts ...Option) (*Resolved, error) {
	at := Pos{File: path, Line: 1, Col: 1}
	if path == "" {
		return nil, Errors{{Pos: at, Msg: "an empty file name (an unset variable?): name a configuration file, or leave out -c for the embedded default"}}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, Errors{{Pos: at, Msg: fmt.Sprintf("cannot read the configuration: %v", unwrapPath(err))}}
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, Errors{{Pos: at, Msg: "cannot read the configuration: it is a folder"}}
	}
	// read at most one byte past the limit: /dev/zero ends here too
	src, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, Errors{{Pos: at, Msg: fmt.Sprintf("cannot read the configuration: %v", unwrapPath(err))}}
	}
	if len(src) > MaxBytes {
		return nil, Errors{{Pos: at, Msg: fmt.Sprintf("the configuration is larger than %d KiB: a configuration is a few hundred bytes per block", MaxBytes/1024)}}
	}
	return Load(path, src, opts...)
}

// Limits of a configuration file: its size, the nesting of its brackets,
// and the number of problems reported (the rest are counted).
const (
	MaxBytes  = 1 << 20
	MaxNest   = 64
	MaxOps    = 256 // operator characters in one attribute's expression
	MaxErrors = 20
)

// nestingError finds the first bracket of src nested deeper than MaxNest,
// or the first expression with more than MaxOps operator characters
// (outside strings and comments): the parser and the evaluator would
// recurse that deep (300,000 unary minus signs overflow Go's stack).
func nestingError(filename string, src []byte) *Error {
	depth, line, col, ops := 0, 1, 0, 0
	inStr, lineComment, blockComment := false, false, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		col++
		if c == '\n' {
			line, col = line+1, 0
			lineComment = false
			if depth <= 1 && !inStr && !blockComment { // an attribute ends at its line's end
				ops = 0
			}
			continue
		}
		switch {
		case lineComment:
		case blockComment:
			if c == '*' && i+1 < len(src) && src[i+1] == '/' {
				blockComment = false
				i++
				col++
			}
		case inStr:
			if c == '\\' {
				i++
				col++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '#' || c == '/' && i+1 < len(src) && src[i+1] == '/':
			lineComment = true
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			blockComment = true
			i++
			col++
		case c == '(' || c == '[' || c == '{':
			depth++
			if depth > MaxNest {
				return &Error{Pos: Pos{File: filename, Line: line, Col: col}, Msg: fmt.Sprintf("brackets nested more than %d deep", MaxNest)}
			}
		case c == ')' || c == ']' || c == '}':
			depth--
		case strings.IndexByte("-+*/%!<>=&|?:", c) >= 0:
			if ops++; ops > MaxOps {
				msg := fmt.Sprintf("an expression with more than %d operators: a configuration value is a number, a string or a short expression", MaxOps)
				if name := attrOfLine(src, line); name != "" {
					msg = name + ": " + msg
				}
				return &Error{Pos: Pos{File: filename, Line: line, Col: col}, Msg: msg}
			}
		}
	}
	return nil
}

// attrLine is an attribute's first line: its name, then = (not ==).
var attrLine = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*=($|[^=])`)

// attrOfLine is the name of the attribute that line (from 1) of src
// starts, or "".
func attrOfLine(src []byte, line int) string {
	for i := 1; i < line; i++ {
		k := bytes.IndexByte(src, '\n')
		if k < 0 {
			return ""
		}
		src = src[k+1:]
	}
	if k := bytes.IndexByte(src, '\n'); k >= 0 {
		src = src[:k]
	}
	if m := attrLine.FindSubmatch(src); m != nil {
		return string(m[1])
	}
	return ""
}

// capped keeps the first MaxErrors problems and counts the others.
func capped(es Errors) Errors {
	if len(es) <= MaxErrors {
		return es
	}
	rest := len(es) - MaxErrors
	last := es[MaxErrors-1].Pos
	return append(es[:MaxErrors:MaxErrors], &Error{Pos: last, Msg: fmt.Sprintf("... and %d more problems (the first %d are shown)", rest, MaxErrors)})
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// Load resolves a configuration from its text. filename is used in
// positions and headers. Every problem is reported, as Errors, with its
// file:line:column; nothing in src can make Load panic.
func Load(filename string, src []byte, opts ...Option) (*Resolved, error) {
	l := &loader{file: filename, src: src}
	for _, o := range opts {
		o(l)
	}
	if len(src) > MaxBytes {
		return nil, Errors{{Pos: Pos{File: filename, Line: 1, Col: 1}, Msg: fmt.Sprintf("the configuration is larger than %d KiB", MaxBytes/1024)}}
	}
	if e := nestingError(filename, src); e != nil {
		return nil, Errors{e}
	}
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		for _, d := range diags {
			if d.Severity == hcl.DiagError {
				l.diag(d)
			}
		}
		return nil, capped(l.errs.sorted())
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil, Errors{{Pos: Pos{File: filename, Line: 1, Col: 1}, Msg: "not an HCL native-syntax file"}}
	}
	r := l.resolve(body)
	if len(l.errs) > 0 {
		return nil, capped(l.errs.sorted())
	}
	if len(l.cross) > 0 {
		return nil, capped(l.cross.sorted())
	}
	l.final(r)
	if len(l.cross) > 0 {
		return nil, capped(l.cross.sorted())
	}
	sum := sha256.Sum256(src)
	r.SHA256 = hex.EncodeToString(sum[:])
	r.File = filename
	r.Embedded = filename == DefaultFile && string(src) == string(DefaultSource())
	return r, nil
}

// Source says where a resolved value comes from (package block).
type Source = block.Source

const (
	SourceSet     = block.Set     // written in the file
	SourceDefault = block.Default // not written: the block's documented default
	SourceDerived = block.Derived // not written: computed from other values
)

// Setting is one resolved value and where it came from.
type Setting struct {
	Name   string
	Value  string // as HCL writes it
	Source Source
	Pos    Pos    // for Set: where it is written
	Why    string // for Default: the reason; for Derived: the rule and its inputs
	// Info marks a derived quantity that is not an attribute (the BDP, the
	// max window): shown as a comment, never read back.
	Info bool
}

// Section is one block of the file, resolved.
type Section struct {
	Type     string // "", "network", "hardware" or "block"
	Label    string // the block name for Type "block"
	Settings []Setting
}

// Resolved is a configuration with every value decided.
type Resolved struct {
	Config   blocks.Config // what the blocks are built from
	Blocks   []string      // the blocks of the build, sorted by name
	File     string        // path as given, or DefaultFile
	Embedded bool          // the embedded default
	SHA256   string        // of the file's bytes
	Sections []Section     // in the order `nicgen config show` prints them
	blockPos map[string]Pos
}

// BlockPos is the position of a block's section label, for the errors of
// the commands that build it; ok is false for a block the file does not
// name (the embedded default's blocks have the default file's positions).
func (r *Resolved) BlockPos(block string) (Pos, bool) {
	p, ok := r.blockPos[block]
	return p, ok
}

// Has reports whether the build includes a block.
func (r *Resolved) Has(block string) bool {
	for _, b := range r.Blocks {
		if b == block {
			return true
		}
	}
	return false
}

// Section returns the resolved section of a block, network or hardware.
func (r *Resolved) Section(typ, label string) (Section, bool) {
	for _, s := range r.Sections {
		if s.Type == typ && s.Label == label {
			return s, true
		}
	}
	return Section{}, false
}

// loader holds the state of one Load.
type loader struct {
	file  string
	src   []byte
	errs  Errors // syntax, names, types and ranges
	cross Errors // relations between values; reported only when errs is empty
	check func(block string, cfg blocks.Config) error

	blockRanges map[string]hcl.Range
}

func (l *loader) errorf(r hcl.Range, format string, a ...any) {
	l.errs = append(l.errs, &Error{Pos: posOf(r), Msg: fmt.Sprintf(format, a...)})
}

func (l *loader) crossf(r hcl.Range, format string, a ...any) {
	l.cross = append(l.cross, &Error{Pos: posOf(r), Msg: fmt.Sprintf(format, a...)})
}

func (l *loader) diag(d *hcl.Diagnostic) {
	pos := Pos{File: l.file, Line: 1, Col: 1}
	if d.Subject != nil {
		pos = posOf(*d.Subject)
	}
	msg := d.Summary
	if d.Detail != "" {
		msg += ": " + strings.TrimSuffix(d.Detail, ".")
	}
	// HCL writes positions as file:line,col-col; ours are file:line:col
	msg = hclPos.ReplaceAllString(msg, "$1:$2:$3")
	// HCL's words name its own terms (an expression, a function); the
	// user's is the attribute of the line
	if name := attrOfLine(l.src, pos.Line); name != "" && !strings.HasPrefix(msg, name) {
		msg = name + ": " + msg
	}
	l.errs = append(l.errs, &Error{Pos: pos, Msg: msg})
}

var hclPos = regexp.MustCompile(`(\S+):(\d+),(\d+)(-\d+)?`)

// section is one block of the file being resolved.
type section struct {
	sec    string    // schema key: "", network, hardware or a block name
	header hcl.Range // the block type or label, where section-wide problems are reported
	attrs  map[string]*hclsyntax.Attribute
	out    Section
}

func newSection(sec string, header hcl.Range, body *hclsyntax.Body, out Section) *section {
	s := &section{sec: sec, header: header, attrs: map[string]*hclsyntax.Attribute{}, out: out}
	if body != nil {
		for n, a := range body.Attributes {
			s.attrs[n] = a
		}
	}
	return s
}

// where is the range to blame for a value: the attribute if written,
// else the section header.
func (s *section) where(name string) hcl.Range {
	if a, ok := s.attrs[name]; ok {
		return a.Expr.Range()
	}
	return s.header
}

// origin says where a value came from, for messages about other values.
func (s *section) origin(name string) string {
	for _, st := range s.out.Settings {
		if st.Name == name {
			if st.Source == SourceSet {
				return "set at " + st.Pos.String()
			}
			if st.Why != "" {
				return st.Source.String() + ": " + st.Why
			}
			return st.Source.String()
		}
	}
	return ""
}

func (s *section) record(st Setting) { s.out.Settings = append(s.out.Settings, st) }

func (s *section) info(name, value, why string) {
	s.record(Setting{Name: name, Value: value, Source: SourceDerived, Why: why, Info: true})
}

// value evaluates a written attribute of the section, or returns false if
// it is not written. Evaluation has no variables and no functions: a
// configuration is data, with arithmetic allowed.
func (l *loader) value(s *section, name string) (cty.Value, *hclsyntax.Attribute, bool) {
	a, ok := s.attrs[name]
	if !ok {
		return cty.NilVal, nil, false
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		for _, d := range diags {
			if d.Severity != hcl.DiagError {
				continue
			}
			if strings.Contains(d.Detail, "divide zero by zero") {
				// HCL's own words name its operation, not the attribute
				l.errorf(a.Expr.Range(), "%s: the expression divides by zero", name)
				continue
			}
			l.diag(d)
		}
		return cty.NilVal, nil, false
	}
	if v.Type() == cty.Number && v.AsBigFloat().IsInf() {
		l.errorf(a.Expr.Range(), "%s: the expression is infinite (a division by zero?): want %s", name, mustSpec(s.sec, name).Kind)
		return cty.NilVal, nil, false
	}
	if v.IsNull() {
		l.errorf(a.Expr.Range(), "%s: want %s, got null", name, mustSpec(s.sec, name).Kind)
		return cty.NilVal, nil, false
	}
	if !v.IsWhollyKnown() {
		l.errorf(a.Expr.Range(), "%s: the value is not known", name)
		return cty.NilVal, nil, false
	}
	return v, a, true
}

func mustSpec(sec, name string) attrSpec {
	a, ok := specOf(sec, name)
	if !ok {
		panic(fmt.Sprintf("config: no attribute %q in section %q", name, sec)) // a bug in resolve.go, never user input
	}
	return a
}

func typeOf(v cty.Value) string {
	t := v.Type()
	switch {
	case t == cty.String:
		return fmt.Sprintf("the string %q", v.AsString())
	case t == cty.Bool:
		return "a bool"
	case t == cty.Number:
		return "the number " + numText(v.AsBigFloat())
	case t.IsTupleType() || t.IsListType():
		return "a list"
	case t.IsObjectType() || t.IsMapType():
		return "an object"
	}
	return t.FriendlyName()
}

// numText writes a number as a person would: whole numbers in full up
// to 15 digits, others with 10 significant digits.
func numText(f *big.Float) string {
	if f.IsInt() && !f.IsInf() {
		if abs := new(big.Float).Abs(f); abs.Cmp(big.NewFloat(1e15)) < 0 {
			return f.Text('f', 0)
		}
	}
	return f.Text('g', 10)
}

// whole reads a written whole-number attribute and checks its range.
func (l *loader) whole(s *section, name string) (uint64, bool) {
	spec := mustSpec(s.sec, name)
	v, a, ok := l.value(s, name)
	if !ok {
		return 0, false
	}
	var n uint64
	switch {
	case v.Type() == cty.Number:
		bf := v.AsBigFloat()
		if bf.IsInf() || !bf.IsInt() {
			l.errorf(a.Expr.Range(), "%s: want %s, got %s", name, spec.Kind, typeOf(v))
			return 0, false
		}
		// compare as floats: the integer of 1e1000000000 would take a gigabyte
		if bf.Cmp(new(big.Float).SetUint64(spec.Lo)) < 0 || bf.Cmp(new(big.Float).SetUint64(spec.Hi)) > 0 {
			l.errorf(a.Expr.Range(), "%s = %s is out of range: must be %s", name, numText(bf), mustText(spec))
			return 0, false
		}
		n, _ = bf.Uint64()
	case v.Type() == cty.String && spec.Kind == kindSeed:
		text := strings.TrimSpace(v.AsString())
		u, err := strconv.ParseUint(text, 0, 64)
		if err != nil {
			l.errorf(a.Expr.Range(), "%s: %q is not a whole number (write 2900503867 or \"0xACE12D3B\")", name, v.AsString())
			return 0, false
		}
		if u < spec.Lo || u > spec.Hi {
			l.errorf(a.Expr.Range(), "%s = %s is out of range: must be %s", name, text, mustText(spec))
			return 0, false
		}
		n = u
	default:
		l.errorf(a.Expr.Range(), "%s: want %s, got %s", name, spec.Kind, typeOf(v))
		return 0, false
	}
	return n, true
}

// number reads a written number attribute and checks its range.
func (l *loader) number(s *section, name string) (float64, bool) {
	spec := mustSpec(s.sec, name)
	v, a, ok := l.value(s, name)
	if !ok {
		return 0, false
	}
	if v.Type() != cty.Number {
		l.errorf(a.Expr.Range(), "%s: want %s, got %s", name, spec.Kind, typeOf(v))
		return 0, false
	}
	bf := v.AsBigFloat()
	f, _ := bf.Float64()
	if bf.IsInf() || f < spec.Min || f > spec.Max {
		l.errorf(a.Expr.Range(), "%s = %s is out of range: must be %s", name, numText(bf), mustText(spec))
		return 0, false
	}
	return f, true
}

// boolean reads a written bool attribute.
func (l *loader) boolean(s *section, name string) (bool, bool) {
	spec := mustSpec(s.sec, name)
	v, a, ok := l.value(s, name)
	if !ok {
		return false, false
	}
	if v.Type() != cty.Bool {
		l.errorf(a.Expr.Range(), "%s: want %s, got %s", name, spec.Kind, typeOf(v))
		return false, false
	}
	return v.True(), true
}

// str reads a written string attribute.
func (l *loader) str(s *section, name string) (string, bool) {
	spec := mustSpec(s.sec, name)
	v, a, ok := l.value(s, name)
	if !ok {
		return "", false
	}
	if v.Type() != cty.String {
		l.errorf(a.Expr.Range(), "%s: want %s, got %s", name, spec.Kind, typeOf(v))
		return "", false
	}
	return v.AsString(), true
}

func (l *loader) setting(s *section, name, value string) {
	s.record(Setting{Name: name, Value: value, Source: SourceSet, Pos: posOf(s.attrs[name].Expr.Range())})
}

// wholeOr is a whole-number attribute: the file's value, or def (a default
// or a derivation, as src says, for the reason why).
func (l *loader) wholeOr(s *section, name string, def uint64, src Source, why string) uint64 {
	if v, ok := l.whole(s, name); ok {
		l.setting(s, name, strconv.FormatUint(v, 10))
		return v
	}
	s.record(Setting{Name: name, Value: strconv.FormatUint(def, 10), Source: src, Why: why})
	return def
}

// seedOr is wholeOr for a seed, shown in hex.
func (l *loader) seedOr(s *section, name string, def uint64, why string) uint64 {
	if v, ok := l.whole(s, name); ok {
		l.setting(s, name, fmt.Sprintf("%q", fmt.Sprintf("0x%X", v)))
		return v
	}
	s.record(Setting{Name: name, Value: fmt.Sprintf("%q", fmt.Sprintf("0x%X", def)), Source: SourceDefault, Why: why})
	return def
}

func (l *loader) numberOr(s *section, name string, def float64, why string) float64 {
	if v, ok := l.number(s, name); ok {
		l.setting(s, name, fmtNum(v))
		return v
	}
	s.record(Setting{Name: name, Value: fmtNum(def), Source: SourceDefault, Why: why})
	return def
}

func (l *loader) boolOr(s *section, name string, def bool, why string) bool {
	if v, ok := l.boolean(s, name); ok {
		l.setting(s, name, strconv.FormatBool(v))
		return v
	}
	s.record(Setting{Name: name, Value: strconv.FormatBool(def), Source: SourceDefault, Why: why})
	return def
}

// required reads a required attribute; a missing one is reported at the
// section header and fallback stands in so that resolution can go on.
func (l *loader) requiredWhole(s *section, name string, fallback uint64) uint64 {
	if _, ok := s.attrs[name]; !ok {
		spec := mustSpec(s.sec, name)
		l.errorf(s.header, "%s: missing attribute %s (%s: %s)", sectionTitle(s.sec), name, rangeText(spec), spec.Doc)
		return fallback
	}
	if v, ok := l.whole(s, name); ok {
		l.setting(s, name, strconv.FormatUint(v, 10))
		return v
	}
	return fallback
}

func (l *loader) requiredNumber(s *section, name string, fallback float64) float64 {
	if _, ok := s.attrs[name]; !ok {
		spec := mustSpec(s.sec, name)
		l.errorf(s.header, "%s: missing attribute %s (%s: %s)", sectionTitle(s.sec), name, rangeText(spec), spec.Doc)
		return fallback
	}
	if v, ok := l.number(s, name); ok {
		l.setting(s, name, fmtNum(v))
		return v
	}
	return fallback
}

// unknownAttrs reports the attributes of a section that no resolver read:
// misspelt names, names of another section, and options of the other
// SMaRTT variant.
func (l *loader) unknownAttrs(s *section, read map[string]bool) {
	var left []*hclsyntax.Attribute
	for n, a := range s.attrs {
		if !read[n] {
			left = append(left, a)
		}
	}
	sort.Slice(left, func(i, j int) bool { return left[i].NameRange.Start.Byte < left[j].NameRange.Start.Byte })
	schema, _ := sectionSchema(s.sec)
	for _, a := range left {
		if spec, ok := specOf(s.sec, a.Name); ok && spec.Only != "" && spec.Only != s.sec {
			l.errorf(a.NameRange, "%s applies to block %q only: %s", a.Name, spec.Only, spec.OnlyWhy)
			continue
		}
		valid := applicable(s.sec, schema)
		msg := fmt.Sprintf("unknown attribute %q in %s", a.Name, sectionTitle(s.sec))
		if near := Nearest(a.Name, valid); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		} else if home := homeOf(a.Name); home != "" {
			msg += fmt.Sprintf("; it belongs in %s", home)
		} else {
			msg += fmt.Sprintf(" (attributes: %s)", strings.Join(valid, ", "))
		}
		l.errorf(a.NameRange, "%s", msg)
	}
}

// unusedAttrs reports the attributes a block's section writes that its
// Resolve did not read: an option of a feature the configuration leaves
// off would otherwise be dropped without a word. Only for a section that
// resolved without error (an early return reads no further).
func (l *loader) unusedAttrs(s *section, read map[string]bool) {
	var left []*hclsyntax.Attribute
	for n, a := range s.attrs {
		if spec, ok := specOf(s.sec, n); ok && !read[n] && (spec.Only == "" || spec.Only == s.sec) {
			left = append(left, a)
		}
	}
	sort.Slice(left, func(i, j int) bool { return left[i].NameRange.Start.Byte < left[j].NameRange.Start.Byte })
	for _, a := range left {
		spec, _ := specOf(s.sec, a.Name)
		if spec.Needs != "" {
			l.errorf(a.NameRange, "%s has no effect in %s without %s: set %s or remove %s", a.Name, sectionTitle(s.sec), spec.Needs, spec.Needs, a.Name)
			continue
		}
		l.errorf(a.NameRange, "%s has no effect in this configuration of %s: an option of a feature it leaves off (docs/config.md); remove it", a.Name, sectionTitle(s.sec))
	}
}

// applicable lists the attribute names a section takes.
func applicable(sec string, schema []attrSpec) []string {
	var out []string
	for _, a := range schema {
		if a.Only == "" || a.Only == sec {
			out = append(out, a.Name)
		}
	}
	return out
}

// homeOf names the other sections an attribute belongs to, if any.
func homeOf(name string) string {
	var homes, blockNames []string
	for _, sec := range []string{secTop, secNetwork, secHardware} {
		if _, ok := specOf(sec, name); ok {
			homes = append(homes, sectionTitle(sec))
		}
	}
	for _, b := range BlockNames() {
		schema, _ := sectionSchema(b)
		for _, a := range applicable(b, schema) {
			if a == name {
				blockNames = append(blockNames, strconv.Quote(b))
			}
		}
	}
	if len(blockNames) > 0 {
		homes = append(homes, "block "+strings.Join(blockNames, " or "))
	}
	return strings.Join(homes, " or ")
}

// describe is the configuration's one-line description, recorded in every
// generated file header.
func describe(name string, n network, h hardware) string {
	return fmt.Sprintf("%s (%s Gb/s, %s MTU, %s base RTT, %d connections, %s MHz)",
		name, fmtNum(n.link), fmtBytes(n.mtu), fmtNs(n.rtt), h.conns, fmtNum(h.clock))
}

func fmtBytes(b uint64) string {
	if b%1024 == 0 {
		return fmt.Sprintf("%d KiB", b/1024)
	}
	return fmt.Sprintf("%d B", b)
}

func fmtNs(ns uint64) string {
	if ns < 1000 {
		return fmt.Sprintf("%d ns", ns)
	}
	return strconv.FormatFloat(float64(ns)/1000, 'f', -1, 64) + " us"
}

func baseName(path string) string {
	b := filepath.Base(path)
	return strings.TrimSuffix(b, filepath.Ext(b))
}
