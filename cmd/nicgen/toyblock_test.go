package main

// A toy block registered only in this file runs through generate, budget,
// sim and equiv: everything the tools know of a block comes from its
// description (package block), with no code for it anywhere else. It is
// the worked example of docs/adding-a-block.md.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	"github.com/nicgen/nicgen/golden/pipe"
	"github.com/nicgen/nicgen/hdlgen"
)

// toyParams: a byte counter per connection.
type toyParams struct {
	connpipe.Core
	NumConn, ConnW, CountW int
}

func toyBuild(p toyParams) (*hdlgen.Module, error) {
	m := hdlgen.NewModule("toy_counter", "Toy block of the contributor guide: a wrapping counter per connection.")
	word := hdlgen.NewLayout("toy_word").Field("count", p.CountW, "running sum")
	spec := connpipe.Spec{
		NumConn: p.NumConn, ConnW: p.ConnW, KindW: 1, NumKinds: 2, KindNames: []string{"open", "add"},
		EventFields:  []connpipe.Field{{Name: "amount", Width: p.CountW, Doc: "amount to add"}},
		ResultFields: []connpipe.Field{{Name: "count", Width: p.CountW, Doc: "count after the event"}, {Name: "wrapped", Width: 1, Doc: "the sum wrapped"}},
		Word:         word, Core: p.Core,
	}
	err := connpipe.Build(m, spec, func(st connpipe.Step) connpipe.Outcome {
		add := st.KindIs(1)
		sum := st.Cur.F("count").ZExt(p.CountW + 1).Add(st.Event.F("amount").ZExt(p.CountW + 1))
		next := hdlgen.Mux(add, sum.Trunc(p.CountW), hdlgen.Const(p.CountW, 0))
		return connpipe.Outcome{
			Word:   word.Pack(map[string]hdlgen.Value{"count": next}),
			Result: map[string]hdlgen.Value{"count": next, "wrapped": add.And(sum.Bit(p.CountW))},
		}
	})
	return m, err
}

// toyGolden is the toy's golden model, written from its description above
// (not from the DSL): the table starts at zero, open clears a count, add
// adds modulo 2^CountW; a connection past the table or an unknown kind is
// an error that changes nothing and returns zeros.
type toyGolden struct {
	p     toyParams
	count map[uint64]uint64
}

func (g *toyGolden) Reset() {}

func (g *toyGolden) Step(ev map[string]uint64) map[string]uint64 {
	conn, kind := ev["conn"], ev["kind"]
	if conn >= uint64(g.p.NumConn) || kind > 1 {
		return map[string]uint64{"conn": conn, "kind": kind, "count": 0, "wrapped": 0, "error": 1}
	}
	var c, wrapped uint64
	if kind == 1 {
		sum := g.count[conn] + ev["amount"]
		c, wrapped = sum&(1<<uint(g.p.CountW)-1), sum>>uint(g.p.CountW)
	}
	g.count[conn] = c
	return map[string]uint64{"conn": conn, "kind": kind, "count": c, "wrapped": wrapped, "error": 0}
}

type toyEvent = map[string]uint64

type toyStepper struct{ g *toyGolden }

func (s toyStepper) StepTo(e *toyEvent, r *map[string]uint64) { *r = s.g.Step(*e) }
func (s toyStepper) Reset()                                   {}
func (s toyStepper) ConnKey(e *toyEvent) uint64               { return (*e)["conn"] & (1<<uint(s.g.p.ConnW) - 1) }

type toyCycler struct {
	p *pipe.Pipeline[toyEvent, map[string]uint64]
}

func (c toyCycler) Cycle(valid, ready bool, conn uint32) (bool, bool) {
	out := c.p.Cycle(pipe.In[toyEvent]{SValid: valid, MReady: ready, Event: toyEvent{"conn": uint64(conn), "kind": 0}})
	return out.SReady, out.MValid
}

func toyDescriptor() block.Block {
	return block.Define(block.Desc[toyParams]{
		Name:  "toy",
		Title: "Toy: a wrapping counter per connection (docs/adding-a-block.md)",
		Attrs: []block.Attr{
			{Name: "count_width", Kind: block.Whole, Lo: 2, Hi: 32, Unit: "bits", Doc: "width of the counter"},
			{Name: "pipeline_depth", Kind: block.Whole, Lo: 1, Hi: 16, Doc: "datapath stages"},
		},
		Default: func() toyParams { return toyParams{NumConn: 4096, ConnW: 16, CountW: 8, Core: connpipe.Core{Depth: 1}} },
		Resolve: func(s block.Section, env block.Env) toyParams {
			p := toyParams{NumConn: int(env.Conns), ConnW: int(env.ConnW)}
			p.CountW = int(s.Whole("count_width", 8, block.Default, "a byte"))
			p.Depth = int(s.Whole("pipeline_depth", 1, block.Default, "no cut"))
			return p
		},
		Build:   toyBuild,
		Paper:   func(toyParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p toyParams) int { return p.NumConn },
		Kinds:   []string{"open", "add"},
		Golden: func(p toyParams) (block.Golden, error) {
			g := &toyGolden{p: p, count: map[uint64]uint64{}}
			return block.MapGolden([]string{"conn", "kind", "amount"}, []string{"conn", "kind", "count", "wrapped", "error"}, g.Step, g.Reset), nil
		},
		Cycler: func(p toyParams) (block.Cycler, error) {
			g := &toyGolden{p: p, count: map[uint64]uint64{}}
			return toyCycler{pipe.New[toyEvent, map[string]uint64](toyStepper{g}, p.Depth)}, nil
		},
	})
}

const toyConfig = `name = "toy"
network {
  link_gbps   = 100
  mtu         = 4096
  base_rtt_ns = 12000
}
hardware {
  clock_mhz   = 250
  connections = 16
}
block "toy" {
  count_width = 4
}
`

func TestToyBlockEndToEnd(t *testing.T) {
	// not parallel: the registry is global, and the parallel tests of
	// this package read it (the default configuration lists every
	// registered block); sequential tests end before they start
	if err := blocks.Register(toyDescriptor()); err != nil {
		t.Fatal(err)
	}
	defer blocks.Unregister("toy")
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "toy.hcl")
	if err := os.WriteFile(cfgPath, []byte(toyConfig), 0o644); err != nil {
		t.Fatal(err)
	}

	// generate: Verilog, file list, constraints and datasheet, lint clean
	out, err := runCLI(t, "generate", "-c", cfgPath, "--check", "-o", filepath.Join(dir, "rtl"),
		"--constraints", filepath.Join(dir, "xdc"), "--datasheets", filepath.Join(dir, "doc"))
	if err != nil {
		t.Fatalf("generate: %v\n%s", err, out)
	}
	for _, f := range []string{"rtl/toy/toy_counter.v", "rtl/toy/toy.f", "xdc/toy.xdc", "doc/toy.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("generate did not write %s", f)
		}
	}
	if !strings.Contains(out, "lint clean") {
		t.Errorf("generate --check:\n%s", out)
	}

	// budget: the word is the counter, 4 bits, times 16 connections
	out, err = runCLI(t, "budget", "-c", cfgPath, "--json")
	if err != nil {
		t.Fatalf("budget: %v\n%s", err, out)
	}
	var bs []budgetOut
	if err := json.Unmarshal([]byte(out), &bs); err != nil {
		t.Fatalf("budget --json: %v\n%s", err, out)
	}
	if len(bs) != 1 || bs[0].Block != "toy" || bs[0].PerConnBits != 4 || bs[0].TableBits != 64 {
		t.Errorf("budget: %+v", bs)
	}

	// sim: the golden model over a trace, by field name
	trace := filepath.Join(dir, "ev.jsonl")
	os.WriteFile(trace, []byte(`{"conn":3,"kind":"open"}
{"conn":3,"kind":"add","amount":9}
{"conn":3,"kind":"add","amount":9}
{"conn":20,"kind":"add","amount":1}
`), 0o644)
	out, err = runCLI(t, "sim", "toy", "-c", cfgPath, "--events", trace)
	if err != nil {
		t.Fatalf("sim: %v\n%s", err, out)
	}
	want := `{"line":1,"conn":3,"kind":"open","count":0,"wrapped":false,"error":false}
{"line":2,"conn":3,"kind":"add","count":9,"wrapped":false,"error":false}
{"line":3,"conn":3,"kind":"add","count":2,"wrapped":true,"error":false}
{"line":4,"conn":20,"kind":"add","count":0,"wrapped":false,"error":true}
`
	if out != want {
		t.Errorf("sim:\n%s\nwant\n%s", out, want)
	}

	// vectors: a header, then events whose fields are named after the
	// ports and whose expectations are the golden model's
	out, err = runCLI(t, "vectors", "toy", "-c", cfgPath, "-n", "3", "--seed", "5")
	if err != nil {
		t.Fatalf("vectors: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], `"block":"toy"`) || !strings.Contains(lines[0], `"kinds":["open","add"]`) {
		t.Fatalf("vectors:\n%s", out)
	}
	if want := `{"conn":0,"kind":0,"amount":`; !strings.HasPrefix(lines[1], want) || !strings.HasSuffix(lines[1], `"expect":{"conn":0,"kind":0,"count":0,"wrapped":false,"error":false}}`) {
		t.Errorf("first vector %s: want an open of connection 0", lines[1])
	}
	g := &toyGolden{p: toyParams{NumConn: 16, ConnW: 16, CountW: 4, Core: connpipe.Core{Depth: 1}}, count: map[uint64]uint64{}}
	for _, l := range lines[1:] {
		var v struct {
			Conn, Kind, Amount uint64
			Expect             struct {
				Count   uint64
				Wrapped bool
			}
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		r := g.Step(map[string]uint64{"conn": v.Conn, "kind": v.Kind, "amount": v.Amount})
		if r["count"] != v.Expect.Count || (r["wrapped"] == 1) != v.Expect.Wrapped {
			t.Errorf("vector %s: the golden model gives %v", l, r)
		}
	}

	// equiv: the RTL against the golden model under the generic bench
	out, err = runCLI(t, "equiv", "toy", "-c", cfgPath, "--cycles", "200000")
	if err != nil {
		t.Fatalf("equiv: %v\n%s", err, out)
	}
	t.Logf("equiv:\n%s", out)
	if !strings.Contains(out, "toy: equivalent to the golden model") {
		t.Errorf("equiv:\n%s", out)
	}
}

// A wrong golden model fails equiv, and the mismatch report names the
// event kinds instead of printing them in hex.
func TestToyBlockMismatchReport(t *testing.T) {
	// not parallel: the registry is global, and the parallel tests of
	// this package read it (the default configuration lists every
	// registered block); sequential tests end before they start
	d := toyDescriptor()
	wrong := block.Define(block.Desc[toyParams]{
		Name: "toy_wrong", Title: "toy with a golden model that never reports a wrap", Attrs: d.Attrs,
		Default: func() toyParams { return toyParams{NumConn: 16, ConnW: 16, CountW: 4, Core: connpipe.Core{Depth: 1}} },
		Resolve: func(s block.Section, env block.Env) toyParams {
			return toyParams{NumConn: int(env.Conns), ConnW: int(env.ConnW), CountW: int(s.Whole("count_width", 8, block.Default, "a byte")),
				Core: connpipe.Core{Depth: int(s.Whole("pipeline_depth", 1, block.Default, "no cut"))}}
		},
		Build:   toyBuild,
		Paper:   func(toyParams) (block.PaperFigure, bool) { return block.PaperFigure{}, false },
		NumConn: func(p toyParams) int { return p.NumConn },
		Kinds:   []string{"open", "add"},
		Golden: func(p toyParams) (block.Golden, error) {
			g := &toyGolden{p: p, count: map[uint64]uint64{}}
			step := func(ev map[string]uint64) map[string]uint64 {
				r := g.Step(ev)
				r["wrapped"] = 0 // wrong: the sum never wraps
				return r
			}
			return block.MapGolden([]string{"conn", "kind", "amount"}, []string{"conn", "kind", "count", "wrapped", "error"}, step, g.Reset), nil
		},
		Cycler: func(p toyParams) (block.Cycler, error) {
			g := &toyGolden{p: p, count: map[uint64]uint64{}}
			return toyCycler{pipe.New[toyEvent, map[string]uint64](toyStepper{g}, p.Depth)}, nil
		},
	})
	if err := blocks.Register(wrong); err != nil {
		t.Fatal(err)
	}
	defer blocks.Unregister("toy_wrong")
	cfgPath := filepath.Join(t.TempDir(), "w.hcl")
	os.WriteFile(cfgPath, []byte(strings.Replace(toyConfig, `block "toy"`, `block "toy_wrong"`, 1)), 0o644)
	out, err := runCLI(t, "equiv", "toy_wrong", "-c", cfgPath, "--cycles", "100000", "--waves", t.TempDir())
	if err == nil {
		t.Fatalf("a wrong golden model passed equiv:\n%s", out)
	}
	msg := err.Error()
	if !strings.Contains(msg, "mismatch at cycle") || !strings.Contains(msg, "m_result_wrapped") {
		t.Fatalf("report:\n%s", msg)
	}
	// the kind columns hold names
	if !regexp.MustCompile(`(?m)^\s+\*?\s*m_result_kind\s+(open|add)\s+(open|add)`).MatchString(msg) {
		t.Errorf("the result kind is not named in the report:\n%s", msg)
	}
}

// A registered block is in the embedded default build with no line in
// default.hcl: the registration line is the only one outside its packages.
func TestToyBlockInDefault(t *testing.T) {
	// not parallel: the registry is global, and the parallel tests of
	// this package read it (the default configuration lists every
	// registered block); sequential tests end before they start
	if err := blocks.Register(toyDescriptor()); err != nil {
		t.Fatal(err)
	}
	defer blocks.Unregister("toy")
	out, err := runCLI(t, "config", "check")
	if err != nil || !strings.Contains(out, "toy") {
		t.Fatalf("config check of the default with toy registered: %v\n%s", err, out)
	}
	out, err = runCLI(t, "budget", "toy")
	if err != nil || !strings.Contains(out, "toy: 8 bits (1 byte) per connection") {
		t.Errorf("budget toy from the default configuration: %v\n%s", err, out)
	}
}
